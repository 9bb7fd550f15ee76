//! Whole scanlines in one step, for catch-up runs. When the bus runs the PPU
//! over a span that covers an entire line and no mapper watches the PPU bus,
//! nothing outside the PPU can observe the order of events inside the line, so
//! the line's work is done in a straight sequence — 34 tile fetches, pixel
//! output, sprite evaluation and fetches — instead of dispatching on every
//! dot. The result is identical to ticking the line's dots one by one (the
//! frame-hash tests compare both).

use super::{Ppu, CTRL_BG_TABLE, DOTS_PER_SCANLINE, PRE_RENDER_LINE, VBLANK_LINE};
use crate::cartridge::Cartridge;

impl Ppu {
    /// Runs the line that starts at the current position (dot 0) through its
    /// last dot and into the next line. Returns the dots consumed (341, or 340
    /// when the odd-frame skip shortens the pre-render line).
    pub(super) fn run_line(&mut self, cart: &mut Cartridge) -> u32 {
        debug_assert_eq!(self.dot, 0);
        let line = self.scanline;
        let rendering_line = line < 240 || line == PRE_RENDER_LINE;
        let mut consumed = DOTS_PER_SCANLINE as u32;
        if rendering_line && self.rendering_enabled() {
            let visible = line < 240;
            self.begin_rendering_line();
            self.background_tiles_quiet(2, super::LINE_TILES - 2, cart);
            self.dot = 256;
            if visible {
                self.flush_pixels();
                self.finish_sprite_evaluation();
            }
            self.increment_y();
            self.sprite_fetches_quiet(cart);
            if !visible {
                self.copy_vertical();
            }
            self.background_tiles_quiet(0, 2, cart);
            self.dummy_nametable_fetch(cart);
            if !visible {
                // The odd-frame skip decision (dot 338).
                self.skip_dot = self.odd_frame;
            }
            self.dummy_nametable_fetch(cart);
            if !visible && self.skip_dot {
                consumed -= 1;
                self.shift_line0_sprites();
            }
        } else if line < 240 {
            self.dot = 256;
            self.flush_pixels();
        } else if line == VBLANK_LINE {
            if !self.suppress_vblank {
                self.vblank = true;
            }
            self.suppress_vblank = false;
        } else if line == PRE_RENDER_LINE {
            self.clear_status_flags();
        }
        self.dots += consumed as u64;
        self.end_whole_line();
        consumed
    }

    /// [`Ppu::run_line`] on a board whose mapper watches the PPU bus: the
    /// same work, but every fetch is made with the dot counter at its own
    /// dot, and the unused nametable fetches of the sprite slots too, so the
    /// mapper sees what ticking shows it. (The bus never runs a catch-up
    /// past the dot the mapper's IRQ could first rise at.) Kept apart so
    /// that the plain version stays as small as it was (~2 % of whole-movie
    /// instructions on NROM when they shared one body).
    #[inline(never)]
    pub(super) fn run_line_watched(&mut self, cart: &mut Cartridge) -> u32 {
        let line = self.scanline;
        let start = self.dots;
        let mut consumed = DOTS_PER_SCANLINE as u32;
        let visible = line < 240;
        self.begin_rendering_line();
        // With the background in the low pattern table every background
        // fetch has A12 low, so only a line's first one can be a change the
        // mapper is told of: that one is reported, the rest read quietly.
        let bg_low = self.ctrl & CTRL_BG_TABLE == 0;
        if bg_low {
            self.dots = start + 1;
            self.report_bus(0x2000, cart);
            self.background_tiles_quiet(2, super::LINE_TILES - 2, cart);
        } else {
            for tile in 2..super::LINE_TILES {
                self.background_tile_timed(tile, cart, start + 8 * (tile as u64 - 2));
            }
        }
        self.dots = start + 256;
        self.dot = 256;
        if visible {
            self.flush_pixels();
            self.finish_sprite_evaluation();
        }
        self.increment_y();
        self.sprite_fetches_watched(start, cart);
        if !visible {
            self.copy_vertical();
        }
        if bg_low {
            self.dots = start + 321;
            self.report_bus(0x2000, cart);
            self.background_tiles_quiet(0, 2, cart);
        } else {
            for tile in 0..2 {
                self.background_tile_timed(tile, cart, start + 320 + 8 * tile as u64);
            }
        }
        self.dots = start + 337;
        self.dummy_nametable_fetch(cart);
        if !visible {
            // The odd-frame skip decision (dot 338).
            self.skip_dot = self.odd_frame;
        }
        self.dots = start + 339;
        self.dummy_nametable_fetch(cart);
        if !visible && self.skip_dot {
            consumed -= 1;
            self.shift_line0_sprites();
        }
        self.dots = start + consumed as u64;
        self.end_whole_line();
        consumed
    }

    /// Dot 0 of a rendering line (pre-render or visible) with rendering on:
    /// the pre-render line clears the status flags (at its dot 1), a
    /// visible line starts clearing secondary OAM.
    #[inline(always)]
    fn begin_rendering_line(&mut self) {
        if self.scanline == PRE_RENDER_LINE {
            self.clear_status_flags();
        } else {
            self.clear_secondary_oam();
        }
    }

    /// After a whole line's work: into dot 0 of the next line, the skip
    /// decision spent, with the next dot's events recomputed.
    #[inline(always)]
    fn end_whole_line(&mut self) {
        self.skip_dot = false;
        self.dot = DOTS_PER_SCANLINE;
        self.maybe_end_scanline();
        self.next_event = 0;
    }

    /// Runs the next 8 dots as one tile step when they are exactly one
    /// background tile's fetches with nothing else due (dots 1-248 and
    /// 321-336 of a rendering line, starting on a tile boundary). Returns
    /// false, doing nothing, otherwise. Also on boards whose mapper watches
    /// the PPU bus: the bus never runs a catch-up past the dot the mapper's
    /// IRQ could first rise at, and the mapper sees each fetch at its dot.
    pub(super) fn run_tile(&mut self, cart: &mut Cartridge) -> bool {
        let dot = self.dot;
        let line = self.scanline;
        if dot & 7 != 0
            || self.exact_ticking
            || !(dot <= 240 || dot == 320 || dot == 328)
            || !(line < 240 || line == PRE_RENDER_LINE)
            || !self.rendering_enabled()
        {
            return false;
        }
        if dot == 0 {
            self.begin_rendering_line();
        }
        let tile = if dot < 256 {
            (dot >> 3) as usize + 2
        } else {
            ((dot - 320) >> 3) as usize
        };
        if cart.watches_ppu() {
            // A mapper watching the bus (MMC3) sees each fetch at its own
            // dot, as ticking would show it: its A12 filter times the gaps.
            let start = self.dots;
            self.background_tile_timed(tile, cart, start);
            self.dots = start + 8;
        } else {
            self.background_tile::<true>(tile, cart);
            self.dots += 8;
        }
        self.dot += 8;
        self.next_event = 0;
        true
    }
}
