//! A fuzzing campaign of the engines (see `nesprof::fuzz`): random programs
//! by seed, each run on both engines in lockstep; a divergence is shrunk and
//! printed with its seed, and its ROM written to `fuzz-SEED.nes`.
//!
//! Usage: fuzz_engines COUNT [FIRST_SEED] [FRAMES] [THREADS]
//! (defaults: seed 0, 20 frames, all cores). Exit status 1 if any diverged.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use nesprof::fuzz::{self, Program};

fn arg(n: usize, default: u64) -> u64 {
    std::env::args()
        .nth(n)
        .map(|s| s.parse().expect("a whole number"))
        .unwrap_or(default)
}

fn main() {
    let count = arg(1, 1000);
    let first = arg(2, 0);
    let frames = arg(3, 20);
    let threads = arg(
        4,
        std::thread::available_parallelism().map_or(1, |n| n.get()) as u64,
    );
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
                let program = Program::generate(seed);
                if let Err(e) = fuzz::check(&program, frames, seed) {
                    failed.fetch_add(1, Ordering::Relaxed);
                    let small = fuzz::shrink(&program, frames, seed, 3000);
                    let why = fuzz::check(&small, frames, seed).err().unwrap_or(e);
                    let path = format!("fuzz-{seed}.nes");
                    let _ = std::fs::write(&path, small.rom());
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
