//! What one configuration of the sweep costs: replaying a recorded 5-minute
//! sample stream (18000 frames of lunarlimit's movie, emulated trigger,
//! X = 3 ms, N = 25: about 100k batches) through GFCGaussiano and scoring
//! the hot CFG with every metric, as `nesprof sweep` does 144 times per
//! workload. Three configurations: the thesis' best (10, 15, 13, 5) and the
//! grid's extremes (8, 8, 6, 12) and (16, 15, 13, 5).
//! Run: `cargo bench --bench sweep` (setup emulates the 5 minutes first,
//! ~10 s). Falls back to the bundled maze workload without the shared ROMs.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gfc::GfcParams;
use nesprof::sweep::run::{emulate, prepare, replay_config};
use nesprof::sweep::workloads::{bundled, repo_root};
use nesprof::sweep::Workload;
use profiler::session::ProfileSettings;

fn workload() -> Workload {
    let repo = repo_root();
    let game = nesprof::testrom::roms_dir().join("games/lunarlimit.nes");
    if game.is_file() {
        Workload {
            name: "lunarlimit".into(),
            rom: game,
            movie: Some(repo.join("movies/lunarlimit.fm2")),
            minutes: Some(5.0),
            ignore_rom_mismatch: false,
        }
    } else {
        let mut w = bundled(&repo)
            .into_iter()
            .find(|w| w.name == "maze")
            .unwrap();
        w.minutes = Some(5.0);
        w
    }
}

fn replay(c: &mut Criterion) {
    let w = workload();
    let prepared = prepare(&w, None).unwrap();
    let emulated = emulate(&w.name, prepared, &ProfileSettings::default(), |_| true).unwrap();
    let mut group = c.benchmark_group(format!(
        "sweep_replay/{}_5min_{}_batches",
        w.name,
        emulated.batches.len()
    ));
    group.throughput(Throughput::Elements(emulated.batches.len() as u64));
    for params in [
        gfc::THESIS_BEST,
        GfcParams::new(8, 8, 6, 12).unwrap(),
        GfcParams::new(16, 15, 13, 5).unwrap(),
    ] {
        group.bench_function(
            format!(
                "#{}_{}_{}_{}_{}",
                params.id().unwrap_or(0),
                params.bin_size,
                params.stdev_threshold,
                params.window_size,
                params.recurrent_threshold
            ),
            |b| b.iter(|| replay_config(&emulated, params)),
        );
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = replay
}
criterion_main!(benches);
