//! `nesprof cfg`: CFGs on their own — record the exact one from a run,
//! rebuild the hot one offline from a recorded sample stream, render a
//! record as Graphviz DOT, and compare two records.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::builder::TypedValueParser;
use clap::{Args, Subcommand};
use emu::nes::Engine;
use gfc::{BuilderKind, GfcParams, HotTruth, Metrics};
use profiler::cfg_file::{CfgFile, EdgeConfidence};
use profiler::stream::{StreamError, StreamReader, StreamTrailer};

use crate::emit::emit;
use crate::error::BadInput;
use crate::notice;
use crate::open::open;
use crate::options;
use crate::output_set::{OutputSet, Tool, CFG_BUILD_FILES};
use crate::progress::frames_bar;
use crate::symbol_files::{self, SymbolArgs};
use crate::write_policy::WritePolicy;

/// Frames recorded when neither `--frames` nor a movie says how many.
const DEFAULT_FRAMES: u64 = 600;

#[derive(Debug, Args)]
pub struct CfgArgs {
    #[command(subcommand)]
    pub command: CfgCommand,
}

#[derive(Debug, Subcommand)]
pub enum CfgCommand {
    /// Run a ROM with the ground-truth recorder and write its exact CFG as RON.
    Record(RecordArgs),
    /// Rebuild the hot CFG offline from a recorded sample stream (a
    /// profile's samples.bin) and compare it with the exact CFG; prints the
    /// same last line as `profile`.
    Build(BuildArgs),
    /// Render a recorded CFG as Graphviz DOT (hot subgraph H90 highlighted).
    Dot(DotArgs),
    /// Compare two recorded CFGs; exit 0 if identical, 1 if they differ.
    Diff(DiffArgs),
}

#[derive(Debug, Args)]
pub struct RecordArgs {
    /// The iNES (.nes) file to run.
    pub rom: PathBuf,
    /// Replay this FCEUX movie while recording.
    #[arg(long, value_name = "F.fm2")]
    pub movie: Option<PathBuf>,
    /// With --movie: replay even if the movie's romChecksum names another
    /// ROM (normally an error, since the replay would desync); only a
    /// warning is printed. For hacks or re-dumps known to be compatible.
    #[arg(long)]
    pub ignore_rom_mismatch: bool,
    /// Frames to run (default: the movie's length, else 600), 1 to 100000000.
    #[arg(long, value_parser = crate::options::frames())]
    pub frames: Option<u64>,
    /// CPU engine; both record the identical CFG.
    #[arg(long, value_parser = options::engine(), default_value = "translate")]
    pub engine: Engine,
    /// Where to write the CFG record.
    #[arg(long, value_name = "F.ron")]
    pub out: PathBuf,
    /// Also write it as Graphviz DOT.
    #[arg(long, value_name = "F.dot")]
    pub dot: Option<PathBuf>,
    #[command(flatten)]
    pub symbols: SymbolArgs,
}

#[derive(Debug, Args)]
pub struct BuildArgs {
    /// A sample stream written by `profile` (samples.bin).
    pub samples: PathBuf,
    /// The exact CFG of the same run (the profile's truth.ron).
    #[arg(long, value_name = "truth.ron")]
    pub truth: PathBuf,
    /// The hot-CFG builder (see `profile --help`).
    #[arg(long, value_parser = options::builder(), default_value = "trace")]
    pub builder: BuilderKind,
    /// GFCGaussiano parameters binSize,stdevThreshold,windowSize,recurrentThreshold
    /// (builder gfc only).
    #[arg(long, default_value = "10,15,13,5")]
    pub config: GfcParams,
    /// Also write hot_cfg.ron, hot_cfg.dot and edge_profile.ron here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub symbols: SymbolArgs,
    /// The ROM the record was made from: its size places labels of a
    /// 16 KiB program, and label files beside it are read.
    #[arg(long, value_name = "ROM")]
    pub rom: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct DotArgs {
    /// A CFG record written by `cfg record` or `profile`.
    pub cfg: PathBuf,
    /// Output file (default: standard output).
    #[arg(long, value_name = "F.dot")]
    pub out: Option<PathBuf>,
    /// Draw only the hot subgraph H90 instead of the whole graph.
    #[arg(long)]
    pub hot_only: bool,
    #[command(flatten)]
    pub symbols: SymbolArgs,
    /// The ROM the record was made from: its size places labels of a
    /// 16 KiB program, and label files beside it are read.
    #[arg(long, value_name = "ROM")]
    pub rom: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    pub a: PathBuf,
    pub b: PathBuf,
    /// Most differences listed per kind, 0 to 1000000.
    #[arg(long, default_value = "20", value_parser = crate::options::whole(0, 1_000_000).map(|v| v as usize))]
    pub limit: usize,
}

pub fn run(args: CfgArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        CfgCommand::Record(a) => record(a),
        CfgCommand::Build(a) => build(a),
        CfgCommand::Dot(a) => dot(a),
        CfgCommand::Diff(a) => diff(a),
    }
}

