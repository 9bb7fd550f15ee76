//! Issue 26's measurement: one workload profiled several ways in one
//! process, printing each way's speed and how much of the full profile the
//! bursty ones found (BENCHMARKS.md, "Memory dependences (issue 26)").
//!
//! Usage: memory_bursts ROM MOVIE FRAMES MODE...
//! where MODE is `ON/PERIOD[/WARMUP]` (memory recorded in bursts;
//! WARMUP: frames of write tracking before each burst, without it every
//! frame between bursts tracks writes) or `truth:ON/PERIOD` (the truth
//! recorder in bursts).
//!
//! Memory table: "off" is `profile` without `--memory` (the truth recorder
//! on: the memory recorder attributes to its call stacks); a dependence is
//! (writer instruction, reader instruction, address); `weighted` is the
//! share of the full profile's reads whose dependence the bursty profile
//! also has, `distinct` the share of its distinct dependences.
//!
//! Truth table (with `truth:` modes): "off" runs the sampler and the hot-CFG
//! builder without the truth recorder; `overlap` is the edge-profile
//! overlap of the bursty truth CFG with the full one (`gfc::metrics::
//! overlap`), `H90 found` the share of the full truth's H90 transitions on
//! edges the bursty truth has (`gfc::metrics::weighted`).
//!
//! Speed: frames per second of this thread's CPU time (the emulating
//! thread; the builder's does the same work in every mode); every mode runs
//! once per round and its best round counts (see `main`).

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
    /// Memory in bursts (on, period, warm-up).
    MemoryBursts(u32, u32, Option<u32>),
    /// No truth recorder at all.
    TruthOff,
    /// Truth in bursts (on, period).
    TruthBursts(u32, u32),
}

/// What a run found.
struct Found {
    fps: f64,
    deps: Vec<Dependence>,
    truth: Option<Cfg>,
}

fn run(replay: &Replay, frames: u64, mode: Mode) -> Found {
    let mut settings = ProfileSettings::default();
    match mode {
        Mode::Plain | Mode::TruthOff => {}
        Mode::MemoryFull => settings.memory = Some(None),
        Mode::MemoryBursts(on, period, warmup) => {
            settings.memory = Some(None);
            settings.memory_bursts = Some((on, period));
            settings.memory_warmup = warmup;
        }
        Mode::TruthBursts(on, period) => settings.truth_bursts = Some((on, period)),
    }
    let mut nes = replay.power_on().expect("power on");
    let start = thread_cpu_seconds();
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
            deps: Vec::new(),
            truth: None,
        };
    }
    let run = session::run(&mut nes, Some(replay), frames, &settings, |_| true).expect("run");
    let fps = frames as f64 / (thread_cpu_seconds() - start);
    Found {
        fps,
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
    if let Some(bursts) = text.strip_prefix("truth:") {
        match nesprof::options::parse_bursts(bursts) {
            Ok((on, period, None)) => Mode::TruthBursts(on, period),
            _ => fail(format!("{text}: truth bursts must be truth:ON/PERIOD")),
        }
    } else {
        match nesprof::options::parse_bursts(text) {
            Ok((on, period, warmup)) => Mode::MemoryBursts(on, period, warmup),
            Err(e) => fail(format!("{text}: {e}")),
        }
    }
}

fn label(mode: Mode) -> String {
    match mode {
        Mode::Plain | Mode::TruthOff => "off".into(),
        Mode::MemoryFull => "full".into(),
        Mode::MemoryBursts(on, period, None) => format!("{on}/{period}"),
        Mode::MemoryBursts(on, period, Some(w)) => format!("{on}/{period}/{w}"),
        Mode::TruthBursts(on, period) => format!("{on}/{period}"),
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
    let truth_asked = asked.iter().any(|m| matches!(m, Mode::TruthBursts(..)));
    let mut modes = vec![Mode::Plain, Mode::MemoryFull];
    if truth_asked {
        modes.push(Mode::TruthOff);
    }
    modes.extend(asked.iter().copied());
    run(&replay, frames, Mode::Plain);
    let mut found: Vec<Option<Found>> = modes.iter().map(|_| None).collect();
    for _ in 0..ROUNDS {
        for (i, &mode) in modes.iter().enumerate() {
            let f = run(&replay, frames, mode);
            let best = found[i].as_ref().map_or(0.0, |b| b.fps);
            let fps = best.max(f.fps);
            found[i] = Some(Found { fps, ..f });
        }
    }
    let found: Vec<Found> = found.into_iter().map(|f| f.expect("measured")).collect();
    let of = |mode: Mode| &found[modes.iter().position(|&m| m == mode).expect("mode run")];
    let plain = of(Mode::Plain);
    let full = of(Mode::MemoryFull);
    println!("{}: {frames} frames", args[1]);

    let key = |d: &Dependence| (d.writer, d.reader, d.addr);
    let total: u64 = full.deps.iter().map(|d| d.count).sum();
    let full_keys: HashSet<_> = full.deps.iter().map(key).collect();
    println!("memory      fps      vs off   dependences  weighted  distinct");
    println!("off     {:9.0}", plain.fps);
    for (i, &mode) in modes.iter().enumerate() {
        if !matches!(mode, Mode::MemoryFull | Mode::MemoryBursts(..)) {
            continue;
        }
        let f = &found[i];
        let keys: HashSet<_> = f.deps.iter().map(key).collect();
        let covered: u64 = full
            .deps
            .iter()
            .filter(|d| keys.contains(&key(d)))
            .map(|d| d.count)
            .sum();
        println!(
            "{:<7} {:9.0}   {:+5.1}%  {:>11}  {:8.4}  {:8.4}",
            label(mode),
            f.fps,
            100.0 * (plain.fps / f.fps - 1.0),
            f.deps.len(),
            covered as f64 / total.max(1) as f64,
            full_keys.intersection(&keys).count() as f64 / full_keys.len().max(1) as f64
        );
    }

    if truth_asked {
        let off = of(Mode::TruthOff);
        let full_truth = plain.truth.as_ref().expect("truth recorded");
        let h90 = gfc::hot::h90(full_truth);
        println!("truth       fps      vs off        edges   overlap  H90 found");
        println!("off     {:9.0}", off.fps);
        let rows = std::iter::once((Mode::Plain, plain)).chain(
            modes
                .iter()
                .zip(&found)
                .filter(|(m, _)| matches!(m, Mode::TruthBursts(..)))
                .map(|(&m, f)| (m, f)),
        );
        for (mode, f) in rows {
            let truth = f.truth.as_ref().expect("truth recorded");
            println!(
                "{:<7} {:9.0}   {:+5.1}%  {:>11}  {:8.4}  {:9.4}",
                if mode == Mode::Plain {
                    "full".into()
                } else {
                    label(mode)
                },
                f.fps,
                100.0 * (off.fps / f.fps - 1.0),
                truth.num_edges(),
                gfc::metrics::overlap(truth, full_truth),
                gfc::metrics::weighted(truth, full_truth, &h90)
            );
        }
    }
}
