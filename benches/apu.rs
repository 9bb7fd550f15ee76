//! APU cost per emulated frame (criterion). A synthetic NROM program keeps
//! all five channels busy - two pulses, triangle, noise, and $4011 PCM writes
//! every ~40 CPU cycles (45 kHz, like a sample player; the worst case for
//! the synthesiser) - and the whole machine runs one frame per iteration:
//!
//! * `apu/frame_audio_off`: emulation only (the APU's events still run).
//! * `apu/frame_audio_on`: plus band-limited synthesis at 48 kHz and taking
//!   the samples, as `nesprof run --wav` and the window do.
//! * `apu/tick_idle_frame`: the APU alone ticked for one frame's cycles with
//!   nothing playing: the per-cycle fast path.
//!
//! Run: `cargo bench --bench apu`. Figures are in BENCHMARKS.md.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use emu::apu::Apu;
use emu::dma::Dma;
use emu::{Cartridge, Nes};
use nesprof::testrom::nrom_with_code;

/// Starts pulse 1 (~440 Hz), pulse 2 (~660 Hz), triangle and noise with
/// halted length counters, then loops: INX; STX $4011; short delay.
const ALL_CHANNELS: &[u8] = &[
    0xA9, 0x0F, 0x8D, 0x15, 0x40, // enable pulse 1/2, triangle, noise
    0xA9, 0xBF, 0x8D, 0x00, 0x40, // pulse 1: 50 %, halt, volume 15
    0xA9, 0xFD, 0x8D, 0x02, 0x40, //
    0xA9, 0x00, 0x8D, 0x03, 0x40, //
    0xA9, 0x7F, 0x8D, 0x04, 0x40, // pulse 2: 25 %, halt, volume 15
    0xA9, 0xA9, 0x8D, 0x06, 0x40, //
    0xA9, 0x00, 0x8D, 0x07, 0x40, //
    0xA9, 0xFF, 0x8D, 0x08, 0x40, // triangle: control, linear 127
    0xA9, 0x7E, 0x8D, 0x0A, 0x40, //
    0xA9, 0x00, 0x8D, 0x0B, 0x40, //
    0xA9, 0x3F, 0x8D, 0x0C, 0x40, // noise: halt, volume 15
    0xA9, 0x03, 0x8D, 0x0E, 0x40, //
    0xA9, 0x00, 0x8D, 0x0F, 0x40, //
    0xE8, // loop: INX
    0x8E, 0x11, 0x40, // STX $4011
    0xA0, 0x05, // LDY #5
    0x88, // dly: DEY
    0xD0, 0xFD, // BNE dly
    0x4C, 0x41, 0x80, // JMP loop
];

fn frames(c: &mut Criterion) {
    let image = nrom_with_code(ALL_CHANNELS);
    let mut group = c.benchmark_group("apu");
    group.throughput(Throughput::Elements(1));
    let mut off = Nes::new(Cartridge::from_bytes(&image).unwrap());
    off.run_frame();
    group.bench_function("frame_audio_off", |b| b.iter(|| off.run_frame()));
    let mut on = Nes::new(Cartridge::from_bytes(&image).unwrap());
    on.enable_audio(48_000);
    let mut samples = Vec::with_capacity(4096);
    on.run_frame();
    group.bench_function("frame_audio_on", |b| {
        b.iter(|| {
            on.run_frame();
            samples.clear();
            on.take_audio(&mut samples);
        })
    });
    let (mut apu, mut dma) = (Apu::new(), Dma::default());
    group.bench_function("tick_idle_frame", |b| {
        b.iter(|| {
            for _ in 0..29_781 {
                apu.tick(&mut dma);
            }
        })
    });
    group.finish();
}

criterion_group!(benches, frames);
criterion_main!(benches);
