//! The standard controller (NESdev wiki "Standard controller"): an 8-bit
//! parallel-in shift register, reloaded while the strobe bit of $4016 is 1,
//! shifted out one button per read (A, B, Select, Start, Up, Down, Left,
//! Right), then reads 1 forever.

/// Button bits in report order, as a mask for [`Controller::set_buttons`].
pub mod buttons {
    pub const A: u8 = 0x01;
    pub const B: u8 = 0x02;
    pub const SELECT: u8 = 0x04;
    pub const START: u8 = 0x08;
    pub const UP: u8 = 0x10;
    pub const DOWN: u8 = 0x20;
    pub const LEFT: u8 = 0x40;
    pub const RIGHT: u8 = 0x80;
}

#[derive(Debug, Clone, Default)]
pub struct Controller {
    /// Buttons currently held (bit 0 = A ... bit 7 = Right).
    pub buttons: u8,
    shift: u8,
    /// Number of bits shifted out since the last reload (saturates at 8).
    shifted: u8,
    strobe: bool,
}

impl Controller {
    pub fn set_buttons(&mut self, buttons: u8) {
        self.buttons = buttons;
        if self.strobe {
            self.reload();
        }
    }

    fn reload(&mut self) {
        self.shift = self.buttons;
        self.shifted = 0;
    }

    pub fn write_strobe(&mut self, strobe: bool) {
        if self.strobe || strobe {
            self.reload();
        }
        self.strobe = strobe;
    }

    /// Bit 0 of a $4016/$4017 read (the other bits are filled by the bus).
    pub fn read(&mut self) -> u8 {
        if self.strobe {
            return self.buttons & 1;
        }
        if self.shifted >= 8 {
            return 1;
        }
        let bit = self.shift & 1;
        self.shift >>= 1;
        self.shifted += 1;
        bit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_buttons_then_ones() {
        let mut c = Controller::default();
        c.set_buttons(buttons::A | buttons::START | buttons::RIGHT);
        c.write_strobe(true);
        c.write_strobe(false);
        let bits: Vec<u8> = (0..10).map(|_| c.read()).collect();
        assert_eq!(bits, vec![1, 0, 0, 1, 0, 0, 0, 1, 1, 1]);
    }

    #[test]
    fn strobe_high_reads_a_repeatedly() {
        let mut c = Controller::default();
        c.set_buttons(buttons::A);
        c.write_strobe(true);
        assert_eq!((c.read(), c.read()), (1, 1));
    }
}
