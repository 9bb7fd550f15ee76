//! The one door into the machine. Front-ends (CLI, window, profiler, tests)
//! drive a [`Nes`] and never reach into chip internals except through the
//! read-only accessors here.

use std::path::Path;

use crate::bus::Bus;
use crate::cartridge::Cartridge;
use crate::cpu::{Cpu, CpuState, StepKind};
use crate::error::EmuError;
use crate::hash::fnv1a64;

/// CPU clock of an NTSC NES: the 21.477272 MHz master clock divided by 12.
pub const CPU_HZ_NTSC: f64 = 21_477_272.0 / 12.0;
/// Frames per second of an NTSC NES (the average over odd and even frames).
pub const FRAME_HZ_NTSC: f64 = 60.0988;

pub struct Nes {
    pub cpu: Cpu,
    pub bus: Bus,
}

impl Nes {
    /// Inserts `cart` and powers the console on.
    pub fn new(cart: Cartridge) -> Nes {
        let mut nes = Nes {
            cpu: Cpu::new(),
            bus: Bus::new(cart),
        };
        nes.cpu.power_on(&mut nes.bus);
        nes
    }

    pub fn load(path: &Path) -> Result<Nes, EmuError> {
        Ok(Nes::new(Cartridge::load(path)?))
    }

    /// The console's reset button.
    pub fn reset(&mut self) {
        self.bus.ppu.reset();
        self.bus.cart.reset();
        self.bus.apu.reset();
        self.cpu.reset(&mut self.bus);
    }

    /// Runs one instruction (or interrupt entry).
    #[inline]
    pub fn step(&mut self) -> StepKind {
        self.cpu.step(&mut self.bus)
    }

    /// Runs until the PPU finishes the next visible frame (scanline 239).
    pub fn run_frame(&mut self) {
        self.bus.ppu.frame_complete = false;
        while !self.bus.ppu.frame_complete {
            self.cpu.step(&mut self.bus);
        }
    }

    /// Palette indices (0-63) of the last frame, 256×240 row-major.
    pub fn frame(&self) -> &[u8] {
        &self.bus.ppu.frame_buffer
    }

    /// Frames completed since power-on.
    pub fn frame_count(&self) -> u64 {
        self.bus.ppu.frame
    }

    pub fn frame_hash(&self) -> u64 {
        fnv1a64(self.frame())
    }

    pub fn ram(&self) -> &[u8] {
        &self.bus.ram
    }

    pub fn ram_hash(&self) -> u64 {
        fnv1a64(&self.bus.ram)
    }

    pub fn cpu_state(&self) -> CpuState {
        self.cpu.state()
    }

    /// CPU cycles since power-on.
    pub fn cycles(&self) -> u64 {
        self.bus.cycles
    }

    /// Sets the buttons held on controller `port` (0 or 1); see
    /// [`crate::controller::buttons`].
    pub fn set_buttons(&mut self, port: usize, buttons: u8) {
        self.bus.controllers[port].set_buttons(buttons);
    }

    /// Reads CPU memory without side effects.
    pub fn peek(&self, addr: u16) -> u8 {
        self.bus.peek(addr)
    }

    /// Starts audio synthesis at `sample_rate` Hz (NES-like output filters).
    /// Audio never changes emulation results.
    pub fn enable_audio(&mut self, sample_rate: u32) {
        self.bus
            .apu
            .enable_audio(sample_rate, crate::apu::FilterMode::Nes);
    }

    /// Appends the audio samples (mono f32, about -1..1) produced since the
    /// last call to `out`. Nothing when audio is off.
    pub fn take_audio(&mut self, out: &mut Vec<f32>) {
        self.bus.apu.take_samples(out);
    }

    /// Dynamic rate control: scales the audio sample rate by `ratio`
    /// (clamped to 0.95..1.05) from the next audio frame on.
    pub fn set_audio_rate_ratio(&mut self, ratio: f64) {
        self.bus.apu.set_audio_rate_ratio(ratio);
    }

    /// Mixes only the channels whose bit is set (see [`crate::apu::mixer`]:
    /// PULSE1, PULSE2, TRIANGLE, NOISE, DMC). Audio only; emulation is
    /// unaffected.
    pub fn set_audio_channel_mask(&mut self, mask: u8) {
        self.bus.apu.set_channel_mask(mask);
    }

    /// Where the CPU stopped, if a JAM opcode halted it.
    pub fn jammed(&self) -> Option<(u16, u8)> {
        self.cpu.jammed
    }
}
