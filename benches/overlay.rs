//! What the live overlay costs the emulation thread per frame (issue 9: the
//! panel must draw in under 2 ms). A game replays its movie for 1800 frames
//! with the overlay attached (emulated trigger, so the graph is the same on
//! every run), the builder settles, and then:
//! - `draw/*`: drawing the whole panel into the window buffer, as every
//!   displayed frame does, at window scales 2, 3 and 4, in count and recency
//!   colouring, and hidden (O);
//! - `relayout/*`: copying a published snapshot and laying the graph out,
//!   which happens only when the builder publishes (a few times a second).
//!
//! Run: `cargo bench --bench overlay`.

use criterion::{criterion_group, criterion_main, Criterion};
use emu::movie::{Movie, Replay};
use emu::sampling::Trigger;
use emu::Nes;
use nesprof::play::overlay::{Action, Colouring, Overlay};
use profiler::session::ProfileSettings;

const GAME: &str = "fff";
const FRAMES: u64 = 1800;

fn replay() -> Replay {
    let rom = std::fs::read(
        nesprof::testrom::roms_dir()
            .join("games")
            .join(format!("{GAME}.nes")),
    )
    .unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let movie = Movie::load(&root.join(format!("movies/{GAME}.fm2"))).unwrap();
    Replay::new(&rom, &movie).unwrap()
}

/// The game after [`FRAMES`] frames of its movie, with a settled overlay.
fn rig(replay: &Replay, scale: usize) -> (Nes, Overlay) {
    let mut nes = replay.power_on().unwrap();
    let settings = ProfileSettings {
        trigger: Trigger::Emulated,
        ..ProfileSettings::default()
    };
    let mut overlay = Overlay::new(&mut nes, &settings, false, scale, None);
    while nes.frame_count() < FRAMES {
        replay.apply(&mut nes, FRAMES).unwrap();
        nes.run_frame();
        overlay.after_frame(&mut nes);
    }
    overlay.settle(&mut nes);
    (nes, overlay)
}

fn bench(c: &mut Criterion) {
    let replay = replay();
    let mut group = c.benchmark_group("overlay");
    for scale in [2usize, 3, 4] {
        let (nes, mut overlay) = rig(&replay, scale);
        println!("scale {scale}: {}", overlay.summary(&nes));
        let game_w = 256 * scale;
        let stride = game_w + overlay.layout().width as usize;
        let mut buffer = vec![0u32; stride * 240 * scale];
        group.bench_function(format!("draw/scale{scale}/count"), |b| {
            b.iter(|| overlay.draw(&mut buffer, stride, game_w, &nes))
        });
        let mut nes = nes;
        overlay.apply(Action::CycleColouring, &mut nes);
        assert_eq!(overlay.colouring(), Colouring::Recency);
        group.bench_function(format!("draw/scale{scale}/recency"), |b| {
            b.iter(|| overlay.draw(&mut buffer, stride, game_w, &nes))
        });
        overlay.apply(Action::CycleColouring, &mut nes);
        group.bench_function(format!("relayout/scale{scale}"), |b| {
            b.iter(|| overlay.relayout(&nes))
        });
        overlay.apply(Action::Toggle, &mut nes);
        group.bench_function(format!("draw/scale{scale}/hidden"), |b| {
            b.iter(|| overlay.draw(&mut buffer, stride, game_w, &nes))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
