//! The envelope generator of the pulse and noise channels (NESdev wiki
//! "APU Envelope"): either a constant volume or a sawtooth decaying from 15 to
//! 0 at a rate set by the same 4 bits, optionally looping.

#[derive(Debug, Clone, Default)]
pub struct Envelope {
    start: bool,
    divider: u8,
    decay: u8,
    /// Bits 3-0 of the register: the constant volume or the divider period.
    param: u8,
    constant: bool,
    /// Bit 5 (shared with the length counter's halt flag).
    looping: bool,
}

impl Envelope {
    /// $4000/$4004/$400C: --LC VVVV.
    pub fn write(&mut self, value: u8) {
        self.looping = value & 0x20 != 0;
        self.constant = value & 0x10 != 0;
        self.param = value & 0x0F;
    }

    /// A write to the channel's length register restarts the envelope.
    pub fn restart(&mut self) {
        self.start = true;
    }

    /// Quarter-frame clock.
    pub fn clock(&mut self) {
        if self.start {
            self.start = false;
            self.decay = 15;
            self.divider = self.param;
        } else if self.divider == 0 {
            self.divider = self.param;
            if self.decay > 0 {
                self.decay -= 1;
            } else if self.looping {
                self.decay = 15;
            }
        } else {
            self.divider -= 1;
        }
    }

    #[inline]
    pub fn volume(&self) -> u8 {
        if self.constant {
            self.param
        } else {
            self.decay
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decays_one_step_per_period_plus_one_clocks() {
        let mut env = Envelope::default();
        env.write(0x01); // decay, divider period 1
        env.restart();
        env.clock();
        assert_eq!(env.volume(), 15);
        env.clock();
        env.clock();
        assert_eq!(env.volume(), 14);
    }

    #[test]
    fn loops_back_to_15() {
        let mut env = Envelope::default();
        env.write(0x20);
        env.restart();
        for _ in 0..16 {
            env.clock();
        }
        assert_eq!(env.volume(), 0);
        env.clock();
        assert_eq!(env.volume(), 15);
    }
}
