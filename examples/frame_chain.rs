//! Every frame of a movie in one hash: each frame's `frame_hash` chained
//! into the next, so two builds that print the same line drew the same
//! picture on every frame, not only the last (which is all `nesprof run`'s
//! summary line shows). For checking that a change to the PPU or the
//! translator changed no frame, before and after it, on each movie:
//!
//! ```sh
//! for g in $(ls movies/*.fm2 | xargs -n1 basename | sed 's/.fm2//' | grep -v BladeBuster); do target/release/examples/frame_chain $g 3000; done
//! ```
//!
//! Usage: frame_chain GAME FRAMES [interp|translate]
//! (GAME: a bundled workload or a game of `workloads-games.ron`).

use emu::nes::Engine;

#[path = "common/cli.rs"]
mod cli;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if !(3..=4).contains(&args.len()) {
        eprintln!("usage: frame_chain GAME FRAMES [interp|translate]");
        std::process::exit(2);
    }
    let frames: u64 = cli::number("frame_chain", "FRAMES", &args[2]);
    let engine = match args.get(3).map(String::as_str) {
        None | Some("translate") => Engine::Translator,
        Some("interp") => Engine::Interpreter,
        Some(other) => cli::fail(
            "frame_chain",
            &format!("the engine is interp or translate, not {other:?}"),
        ),
    };
    // The machine as `nesprof run` opens it, powered on for the movie.
    let (_, mut nes, replay) = cli::workload_replay("frame_chain", &args[1]);
    nes.set_engine(engine);
    let mut chain = 0u64;
    while nes.frame_count() < frames {
        if let Err(e) = replay.apply(&mut nes, u64::MAX) {
            cli::fail("frame_chain", &format!("{}: {e}", args[1]));
        }
        nes.run_frame();
        chain = chain.rotate_left(7) ^ nes.frame_hash();
    }
    println!("{} frames={frames} chain={chain:016x}", args[1]);
}
