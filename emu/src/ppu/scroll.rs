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

// The same updates as values, for predicting v a few dots ahead
// (`data_read.rs`). Kept apart from the methods above, which the line loops
// inline: routing those through these cost 0.4 % of tracker's host
// instructions (callgrind, 1,200 frames: LLVM keeps v differently in the
// loop). The test below holds the two to the same results.

/// `v` moved to the next tile (see [`Ppu::increment_coarse_x`]).
#[inline(always)]
pub(super) fn coarse_x_incremented(mut v: u16) -> u16 {
    if v & 0x001F == 31 {
        v &= !0x001F;
        v ^= 0x0400;
    } else {
        v += 1;
    }
    v
}

/// `v` moved to the next pixel row (see [`Ppu::increment_y`]).
pub(super) fn y_incremented(v: u16) -> u16 {
    if v & 0x7000 != 0x7000 {
        return v + 0x1000;
    }
    let v = v & !0x7000;
    let (coarse_y, v) = match (v & 0x03E0) >> 5 {
        29 => (0, v ^ 0x0800),
        31 => (0, v),
        y => (y + 1, v),
    };
    (v & !0x03E0) | (coarse_y << 5)
}

/// `v` with t's horizontal position.
#[inline(always)]
pub(super) fn horizontal_copied(v: u16, t: u16) -> u16 {
    (v & !0x041F) | (t & 0x041F)
}

/// `v` with t's vertical position.
#[inline(always)]
pub(super) fn vertical_copied(v: u16, t: u16) -> u16 {
    (v & !0x7BE0) | (t & 0x7BE0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value forms give the methods' results for every v and t.
    #[test]
    fn value_forms_match_the_methods() {
        let mut ppu = Ppu::new();
        for v in 0..0x8000u16 {
            let t = v.rotate_left(7) & 0x7FFF;
            ppu.t = t;
            ppu.v = v;
            ppu.increment_coarse_x();
            assert_eq!(ppu.v, coarse_x_incremented(v), "coarse X, v {v:04X}");
            ppu.v = v;
            ppu.increment_y();
            assert_eq!(ppu.v, y_incremented(v), "Y, v {v:04X}");
            ppu.v = v;
            ppu.copy_horizontal();
            assert_eq!(ppu.v, horizontal_copied(v, t), "horizontal, v {v:04X}");
            ppu.v = v;
            ppu.copy_vertical();
            assert_eq!(ppu.v, vertical_copied(v, t), "vertical, v {v:04X}");
        }
    }
}
