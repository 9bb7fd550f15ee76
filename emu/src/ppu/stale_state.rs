//! The state of the exact shifter model (`stale.rs`): the background
//! shifters, the eight sprite output units and the sprite fetches they
//! load from. Plain data, kept apart from the model's code so that the
//! PPU can hold it without the model's module and the PPU's importing
//! each other.

/// Pixels of a line (the PPU's `WIDTH`; `ppu/mod.rs` checks they agree).
pub(super) const LINE_PIXELS: usize = 256;

/// What the sprite fetches of one line (dots 257-320) loaded into the
/// units: a copy of secondary OAM as they read it and the pattern bytes of
/// the slots in use. The fast model draws its sprite buffer from the same
/// data, so these give the units' contents when the exact model takes over.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct LineSlots {
    pub(super) oam: [u8; 32],
    /// (low, high) pattern bytes as fetched, for the slots in `used`.
    pub(super) patterns: [(u8, u8); 8],
    pub(super) used: u8,
    /// Slot 0 holds sprite 0.
    pub(super) sprite0: bool,
}

impl LineSlots {
    /// What unit `k` loads: X, the pattern planes mirrored for horizontal
    /// flip (bit 7 the leftmost pixel; zero for an unused slot), and the
    /// pixel flags as in `line_sprites` (palette in bits 2-3, bit 5 behind
    /// the background, bit 7 sprite 0).
    pub(super) fn unit(&self, k: usize) -> Unit {
        let attr = self.oam[k * 4 + 2];
        let (mut lo, mut hi) = if self.used & 1 << k != 0 {
            self.patterns[k]
        } else {
            (0, 0)
        };
        if attr & 0x40 != 0 {
            lo = lo.reverse_bits();
            hi = hi.reverse_bits();
        }
        let sprite0 = if k == 0 && self.sprite0 { 0x80 } else { 0 };
        Unit {
            counter: self.oam[k * 4 + 3],
            active: false,
            lo,
            hi,
            flags: (attr & 3) << 2 | (attr & 0x20) | sprite0,
        }
    }
}

/// One of the eight sprite output units.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Unit {
    pub(super) counter: u8,
    /// The counter reached 0: the pattern shifters shift out (while
    /// rendering is on) until dot 339 sets the unit back to counting.
    pub(super) active: bool,
    pub(super) lo: u8,
    pub(super) hi: u8,
    pub(super) flags: u8,
}

impl Unit {
    /// One visible dot: count down, or output the next pixel and shift.
    /// `rendering`: whether the shifters move (the counter moves anyway).
    pub(super) fn dot(&mut self, rendering: bool) -> u8 {
        if !self.active {
            if self.counter == 0 {
                self.active = true;
            } else {
                self.counter -= 1;
                return 0;
            }
        }
        if !rendering {
            return 0;
        }
        let pixel = (self.lo >> 7) | (self.hi >> 7) << 1;
        self.lo <<= 1;
        self.hi <<= 1;
        if pixel == 0 {
            0
        } else {
            pixel | self.flags
        }
    }

    /// `dots` visible dots with rendering off: only the counter moves.
    pub(super) fn count(&mut self, dots: u16) {
        if !self.active {
            if dots > self.counter as u16 {
                self.active = true;
                self.counter = 0;
            } else {
                self.counter -= dots as u8;
            }
        }
    }
}

/// The exact model's state (boxed in the PPU: only rare stretches use it).
#[derive(Debug, Clone)]
pub(super) struct Stale {
    /// The exact model is in use: rendering was switched off during the
    /// frame, and no clean line has followed yet.
    pub(super) active: bool,
    /// Rendering has been on since dot 257 of this line, so the next line
    /// is the fast model's again.
    pub(super) exit_at_line_end: bool,
    /// Rendering is on as the shifters and counters see it.
    pub(super) on: bool,
    /// A switch of `on` is under way, landing on the dot whose dot count
    /// (`Ppu::dots`) is `switch_at`.
    pub(super) pending: bool,
    pub(super) switch_at: u64,
    /// (line, dot) the counters were last brought up to while rendering was
    /// off.
    pub(super) synced: (u16, u16),
    /// The background shifters, one byte per pixel, next out first: pattern
    /// bits 0-1, palette bits 2-3 (the attribute shifters are 8 bits long,
    /// so only bytes 0-7 hold a palette yet; the others take the latch's as
    /// they shift into byte 7).
    pub(super) bg: [u8; 16],
    /// The attribute latch: palette of the last tile loaded.
    pub(super) palette_latch: u8,
    pub(super) units: [Unit; 8],
    /// Background pixel of each x of this line, while the model ticks.
    pub(super) pixels: [u8; LINE_PIXELS],
    /// The high pattern plane's fetch latch.
    pub(super) hi_latch: u8,
    /// The last two lines' sprite fetches: `fetches[current]` is the latest
    /// (begun at dot 257 of this line or the last rendered one), the other
    /// the line before, still in the units whose slot this line has not
    /// fetched yet.
    pub(super) fetches: [LineSlots; 2],
    pub(super) current: usize,
}

impl Default for Stale {
    fn default() -> Self {
        Stale {
            active: false,
            exit_at_line_end: false,
            on: false,
            pending: false,
            switch_at: 0,
            synced: (0, 0),
            bg: [0; 16],
            palette_latch: 0,
            units: [Unit::default(); 8],
            pixels: [0; LINE_PIXELS],
            hi_latch: 0,
            fetches: [LineSlots::default(); 2],
            current: 0,
        }
    }
}
