//! Issue 26's measurement: one workload profiled several ways in one
//! process, printing each way's speed and how much of the full profiles
//! the bursty ways found (BENCHMARKS.md, "Memory dependences (issue 26)").
//!
//! Usage: memory_bursts ROM MOVIE FRAMES MODE...
//! where MODE is `ON/PERIOD[/WARMUP]` (memory recorded in bursts, the truth
//! recorder on throughout; WARMUP: frames of write tracking before each
//! burst, without it every frame between bursts tracks writes),
//! `truth:ON/PERIOD` (the truth recorder in bursts, no memory recorder),
//! `both:ON/PERIOD[/WARMUP]` (both in the same bursts) or `memory` (memory
//! recorded every frame, the truth recorder only following call stacks).
//! Always measured: `none` (the sampler and the hot-CFG builder only),
//! `truth` (what `profile` runs) and `truth+memory` (`profile --memory`).
//!
//! Columns: `vs none` and `vs truth` are the extra time against those
//! two; `deps weighted` is the share of the full memory profile's reads
//! whose dependence (writer instruction, reader instruction, address) the
//! mode found, `distinct` the share of its distinct dependences; `CFG
//! overlap` is the edge-profile overlap of the mode's truth CFG with the
//! full one (`gfc::metrics::overlap`), `H90 found` the share of the full
//! truth's H90 transitions on edges the mode's truth has
//! (`gfc::metrics::weighted`).
//!
//! Speed: frames per second of this thread's CPU time (the emulating
//! thread; the builder's does the same work in every mode), and of
//! wall-clock time (`wall`: the memory recorder's worker thread replays its
//! log on the other core, and the run waits for it to finish); every mode
//! runs once per round and its best round counts (see `main`).

use std::collections::HashSet;
use std::path::Path;

use emu::memory_profile::Dependence;
use emu::movie::{Movie, Replay};
use gfc::cfg::Cfg;
use profiler::session::{self, ProfileSettings, Recording, Session};

/// A way of profiling.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    /// Memory off, truth full.
    Plain,
    /// Memory recorded every frame.
    MemoryFull,
    /// Memory recorded every frame, the truth recorder only following
    /// call stacks (what the memory profile needs from it).
    MemoryOnly,
    /// Memory in bursts (on, period, warm-up).
    MemoryBursts(u32, u32, Option<u32>),
    /// No truth recorder at all.
    TruthOff,
    /// Truth in bursts (on, period).
    TruthBursts(u32, u32),
    /// Truth and memory in the same bursts.
    Both(u32, u32, Option<u32>),
}

/// What a run found.
struct Found {
    fps: f64,
    /// Frames per second of wall-clock time, waiting for the memory
    /// recorder's worker included.
    wall_fps: f64,
    deps: Vec<Dependence>,
    truth: Option<Cfg>,
}

fn run(replay: &Replay, frames: u64, mode: Mode) -> Found {
    let mut settings = ProfileSettings::default();
    match mode {
        Mode::Plain | Mode::TruthOff => {}
        Mode::MemoryFull => settings.memory = Some(None),
        Mode::MemoryOnly => {
            settings.memory = Some(None);
            settings.truth_bursts = Some((0, 1));
        }
        Mode::MemoryBursts(on, period, warmup) => {
            settings.memory = Some(None);
            settings.memory_bursts = Some((on, period));
            settings.memory_warmup = warmup;
        }
        Mode::TruthBursts(on, period) => settings.truth_bursts = Some((on, period)),
        Mode::Both(on, period, warmup) => {
            settings.memory = Some(None);
            settings.memory_bursts = Some((on, period));
            settings.memory_warmup = warmup;
            settings.truth_bursts = Some((on, period));
        }
    }
    let mut nes = replay.power_on().expect("power on");
    let start = thread_cpu_seconds();
    let wall = std::time::Instant::now();
    if mode == Mode::TruthOff {
        // `session::run`'s loop, with the session told not to record the
        // truth.
        let recording = Recording {
            truth: false,
            ..Recording::default()
        };
        let session = {
            let mut s = Session::attach(&mut nes, &settings, recording);
            while nes.frame_count() < frames {
                replay.apply(&mut nes, frames).expect("movie");
                nes.run_frame();
                s.after_frame(&mut nes);
            }
            s
        };
        session.finish(&mut nes);
        let fps = frames as f64 / (thread_cpu_seconds() - start);
        return Found {
            fps,
            wall_fps: frames as f64 / wall.elapsed().as_secs_f64(),
            deps: Vec::new(),
            truth: None,
        };
    }
    let run = session::run(&mut nes, Some(replay), frames, &settings, |_| true).expect("run");
    let fps = frames as f64 / (thread_cpu_seconds() - start);
    Found {
        fps,
        wall_fps: frames as f64 / wall.elapsed().as_secs_f64(),
        deps: run.memory.map(|m| m.dependences()).unwrap_or_default(),
        truth: Some(run.truth),
    }
}

/// Measured rounds (see `main`).
const ROUNDS: usize = 5;

/// CPU time this thread has used, in seconds.
fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec for the call to fill.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn fail(message: String) -> ! {
    eprintln!("{message}");
    std::process::exit(2)
}

