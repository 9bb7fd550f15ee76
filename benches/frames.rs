//! Whole-machine speed in frames per second (criterion reports it as element
//! throughput): CPU, PPU with full rendering, and mapper, on games with
//! different PPU usage — plain (lunarlimit, NROM), mid-frame raster effects
//! (fff, UxROM), and a mapper that watches the PPU bus (hello_mmc3, MMC3).
//! Each game runs on both engines. Run: `cargo bench --bench frames`.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use emu::nes::Engine;
use emu::{Cartridge, Nes};

const FRAMES_PER_ITER: u64 = 60;

fn game(c: &mut Criterion, name: &str, engine: Engine) {
    let path = nesprof::testrom::roms_dir().join("games").join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let label = match engine {
        Engine::Interpreter => "interp",
        Engine::Translator => "translate",
    };
    let mut group = c.benchmark_group(format!("frames/{label}"));
    group.throughput(Throughput::Elements(FRAMES_PER_ITER));
    group.bench_function(name, |b| {
        b.iter_batched_ref(
            || {
                let mut nes = Nes::new(Cartridge::from_bytes(&bytes).unwrap());
                nes.set_engine(engine);
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
        for engine in [Engine::Interpreter, Engine::Translator] {
            game(c, name, engine);
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = games
}
criterion_main!(benches);
