//! The frame-event log (`emu::frame_events`, issue 43) is the same on both
//! engines: every bundled workload and game replays its movie on the
//! interpreter and on the translator, each with and without the other
//! probes (truth recorder, whole and in bursts; sampler; memory recorder,
//! whole and in bursts) and with idle-loop skipping on and off, and after
//! every frame each machine's events (kinds, code addresses, stack
//! pointers, stamps; falls into every `JSR` target watched) and counters (cycles, DMA, wait-loop cycles,
//! controller reads) must equal the plain interpreter's. Random programs
//! get the same comparison from the engine fuzzer (`tests/engine_fuzz.rs`).

mod common;

use emu::frame_events::{FlowEvent, Stamp};
use emu::movie::Replay;
use emu::nes::{Engine, MemoryState};
use emu::sampling::{Batches, SampleCapture, Spacing};
use emu::Nes;

/// Movie frames compared per workload (`NESPROF_EVENTS_FRAMES` to change).
fn frames() -> u64 {
    std::env::var("NESPROF_EVENTS_FRAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(600)
}

/// How a machine runs (the first is the reference).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Config {
    /// The interpreter with the log alone.
    Interpreter,
    /// The interpreter with every probe.
    InterpreterProbed,
    /// The translator with the log alone, idle-loop skipping on or off.
    Translator { idle_skip: bool },
    /// `profile`'s probes: truth recorder and sampler.
    Profile,
    /// `profile --no-truth`: the sampler alone.
    SamplerOnly,
    /// Truth recorded one frame in four, memory recorded and tracked in
    /// bursts, idle-loop skipping off.
    Bursts,
    /// Truth recorder, sampler and memory recorder.
    Everything,
    /// Engines switched every frame (interpreter on odd frames).
    Alternating,
}

const CONFIGS: [Config; 9] = [
    Config::Interpreter,
    Config::InterpreterProbed,
    Config::Translator { idle_skip: true },
    Config::Translator { idle_skip: false },
    Config::Profile,
    Config::SamplerOnly,
    Config::Bursts,
    Config::Everything,
    Config::Alternating,
];

fn attach_sampler(nes: &mut Nes) {
    let cycles = nes.cycles();
    // X = 3 ms of emulated time, N = 25: the thesis' setting.
    nes.attach_sampler(SampleCapture::emulated(
        5369,
        Spacing::Uniform,
        0,
        43,
        25,
        cycles,
    ));
}

fn machine(replay: &Replay, config: Config) -> Result<Nes, String> {
    let mut nes = replay.power_on().map_err(|e| e.to_string())?;
    nes.set_engine(match config {
        Config::Interpreter | Config::InterpreterProbed => Engine::Interpreter,
        _ => Engine::Translator,
    });
    nes.set_idle_skip(!matches!(
        config,
        Config::Translator { idle_skip: false } | Config::Bursts
    ));
    if matches!(
        config,
        Config::InterpreterProbed | Config::Profile | Config::Bursts | Config::Everything
    ) {
        nes.record_flow();
    }
    if matches!(
        config,
        Config::InterpreterProbed | Config::Bursts | Config::Everything
    ) {
        nes.record_memory(None);
    }
    if matches!(
        config,
        Config::InterpreterProbed | Config::Profile | Config::SamplerOnly | Config::Everything
    ) {
        attach_sampler(&mut nes);
    }
    nes.record_events();
    // Every `JSR abs` target PRG ROM's bytes hold, data included, watched
    // for falling into (`EventKind::FallInto`): more than a profile watches.
    let prg = nes.cartridge().prg_rom.to_vec();
    let entries = profiler::frame_profile::routines::static_targets(&mut nes, &prg, 0x20);
    nes.watch_entries(&entries);
    Ok(nes)
}

/// Before frame `frame`: the probes switched as `config` has them.
fn before_frame(nes: &mut Nes, config: Config, frame: u64) {
    match config {
        Config::Bursts => {
            nes.set_flow_recording(frame % 4 == 1);
            nes.set_memory_state(match frame % 6 {
                0 | 1 => MemoryState::Recording,
                2 | 3 => MemoryState::Tracking,
                _ => MemoryState::Paused,
            });
        }
        Config::Alternating => nes.set_engine(if frame % 2 == 1 {
            Engine::Interpreter
        } else {
            Engine::Translator
        }),
        _ => {}
    }
}

/// What a machine logged in one frame.
struct FrameLog {
    events: Vec<FlowEvent>,
    end: Stamp,
    hash: u64,
}

