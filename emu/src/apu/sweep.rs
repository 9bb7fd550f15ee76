//! The sweep unit of the two pulse channels (NESdev wiki "APU Sweep").
//!
//! The target period is computed all the time, so it mutes the channel even
//! while the sweep is disabled. Pulse 1 negates with ones' complement
//! (subtracting one more than pulse 2), which is why the two sweeps differ.

#[derive(Debug, Clone, Default)]
pub struct Sweep {
    enabled: bool,
    period: u8,
    negate: bool,
    shift: u8,
    reload: bool,
    divider: u8,
    /// Pulse 1's adder subtracts `change + 1` when negating.
    ones_complement: bool,
}

impl Sweep {
    pub fn new(ones_complement: bool) -> Sweep {
        Sweep {
            ones_complement,
            ..Sweep::default()
        }
    }

    /// $4001/$4005: EPPP NSSS.
    pub fn write(&mut self, value: u8) {
        self.enabled = value & 0x80 != 0;
        self.period = (value >> 4) & 7;
        self.negate = value & 0x08 != 0;
        self.shift = value & 7;
        self.reload = true;
    }

    /// The period the sweep would set (may exceed $7FF).
    #[inline]
    pub fn target(&self, current: u16) -> u16 {
        let change = current >> self.shift;
        if self.negate {
            current.saturating_sub(change + self.ones_complement as u16)
        } else {
            current + change
        }
    }

    /// Whether the sweep silences the channel at this timer period.
    #[inline]
    pub fn mutes(&self, current: u16) -> bool {
        current < 8 || self.target(current) > 0x7FF
    }

    /// Half-frame clock; may update the channel's timer period.
    pub fn clock(&mut self, current: &mut u16) {
        if self.divider == 0 && self.enabled && self.shift > 0 && !self.mutes(*current) {
            *current = self.target(*current);
        }
        if self.divider == 0 || self.reload {
            self.divider = self.period;
            self.reload = false;
        } else {
            self.divider -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pulse1_negates_with_ones_complement() {
        let mut s1 = Sweep::new(true);
        let mut s2 = Sweep::new(false);
        s1.write(0x89); // enabled, negate, shift 1
        s2.write(0x89);
        assert_eq!(s1.target(0x100), 0x7F);
        assert_eq!(s2.target(0x100), 0x80);
    }

    #[test]
    fn mutes_on_overflow_even_when_disabled() {
        let s = Sweep::new(false); // shift 0: target = 2 × period
        assert!(s.mutes(0x400));
        assert!(!s.mutes(0x3FF));
        assert!(s.mutes(7));
    }

    #[test]
    fn updates_period_when_divider_expires() {
        let mut s = Sweep::new(false);
        s.write(0x81); // enabled, period 0, shift 1
        let mut period = 0x100;
        s.clock(&mut period);
        assert_eq!(period, 0x180);
    }
}
