//! The state of sprite evaluation between the dots the PPU has run (the
//! steps themselves are in `sprites.rs`): where in primary OAM the
//! evaluation is, how many sprites it found, and the next dot to execute.

pub(super) const FIRST_EVAL_DOT: u16 = 65;
pub(super) const LAST_EVAL_DOT: u16 = 255;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) enum Phase {
    /// Step 1: read sprite n's Y and copy it.
    #[default]
    ReadY,
    /// Step 1a: copy bytes 1-3 of an in-range sprite (the next byte index).
    CopyRest(u8),
    /// Step 3: 8 sprites found; look for a 9th with the buggy byte index m.
    Overflow,
    /// Step 4: nothing observable happens until the end of the line.
    Done,
}

#[derive(Debug, Clone, Default)]
pub(super) struct SpriteEval {
    pub(super) phase: Phase,
    pub(super) n: u8,
    pub(super) m: u8,
    pub(super) found: u8,
    /// Bits 0-5: the sprite evaluation began with (OAMADDR / 4 at dot 65),
    /// the one treated as sprite 0 for the hit flag; bit 7: it was in range.
    /// One byte, not two: the struct stays 8 bytes, and one byte more moved
    /// the PPU's fields enough to cost 11 % of whole-movie speed
    /// (lunarlimit, translator, 3.0 → 3.3 s).
    pub(super) first_and_hit: u8,
    /// Next odd dot whose read has not been executed.
    pub(super) next_dot: u16,
}

const IN_RANGE: u8 = 0x80;

impl SpriteEval {
    /// Evaluation begins at OAM byte `addr` (OAMADDR): sprite `addr / 4`,
    /// read from byte `addr % 4` of it when misaligned.
    pub(super) fn begin_at(&mut self, addr: u8) {
        self.n = addr >> 2;
        self.m = addr & 3;
        self.first_and_hit = self.n & 0x3F;
    }

    /// The sprite evaluation began with.
    pub(super) fn first(&self) -> usize {
        (self.first_and_hit & 0x3F) as usize
    }

    /// Sprite `n` was found in range.
    pub(super) fn found_in_range(&mut self, n: usize) {
        if n == self.first() {
            self.first_and_hit |= IN_RANGE;
        }
    }

    /// Whether the first sprite evaluated was in range (it fills slot 0 and
    /// can set the sprite 0 hit flag).
    pub(super) fn has_sprite0(&self) -> bool {
        self.first_and_hit & IN_RANGE != 0
    }
}