fn read_record(path: &Path) -> anyhow::Result<CfgFile> {
    CfgFile::read(path).map_err(|e| BadInput(e.to_string()).into())
}

/// The symbols for a record: `--rom` gives the PRG size, the place to look
/// for label files and what to check them against. Without it the program
/// is taken for an unbanked one (`symbol_files::UNBANKED_PRG`).
fn record_symbols(
    args: &SymbolArgs,
    rom: Option<&Path>,
    record: &CfgFile,
) -> anyhow::Result<Option<profiler::symbols::Symbols>> {
    let Some(path) = rom else {
        return symbol_files::load(args, None);
    };
    let bytes = crate::open::read_rom(path)?;
    let cart = emu::Cartridge::from_bytes(&bytes)
        .map_err(|p| BadInput(format!("{}: {p}", path.display())))?;
    if format!("{:016x}", emu::hash::fnv1a64(&bytes)) != record.rom_hash {
        notice::later(&format!(
            "warning: {} is not the ROM the record was made from ({})",
            path.display(),
            record.rom_name
        ));
    }
    symbol_files::load(args, Some((path, &cart)))
}

fn record(args: RecordArgs) -> anyhow::Result<ExitCode> {
    crate::signals::install();
    WritePolicy::new()
        .input("ROM", &args.rom)
        .maybe_input("--movie", args.movie.as_ref())
        .inputs("--symbols", &args.symbols.files)
        .file("--out", &args.out)
        .maybe_file("--dot", args.dot.as_ref())
        .check()?;
    for path in std::iter::once(&args.out).chain(&args.dot) {
        crate::atomic::check(path)?;
    }
    let opened = open(&args.rom, args.movie.as_deref(), args.ignore_rom_mismatch)?;
    let (mut nes, replay, rom_bytes) = (opened.nes, opened.replay, opened.rom);
    nes.set_engine(args.engine);
    nes.record_flow();
    let frames = args
        .frames
        .unwrap_or(replay.as_ref().map_or(DEFAULT_FRAMES, |r| r.len()));
    let rom_name = args
        .rom
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let bar = frames_bar(frames, &rom_name);
    let start = Instant::now();
    while nes.frame_count() < frames {
        if let Some(replay) = &replay {
            replay
                .apply(&mut nes, frames)
                .map_err(|p| BadInput(format!("{}: {p}", args.rom.display())))?;
            if nes.frame_count() >= frames {
                break;
            }
        }
        nes.run_frame();
        if nes.frame_count() % 64 == 0 {
            bar.set_position(nes.frame_count());
        }
        crate::signals::check()?;
    }
    let counts = nes.take_flow_counts().expect("recorder attached");
    let seconds = start.elapsed().as_secs_f64();
    bar.finish_and_clear();

    let symbols = symbol_files::load(&args.symbols, Some((&args.rom, nes.cartridge())))?;
    let truth = profiler::truth::build(&counts);
    let h90 = gfc::h90(&truth);
    let disasm = profiler::report::disassemble(&truth, Some(&counts), &nes);
    let record = profiler::report::record(
        "truth",
        &rom_name,
        &rom_bytes,
        nes.frame_count(),
        truth,
        disasm,
    );
    crate::atomic::write_or_say(&args.out, record.to_ron())?;
    if let Some(path) = &args.dot {
        let title = format!("{rom_name}: exact CFG, {} frames", record.frames);
        let text = profiler::dot::render(
            &record.cfg,
            Some(&h90),
            &record.disasm,
            &title,
            symbols.as_ref(),
        );
        crate::atomic::write_or_say(path, text)?;
    }
    emit(&format!(
        "frames={} instructions={} blocks={} edges={} edges_h90={} fps={:.1} frame_hash={:016x}",
        nes.frame_count(),
        nes.retired(),
        record.cfg.num_blocks(),
        record.cfg.num_edges(),
        h90.num_edges(),
        nes.frame_count() as f64 / seconds.max(1e-9),
        nes.frame_hash()
    ));
    Ok(ExitCode::SUCCESS)
}

