//! The background shift registers and the eight sprite units, dot by dot,
//! for the stretches where rendering is switched off and on again in the
//! middle of a frame (forced blanking).
//!
//! The fast model (`background.rs`, `sprites.rs`) draws a line from buffers
//! filled at fetch time: pixel x is `bg_line[x + fine_x]`, and each sprite is
//! drawn at its X. That is exactly what the hardware shows as long as
//! rendering stays on from dot 257 of one line to the end of the next, but
//! not when it is switched off in between (NESdev wiki "PPU rendering";
//! AccuracyCoin "Stale BG Shift Registers", "Stale Sprite Shift Regs", "BG
//! Serial In"):
//!
//! - The background shifters shift on dots 2-257 and 322-337 and reload
//!   their low byte from the fetch latches on dots 9, 17, ..., 257, 329 and
//!   337, but only while rendering is on. Switched off, they hold their
//!   contents (for as long as it stays off: lines, frames), and when it comes
//!   back those stale pixels are drawn first, wherever on the line that is.
//! - A shift brings a 0 into the low pattern plane and a 1 into the high
//!   one, and the attribute latch into the attribute shifters. Normally the
//!   next reload overwrites those bits before they are seen; with that reload
//!   skipped they are drawn, as pixel value 2.
//! - Each sprite unit has an X counter, counting down on every visible dot
//!   even while rendering is off, and a pair of pattern shifters that shift
//!   only while rendering is on, once the counter has reached 0. Dot 339,
//!   rendering on, sets every unit back to counting; a unit that was not set
//!   so (dot 339 blanked) is still "active" and draws as soon as rendering
//!   returns, whatever X it was loaded with. A unit whose fetch was blanked
//!   keeps its old counter and pattern bits.
//!
//! So when a `$2001` write switches rendering off, the state the fast model
//! implies at that dot is written out here ([`Ppu::stale_materialize`]);
//! while rendering stays off only the counters change, caught up at the next
//! switch; and while it is on again, every dot of the rendering lines goes
//! through [`Ppu::stale_pixel_dot`] and [`Ppu::stale_late_dot`], which
//! produce the line's pixels (`Stale::pixels` and `line_sprites`). The fast
//! model keeps doing its fetches alongside, so once rendering has stayed on
//! from dot 257 to the end of a line, the next line is the fast model's
//! again (switched back on outside the rendering lines, at once: the
//! pre-render line reloads everything). The shifters and counters see each
//! switch [`SWITCH_DELAY`] dots after the write. Programs that never switch
//! rendering off mid-frame never get here.

use super::stale_state::Stale;
use super::{Ppu, PRE_RENDER_LINE};
/// Dots from a `$2001` write to the first dot whose shifting and counting
/// sees it: the rest of this PPU takes a write at once, but the hardware's
/// rendering signal changes 2 or 3 dots later depending on the CPU/PPU clock
/// alignment (AccuracyCoin's OAM corruption notes). AccuracyCoin's stale
/// shifter tests were timed on an alignment with 3: with 2, "BG Serial In"
/// has its reload land on the serial-in pixels before they reach sprite 0
/// (and 5 is too late for "Stale Sprite Shift Regs" 5).
const SWITCH_DELAY: u64 = 3;

/// Serial input of the background pattern shifters: 0 into the low plane,
/// 1 into the high one.
const SERIAL_IN: u8 = 2;

/// The dot at which sprite slot `k` loads its unit (the high pattern fetch).
const fn slot_load_dot(k: usize) -> u16 {
    257 + 8 * k as u16 + 6
}

fn is_rendering_line(line: u16) -> bool {
    line < 240 || line == PRE_RENDER_LINE
}

/// Visible dots (1-256 of a rendering line) after `from` up to and including
/// `to`, capped at 256 (enough to bring any counter to 0).
fn visible_dots_between(from: (u16, u16), to: (u16, u16)) -> u16 {
    let same_line = from.0 == to.0 && to.1 >= from.1;
    let (mut line, mut after) = from;
    let mut total = 0u16;
    for i in 0..=262 {
        let last = same_line || (i > 0 && line == to.0);
        let upto = if last { to.1 } else { 340 };
        if is_rendering_line(line) {
            total += upto.min(256).saturating_sub(after.min(256));
        }
        if last || total >= 256 {
            break;
        }
        line = (line + 1) % 262;
        after = 0;
    }
    total.min(256)
}

