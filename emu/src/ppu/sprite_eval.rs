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
    /// The sprite evaluation began with (OAMADDR / 4 at dot 65): the one
    /// treated as sprite 0 for the hit flag.
    pub(super) first: u8,
    pub(super) sprite0: bool,
    /// Next odd dot whose read has not been executed.
    pub(super) next_dot: u16,
}