fn parse_mode(text: &str) -> Mode {
    let bursts = |t: &str| {
        nesprof::options::parse_bursts(t).unwrap_or_else(|e| fail(format!("{text}: {e}")))
    };
    if let Some(t) = text.strip_prefix("truth:") {
        match bursts(t) {
            (on, period, None) => Mode::TruthBursts(on, period),
            _ => fail(format!("{text}: truth bursts must be truth:ON/PERIOD")),
        }
    } else if text == "memory" {
        Mode::MemoryOnly
    } else if text == "none" {
        Mode::TruthOff
    } else if text == "truth" {
        Mode::Plain
    } else if text == "truth+memory" {
        Mode::MemoryFull
    } else if let Some(t) = text.strip_prefix("both:") {
        let (on, period, warmup) = bursts(t);
        Mode::Both(on, period, warmup)
    } else {
        let (on, period, warmup) = bursts(text);
        Mode::MemoryBursts(on, period, warmup)
    }
}

fn label(mode: Mode) -> String {
    let bursts = |on, period, warmup: Option<u32>| match warmup {
        Some(w) => format!("{on}/{period}/{w}"),
        None => format!("{on}/{period}"),
    };
    match mode {
        Mode::TruthOff => "none".into(),
        Mode::Plain => "truth".into(),
        Mode::MemoryFull => "truth+memory".into(),
        Mode::MemoryOnly => "memory".into(),
        Mode::MemoryBursts(on, period, w) => format!("memory {}", bursts(on, period, w)),
        Mode::TruthBursts(on, period) => format!("truth {}", bursts(on, period, None)),
        Mode::Both(on, period, w) => format!("both {}", bursts(on, period, w)),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 5 {
        fail("usage: memory_bursts ROM MOVIE FRAMES MODE... (MODE: ON/PERIOD[/WARMUP] or truth:ON/PERIOD)".into());
    }
    let rom = nesprof::open::read_rom(Path::new(&args[1])).unwrap_or_else(|e| fail(e.to_string()));
    let movie = Movie::load(Path::new(&args[2])).unwrap_or_else(|e| fail(e.to_string()));
    let replay = Replay::new(&rom, &movie).unwrap_or_else(|e| fail(e.to_string()));
    let frames: u64 = args[3]
        .parse()
        .unwrap_or_else(|_| fail("FRAMES must be a whole number".into()));
    let asked: Vec<Mode> = args[4..].iter().map(|a| parse_mode(a)).collect();
    // Every mode runs once per round, and its best round counts: on this
    // shared 2-core machine a run's time varied by several per cent, as
    // much as what is measured, and noise only ever adds time. A first,
    // unmeasured run warms the caches, the allocator and the CPU clock.
    let mut modes = vec![Mode::TruthOff, Mode::Plain, Mode::MemoryFull];
    modes.extend(asked.iter().copied());
    run(&replay, frames, Mode::Plain);
    let mut found: Vec<Option<Found>> = modes.iter().map(|_| None).collect();
    for _ in 0..ROUNDS {
        for (i, &mode) in modes.iter().enumerate() {
            let f = run(&replay, frames, mode);
            let (fps, wall_fps) = found[i]
                .as_ref()
                .map_or((0.0, 0.0), |b| (b.fps, b.wall_fps));
            let fps = fps.max(f.fps);
            let wall_fps = wall_fps.max(f.wall_fps);
            found[i] = Some(Found { fps, wall_fps, ..f });
        }
    }
    let found: Vec<Found> = found.into_iter().map(|f| f.expect("measured")).collect();
    let (none, plain, full) = (&found[0], &found[1], &found[2]);
    let full_truth = plain.truth.as_ref().expect("truth recorded");
    let h90 = gfc::hot::h90(full_truth);
    let key = |d: &Dependence| (d.writer, d.reader, d.addr);
    let total: u64 = full.deps.iter().map(|d| d.count).sum();
    let full_keys: HashSet<_> = full.deps.iter().map(key).collect();

    println!("{}: {frames} frames", args[1]);
    println!(
        "{:<20} {:>6} {:>8} {:>8} {:>9} {:>9} {:>9} {:>8} {:>9} {:>8} {:>11} {:>9}",
        "mode",
        "fps",
        "vs none",
        "vs truth",
        "wall fps",
        "wall none",
        "wall truth",
        "deps",
        "weighted",
        "distinct",
        "CFG overlap",
        "H90 found"
    );
    for (&mode, f) in modes.iter().zip(&found) {
        let mut line = format!(
            "{:<20} {:>6.0} {:>+7.1}% ",
            label(mode),
            f.fps,
            100.0 * (none.fps / f.fps - 1.0)
        );
        line += &format!("{:>+7.1}% ", 100.0 * (plain.fps / f.fps - 1.0));
        line += &format!(
            "{:>9.0} {:>+8.1}% {:>+8.1}% ",
            f.wall_fps,
            100.0 * (none.wall_fps / f.wall_fps - 1.0),
            100.0 * (plain.wall_fps / f.wall_fps - 1.0)
        );
        if mode == Mode::TruthOff {
            println!("{line}");
            continue;
        }
        if f.deps.is_empty() {
            line += &format!("{:>8} {:>9} {:>8} ", "", "", "");
        } else {
            let keys: HashSet<_> = f.deps.iter().map(key).collect();
            let covered: u64 = full
                .deps
                .iter()
                .filter(|d| keys.contains(&key(d)))
                .map(|d| d.count)
                .sum();
            line += &format!(
                "{:>8} {:>9.4} {:>8.4} ",
                f.deps.len(),
                covered as f64 / total.max(1) as f64,
                full_keys.intersection(&keys).count() as f64 / full_keys.len().max(1) as f64
            );
        }
        if mode == Mode::MemoryOnly {
            println!("{line}");
            continue;
        }
        let truth = f.truth.as_ref().expect("truth recorded");
        line += &format!(
            "{:>11.4} {:>9.4}",
            gfc::metrics::overlap(truth, full_truth),
            gfc::metrics::weighted(truth, full_truth, &h90)
        );
        println!("{line}");
    }
}