fn build(args: BuildArgs) -> anyhow::Result<ExitCode> {
    crate::signals::install();
    let mut policy = WritePolicy::new();
    policy
        .input("sample stream", &args.samples)
        .input("--truth", &args.truth)
        .inputs("--symbols", &args.symbols.files)
        .maybe_input("--rom", args.rom.as_ref());
    if let Some(out) = &args.out {
        policy.dir("--out", out);
    }
    policy.check()?;
    // A bad --out is refused before anything is read.
    let outputs = args
        .out
        .as_deref()
        .map(|dir| OutputSet::open(dir, Tool::CfgBuild, CFG_BUILD_FILES))
        .transpose()?;
    let bad_stream = |e: StreamError| BadInput(e.to_string());
    // Read a batch at a time: memory is the builder's, whatever the
    // stream's length.
    let mut stream = StreamReader::open(&args.samples).map_err(bad_stream)?;
    let truth = read_record(&args.truth)?;
    if truth.kind != "truth" {
        return Err(BadInput(format!(
            "{}: a CFG record of kind {:?}, not the exact CFG --truth needs (kind \"truth\": a profile's truth.ron, or what `cfg record` writes)",
            args.truth.display(),
            truth.kind
        ))
        .into());
    }
    let header = stream.header();
    if header.rom_hash != truth.rom_hash && !header.rom_hash.is_empty() {
        return Err(BadInput(format!(
            "{} records {} ({}) but {} is the CFG of {} ({})",
            args.samples.display(),
            emu::input_file::shorten(&header.rom_name),
            header.rom_hash,
            args.truth.display(),
            emu::input_file::shorten(&truth.rom_name),
            truth.rom_hash
        ))
        .into());
    }
    let symbols = record_symbols(&args.symbols, args.rom.as_deref(), &truth)?;
    let mut builder = profiler::session::replay_each(stream.by_ref(), args.builder, args.config)
        .map_err(bad_stream)?;
    let trailer = match stream.trailer() {
        Some(t) => {
            if t.frames != truth.frames {
                notice::later(&format!(
                    "warning: {} ran {} frames but {} records {}: not the same run, so the metrics compare two runs",
                    args.samples.display(),
                    t.frames,
                    args.truth.display(),
                    truth.frames
                ));
            }
            t.clone()
        }
        None => {
            notice::later(&format!(
                "warning: {} has no trailer (the run was cut short): totals unknown, sampled_pct is 0",
                args.samples.display()
            ));
            StreamTrailer::default()
        }
    };
    if !trailer.taken_targets.is_empty() {
        // Where the run's branches were taken, as the live builder had it.
        let taken = emu::taken_targets::TakenTargets::from_bits(&trailer.taken_targets);
        builder.set_taken_targets(Some(std::sync::Arc::new(move |a| taken.contains(a))));
    }
    let hot = builder.graph();
    let profile = builder.edge_profile();
    let hot_truth = HotTruth::new(&truth.cfg);
    let metrics = Metrics::evaluate(
        hot,
        profile,
        &hot_truth,
        trailer.sampled_instructions,
        trailer.executed_instructions,
    );
    if let Some(mut outputs) = outputs {
        let record = |kind: &str, cfg: &gfc::Cfg| CfgFile {
            kind: kind.to_string(),
            cfg: cfg.clone(),
            confidence: Vec::new(),
            ..truth.clone()
        };
        let mut hot_record = record("sampled", hot);
        if let Some(confidence) = builder.confidence() {
            hot_record.confidence = EdgeConfidence::of(hot, confidence);
        }
        outputs.write("hot_cfg.ron", hot_record.to_ron())?;
        outputs.write("edge_profile.ron", record("edge_profile", profile).to_ron())?;
        let title = format!(
            "{}: hot CFG ({}, replayed)",
            truth.rom_name,
            if args.builder.has_params() {
                format!("{} {}", args.builder, args.config)
            } else {
                args.builder.to_string()
            }
        );
        let dot = profiler::dot::render(
            hot,
            Some(&hot_truth.h90),
            &truth.disasm,
            &title,
            symbols.as_ref(),
        );
        outputs.write("hot_cfg.dot", dot)?;
        outputs.commit()?;
    }
    emit(&crate::emit::metric_line(&metrics, trailer.frame_hash));
    Ok(ExitCode::SUCCESS)
}

