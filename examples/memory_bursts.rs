//! Issue 26's measurement: one workload profiled several ways in one
//! process, printing each way's speed and how much of the full profiles
//! the bursty ways found (BENCHMARKS.md, "Memory dependences (issue 26)").
//!
//! Usage: memory_bursts ROM MOVIE FRAMES MODE...
//! where MODE is `ON/PERIOD[/WARMUP]` (memory recorded in bursts, the truth
//! recorder on throughout; WARMUP: frames of write tracking before each
//! burst, without it every frame between bursts tracks writes),
//! `truth:ON/PERIOD` (the truth recorder in bursts, no memory recorder),
//! `both:ON/PERIOD[/WARMUP]` (both in the same bursts),
//! `both:ON/PERIOD[/WARMUP],ON/PERIOD` (memory bursts, then the truth's)
//! or `memory` (memory recorded every frame, the truth recorder only
//! following call stacks).
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
//! Speed: frames per second of this thread's CPU time over the frames
//! (the emulating thread; the builder's does the same work in every mode;
//! `min`: each frame's least CPU time in any round, summed — the frames
//! are the same in every round, so this drops what the machine's other
//! work added to a frame here and there, which in a whole run's best
//! round still moved the comparisons by a point or two between
//! invocations),
//! and of wall-clock time (`wall`: the memory recorder's worker thread
//! replays its log on the other core, and the run waits for it to finish);
//! `end ms` is this thread's CPU time for the run's end, apart (the
//! session's finish and the truth CFG's construction: a fixed cost, some
//! milliseconds, which in a run of a few seconds would read as a per cent
//! of speed that no longer run has). Every mode runs once per round and
//! its best round counts (see `main`; five rounds, or
//! `MEMORY_BURSTS_ROUNDS`). After the table, for each memory or truth
//! bursts mode, its extra time by place: in a burst's first frame, its
//! others, the six frames after it and the rest (`by_place`).

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
    /// Memory in bursts (on, period, warm-up) and truth in bursts (on,
    /// period): the same bursts, or others.
    Both(u32, u32, Option<u32>, (u32, u32)),
}

/// What a run found.
struct Found {
    fps: f64,
    /// Each frame's CPU time on this thread, in seconds (see `main`),
    /// from frame `first_frame` on.
    frame_cpu: Vec<f64>,
    first_frame: u64,
    /// Frames per second of wall-clock time, waiting for the memory
    /// recorder's worker included.
    wall_fps: f64,
    /// This thread's CPU time for the run's end (`Session::finish` and the
    /// truth CFG's construction), in milliseconds.
    end_ms: f64,
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
        Mode::Both(on, period, warmup, truth) => {
            settings.memory = Some(None);
            settings.memory_bursts = Some((on, period));
            settings.memory_warmup = warmup;
            settings.truth_bursts = Some(truth);
        }
    }
    let mut nes = replay.power_on().expect("power on");
    // `session::run`'s loop, timed apart from what the run's end costs
    // (waiting for the builder and the memory worker, building the truth
    // CFG: a fixed cost, not the speed of a profiled game).
    let recording = Recording {
        truth: mode != Mode::TruthOff,
        ..Recording::default()
    };
    let start = thread_cpu_seconds();
    let wall = std::time::Instant::now();
    let mut session = Session::attach(&mut nes, &settings, recording);
    let mut frame_cpu = Vec::with_capacity(frames as usize);
    let first_frame = nes.frame_count();
    while nes.frame_count() < frames {
        replay.apply(&mut nes, frames).expect("movie");
        if nes.frame_count() >= frames {
            break;
        }
        // `frame_cpu[i]` is frame `first_frame + i`'s (see `by_place`).
        assert_eq!(nes.frame_count(), first_frame + frame_cpu.len() as u64);
        let frame_start = thread_cpu_seconds();
        session::before_frame(&mut nes, &settings);
        nes.run_frame();
        session.after_frame(&mut nes);
        frame_cpu.push(thread_cpu_seconds() - frame_start);
    }
    let fps = frames as f64 / (thread_cpu_seconds() - start);
    // The worker's replay of what was logged is part of the wall-clock
    // time (it waits without using this thread's CPU time).
    drop(nes.memory_profile());
    let wall_fps = frames as f64 / wall.elapsed().as_secs_f64();
    let end = thread_cpu_seconds();
    let finished = session.finish(&mut nes);
    let deps = finished.memory.map(|m| m.dependences()).unwrap_or_default();
    let truth = finished.counts.map(|c| profiler::truth::build(&c));
    Found {
        fps,
        frame_cpu,
        first_frame,
        wall_fps,
        end_ms: (thread_cpu_seconds() - end) * 1e3,
        deps,
        truth,
    }
}

