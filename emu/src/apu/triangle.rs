//! The triangle channel (NESdev wiki "APU Triangle"): an 11-bit timer clocked
//! every CPU cycle, stepping a 32-step sequence (15..0, 0..15) while both the
//! length counter and the linear counter are non-zero. When either is zero the
//! sequencer stops and the output holds its level.
//!
//! Ultrasonic periods (raw timer period 0 or 1, 28-56 kHz) are inaudible on
//! hardware and only produce aliasing and a pop in an emulator, so here the
//! output holds its last level while the sequencer keeps stepping, as several
//! emulators do. This is the one deliberate departure from the hardware.

use super::length_counter::LengthCounter;
use super::timer::Timer;

const SEQUENCE: [u8; 32] = [
    15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, //
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
];

/// Sequencer step at power-on.
const POWER_ON_STEP: u8 = 0;

/// Raw periods below this are treated as ultrasonic (see the module doc).
const ULTRASONIC_BELOW: u16 = 2;

#[derive(Debug, Clone)]
pub struct Triangle {
    step: u8,
    period: u16,
    pub timer: Timer,
    pub length: LengthCounter,
    linear: u8,
    linear_reload: u8,
    reload_flag: bool,
    /// Bit 7 of $4008: length halt and linear counter control.
    control: bool,
    /// The level the DAC sees.
    out: u8,
    /// The sequencer steps on timer clocks.
    running: bool,
    /// ... and the output follows it (not ultrasonic).
    live: bool,
}

impl Default for Triangle {
    fn default() -> Self {
        Triangle::new()
    }
}

impl Triangle {
    /// Power-on: the sequencer is at step 0 (level 15). The apu_mixer tests
    /// rely on it: they run the triangle for 15-16 steps to park it at level 0
    /// ("must be run from a freshly-powered NES").
    pub fn new() -> Triangle {
        Triangle {
            step: POWER_ON_STEP,
            period: 0,
            timer: Timer::new(1, 1),
            length: LengthCounter::default(),
            linear: 0,
            linear_reload: 0,
            reload_flag: false,
            control: false,
            out: SEQUENCE[POWER_ON_STEP as usize],
            running: false,
            live: false,
        }
    }

    /// Register `reg` (0-3; 1 is unused) of this channel.
    pub fn write(&mut self, reg: u16, value: u8) {
        match reg {
            0 => {
                self.control = value & 0x80 != 0;
                self.length.write_halt(self.control);
                self.linear_reload = value & 0x7F;
            }
            1 => {}
            2 => self.set_period((self.period & 0x700) | value as u16),
            _ => {
                self.set_period((self.period & 0x0FF) | ((value as u16 & 7) << 8));
                self.length.write_load(value >> 3);
                self.reload_flag = true;
            }
        }
    }

    fn set_period(&mut self, period: u16) {
        self.period = period;
        self.timer.set_period(period as u64 + 1);
    }

    /// Quarter-frame clock of the linear counter.
    pub fn clock_linear(&mut self) {
        if self.reload_flag {
            self.linear = self.linear_reload;
        } else if self.linear > 0 {
            self.linear -= 1;
        }
        if !self.control {
            self.reload_flag = false;
        }
    }

    pub fn refresh(&mut self) {
        self.running = self.length.active() && self.linear > 0;
        self.live = self.running && self.period >= ULTRASONIC_BELOW;
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
        self.step = (self.step + 1) & 31;
        self.out = SEQUENCE[self.step as usize];
        self.timer.expire();
    }

    #[inline]
    pub fn skip_to(&mut self, cycle: u64) {
        let clocks = self.timer.skip_to(cycle);
        if self.running {
            self.step = ((self.step as u64 + clocks) & 31) as u8;
        }
    }

    #[inline]
    pub fn output(&self) -> u8 {
        self.out
    }

    /// Reset button: $4015 is cleared, so the length counter stops, but its
    /// halt flag is kept (apu_reset `len_ctrs_enabled`: "triangle unaffected").
    pub fn reset(&mut self) {
        self.length.set_enabled(false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_only_while_both_counters_run() {
        let mut t = Triangle::new();
        t.length.set_enabled(true);
        t.write(0, 0x05);
        t.write(2, 0x10);
        t.write(3, 0x08);
        t.length.commit();
        t.refresh();
        assert_eq!(t.next_change(), u64::MAX, "linear counter still 0");
        t.clock_linear();
        t.refresh();
        assert_ne!(t.next_change(), u64::MAX);
        t.clock();
        assert_eq!(t.output(), 14);
    }

    #[test]
    fn ultrasonic_period_holds_the_output() {
        let mut t = Triangle::new();
        t.length.set_enabled(true);
        t.write(0, 0x7F);
        t.write(2, 0x00);
        t.write(3, 0x08);
        t.length.commit();
        t.clock_linear();
        t.refresh();
        assert_eq!(t.next_change(), u64::MAX);
        let before = t.output();
        t.skip_to(1000);
        assert_eq!(t.output(), before);
    }
}
