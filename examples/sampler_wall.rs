//! Wall-clock cost of the sampler on the emulation thread, measured A/B:
//! two machines replay the same movie, one bare and one with the sampler
//! (X = 3 ms of emulated time, N = 25), the taken branch targets noted as
//! `profile` notes them, and its live feeder thread, advanced
//! in alternating slices of frames (the order flipping every slice) and
//! timed slice by slice. Interleaving finely cancels the drift of a shared
//! machine, which made separate runs differ by more than the cost measured.
//! callgrind (`scripts/probe-cost.sh`) counts instructions; this counts what
//! they and everything around them (cache, the feeder on the other core,
//! system calls) cost in time.
//!
//! Besides the total times it prints the trimmed mean of the per-slice
//! ratios (the 10 % highest and lowest dropped), which a hiccup on the
//! machine cannot move. With `aa` as the last argument the second machine
//! runs bare too: what that prints is the measurement's own noise.
//! `SAMPLER_WALL_X_MS` and `SAMPLER_WALL_N` in the environment change the
//! sampler's X and N, to see what the cost is made of (X = 1e9: attached
//! but never firing; N = 1: what starting and ending a batch costs;
//! `SAMPLER_WALL_DISCARD=1`: batches dropped, not fed, so the builder's
//! thread costs nothing).
//!
//! Usage: sampler_wall GAME interp|translate FRAMES [ROUNDS] [aa]
//! (GAME: a bundled workload or a game of `workloads-games.ron`).

use emu::movie::Replay;
use emu::nes::Engine;
use emu::Nes;
use profiler::feeder::Feeder;
use profiler::session::{self, ProfileSettings};

#[path = "common/interleaved.rs"]
mod interleaved;
use interleaved::{Interleaved, SLICE_FRAMES};

#[path = "common/cli.rs"]
mod cli;

/// Runs `nes` to frame `to`, offering batches after each frame as `nesprof
/// profile` does.
fn advance(
    nes: &mut Nes,
    replay: &Replay,
    to: u64,
    mut builder: Option<&mut Feeder>,
    discard: bool,
) {
    while nes.frame_count() < to {
        replay.apply(nes, u64::MAX).expect("movie input");
        nes.run_frame();
        if let (Some(sampler), Some(b)) = (nes.sampler_mut(), builder.as_deref_mut()) {
            if discard {
                let taken = b.take_from(sampler);
                drop(taken);
            } else {
                b.offer_from(sampler);
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mut args = args;
    let aa = args.last().is_some_and(|a| a == "aa");
    if aa {
        args.pop();
    }
    if !(4..=5).contains(&args.len()) {
        eprintln!("usage: sampler_wall GAME interp|translate FRAMES [ROUNDS] [aa]");
        std::process::exit(2);
    }
    let (game, engine) = (&args[1], &args[2]);
    let frames: u64 = cli::number("sampler_wall", "FRAMES", &args[3]);
    let rounds: u32 = args
        .get(4)
        .map_or(1, |r| cli::number("sampler_wall", "ROUNDS", r));
    // SAMPLER_WALL_DISCARD=1: the batches are taken from the sampler and
    // dropped, not fed, to tell the emulation thread's own cost from what
    // the builder's thread costs it.
    let discard = std::env::var_os("SAMPLER_WALL_DISCARD").is_some();
    let (_, _, replay) = cli::workload_replay("sampler_wall", game);
    let engine = match engine.as_str() {
        "interp" => Engine::Interpreter,
        _ => Engine::Translator,
    };
    let mut timed = Interleaved::default();
    for _ in 0..rounds {
        let mut off = replay.power_on().expect("power on");
        let mut on = replay.power_on().expect("power on");
        off.set_engine(engine);
        on.set_engine(engine);
        // The thesis' setup: X = 3 ms of emulated time, N = 25, unless
        // SAMPLER_WALL_X_MS / SAMPLER_WALL_N say otherwise.
        if !aa {
            let mut settings = ProfileSettings::default();
            if let Some(x) = cli::env_positive("sampler_wall", "SAMPLER_WALL_X_MS") {
                settings.interval_ms = x;
            }
            if let Some(n) = cli::env_count("sampler_wall", "SAMPLER_WALL_N") {
                settings.batch_len = n;
            }
            on.attach_sampler(session::sampler(&settings, on.cycles()).0);
            // As `profile` runs it: with the taken branch targets noted
            // (issue 44's leaders), whose cost is the sampler's too.
            on.record_taken_targets();
        }
        // The default builder (the trace builder), fed as `profile` feeds
        // it: no snapshot before the end.
        let mut builder = Feeder::spawn(
            ProfileSettings::default().builder.build(gfc::THESIS_BEST),
            4096,
            u64::MAX,
            false,
        );
        while off.frame_count() < frames {
            let to = (off.frame_count() + SLICE_FRAMES).min(frames);
            timed.slice(
                || advance(&mut off, &replay, to, None, false),
                || advance(&mut on, &replay, to, Some(&mut builder), discard),
            );
        }
        assert_eq!(
            off.frame_hash(),
            on.frame_hash(),
            "the sampler changed a frame"
        );
        if let Some(sampler) = on.sampler_mut() {
            builder.flush_from(sampler);
        }
        let dropped = builder.dropped();
        builder.finish();
        assert_eq!(dropped, 0, "batches dropped");
    }
    println!(
        "bare_s={:.4} sampled_s={:.4} slowdown_pct={:.2} trimmed_slice_pct={:.2}{}",
        timed.a.as_secs_f64(),
        timed.b.as_secs_f64(),
        timed.change_pct(),
        timed.trimmed_pct(),
        if aa { " (A/A: both bare)" } else { "" }
    );
}