impl Stale {
    /// Dot 257 of a rendering line: the sprite fetches begin, reading
    /// `secondary_oam`.
    #[inline(always)]
    pub(super) fn begin_line(&mut self, secondary_oam: &[u8; 32], sprite0: bool) {
        self.current ^= 1;
        let line = &mut self.fetches[self.current];
        line.oam = *secondary_oam;
        line.used = 0;
        line.sprite0 = sprite0;
    }

    /// A used slot's pattern bytes were fetched.
    #[inline(always)]
    pub(super) fn slot_fetched(&mut self, slot: usize, lo: u8, hi: u8) {
        let line = &mut self.fetches[self.current];
        line.patterns[slot] = (lo, hi);
        line.used |= 1 << slot;
    }

    fn shift_bg(&mut self) {
        self.bg.copy_within(1..16, 0);
        self.bg[15] = SERIAL_IN;
        self.bg[7] = self.bg[7] & 3 | self.palette_latch << 2;
    }

    fn reload_bg(&mut self, lo: u8, hi: u8, palette: u8) {
        for i in 0..8 {
            self.bg[8 + i] = (lo >> (7 - i)) & 1 | ((hi >> (7 - i)) & 1) << 1;
        }
        self.palette_latch = palette;
    }
}

impl Ppu {
    /// A `$2001` write switched rendering on or off (rare: the exact
    /// model's entry and exit, see the module comment).
    #[cold]
    #[inline(never)]
    pub(super) fn rendering_switched(&mut self, on: bool) {
        let here = (self.scanline, self.dot);
        let rendering_line = is_rendering_line(self.scanline);
        if !self.stale.active {
            if on {
                return;
            }
            self.stale_materialize();
            self.stale.active = true;
            self.stale.on = rendering_line;
            self.stale.pending = false;
            self.stale.synced = here;
        } else if on && !rendering_line {
            // Switched back on outside the rendering lines: the pre-render
            // line, all of it with rendering on, reloads every shifter and
            // counter before line 0.
            self.stale.active = false;
            self.stale.pending = false;
            self.exact_ticking = false;
            return;
        } else if !self.exact_ticking {
            let dots = visible_dots_between(self.stale.synced, here);
            for unit in &mut self.stale.units {
                unit.count(dots);
            }
            self.stale.synced = here;
        }
        // The shifters and counters see the switch a few dots after the
        // write: see `SWITCH_DELAY`.
        self.stale.pending = on != self.stale.on;
        self.stale.switch_at = self.dots + SWITCH_DELAY + 1;
        self.exact_ticking = rendering_line && (self.stale.on || self.stale.pending);
    }

