//! What profiling costs. `probes/*`: a game replaying its movie, 60 frames
//! per iteration, with nothing attached, the sampler alone (X = 3 ms of
//! emulated time, N = 25, batches offered to the live feeder thread in a
//! profiling session, as `nesprof profile` does), the ground-truth recorder
//! alone, and both; on each engine. `builder/*`: the feeder thread's cost per batch
//! (conversion to samples and GFCGaussiano, thesis-best configuration) on a
//! recorded stream of real batches.
//! Run: `cargo bench --bench profiler`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use emu::movie::{Movie, Replay};
use emu::nes::Engine;
use emu::sampling::Retired;
use emu::Nes;
use profiler::session::{self, ProfileSettings, Recording, Session};

const FRAMES_PER_ITER: u64 = 60;
/// Frames run before measuring, to get past the title screen.
const WARMUP_FRAMES: u64 = 600;

fn replay(game: &str) -> Replay {
    let rom = std::fs::read(nesprof::testrom::roms_dir().join("games").join(game)).unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let stem = game.trim_end_matches(".nes");
    let movie = Movie::load(&root.join(format!("movies/{stem}.fm2"))).unwrap();
    Replay::new(&rom, &movie).unwrap()
}

#[derive(Clone, Copy, Debug)]
enum Probes {
    Off,
    Sampler,
    Truth,
    Both,
}

/// A machine on `engine` with `probes`, past the warm-up; with the sampler,
/// its profiling session is kept alive beside it.
struct Rig {
    nes: Nes,
    session: Option<Session>,
}

fn rig(replay: &Replay, engine: Engine, probes: Probes) -> Rig {
    let mut nes = replay.power_on().unwrap();
    nes.set_engine(engine);
    let truth = matches!(probes, Probes::Truth | Probes::Both);
    let session = if matches!(probes, Probes::Sampler | Probes::Both) {
        // The thesis' setup: X = 3 ms of emulated time, N = 25.
        let settings = ProfileSettings {
            engine,
            ..ProfileSettings::default()
        };
        let recording = Recording {
            truth,
            stream: false,
            publish_every: 64,
            mid_frame: false,
        };
        Some(Session::attach(&mut nes, &settings, recording))
    } else {
        if truth {
            nes.record_flow();
        }
        None
    };
    let mut rig = Rig { nes, session };
    frames(&mut rig, replay, WARMUP_FRAMES);
    rig
}

fn frames(rig: &mut Rig, replay: &Replay, count: u64) {
    let end = rig.nes.frame_count() + count;
    while rig.nes.frame_count() < end {
        replay.apply(&mut rig.nes, u64::MAX).unwrap();
        rig.nes.run_frame();
        if let Some(session) = rig.session.as_mut() {
            session.after_frame(&mut rig.nes);
        }
    }
}

fn probes(c: &mut Criterion) {
    for game in ["lunarlimit.nes", "fff.nes"] {
        let replay = replay(game);
        for engine in [Engine::Interpreter, Engine::Translator] {
            let mut group = c.benchmark_group(format!("probes/{game}/{engine:?}"));
            group.throughput(Throughput::Elements(FRAMES_PER_ITER));
            for p in [Probes::Off, Probes::Sampler, Probes::Truth, Probes::Both] {
                // One machine per variant, running on through the movie
                // across iterations (a fresh one per iteration would spend
                // most of the bench in the warm-up).
                let mut rig = rig(&replay, engine, p);
                group.bench_function(format!("{p:?}"), |b| {
                    b.iter(|| frames(&mut rig, &replay, FRAMES_PER_ITER))
                });
            }
            group.finish();
        }
    }
}

/// Real batches, as the emulator hands them to the builder: a game's first
/// 3000 frames at the thesis rate.
fn recorded_batches(game: &str) -> Vec<Vec<Retired>> {
    let replay = replay(game);
    let mut nes = replay.power_on().unwrap();
    // The thesis' setup: X = 3 ms of emulated time, N = 25.
    nes.attach_sampler(session::sampler(&ProfileSettings::default(), nes.cycles()).0);
    let mut batches = Vec::new();
    while nes.frame_count() < 3000 {
        replay.apply(&mut nes, u64::MAX).unwrap();
        nes.run_frame();
        let taken = nes.sampler_mut().unwrap().take_batches();
        batches.extend(taken.iter().map(<[Retired]>::to_vec));
    }
    batches
}

/// The feeder thread's work per batch: conversion to samples, then the
/// builder, whose graph is read every 64 batches as the feeder publishes it
/// (the trace builder derives its graph on those reads).
fn builder(c: &mut Criterion) {
    let mut group = c.benchmark_group("builder");
    for game in ["lunarlimit.nes", "fff.nes"] {
        let batches = recorded_batches(game);
        group.throughput(Throughput::Elements(batches.len() as u64));
        for kind in gfc::BuilderKind::ALL {
            let name = format!("{kind}/{game}/{}_batches", batches.len());
            group.bench_function(name, |b| {
                b.iter(|| {
                    let mut builder = kind.build(gfc::THESIS_BEST);
                    for (i, batch) in batches.iter().enumerate() {
                        builder.process_batch(&profiler::convert::batch(batch));
                        if i % 64 == 63 {
                            std::hint::black_box(builder.graph().num_edges());
                        }
                    }
                    std::hint::black_box(builder.graph().num_edges());
                    builder
                })
            });
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = probes, builder
}
criterion_main!(benches);
