//! The length counter shared by the pulse, triangle and noise channels
//! (NESdev wiki "APU Length Counter").
//!
//! Writes do not take effect in the cycle they happen: the halt flag and a
//! counter load are latched and committed on the APU's next cycle, *after* that
//! cycle's frame-counter clock. So a length clock that coincides with a write
//! still sees the old halt flag, and a load that coincides with a clock that
//! actually decremented the counter is dropped (blargg's `len_halt_timing` and
//! `len_reload_timing` tests pin this down).

/// Counter values selected by bits 7-3 of $4003/$4007/$400B/$400F.
pub const LENGTH_TABLE: [u8; 32] = [
    10, 254, 20, 2, 40, 4, 80, 6, 160, 8, 60, 10, 14, 12, 26, 14, //
    12, 16, 24, 18, 48, 20, 96, 22, 192, 24, 72, 26, 16, 28, 32, 30,
];

#[derive(Debug, Clone, Default)]
pub struct LengthCounter {
    counter: u8,
    /// The channel's bit in $4015. While clear the counter is held at 0.
    enabled: bool,
    halt: bool,
    /// Halt flag written this cycle, committed next cycle.
    new_halt: bool,
    /// Value loaded this cycle (0 = none) and the counter at that moment.
    reload: u8,
    counter_at_load: u8,
}

impl LengthCounter {
    #[inline]
    pub fn active(&self) -> bool {
        self.counter > 0
    }

    #[cfg(test)]
    pub fn counter(&self) -> u8 {
        self.counter
    }

    /// $4015 write for this channel. Disabling clears the counter at once.
    pub fn set_enabled(&mut self, enabled: bool) {
        self.enabled = enabled;
        if !enabled {
            self.counter = 0;
            self.reload = 0;
        }
    }

    /// The halt bit of the channel's first register (committed next cycle).
    pub fn write_halt(&mut self, halt: bool) {
        self.new_halt = halt;
    }

    /// The length index of the channel's last register (committed next cycle).
    /// Ignored while the channel is disabled.
    pub fn write_load(&mut self, index: u8) {
        if self.enabled {
            self.reload = LENGTH_TABLE[(index & 0x1F) as usize];
            self.counter_at_load = self.counter;
        }
    }

    /// Half-frame clock.
    #[inline]
    pub fn clock(&mut self) {
        if self.counter > 0 && !self.halt {
            self.counter -= 1;
        }
    }

    /// Commits the writes of the previous cycle (after that cycle's clocks).
    pub fn commit(&mut self) {
        if self.reload != 0 {
            if self.counter == self.counter_at_load {
                self.counter = self.reload;
            }
            self.reload = 0;
        }
        self.halt = self.new_halt;
    }

    /// Reset button: cleared, halt off, channel disabled.
    pub fn reset(&mut self) {
        *self = LengthCounter::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_is_dropped_when_a_clock_decrements_in_the_same_cycle() {
        let mut lc = LengthCounter::default();
        lc.set_enabled(true);
        lc.write_load(1); // 254
        lc.commit();
        assert_eq!(lc.counter(), 254);
        lc.write_load(0); // 10, written in the cycle of a clock
        lc.clock();
        lc.commit();
        assert_eq!(lc.counter(), 253);
    }

    #[test]
    fn halt_takes_effect_after_a_coinciding_clock() {
        let mut lc = LengthCounter::default();
        lc.set_enabled(true);
        lc.write_load(0);
        lc.commit();
        lc.write_halt(true);
        lc.clock();
        lc.commit();
        assert_eq!(lc.counter(), 9);
        lc.clock();
        assert_eq!(lc.counter(), 9);
    }

    #[test]
    fn disabled_channel_ignores_loads() {
        let mut lc = LengthCounter::default();
        lc.write_load(3);
        lc.commit();
        assert!(!lc.active());
    }
}
