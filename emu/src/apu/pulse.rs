//! A pulse (square) channel (NESdev wiki "APU Pulse"): an 11-bit timer
//! clocking an 8-step duty sequencer, gated by the sweep unit's muting, the
//! length counter and the envelope's volume.
//!
//! The sequencer counts *down* from 0 (0, 7, 6, ..., 1) and a write to the
//! fourth register resets it to 0, so the first high step of a note comes a
//! fixed number of timer clocks after the write; the mixer tests depend on that
//! phase.

use super::envelope::Envelope;
use super::length_counter::LengthCounter;
use super::sweep::Sweep;
use super::timer::Timer;

/// Duty lookup indexed by sequencer value (12.5/25/50/75 %). Read in the
/// sequencer's order 0, 7, 6, ..., 1 these give the waveforms
/// 01000000, 01100000, 01111000 and 10011111.
const DUTY: [[u8; 8]; 4] = [
    [0, 0, 0, 0, 0, 0, 0, 1],
    [0, 0, 0, 0, 0, 0, 1, 1],
    [0, 0, 0, 0, 1, 1, 1, 1],
    [1, 1, 1, 1, 1, 1, 0, 0],
];

#[derive(Debug, Clone)]
pub struct Pulse {
    duty: u8,
    step: u8,
    /// The raw 11-bit timer period from $4002/$4003 (and the sweep).
    period: u16,
    pub timer: Timer,
    pub envelope: Envelope,
    pub sweep: Sweep,
    pub length: LengthCounter,
    /// Whether the output can change on a timer clock (cached gating).
    live: bool,
}

impl Pulse {
    pub fn new(ones_complement_sweep: bool) -> Pulse {
        Pulse {
            duty: 0,
            step: 0,
            period: 0,
            timer: Timer::new(2, 2),
            envelope: Envelope::default(),
            sweep: Sweep::new(ones_complement_sweep),
            length: LengthCounter::default(),
            live: false,
        }
    }

    /// Register `reg` (0-3) of this channel.
    pub fn write(&mut self, reg: u16, value: u8) {
        match reg {
            0 => {
                self.duty = value >> 6;
                self.length.write_halt(value & 0x20 != 0);
                self.envelope.write(value);
            }
            1 => self.sweep.write(value),
            2 => self.set_period((self.period & 0x700) | value as u16),
            _ => {
                self.set_period((self.period & 0x0FF) | ((value as u16 & 7) << 8));
                self.length.write_load(value >> 3);
                self.step = 0;
                self.envelope.restart();
            }
        }
    }

    fn set_period(&mut self, period: u16) {
        self.period = period;
        self.timer.set_period((period as u64 + 1) * 2);
    }

    /// Half-frame clock of the sweep.
    pub fn clock_sweep(&mut self) {
        let mut period = self.period;
        self.sweep.clock(&mut period);
        if period != self.period {
            self.set_period(period);
        }
    }

    /// Recomputes whether the channel is audible (after any state change).
    pub fn refresh(&mut self) {
        self.live =
            self.length.active() && self.envelope.volume() != 0 && !self.sweep.mutes(self.period);
    }

    /// Cycle of the next timer clock that can change the output.
    #[inline]
    pub fn next_change(&self) -> u64 {
        if self.live {
            self.timer.next
        } else {
            u64::MAX
        }
    }

    /// The timer expired at `self.timer.next`.
    #[inline]
    pub fn clock(&mut self) {
        self.step = self.step.wrapping_sub(1) & 7;
        self.timer.expire();
    }

    /// Advances a silent channel to `cycle` without visiting each clock.
    #[inline]
    pub fn skip_to(&mut self, cycle: u64) {
        let clocks = self.timer.skip_to(cycle);
        self.step = (self.step as u64).wrapping_sub(clocks) as u8 & 7;
    }

    /// DAC input, 0-15.
    #[inline]
    pub fn output(&self) -> u8 {
        if self.live {
            DUTY[self.duty as usize][self.step as usize] * self.envelope.volume()
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

    fn playing(duty: u8) -> Pulse {
        let mut p = Pulse::new(false);
        p.length.set_enabled(true);
        p.write(0, duty << 6 | 0x1F); // constant volume 15
        p.write(2, 0x40);
        p.write(3, 0x08);
        p.length.commit();
        p.refresh();
        p
    }

    #[test]
    fn sequencer_reads_0_then_counts_down() {
        let mut p = playing(0);
        let mut seen = vec![p.output()];
        for _ in 0..8 {
            p.clock();
            seen.push(p.output());
        }
        // Steps 0,7,6,...,1,0: the 12.5 % waveform 01000000 starts over.
        assert_eq!(seen, vec![0, 15, 0, 0, 0, 0, 0, 0, 0]);
        let mut p = playing(3);
        let mut seen = vec![p.output()];
        for _ in 0..7 {
            p.clock();
            seen.push(p.output());
        }
        assert_eq!(seen, vec![15, 0, 0, 15, 15, 15, 15, 15]);
    }

    #[test]
    fn timer_period_is_twice_raw_plus_one() {
        let p = playing(2);
        assert_eq!(p.timer.period(), 2 * (0x40 + 1));
    }

    #[test]
    fn muted_below_period_8() {
        let mut p = playing(2);
        p.write(2, 7);
        p.write(3, 0);
        p.refresh();
        assert_eq!(p.next_change(), u64::MAX);
        assert_eq!(p.output(), 0);
    }
}
