//! The frame counter (NESdev wiki "APU Frame Counter"), NTSC: a sequencer that
//! clocks the envelopes and triangle linear counter (quarter frames) and the
//! length counters and sweeps (half frames), and in the 4-step mode raises the
//! frame IRQ.
//!
//! Timings are CPU cycles after the sequencer restarts. In 4-step mode the IRQ
//! flag is asserted on the last three cycles of the sequence (29828-29830; with
//! IRQs inhibited, on the first two only, without raising the IRQ line), so
//! a $4015 read that clears it on the first of them sees it set again. A $4017
//! write takes effect 3 or 4 CPU cycles later depending on which half of the
//! APU cycle it lands in (the "jitter" tests), and in 5-step mode immediately
//! clocks the quarter and half frame units. A clock is not repeated within one
//! APU cycle: the sequencer's own clock and a $4017 clock on the same or the
//! next CPU cycle produce one clock.

/// What a cycle of the sequencer clocked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameClock {
    None,
    /// Envelopes and the triangle's linear counter.
    Quarter,
    /// Quarter-frame units plus length counters and sweeps.
    Half,
}

use FrameClock::{Half, Quarter};

/// Cycle of each step after the sequence (re)starts; the last one wraps.
const STEPS_4: [u64; 6] = [7457, 14913, 22371, 29828, 29829, 29830];
const STEPS_5: [u64; 6] = [7457, 14913, 22371, 29829, 37281, 37282];
const CLOCKS: [FrameClock; 6] = [
    Quarter,
    Half,
    Quarter,
    FrameClock::None,
    Half,
    FrameClock::None,
];

/// CPU cycles from a $4017 write to its effect, by the write cycle's parity.
const WRITE_DELAY_EVEN: u64 = 3;
const WRITE_DELAY_ODD: u64 = 4;

#[derive(Debug, Clone)]
pub struct FrameCounter {
    five_step: bool,
    irq_inhibit: bool,
    pub irq_flag: bool,
    step: usize,
    /// Cycle at which the current sequence started.
    origin: u64,
    /// A $4017 value waiting to take effect, and when.
    pending: Option<(u8, u64)>,
    /// Last value written (a reset writes it again).
    last_written: u8,
    /// No clock may happen up to and including this cycle.
    blocked_until: u64,
}

impl FrameCounter {
    /// Power-on: as if $00 had been written to $4017 just before the CPU's
    /// reset sequence (`at` = cycle the write takes effect).
    pub fn new(at: u64) -> FrameCounter {
        FrameCounter {
            five_step: false,
            irq_inhibit: false,
            irq_flag: false,
            step: 0,
            origin: 0,
            pending: Some((0x00, at)),
            last_written: 0,
            blocked_until: 0,
        }
    }

    /// Reset button: the last mode is written again (IRQ inhibit cleared), and
    /// the IRQ flag clears.
    pub fn reset(&mut self, at: u64) {
        self.irq_inhibit = false;
        self.irq_flag = false;
        self.pending = Some((self.last_written & 0x80, at));
    }

    /// $4017 written on CPU cycle `cycle`.
    pub fn write(&mut self, value: u8, cycle: u64) {
        self.last_written = value;
        self.irq_inhibit = value & 0x40 != 0;
        if self.irq_inhibit {
            self.irq_flag = false;
        }
        let delay = if cycle & 1 == 0 {
            WRITE_DELAY_EVEN
        } else {
            WRITE_DELAY_ODD
        };
        self.pending = Some((value, cycle + delay));
    }

    #[inline]
    fn steps(&self) -> &'static [u64; 6] {
        if self.five_step {
            &STEPS_5
        } else {
            &STEPS_4
        }
    }

    /// Whether the frame counter drives the IRQ line: its flag, unless
    /// inhibited.
    pub fn irq_output(&self) -> bool {
        self.irq_flag && !self.irq_inhibit
    }

    /// Next cycle on which [`FrameCounter::run`] has something to do.
    pub fn next_event(&self) -> u64 {
        let step = self.origin + self.steps()[self.step];
        match self.pending {
            Some((_, at)) => step.min(at),
            None => step,
        }
    }

    /// Runs cycle `cycle` (called on every cycle [`Self::next_event`] names).
    pub fn run(&mut self, cycle: u64) -> FrameClock {
        let mut clock = FrameClock::None;
        if cycle >= self.origin + self.steps()[self.step] {
            if !self.five_step && self.step >= 3 {
                // With IRQs inhibited the flag still rises on the first two
                // of these cycles (a $4015 read sees it) and falls on the
                // third, and the IRQ line stays low throughout
                // (AccuracyCoin "Frame Counter IRQ" I-M, RP2A03G).
                self.irq_flag = !(self.irq_inhibit && self.step == 5);
            }
            let kind = CLOCKS[self.step];
            if kind != FrameClock::None && cycle > self.blocked_until {
                clock = kind;
                self.blocked_until = cycle + 1;
            }
            self.step += 1;
            if self.step == 6 {
                self.step = 0;
                self.origin = cycle;
            }
        }
        if let Some((value, at)) = self.pending {
            if cycle >= at {
                self.pending = None;
                self.five_step = value & 0x80 != 0;
                self.step = 0;
                self.origin = cycle;
                if self.five_step && cycle > self.blocked_until {
                    clock = Half;
                    self.blocked_until = cycle + 1;
                }
            }
        }
        clock
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_until_irq(fc: &mut FrameCounter, from: u64) -> u64 {
        (from..from + 40000)
            .find(|&c| {
                if c >= fc.next_event() {
                    fc.run(c);
                }
                fc.irq_flag
            })
            .unwrap()
    }

    #[test]
    fn four_step_irq_29828_cycles_after_the_write_takes_effect() {
        let mut fc = FrameCounter::new(3);
        assert_eq!(run_until_irq(&mut fc, 1), 3 + 29828);
    }

    #[test]
    fn five_step_write_clocks_immediately_and_never_raises_irq() {
        let mut fc = FrameCounter::new(3);
        fc.run(3);
        fc.write(0x80, 100);
        assert_eq!(fc.run(103), Half);
        for c in 104..104 + 80000 {
            if c >= fc.next_event() {
                fc.run(c);
            }
        }
        assert!(!fc.irq_flag);
    }

    #[test]
    fn odd_cycle_writes_take_one_cycle_longer() {
        let mut fc = FrameCounter::new(3);
        fc.write(0x80, 101);
        assert_eq!(fc.next_event(), 105);
    }
}
