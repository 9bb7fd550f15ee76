//! The noise channel (NESdev wiki "APU Noise"): a 15-bit linear-feedback shift
//! register clocked by a timer with 16 NTSC periods; feedback from bit 1
//! (32767-step mode) or bit 6 (93-step "metallic" mode). The output is the
//! envelope volume while bit 0 is clear and the length counter runs.
//!
//! While the channel is silent (length 0 or volume 0) the shift register is
//! not advanced: its phase cannot be heard or read back, and skipping it keeps
//! an idle channel free. Everything else follows the hardware.

use super::envelope::Envelope;
use super::length_counter::LengthCounter;
use super::timer::Timer;

/// Timer periods in CPU cycles (NTSC).
pub const PERIODS_NTSC: [u16; 16] = [
    4, 8, 16, 32, 64, 96, 128, 160, 202, 254, 380, 508, 762, 1016, 2034, 4068,
];

#[derive(Debug, Clone)]
pub struct Noise {
    shift: u16,
    short_mode: bool,
    pub timer: Timer,
    pub envelope: Envelope,
    pub length: LengthCounter,
    live: bool,
}

impl Default for Noise {
    fn default() -> Self {
        Noise::new()
    }
}

impl Noise {
    pub fn new() -> Noise {
        Noise {
            shift: 1,
            short_mode: false,
            timer: Timer::new(PERIODS_NTSC[0] as u64, 2),
            envelope: Envelope::default(),
            length: LengthCounter::default(),
            live: false,
        }
    }

    /// Register `reg` (0-3; 1 is unused) of this channel.
    pub fn write(&mut self, reg: u16, value: u8) {
        match reg {
            0 => {
                self.length.write_halt(value & 0x20 != 0);
                self.envelope.write(value);
            }
            1 => {}
            2 => {
                self.short_mode = value & 0x80 != 0;
                self.timer
                    .set_period(PERIODS_NTSC[(value & 0x0F) as usize] as u64);
            }
            _ => {
                self.length.write_load(value >> 3);
                self.envelope.restart();
            }
        }
    }

    pub fn refresh(&mut self) {
        self.live = self.length.active() && self.envelope.volume() != 0;
    }

    #[inline]
    pub fn next_change(&self) -> u64 {
        if self.live {
            self.timer.next
        } else {
            u64::MAX
        }
    }

    #[inline]
    pub fn clock(&mut self) {
        let tap = if self.short_mode { 6 } else { 1 };
        let feedback = (self.shift ^ (self.shift >> tap)) & 1;
        self.shift = (self.shift >> 1) | (feedback << 14);
        self.timer.expire();
    }

    #[inline]
    pub fn skip_to(&mut self, cycle: u64) {
        self.timer.skip_to(cycle);
    }

    #[inline]
    pub fn output(&self) -> u8 {
        if self.live && self.shift & 1 == 0 {
            self.envelope.volume()
        } else {
            0
        }
    }

    pub fn reset(&mut self) {
        self.length.reset();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn period_of(short: bool) -> usize {
        let mut n = Noise::new();
        n.short_mode = short;
        let start = n.shift;
        (1..=40000)
            .find(|_| {
                n.clock();
                n.shift == start
            })
            .unwrap_or(0)
    }

    #[test]
    fn long_mode_repeats_after_32767_steps() {
        assert_eq!(period_of(false), 32767);
    }

    #[test]
    fn short_mode_from_power_on_state_repeats_after_93_steps() {
        // Seeded with 1, mode 1 runs the 93-step loop (a 31-step loop exists
        // for other seeds).
        assert_eq!(period_of(true), 93);
    }
}