fn dot(args: DotArgs) -> anyhow::Result<ExitCode> {
    crate::signals::install();
    WritePolicy::new()
        .input("CFG record", &args.cfg)
        .inputs("--symbols", &args.symbols.files)
        .maybe_input("--rom", args.rom.as_ref())
        .maybe_file("--out", args.out.as_ref())
        .check()?;
    if let Some(path) = &args.out {
        crate::atomic::check(path)?;
    }
    let record = read_record(&args.cfg)?;
    let symbols = record_symbols(&args.symbols, args.rom.as_deref(), &record)?;
    let h90 = gfc::h90(&record.cfg);
    let title = format!(
        "{}: {} CFG, {} frames",
        record.rom_name, record.kind, record.frames
    );
    let text = if args.hot_only {
        profiler::dot::render(
            &h90,
            Some(&h90),
            &record.disasm,
            &format!("{title} (H90)"),
            symbols.as_ref(),
        )
    } else {
        profiler::dot::render(
            &record.cfg,
            Some(&h90),
            &record.disasm,
            &title,
            symbols.as_ref(),
        )
    };
    match &args.out {
        Some(path) => crate::atomic::write_or_say(path, text)?,
        None => {
            for line in text.lines() {
                emit(line);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn diff(args: DiffArgs) -> anyhow::Result<ExitCode> {
    let a = read_record(&args.a)?;
    let b = read_record(&args.b)?;
    if a.rom_hash != b.rom_hash {
        notice::later(&format!(
            "note: the records come from different ROMs ({} {} vs {} {})",
            a.rom_name, a.rom_hash, b.rom_name, b.rom_hash
        ));
    }
    // Records of different kinds (an exact CFG against a sampled one) are
    // expected to differ: the names say which is which.
    let kinds_differ = a.kind != b.kind;
    let name = |p: &Path, record: &CfgFile| {
        let path = notice::line(&p.display().to_string());
        if kinds_differ {
            format!("{path} ({})", record.kind)
        } else {
            path
        }
    };
    let d = profiler::diff::diff(&a.cfg, &b.cfg);
    if d.is_empty() {
        let kinds = if kinds_differ {
            format!(" (a {} and a {} record)", a.kind, b.kind)
        } else {
            String::new()
        };
        emit(&format!(
            "identical: {} blocks, {} edges{kinds}",
            a.cfg.num_blocks(),
            a.cfg.num_edges()
        ));
        return Ok(ExitCode::SUCCESS);
    }
    let report = profiler::diff::report(&d, &name(&args.a, &a), &name(&args.b, &b), args.limit);
    for line in report.lines() {
        emit(line);
    }
    Ok(ExitCode::from(1))
}
