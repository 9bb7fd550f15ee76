//! A fuzzing campaign of the engines (see `nesprof::fuzz`): random programs
//! by seed, each run on both engines in lockstep; a divergence is shrunk and
//! printed with its seed, and its ROM written to `fuzz-SEED.nes`.
//!
//! Usage: fuzz_engines COUNT [FIRST_SEED] [FRAMES] [THREADS]
//! (defaults: seed 0, 20 frames, all cores). Exit status 1 if any diverged.
//! `FUZZ_WAIT_LOOPS=1` in the environment plants wait loops in every
//! program (`Program::generate_with_wait_loops`), for the frame-event logs'
//! idle cycles.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use nesprof::fuzz::{self, Program};

/// Argument `n` as a whole number in `min..=max`, or `default` when it is
/// not given; anything else exits 2 with one line.
fn arg(n: usize, name: &str, default: u64, min: u64, max: u64) -> u64 {
    let Some(text) = std::env::args().nth(n) else {
        return default;
    };
    match text.parse::<u64>() {
        Ok(v) if (min..=max).contains(&v) => v,
        _ => {
            eprintln!("fuzz_engines: {name} must be a whole number in {min}..={max}, not {text:?}");
            std::process::exit(2);
        }
    }
}

fn main() {
    let count = arg(1, "COUNT", 1000, 1, 1 << 40);
    let first = arg(2, "FIRST_SEED", 0, 0, u64::MAX - (1 << 40));
    let frames = arg(3, "FRAMES", 20, 1, 100_000);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let threads = arg(4, "THREADS", cores, 1, 256);
    let wait_loops = std::env::var("FUZZ_WAIT_LOOPS").is_ok_and(|v| v == "1");
    let next = AtomicU64::new(first);
    let done = AtomicU64::new(0);
    let failed = AtomicU64::new(0);
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let seed = next.fetch_add(1, Ordering::Relaxed);
                if seed >= first + count {
                    break;
                }
                let program = if wait_loops {
                    Program::generate_with_wait_loops(seed)
                } else {
                    Program::generate(seed)
                };
                if let Err(e) = fuzz::check(&program, frames, seed) {
                    failed.fetch_add(1, Ordering::Relaxed);
                    let small = fuzz::shrink(&program, frames, seed, 3000);
                    let why = fuzz::check(&small, frames, seed).err().unwrap_or(e);
                    let path = format!("fuzz-{seed}.nes");
                    if let Err(e) = nesprof::atomic::write(std::path::Path::new(&path), small.rom())
                    {
                        eprintln!("{path}: {e}");
                    }
                    println!(
                        "seed {seed}: DIVERGED ({path})\n{why}\nshrunk random code:\n{}",
                        fuzz::describe(&small)
                    );
                }
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                if n.is_multiple_of(10_000) {
                    eprintln!(
                        "{n} programs, {} diverged, {:.0} s",
                        failed.load(Ordering::Relaxed),
                        start.elapsed().as_secs_f64()
                    );
                }
            });
        }
    });
    let failed = failed.load(Ordering::Relaxed);
    println!(
        "{count} programs (seeds {first}..{}), {frames} frames each: {failed} diverged, {:.1} s",
        first + count,
        start.elapsed().as_secs_f64()
    );
    std::process::exit(i32::from(failed > 0));
}
