//! A channel timer (NESdev wiki "APU" § Timer), kept as the CPU cycle of its
//! next expiry rather than as a counter decremented every cycle. The APU only
//! looks at a timer when something observes the channel (a register write, a
//! frame-counter clock, the audio synthesiser), so an idle machine pays nothing
//! for it.
//!
//! A write to the period register only changes the *reload* value: the
//! countdown in progress finishes with the old period, exactly as on hardware.
//! All periods here are in CPU cycles (the pulse and noise timers run at half
//! that rate on the APU clock; their periods in CPU cycles are even, so the
//! expiries keep the APU clock's parity).

#[derive(Debug, Clone)]
pub struct Timer {
    /// Reload period in CPU cycles (at least 1).
    period: u64,
    /// CPU cycle of the next expiry.
    pub next: u64,
}

impl Timer {
    pub fn new(period: u64, first_expiry: u64) -> Timer {
        Timer {
            period: period.max(1),
            next: first_expiry,
        }
    }

    #[cfg(test)]
    pub fn period(&self) -> u64 {
        self.period
    }

    /// Sets the reload value used from the next expiry on.
    #[inline]
    pub fn set_period(&mut self, period: u64) {
        self.period = period.max(1);
    }

    /// One expiry happened at `self.next`; schedules the following one.
    #[inline]
    pub fn expire(&mut self) {
        self.next += self.period;
    }

    /// Moves past every expiry up to and including `cycle`; returns how many
    /// there were.
    #[inline]
    pub fn skip_to(&mut self, cycle: u64) -> u64 {
        if self.next > cycle {
            return 0;
        }
        let count = (cycle - self.next) / self.period + 1;
        self.next += count * self.period;
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skip_counts_expiries_inclusive() {
        let mut t = Timer::new(4, 10);
        assert_eq!(t.skip_to(9), 0);
        assert_eq!(t.skip_to(10), 1);
        assert_eq!(t.next, 14);
        assert_eq!(t.skip_to(25), 3);
        assert_eq!(t.next, 26);
    }

    #[test]
    fn period_change_applies_after_the_current_countdown() {
        let mut t = Timer::new(10, 10);
        t.set_period(3);
        assert_eq!(t.next, 10);
        t.expire();
        assert_eq!(t.next, 13);
    }
}
