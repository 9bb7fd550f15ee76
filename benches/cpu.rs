//! CPU speed of both engines in emulated instructions per second (criterion
//! reports it as element throughput): a tight ALU loop, and nestest's
//! automation run. Rendering is off in both programs, so this is the CPU side
//! (plus per-cycle APU clocking and the PPU's idle catch-up).
//! Run: `cargo bench --bench cpu`.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use emu::nes::Engine;
use emu::{Cartridge, Nes};
use nesprof::testrom::nrom_with_code;

const ENGINES: [(&str, Engine); 2] = [
    ("interpreter", Engine::Interpreter),
    ("translator", Engine::Translator),
];

/// loop: CLC; ADC #$03; EOR $10; ROL A; TAX; INX; STX $11; LDA $0200,X;
///       DEY; BNE loop; JMP loop
const ALU_LOOP: &[u8] = &[
    0x18, 0x69, 0x03, 0x45, 0x10, 0x2A, 0xAA, 0xE8, 0x86, 0x11, 0xBD, 0x00, 0x02, 0x88, 0xD0, 0xF1,
    0x4C, 0x00, 0x80,
];

const INSTRUCTIONS_PER_ITER: u64 = 100_000;

fn alu_loop(c: &mut Criterion) {
    let image = nrom_with_code(ALU_LOOP);
    for (name, engine) in ENGINES {
        let mut nes = Nes::new(Cartridge::from_bytes(&image).unwrap());
        nes.set_engine(engine);
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Elements(INSTRUCTIONS_PER_ITER));
        group.bench_function("alu_loop", |b| {
            b.iter(|| {
                let end = nes.retired() + INSTRUCTIONS_PER_ITER;
                while nes.retired() < end {
                    nes.run_some();
                }
            })
        });
        group.finish();
    }
}

fn nestest(c: &mut Criterion) {
    let path = nesprof::testrom::roms_dir().join("cpu/nestest/nestest.nes");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    const NESTEST_INSTRUCTIONS: u64 = 8991;
    for (name, engine) in ENGINES {
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Elements(NESTEST_INSTRUCTIONS));
        group.bench_function("nestest", |b| {
            b.iter_batched_ref(
                || {
                    let mut nes = Nes::new(Cartridge::from_bytes(&bytes).unwrap());
                    nes.set_engine(engine);
                    nes.set_pc(0xC000);
                    nes
                },
                |nes| {
                    while nes.retired() < NESTEST_INSTRUCTIONS {
                        nes.run_some();
                    }
                },
                BatchSize::SmallInput,
            )
        });
        group.finish();
    }
}

criterion_group!(benches, alu_loop, nestest);
criterion_main!(benches);