/// Measured rounds (see `main`), unless `MEMORY_BURSTS_ROUNDS` says.
const ROUNDS: usize = 5;

/// The rounds to measure: [`ROUNDS`], or the whole number in the
/// environment variable `MEMORY_BURSTS_ROUNDS`.
fn rounds() -> usize {
    match std::env::var("MEMORY_BURSTS_ROUNDS") {
        Err(_) => ROUNDS,
        Ok(text) => match text.parse::<usize>() {
            Ok(n) if n > 0 => n,
            _ => fail(format!(
                "MEMORY_BURSTS_ROUNDS must be a whole number above 0, not {text:?}"
            )),
        },
    }
}

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
        let memory = t.split_once(',').map_or(t, |(m, _)| m);
        let (on, period, warmup) = bursts(memory);
        let truth = match t.split_once(',').map(|(_, truth)| bursts(truth)) {
            None => (on, period),
            Some((on, period, None)) => (on, period),
            Some(_) => fail(format!("{text}: truth bursts must be ON/PERIOD")),
        };
        Mode::Both(on, period, warmup, truth)
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
        Mode::Both(on, period, w, truth) if truth == (on, period) => {
            format!("both {}", bursts(on, period, w))
        }
        Mode::Both(on, period, w, (t_on, t_period)) => format!(
            "both {},{}",
            bursts(on, period, w),
            bursts(t_on, t_period, None)
        ),
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
    for _ in 0..rounds() {
        for (i, &mode) in modes.iter().enumerate() {
            let f = run(&replay, frames, mode);
            let (fps, wall_fps, end_ms) = found[i]
                .as_ref()
                .map_or((0.0, 0.0, f64::MAX), |b| (b.fps, b.wall_fps, b.end_ms));
            let fps = fps.max(f.fps);
            let wall_fps = wall_fps.max(f.wall_fps);
            let end_ms = end_ms.min(f.end_ms);
            let frame_cpu = match &found[i] {
                Some(b) => b
                    .frame_cpu
                    .iter()
                    .zip(&f.frame_cpu)
                    .map(|(a, b)| a.min(*b))
                    .collect(),
                None => f.frame_cpu.clone(),
            };
            found[i] = Some(Found {
                fps,
                frame_cpu,
                wall_fps,
                end_ms,
                ..f
            });
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
        "{:<20} {:>6} {:>8} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7} {:>8} {:>9} {:>8} {:>11} {:>9}",
        "mode",
        "fps",
        "vs none",
        "vs truth",
        "min fps",
        "min none",
        "min truth",
        "wall fps",
        "wall none",
        "wall truth",
        "end ms",
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
        let min_time = |f: &Found| f.frame_cpu.iter().sum::<f64>();
        line += &format!(
            "{:>8.0} {:>+8.1}% {:>+8.1}% ",
            frames as f64 / min_time(f),
            100.0 * (min_time(f) / min_time(none) - 1.0),
            100.0 * (min_time(f) / min_time(plain) - 1.0)
        );
        line += &format!(
            "{:>9.0} {:>+8.1}% {:>+8.1}% {:>7.1} ",
            f.wall_fps,
            100.0 * (none.wall_fps / f.wall_fps - 1.0),
            100.0 * (plain.wall_fps / f.wall_fps - 1.0),
            f.end_ms
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
    for (&mode, f) in modes.iter().zip(&found) {
        let (on, period, baseline) = match mode {
            Mode::MemoryBursts(on, period, _) => (on, period, plain),
            Mode::TruthBursts(on, period) => (on, period, none),
            Mode::Both(on, period, _, truth) if truth == (on, period) => (on, period, none),
            Mode::Both(on, period, _, truth) => {
                println!(
                    "{}",
                    by_place_apart(&label(mode), f, none, (on, period), truth)
                );
                continue;
            }
            _ => continue,
        };
        println!("{}", by_place(&label(mode), f, baseline, on, period));
    }
}

/// Frame `frame`'s place against bursts of `on` frames every `period`: 0
/// a burst's first frame, 1 its others, 2-7 the six frames after it,
/// `None` the rest.
fn place_near_burst(frame: usize, on: u32, period: u32) -> Option<usize> {
    let in_burst = |frame: usize| session::in_burst(frame as u64, on, period);
    if in_burst(frame) {
        return Some(usize::from(frame > 0 && in_burst(frame - 1)));
    }
    // Frames since the last burst frame, if fewer than six.
    (1..=6)
        .find(|&k| frame >= k && in_burst(frame - k))
        .map(|k| k + 1)
}

/// [`by_place`] for memory and truth in bursts of their own, against
/// `none`: the memory bursts' frames and the six after each, then the
/// truth bursts' (those not already counted), and the rest, each as the
/// sum of its frames' extra time per period of the memory bursts, so that
/// the parts add up to the whole run's (`min vs none`).
fn by_place_apart(
    label: &str,
    f: &Found,
    none: &Found,
    memory: (u32, u32),
    truth: (u32, u32),
) -> String {
    let place_in = |frame: usize, (on, period): (u32, u32)| place_near_burst(frame, on, period);
    // Memory places 0-7, truth places 8-15, the rest 16.
    let mut sums = [0.0; 17];
    for (i, (a, b)) in f.frame_cpu.iter().zip(&none.frame_cpu).enumerate() {
        let frame = f.first_frame as usize + i;
        let place = place_in(frame, memory)
            .or_else(|| place_in(frame, truth).map(|p| p + 8))
            .unwrap_or(16);
        sums[place] += a - b;
    }
    let periods = f.frame_cpu.len() as f64 / memory.1 as f64;
    let none_period: f64 = none.frame_cpu.iter().sum::<f64>() / periods;
    let names = ["first", "later", "+1", "+2", "+3", "+4", "+5", "+6"];
    let part = |sums: &[f64]| -> String {
        names
            .iter()
            .zip(sums)
            .map(|(name, sum)| format!(" {name} {:+.1}", sum / periods * 1e6))
            .collect()
    };
    let total: f64 = sums.iter().sum();
    format!(
        "{label}: extra µs a memory period by place: memory{} | truth{} | rest {:+.1} | total {:+.1} ({:+.2} % of none)",
        part(&sums[..8]),
        part(&sums[8..16]),
        sums[16] / periods * 1e6,
        total / periods * 1e6,
        total / periods / none_period * 100.0
    )
}

/// Where a bursty mode's extra time falls: the mean extra CPU time (each
/// frame's least over the rounds) against `baseline` (`truth` for memory
/// bursts, `none` for truth bursts and for both in the same bursts), in
/// µs a frame, in the first frame of
/// a burst, its other frames, each of the six frames after it, and the
/// rest (BENCHMARKS.md, "where a burst's time went").
fn by_place(label: &str, f: &Found, baseline: &Found, on: u32, period: u32) -> String {
    let place = |frame: usize| place_near_burst(frame, on, period).unwrap_or(8);
    let mut sums = [(0.0, 0u32); 9];
    for (i, (a, b)) in f.frame_cpu.iter().zip(&baseline.frame_cpu).enumerate() {
        let (sum, n) = &mut sums[place(f.first_frame as usize + i)];
        *sum += a - b;
        *n += 1;
    }
    let names = ["first", "later", "+1", "+2", "+3", "+4", "+5", "+6", "rest"];
    let mut line = format!("{label}: extra µs a frame by place:");
    for (name, (sum, n)) in names.iter().zip(sums) {
        if n > 0 {
            line += &format!(" {name} {:+.1}", sum / n as f64 * 1e6);
        }
    }
    line
}