/// Runs the next frame of `replay` on `nes` (none past `frames`).
fn frame(
    nes: &mut Nes,
    replay: &Replay,
    config: Config,
    frames: u64,
    batches: &mut Batches,
) -> Result<Option<FrameLog>, String> {
    replay.apply(nes, frames).map_err(|e| e.to_string())?;
    if nes.frame_count() >= frames {
        return Ok(None);
    }
    before_frame(nes, config, nes.frame_count());
    nes.run_frame();
    if let Some(s) = nes.sampler_mut() {
        s.take_batches_into(batches);
    }
    let mut events = Vec::new();
    nes.drain_events(&mut events);
    Ok(Some(FrameLog {
        events,
        end: nes.stamp(),
        hash: nes.frame_hash(),
    }))
}

/// Where two frames' logs first differ.
fn difference(a: &FrameLog, b: &FrameLog) -> Option<String> {
    if let Some(i) = (0..a.events.len().min(b.events.len())).find(|&i| a.events[i] != b.events[i]) {
        return Some(format!(
            "event {i} of {}:\n  reference {:?}\n  this      {:?}",
            a.events.len(),
            a.events[i],
            b.events[i]
        ));
    }
    if a.events.len() != b.events.len() {
        let (short, long) = if a.events.len() < b.events.len() {
            ("reference", b)
        } else {
            ("this", a)
        };
        let extra = &long.events[a.events.len().min(b.events.len())];
        return Some(format!(
            "{} events in the reference, {} here ({short} lacks {extra:?})",
            a.events.len(),
            b.events.len()
        ));
    }
    if a.end != b.end || a.hash != b.hash {
        return Some(format!(
            "at the frame's end:\n  reference {:?} hash {:016x}\n  this      {:?} hash {:016x}",
            a.end, a.hash, b.end, b.hash
        ));
    }
    None
}

/// Replays `frames` frames of the movie on a machine per configuration,
/// comparing every frame's log with the first's. Returns the events and
/// the reference's wait-loop cycles and cycles.
fn compare(
    rom: &std::path::Path,
    movie: &std::path::Path,
    frames: u64,
) -> Result<(u64, u64, u64), String> {
    let rom = std::fs::read(rom).map_err(|e| e.to_string())?;
    let movie = emu::movie::Movie::load(movie).map_err(|e| e.to_string())?;
    let replay = Replay::new(&rom, &movie).map_err(|e| e.to_string())?;
    let mut machines = CONFIGS
        .iter()
        .map(|&c| machine(&replay, c).map(|nes| (c, nes)))
        .collect::<Result<Vec<_>, _>>()?;
    let mut batches = Batches::default();
    let mut events = 0;
    let mut last = None;
    loop {
        let (config, nes) = &mut machines[0];
        let Some(reference) = frame(nes, &replay, *config, frames, &mut batches)? else {
            break;
        };
        let number = nes.frame_count();
        for (config, nes) in &mut machines[1..] {
            let log = frame(nes, &replay, *config, frames, &mut batches)?
                .ok_or_else(|| format!("{config:?} ended before frame {number}"))?;
            if let Some(d) = difference(&reference, &log) {
                return Err(format!("{config:?}, frame {number}: {d}"));
            }
        }
        events += reference.events.len() as u64;
        last = Some(reference.end);
    }
    let end = last.ok_or("no frame ran")?;
    Ok((events, end.idle, end.cycle))
}

/// (name, ROM, movie) of the bundled workloads (`roms-test`) or of the
/// games (`games`), as tests/lockstep.rs finds them.
fn workloads(games: bool) -> Vec<(String, std::path::PathBuf, std::path::PathBuf)> {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for entry in std::fs::read_dir(repo.join("movies")).unwrap() {
        let movie = entry.unwrap().path();
        let Some(stem) = movie
            .file_stem()
            .filter(|_| movie.extension().is_some_and(|e| e == "fm2"))
            .map(|s| s.to_string_lossy().into_owned())
        else {
            continue;
        };
        let rom = if games {
            common::roms_root().join(format!("games/{stem}.nes"))
        } else {
            repo.join(format!("roms-test/{stem}.nes"))
        };
        if rom.exists() {
            out.push((stem, rom, movie));
        }
    }
    out.sort();
    out
}

fn run_all(games: bool) {
    let frames = frames();
    let list = workloads(games);
    let mut failures = Vec::new();
    let mut idle_somewhere = false;
    for (name, rom, movie) in &list {
        match compare(rom, movie, frames) {
            Ok((events, idle, cycles)) => {
                println!(
                    "{name}: {events} events, idle {:.1} % of {cycles} cycles, {} configurations equal",
                    idle as f64 * 100.0 / cycles as f64,
                    CONFIGS.len()
                );
                idle_somewhere |= idle > 0;
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(list.len() >= 8, "{} workloads", list.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(idle_somewhere, "no workload waited in a wait loop");
}

#[test]
fn bundled_workloads_log_the_same_on_both_engines() {
    run_all(false);
}

#[test]
fn games_log_the_same_on_both_engines() {
    run_all(true);
}