    /// Writes out the shifter and sprite unit state the fast model implies
    /// after the current dot (rendering having been on until now).
    fn stale_materialize(&mut self) {
        let dot = if is_rendering_line(self.scanline) {
            self.dot
        } else {
            340 // Past line 239's end: its prefetch is in the shifters.
        };
        // The pixels in the order they pass through the shifters: this
        // line's tiles, or during the prefetch (dots 322-337) the last two
        // of them followed by the next line's first two.
        let mut stream = [0u8; 32];
        let (shifts, loaded_end) = match dot {
            0..=321 => {
                let shifts = dot.clamp(1, 257) as usize - 1;
                // The last reload (dot 9, 17, ..., 257) filled up to here.
                let loaded_end = (shifts & !7) + 16;
                let start = shifts.min(256);
                stream[..16].copy_from_slice(&self.bg_line[start..start + 16]);
                (0, loaded_end - start)
            }
            _ => {
                stream[..16].copy_from_slice(&self.bg_line[256..272]);
                stream[16..].copy_from_slice(&self.bg_line[..16]);
                let shifts = dot.min(337) as usize - 321;
                let loaded_end = 16 + 8 * (shifts / 8);
                (shifts, loaded_end)
            }
        };
        let palette = (stream[loaded_end - 1] >> 2) & 3;
        for i in 0..16 {
            let p = shifts + i;
            self.stale.bg[i] = if p < loaded_end {
                stream[p]
            } else {
                SERIAL_IN | palette << 2
            };
        }
        self.stale.palette_latch = palette;
        // Sprite units: loaded by the previous line's fetches (the slot
        // latches, unless this line's fetch of the slot has happened) and
        // counted or shifted through the visible dots passed.
        let (current, previous) = (self.stale.current, self.stale.current ^ 1);
        for k in 0..8 {
            let mut unit;
            if dot >= 339 {
                // Dot 339 set the unit counting.
                unit = self.stale.fetches[current].unit(k);
            } else if dot >= slot_load_dot(k) {
                // Freshly loaded; still active from the line drawn.
                unit = self.stale.fetches[current].unit(k);
                unit.active = true;
            } else {
                // Loaded by the previous line's fetches (before dot 257 the
                // latest ones), counted down or shifted through the visible
                // dots passed.
                let which = if dot >= 257 { previous } else { current };
                unit = self.stale.fetches[which].unit(k);
                let passed = dot.min(256);
                if (unit.counter as u16) < passed {
                    let shifted = (passed - unit.counter as u16).min(8) as u32;
                    unit.active = true;
                    unit.lo = (unit.lo as u16).wrapping_shl(shifted) as u8;
                    unit.hi = (unit.hi as u16).wrapping_shl(shifted) as u8;
                    unit.counter = 0;
                } else {
                    unit.counter -= passed as u8;
                }
            }
            self.stale.units[k] = unit;
        }
        // The high pattern latch: from the last tile fetched (dot 7, 15,
        // ..., 255, 327 or 335), whose two planes `bg_line` holds.
        let tile = match dot {
            0..=6 | 335.. => 1,
            7..=254 => ((dot as usize + 1) >> 3) + 1,
            255..=326 => 33,
            _ => 0,
        };
        self.stale.hi_latch = self.tile_high_plane(tile);
    }

    /// The high pattern plane of `bg_line`'s tile `tile`.
    fn tile_high_plane(&self, tile: usize) -> u8 {
        let pixels = &self.bg_line[tile * 8..tile * 8 + 8];
        pixels
            .iter()
            .fold(0, |plane, &pixel| plane << 1 | (pixel >> 1) & 1)
    }

    /// A rendering line's dot with the exact model ticking, before the fetch
    /// work: a pending switch lands, then the background shift and reload,
    /// the sprite units, the pixel.
    pub(super) fn stale_pixel_dot(&mut self) {
        if self.stale.pending && self.dots >= self.stale.switch_at {
            self.stale.pending = false;
            self.stale.on = !self.stale.on;
            if !self.stale.on {
                self.stale.exit_at_line_end = false;
            }
        }
        let on = self.stale.on;
        let dot = self.dot;
        if on && ((2..=257).contains(&dot) || (322..=337).contains(&dot)) {
            self.stale.shift_bg();
            if dot & 7 == 1 {
                let (lo, hi, at) = (self.pattern_lo_latch, self.stale.hi_latch, self.at_latch);
                self.stale.reload_bg(lo, hi, at);
            }
        }
        if (1..=256).contains(&dot) {
            let mut sprite = 0;
            for unit in &mut self.stale.units {
                let pixel = unit.dot(on);
                if sprite == 0 {
                    sprite = pixel;
                }
            }
            if self.scanline < 240 {
                let x = dot as usize - 1;
                self.stale.pixels[x] = self.stale.bg[self.fine_x as usize];
                self.line_sprites[x] = sprite;
                if sprite != 0 {
                    let (from, to) = &mut self.sprite_span;
                    *from = (*from).min(x as u16);
                    *to = (*to).max(x as u16 + 1);
                }
            }
        }
        if on && dot == 257 {
            self.stale.exit_at_line_end = true;
        }
        if !on && !self.stale.pending {
            // Off for good: the counters are caught up at the next switch.
            self.exact_ticking = false;
            self.stale.synced = (self.scanline, self.dot);
        }
    }

