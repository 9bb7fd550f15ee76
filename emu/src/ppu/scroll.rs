//! Updates of the VRAM address v during rendering (NESdev wiki "PPU
//! scrolling"): v = 0yyy NNYY YYYX XXXX (fine Y, nametable, coarse Y, coarse X).

use super::Ppu;

impl Ppu {
    /// Dots 8, 16, ..., 256, 328, 336: next tile, wrapping into the
    /// horizontally adjacent nametable.
    #[inline(always)]
    pub(super) fn increment_coarse_x(&mut self) {
        if self.v & 0x001F == 31 {
            self.v &= !0x001F;
            self.v ^= 0x0400;
        } else {
            self.v += 1;
        }
    }

    /// Dot 256: next pixel row; coarse Y wraps at 30 into the vertically
    /// adjacent nametable (and at 32 without switching, for Y in the attribute
    /// rows).
    pub(super) fn increment_y(&mut self) {
        if self.v & 0x7000 != 0x7000 {
            self.v += 0x1000;
            return;
        }
        self.v &= !0x7000;
        let mut coarse_y = (self.v & 0x03E0) >> 5;
        if coarse_y == 29 {
            coarse_y = 0;
            self.v ^= 0x0800;
        } else if coarse_y == 31 {
            coarse_y = 0;
        } else {
            coarse_y += 1;
        }
        self.v = (self.v & !0x03E0) | (coarse_y << 5);
    }

    /// Dot 257: horizontal position from t.
    pub(super) fn copy_horizontal(&mut self) {
        self.v = (self.v & !0x041F) | (self.t & 0x041F);
    }

    /// Pre-render dots 280-304: vertical position from t.
    pub(super) fn copy_vertical(&mut self) {
        self.v = (self.v & !0x7BE0) | (self.t & 0x7BE0);
    }
}
