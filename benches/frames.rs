//! Whole-machine speed in frames per second (criterion reports it as element
//! throughput): CPU, PPU with full rendering, and mapper, on games with
//! different PPU usage — plain (lunarlimit, NROM), mid-frame raster effects
//! (fff, UxROM), and a mapper that watches the PPU bus (hello_mmc3, MMC3).
//! Run: `cargo bench --bench frames`.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use emu::{Cartridge, Nes};

const FRAMES_PER_ITER: u64 = 60;

fn game(c: &mut Criterion, name: &str) {
    let path = nesprof::testrom::roms_dir().join("games").join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut group = c.benchmark_group("frames");
    group.throughput(Throughput::Elements(FRAMES_PER_ITER));
    group.bench_function(name, |b| {
        b.iter_batched_ref(
            || {
                let mut nes = Nes::new(Cartridge::from_bytes(&bytes).unwrap());
                for _ in 0..120 {
                    nes.run_frame();
                }
                nes
            },
            |nes| {
                for _ in 0..FRAMES_PER_ITER {
                    nes.run_frame();
                }
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

fn games(c: &mut Criterion) {
    for name in ["lunarlimit.nes", "fff.nes", "hello_mmc3.nes"] {
        game(c, name);
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = games
}
criterion_main!(benches);