    /// A rendering line's dot with the exact model ticking, after the fetch
    /// work: a background tile's high plane fetched is latched, a sprite
    /// slot's fetch loads its unit, dot 339 sets all units counting.
    pub(super) fn stale_late_dot(&mut self) {
        let dot = self.dot;
        if self.rendering_enabled() && dot & 7 == 7 {
            match dot {
                7..=255 => self.stale.hi_latch = self.tile_high_plane((dot as usize >> 3) + 2),
                327 | 335 => self.stale.hi_latch = self.tile_high_plane((dot as usize - 321) >> 3),
                _ => {}
            }
        }
        if !self.stale.on {
            return;
        }
        if (257..=320).contains(&dot) && (dot - 257) & 7 == 6 {
            let k = ((dot - 257) >> 3) as usize;
            let loaded = self.stale.fetches[self.stale.current].unit(k);
            let unit = &mut self.stale.units[k];
            unit.counter = loaded.counter;
            unit.lo = loaded.lo;
            unit.hi = loaded.hi;
            unit.flags = loaded.flags;
        } else if dot == 339 {
            for unit in &mut self.stale.units {
                unit.active = false;
            }
        }
    }

    /// Line end with the exact model ticking: back to the fast model when
    /// this line left everything as it would have (or when the frame's
    /// visible part is over and rendering is on, so the pre-render line
    /// will reload everything).
    pub(super) fn stale_line_end(&mut self) {
        if self.scanline == 240 && self.stale.pending {
            self.stale.pending = false;
            self.stale.on = !self.stale.on;
        }
        let clean = self.stale.exit_at_line_end && !self.stale.pending;
        if clean || (self.scanline == 240 && self.stale.on) {
            self.stale.active = false;
            self.stale.pending = false;
            self.exact_ticking = false;
        } else if self.scanline == 240 {
            self.exact_ticking = false;
            self.stale.synced = (240, 0);
        }
        self.stale.exit_at_line_end = false;
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{nrom_with_chr, run_to};
    use super::super::{Ppu, WIDTH};
    use super::visible_dots_between;
    use crate::cartridge::Cartridge;

    const BACKDROP: u8 = 0x0F;
    /// Background colours 1 and 2, sprite colour 1.
    const BG_1: u8 = 0x16;
    const BG_2: u8 = 0x2A;
    const SPRITE_1: u8 = 0x12;

    /// NROM (horizontal mirroring: the nametable right of $2000 is $2000
    /// again) whose tile 1 is solid colour 1; only the nametable's first
    /// tile is tile 1. Rendering is switched on in vblank, and the PPU runs
    /// to line 0 of the next frame, so the shifters start clean.
    fn setup(sprite0: [u8; 4]) -> (Ppu, Cartridge) {
        let mut cart = nrom_with_chr(|chr| chr[16..24].fill(0xFF));
        cart.ppu_write(0x2000, 1);
        let mut ppu = Ppu::new();
        ppu.palette[0] = BACKDROP;
        ppu.palette[1] = BG_1;
        ppu.palette[2] = BG_2;
        ppu.palette[0x11] = SPRITE_1;
        ppu.oam = [0xFF; 256];
        ppu.oam[..4].copy_from_slice(&sprite0);
        run_to(&mut ppu, &mut cart, 250, 0);
        ppu.write_register(0x2001, 0x1E, &mut cart);
        run_to(&mut ppu, &mut cart, 0, 0);
        (ppu, cart)
    }

    /// Runs to `off` (line, dot), switches rendering off there and back on
    /// at `on`.
    fn blank(ppu: &mut Ppu, cart: &mut Cartridge, off: (u16, u16), on: (u16, u16)) {
        run_to(ppu, cart, off.0, off.1);
        ppu.write_register(0x2001, 0x00, cart);
        run_to(ppu, cart, on.0, on.1);
        ppu.write_register(0x2001, 0x1E, cart);
    }

    fn row(ppu: &Ppu, y: usize) -> &[u8] {
        &ppu.frame_buffer[y * WIDTH..(y + 1) * WIDTH]
    }

    /// The x of the pixels of `line` whose colour `keep` accepts.
    fn xs(line: &[u8], keep: impl Fn(u8) -> bool) -> Vec<usize> {
        (0..WIDTH).filter(|&x| keep(line[x])).collect()
    }

    /// Rendering off from H-blank of line 6 (after the sprite fetches) into
    /// the middle of line 7: the background shifters still hold line 6's
    /// last two tiles (the first tile of the next nametable, solid, then a
    /// blank one), drawn where rendering resumes; sprite 0 (X = 200), whose
    /// unit was loaded but never set counting at dot 339, is drawn there
    /// too (AccuracyCoin "Stale BG Shift Registers" 3 and 4). Line 8, after
    /// line 7 with rendering on from dot 257, is back to normal.
    #[test]
    fn stale_shifters_drawn_after_forced_blank() {
        let (mut ppu, mut cart) = setup([6, 1, 0, 200]);
        blank(&mut ppu, &mut cart, (6, 290), (7, 100));
        run_to(&mut ppu, &mut cart, 9, 0);
        let line7 = row(&ppu, 7);
        let solid = xs(line7, |c| c == BG_1);
        assert!(
            !solid.is_empty() && solid.iter().all(|&x| (100..112).contains(&x)),
            "stale background on line 7 at {solid:?}"
        );
        let sprite = xs(line7, |c| c == SPRITE_1);
        assert_eq!(sprite.len(), 8, "sprite 0 on line 7 at {sprite:?}");
        assert!(sprite[0] < 112, "drawn at once, not at X = 200: {sprite:?}");
        assert!(ppu.sprite0_hit, "the stale pixels overlap");
        // Line 8 (tile row 1, blank): only sprite 0, at its X.
        let line8 = row(&ppu, 8);
        let sprite = xs(line8, |c| c != BACKDROP);
        assert_eq!(sprite, (200..208).collect::<Vec<_>>());
        assert!(!ppu.stale.active && !ppu.exact_ticking);
    }

    /// Rendering off across two background reloads: the pixels shifted in
    /// meanwhile (pattern value 2: 0 into the low plane, 1 into the high)
    /// are drawn instead of the skipped tiles (AccuracyCoin "BG Serial
    /// In").
    #[test]
    fn serial_input_drawn_when_reloads_are_skipped() {
        let (mut ppu, mut cart) = setup([0xFF; 4]);
        blank(&mut ppu, &mut cart, (3, 100), (3, 142));
        run_to(&mut ppu, &mut cart, 4, 0);
        let line3 = row(&ppu, 3);
        let serial = xs(line3, |c| c == BG_2);
        assert!(
            !serial.is_empty() && serial.iter().all(|&x| (142..170).contains(&x)),
            "serial-in pixels at {serial:?}"
        );
    }

    /// Rendering off before dot 339 and on again mid-line: the sprite unit
    /// loaded during the H-blank is still active, so sprite 0 (X = 200) is
    /// drawn as soon as rendering returns; and the counters count on while
    /// rendering is off (AccuracyCoin "Stale Sprite Shift Regs" 2, 5).
    #[test]
    fn sprite_units_across_forced_blank() {
        let (mut ppu, mut cart) = setup([3, 1, 0, 200]);
        blank(&mut ppu, &mut cart, (3, 330), (4, 100));
        // Line 5: off from dot 50 to 150, sprite 0 (X = 200) in place.
        blank(&mut ppu, &mut cart, (5, 50), (5, 150));
        run_to(&mut ppu, &mut cart, 6, 0);
        let drawn = |y| -> Vec<usize> {
            let line = row(&ppu, y);
            xs(line, |c| c == SPRITE_1)
        };
        let line4 = drawn(4);
        assert_eq!(line4.len(), 8, "{line4:?}");
        assert!((100..112).contains(&line4[0]), "{line4:?}");
        assert_eq!(drawn(5), (200..208).collect::<Vec<_>>());
    }

    #[test]
    fn visible_dots_count_rendering_lines_only() {
        assert_eq!(visible_dots_between((5, 10), (5, 20)), 10);
        assert_eq!(visible_dots_between((5, 250), (6, 3)), 9);
        assert_eq!(visible_dots_between((239, 300), (261, 5)), 5);
        assert_eq!(visible_dots_between((4, 330), (14, 340)), 256);
    }
}
