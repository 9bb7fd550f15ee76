//! Issue 26's measurement: one workload profiled three times in one
//! process — memory recording off, in bursts, and full — printing each
//! run's speed and how much of the full dependence profile the bursty one
//! found (BENCHMARKS.md, "Memory dependences (issue 26)").
//!
//! Usage: memory_bursts ROM MOVIE FRAMES ON/PERIOD [ON/PERIOD...]
//!
//! Overlap: a dependence is (writer instruction, reader instruction,
//! address); `weighted` is the share of the full profile's reads whose
//! dependence the bursty profile also has, `distinct` the share of its
//! distinct dependences. Every run keeps the truth recorder on (the memory
//! recorder attributes to its call stacks), so "off" is `profile` without
//! `--memory`.

use std::collections::HashSet;
use std::path::Path;
use std::time::Instant;

use emu::memory_profile::Dependence;
use emu::movie::{Movie, Replay};
use profiler::session::{self, ProfileSettings};

fn run(
    replay: &Replay,
    frames: u64,
    memory: bool,
    bursts: Option<(u32, u32)>,
) -> (f64, Vec<Dependence>) {
    let settings = ProfileSettings {
        memory: memory.then_some(None),
        memory_bursts: bursts,
        ..ProfileSettings::default()
    };
    // The best of three runs: on a shared machine one run's time varies by
    // a few per cent, as much as what is measured.
    let mut best = 0.0f64;
    let mut deps = Vec::new();
    for _ in 0..3 {
        let mut nes = replay.power_on().expect("power on");
        let start = Instant::now();
        let run = session::run(&mut nes, Some(replay), frames, &settings, |_| true).expect("run");
        best = best.max(frames as f64 / start.elapsed().as_secs_f64());
        deps = run.memory.map(|m| m.dependences()).unwrap_or_default();
    }
    (best, deps)
}

fn parse_bursts(text: &str) -> (u32, u32) {
    let bad = || -> ! {
        eprintln!("bursts must be ON/PERIOD, 1 <= ON <= PERIOD: {text:?}");
        std::process::exit(2)
    };
    let (on, period) = text.split_once('/').unwrap_or_else(|| bad());
    let (Ok(on), Ok(period)) = (on.parse::<u32>(), period.parse::<u32>()) else {
        bad()
    };
    if on == 0 || on > period {
        bad()
    }
    (on, period)
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
    let bursts: Vec<(u32, u32)> = args[4..].iter().map(|a| parse_bursts(a)).collect();

    // A first run warms the caches, the allocator and the CPU clock: the
    // run measured first was otherwise several per cent slower.
    run(&replay, frames, false, None);
    let (off_fps, _) = run(&replay, frames, false, None);
    let (full_fps, full) = run(&replay, frames, true, None);
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
    for (on, period) in bursts {
        let (fps, deps) = run(&replay, frames, true, Some((on, period)));
        let found: HashSet<_> = deps.iter().map(key).collect();
        let covered: u64 = full
            .iter()
            .filter(|d| found.contains(&key(d)))
            .map(|d| d.count)
            .sum();
        let distinct = full_keys.intersection(&found).count();
        println!(
            "{:<7} {fps:9.0}   {:+5.1}%  {:>11}  {:8.4}  {:8.4}",
            format!("{on}/{period}"),
            100.0 * (off_fps / fps - 1.0),
            deps.len(),
            covered as f64 / total.max(1) as f64,
            distinct as f64 / full_keys.len().max(1) as f64
        );
    }
}
