//! Issue 26's measurement: one workload profiled three times in one
//! process — memory recording off, in bursts, and full — printing each
//! run's speed and how much of the full dependence profile the bursty one
//! found (BENCHMARKS.md, "Memory dependences (issue 26)").
//!
//! Usage: memory_bursts ROM MOVIE FRAMES ON/PERIOD[/WARMUP]...
//! (WARMUP: frames of write tracking before each burst; without it, every
//! frame between bursts tracks writes).
//!
//! Overlap: a dependence is (writer instruction, reader instruction,
//! address); `weighted` is the share of the full profile's reads whose
//! dependence the bursty profile also has, `distinct` the share of its
//! distinct dependences. Every run keeps the truth recorder on (the memory
//! recorder attributes to its call stacks), so "off" is `profile` without
//! `--memory`.

use std::collections::HashSet;
use std::path::Path;

use emu::memory_profile::Dependence;
use emu::movie::{Movie, Replay};
use profiler::session::{self, ProfileSettings};

/// What is measured: memory recording off, full, or in bursts.
type Mode = Option<Option<(u32, u32, Option<u32>)>>;

/// One profiling run in `mode`: its speed (frames per second of this
/// thread's CPU time: the emulating thread; the builder's does the same
/// work in every mode) and the dependences it found.
fn run(replay: &Replay, frames: u64, mode: Mode) -> (f64, Vec<Dependence>) {
    let bursts = mode.flatten();
    let settings = ProfileSettings {
        memory: mode.map(|_| None),
        memory_bursts: bursts.map(|(on, period, _)| (on, period)),
        memory_warmup: bursts.and_then(|(_, _, w)| w),
        ..ProfileSettings::default()
    };
    let mut nes = replay.power_on().expect("power on");
    let start = thread_cpu_seconds();
    let run = session::run(&mut nes, Some(replay), frames, &settings, |_| true).expect("run");
    let fps = frames as f64 / (thread_cpu_seconds() - start);
    (fps, run.memory.map(|m| m.dependences()).unwrap_or_default())
}

/// CPU time this thread has used, in seconds.
/// Measured rounds (see `main`).
const ROUNDS: usize = 5;

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

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 5 {
        eprintln!("usage: memory_bursts ROM MOVIE FRAMES ON/PERIOD [ON/PERIOD...]");
        std::process::exit(2);
    }
    let rom = nesprof::open::read_rom(Path::new(&args[1])).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let movie = Movie::load(Path::new(&args[2])).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let replay = Replay::new(&rom, &movie).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let frames: u64 = args[3].parse().unwrap_or_else(|_| {
        eprintln!("FRAMES must be a whole number");
        std::process::exit(2)
    });
    let bursts: Vec<(u32, u32, Option<u32>)> = args[4..]
        .iter()
        .map(|a| {
            nesprof::options::parse_bursts(a).unwrap_or_else(|e| {
                eprintln!("{a}: {e}");
                std::process::exit(2)
            })
        })
        .collect();

    // Every mode runs once per round, and its best round counts: on this
    // shared 2-core machine a run's time varied by several per cent, as
    // much as what is measured, and noise only ever adds time. A first,
    // unmeasured run warms the caches, the allocator and the CPU clock.
    let mut modes: Vec<Mode> = vec![None, Some(None)];
    modes.extend(bursts.iter().map(|&b| Some(Some(b))));
    run(&replay, frames, None);
    let mut fps = vec![0.0f64; modes.len()];
    let mut deps = vec![Vec::new(); modes.len()];
    for _ in 0..ROUNDS {
        for (i, &mode) in modes.iter().enumerate() {
            let (f, d) = run(&replay, frames, mode);
            fps[i] = fps[i].max(f);
            deps[i] = d;
        }
    }
    let (off_fps, full_fps, full) = (fps[0], fps[1], &deps[1]);
    let key = |d: &Dependence| (d.writer, d.reader, d.addr);
    let total: u64 = full.iter().map(|d| d.count).sum();
    let full_keys: HashSet<_> = full.iter().map(key).collect();
    println!("{}: {frames} frames", args[1]);
    println!("mode        fps      vs off   dependences  weighted  distinct");
    println!("off     {off_fps:9.0}   {:>6}", "");
    println!(
        "full    {full_fps:9.0}   {:+5.1}%  {:>11}  {:8.4}  {:8.4}",
        100.0 * (off_fps / full_fps - 1.0),
        full.len(),
        1.0,
        1.0
    );
    for (i, &(on, period, warmup)) in bursts.iter().enumerate() {
        let (fps, deps) = (fps[i + 2], &deps[i + 2]);
        let found: HashSet<_> = deps.iter().map(key).collect();
        let covered: u64 = full
            .iter()
            .filter(|d| found.contains(&key(d)))
            .map(|d| d.count)
            .sum();
        let distinct = full_keys.intersection(&found).count();
        println!(
            "{:<7} {fps:9.0}   {:+5.1}%  {:>11}  {:8.4}  {:8.4}",
            match warmup {
                Some(w) => format!("{on}/{period}/{w}"),
                None => format!("{on}/{period}"),
            },
            100.0 * (off_fps / fps - 1.0),
            deps.len(),
            covered as f64 / total.max(1) as f64,
            distinct as f64 / full_keys.len().max(1) as f64
        );
    }
}
