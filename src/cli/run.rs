//! `nesprof run`: headless emulation with a contract-fixed summary line.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use clap::Args;

use emu::nes::Engine;
use emu::translate::hot_paths::HotPaths;
use emu::translate::region::RegionChoice;
use profiler::cfg_file::CfgFile;
use profiler::region_guide::SampledGuide;

use crate::emit::emit;
use crate::error::BadInput;
use crate::open::open;
use crate::options;
use crate::write_policy::WritePolicy;

/// Frames run when neither `--frames` nor a movie says how many.
const DEFAULT_FRAMES: u64 = 600;

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The iNES (.nes) file to run.
    pub rom: PathBuf,
    /// Stop at the end of this frame (counted from power-on). Default: 600,
    /// or with --movie the movie's length. 1 to 100000000.
    #[arg(long, value_parser = crate::options::frames())]
    pub frames: Option<u64>,
    /// Replay this FCEUX movie: frame k reads input line k. The machine
    /// powers on as FCEUX does for movies (see `emu::movie`).
    #[arg(long, value_name = "F.fm2")]
    pub movie: Option<PathBuf>,
    /// With --movie: replay even if the movie's romChecksum names another
    /// ROM (normally an error, since the replay would desync); only a
    /// warning is printed. For hacks or re-dumps known to be compatible.
    #[arg(long)]
    pub ignore_rom_mismatch: bool,
    /// CPU engine: the dynamic translator (default) or the interpreter; both
    /// give bit-identical runs.
    #[arg(long, value_parser = options::engine(), default_value = "translate")]
    pub engine: Engine,
    /// Translator only, for measuring: run wait loops (wait-for-NMI loops
    /// on RAM, `$2002` vblank polls) iteration by iteration instead of
    /// counting them in one step (results identical).
    #[arg(long)]
    pub no_idle_skip: bool,
    /// Translator only, experimental: hot regions, runs of blocks along
    /// the hot paths run as one unit (results identical; prints on stderr
    /// what they covered). `sampled`: chosen by the hot CFG the sampler
    /// and the trace builder keep as the run goes (at the default rate,
    /// running only for this); `exact`: by the H90 of a truth CFG
    /// (--regions-from, the oracle); `net`: by counters on the targets of
    /// backward jumps and branches; `off`: every block on its own. Faster
    /// on code that loops in long paths, slower on most games so far
    /// (BENCHMARKS.md, "Hot regions"; EXPERIMENTS.md).
    #[arg(long, value_enum, default_value = "off")]
    pub regions: RegionsArg,
    /// With --regions exact: the CFG record to take the hot paths from,
    /// `profile`'s truth.ron of the same ROM (the H90 of its edges outside
    /// wait loops is used; a record of another kind, such as hot_cfg.ron,
    /// is used as it is).
    #[arg(long, value_name = "F.ron")]
    pub regions_from: Option<PathBuf>,
    /// With --regions sampled: X, milliseconds of emulated time between
    /// the sampler's batches (as `profile --interval-ms`), 0.01 to 60000.
    #[arg(long, value_parser = options::interval_ms())]
    pub interval_ms: Option<f64>,
    /// Write the last frame as a 256×240 PNG.
    #[arg(long, value_name = "F.png")]
    pub screenshot: Option<PathBuf>,
    /// Also write the run's audio to this file (16-bit mono PCM WAV, 48 kHz).
    #[arg(long, value_name = "F.wav")]
    pub wav: Option<PathBuf>,
}

