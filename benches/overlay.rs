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
//! `overlay_memory` measures the memory view (`--memory`, key M) on
//! tracker (bundled) and fff, 1800 frames in:
//! - `copy/*`: what a refresh costs the emulation thread, once a second
//!   while the view is shown: the flow counts copied into a reused buffer
//!   and the memory profile cloned for the worker (which frees it);
//! - `picture/*`: the worker's refresh: the exact CFG built, the profile
//!   analysed as `profile --memory` does, heat maps and rows made;
//! - `draw/*/scale3`: drawing the panel in the memory view, every frame.
//!
//! Run: `cargo bench --bench overlay`.

use criterion::{criterion_group, criterion_main, Criterion};
use emu::movie::{Movie, Replay};
use emu::sampling::Trigger;
use emu::Nes;
use nesprof::play::overlay::{memory, Action, Colouring, Overlay, PanelView};
use profiler::session::ProfileSettings;

const GAME: &str = "fff";
const FRAMES: u64 = 1800;

fn replay() -> Replay {
    replay_of(
        &nesprof::testrom::roms_dir()
            .join("games")
            .join(format!("{GAME}.nes")),
        GAME,
    )
}

/// `rom` replaying `movies/<name>.fm2`.
fn replay_of(rom: &std::path::Path, name: &str) -> Replay {
    let rom = std::fs::read(rom).unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let movie = Movie::load(&root.join(format!("movies/{name}.fm2"))).unwrap();
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

fn bench_memory(c: &mut Criterion) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let games = [
        ("tracker", root.join("roms-test/tracker.nes")),
        (
            GAME,
            nesprof::testrom::roms_dir()
                .join("games")
                .join(format!("{GAME}.nes")),
        ),
    ];
    let mut group = c.benchmark_group("overlay_memory");
    group.sample_size(20);
    for (name, rom) in games {
        let replay = replay_of(&rom, name);
        let mut nes = replay.power_on().unwrap();
        let settings = ProfileSettings {
            trigger: Trigger::Emulated,
            memory: Some(None),
            ..ProfileSettings::default()
        };
        let scale = 3;
        let mut overlay = Overlay::new(&mut nes, &settings, false, scale, None);
        while nes.frame_count() < FRAMES {
            replay.apply(&mut nes, FRAMES).unwrap();
            nes.run_frame();
            overlay.after_frame(&mut nes);
        }
        let mut spare = Box::new(nes.flow_counts().unwrap().clone());
        // One copy alive at a time, as with the worker (which frees it
        // while the next second's frames run): the allocator hands the
        // same memory back, as it does in a session.
        group.bench_function(format!("copy/{name}"), |b| {
            b.iter(|| {
                spare.copy_from(nes.flow_counts().unwrap());
                Box::new(nes.memory_profile().unwrap().clone())
            })
        });
        let layout = *overlay.layout();
        let profile = nes.memory_profile().unwrap().clone();
        let counts = nes.flow_counts().unwrap().clone();
        let picture = memory::picture(&layout, None, &profile, &counts, FRAMES);
        println!(
            "{name}: {} bytes, {} shared ranges, {} dependences; one refresh {:.2} ms",
            picture.bytes,
            picture.shared_total,
            picture.dependences_total,
            picture.took.as_secs_f64() * 1000.0
        );
        group.bench_function(format!("picture/{name}"), |b| {
            b.iter(|| memory::picture(&layout, None, &profile, &counts, FRAMES))
        });
        overlay.settle(&mut nes);
        overlay.set_panel_view(PanelView::Memory);
        let game_w = 256 * scale;
        let stride = game_w + layout.width as usize;
        let mut buffer = vec![0u32; stride * 240 * scale];
        group.bench_function(format!("draw/{name}/scale{scale}"), |b| {
            b.iter(|| overlay.draw(&mut buffer, stride, game_w, &nes))
        });
    }
    group.finish();
}

criterion_group!(benches, bench, bench_memory);
criterion_main!(benches);