/// `run --regions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RegionsArg {
    Off,
    Net,
    Sampled,
    Exact,
}

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    if args.screenshot.is_some() || args.wav.is_some() {
        // Only a run that writes files has anything to stop cleanly; a
        // plain run keeps the default (Ctrl-C ends it at once).
        crate::signals::install();
    }
    WritePolicy::new()
        .input("ROM", &args.rom)
        .maybe_input("--movie", args.movie.as_ref())
        .maybe_input("--regions-from", args.regions_from.as_ref())
        .maybe_file("--screenshot", args.screenshot.as_ref())
        .maybe_file("--wav", args.wav.as_ref())
        .check()?;
    for path in args.screenshot.iter().chain(&args.wav) {
        crate::atomic::check(path)?;
    }
    match (args.regions, &args.regions_from) {
        (RegionsArg::Exact, None) => return Err(BadInput(
            "--regions exact needs --regions-from F.ron (a truth.ron `profile` wrote for this ROM)"
                .into(),
        )
        .into()),
        (RegionsArg::Off | RegionsArg::Net | RegionsArg::Sampled, Some(_)) => {
            return Err(BadInput("--regions-from goes with --regions exact only".into()).into())
        }
        _ => {}
    }
    if args.interval_ms.is_some() && args.regions != RegionsArg::Sampled {
        return Err(BadInput("--interval-ms goes with --regions sampled only".into()).into());
    }
    if args.regions != RegionsArg::Off && args.engine != Engine::Translator {
        return Err(BadInput("--regions is the translator's (--engine translate)".into()).into());
    }
    let opened = open(&args.rom, args.movie.as_deref(), args.ignore_rom_mismatch)?;
    let (mut nes, replay) = (opened.nes, opened.replay);
    nes.set_engine(args.engine);
    nes.set_idle_skip(!args.no_idle_skip);
    let mut guide = None;
    match args.regions {
        RegionsArg::Off => {}
        RegionsArg::Net => nes.set_regions(RegionChoice::NET),
        RegionsArg::Exact => {
            let path = args.regions_from.as_deref().unwrap_or(Path::new(""));
            let prg = nes.cartridge().prg_rom.to_vec();
            let paths = exact_paths(path, &opened.rom, prg)?;
            nes.set_regions(RegionChoice::Guided(Arc::new(paths)));
        }
        RegionsArg::Sampled => {
            let defaults = profiler::session::ProfileSettings::default();
            let settings = profiler::session::ProfileSettings {
                engine: args.engine,
                interval_ms: args.interval_ms.unwrap_or(defaults.interval_ms),
                ..defaults
            };
            guide = Some(SampledGuide::attach(&mut nes, &settings));
        }
    }
    let frames = args
        .frames
        .unwrap_or(replay.as_ref().map_or(DEFAULT_FRAMES, |r| r.len()));
    // The audio goes to the WAV's temporary as each frame makes it (the
    // whole run's in memory grew 690 MB an emulated hour); a signal stops
    // the run at a frame's end, so that the temporary is removed.
    let rate = crate::audio::DEFAULT_SAMPLE_RATE;
    let mut wav = match &args.wav {
        Some(path) => {
            crate::audio::wav::check_frames(path, rate, frames)?;
            nes.enable_audio(rate);
            Some(crate::audio::wav::WavStream::create(path, rate)?)
        }
        None => None,
    };
    let mut audio = Vec::new();
    let start = Instant::now();
    let mut instructions: u64 = 0;
    while nes.frame_count() < frames {
        if let Some(replay) = &replay {
            replay
                .apply(&mut nes, frames)
                .map_err(|p| BadInput(format!("{}: {p}", args.rom.display())))?;
            if nes.frame_count() >= frames {
                break;
            }
        }
        let before = nes.retired();
        nes.run_frame();
        instructions += nes.retired() - before;
        if let Some(guide) = &mut guide {
            guide.after_frame(&mut nes);
        }
        if let Some(wav) = &mut wav {
            audio.clear();
            nes.take_audio(&mut audio);
            wav.write(&audio)?;
        }
        crate::signals::check()?;
    }
    let seconds = start.elapsed().as_secs_f64();
    let updates = guide.map(|g| {
        let updates = g.updates;
        g.finish(&mut nes);
        updates
    });
    if let Some(path) = &args.screenshot {
        crate::screenshot::save(&nes, path)?;
    }
    if let Some(wav) = wav {
        wav.finish()?;
    }
    if let Some((pc, opcode)) = nes.jammed() {
        eprintln!("warning: CPU jammed by opcode ${opcode:02X} at ${pc:04X}");
    }
    emit(&format!(
        "frames={} instructions={} cycles={} fps={:.1} frame_hash={:016x} ram_hash={:016x}",
        nes.frame_count(),
        instructions,
        nes.cycles(),
        frames as f64 / seconds.max(1e-9),
        nes.frame_hash(),
        nes.ram_hash()
    ));
    if args.regions != RegionsArg::Off {
        let s = nes.region_stats();
        let share = s.ops as f64 / instructions.max(1) as f64 * 100.0;
        let busy = instructions.saturating_sub(s.idle);
        let busy_share = s.ops as f64 / busy.max(1) as f64 * 100.0;
        eprintln!(
            "regions: formed={} runs={} ops={} ({share:.1} % of instructions, {busy_share:.1} % of the {busy} outside idle loops) exits={} missed={}{}",
            s.formed,
            s.runs,
            s.ops,
            s.exits,
            s.missed,
            updates.map_or(String::new(), |u| format!(" guide_updates={u}"))
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `--regions exact`: the hot paths of the CFG record at `path`, made
/// from `rom` (PRG ROM `prg`): the busy code's H90 of a truth
/// (`region_guide::busy_hot`), another record as it is.
pub fn exact_paths(path: &Path, rom: &[u8], prg: Vec<u8>) -> anyhow::Result<HotPaths> {
    let record = CfgFile::read(path).map_err(|e| BadInput(e.to_string()))?;
    if record.rom_hash != format!("{:016x}", emu::hash::fnv1a64(rom)) {
        return Err(BadInput(format!(
            "--regions-from {}: made from another ROM ({})",
            path.display(),
            record.rom_name
        ))
        .into());
    }
    let hot = if record.kind == "truth" {
        let mut waits = profiler::frame_profile::sampled::WaitLoops::from_prg(prg);
        profiler::region_guide::busy_hot(&record.cfg, &mut waits)
    } else {
        record.cfg
    };
    Ok(profiler::region_guide::hot_paths(&hot))
}
