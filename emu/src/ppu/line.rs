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
        let consumed = DOTS_PER_SCANLINE as u32;
        if rendering_line && self.rendering_enabled() {
            return self.run_line_rest(cart);
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

    /// The rest of a rendering line, rendering on, from the tile boundary
    /// the PPU is at (dot 0, 8, ..., 248) through its last dot and into the
    /// next line, on a board whose mapper does not watch the bus: what
    /// [`Ppu::run_line`] does from there. A catch-up that starts mid-line
    /// (after a register access) and runs past the line's end takes this
    /// instead of ticking the line's last 90-odd dots one event at a time.
    /// Returns the dots consumed (341 or, on a skipping pre-render line,
    /// 340, less the dots already run).
    pub(super) fn run_line_rest(&mut self, cart: &mut Cartridge) -> u32 {
        let from = self.dot;
        debug_assert!(from & 7 == 0 && from <= 248 && self.rendering_active());
        let visible = self.scanline < 240;
        let mut consumed = (DOTS_PER_SCANLINE - from) as u32;
        if from == 0 {
            self.begin_rendering_line();
        }
        let done = (from / 8) as usize;
        self.background_tiles_quiet(2 + done, super::LINE_TILES - 2 - done, cart);
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
        self.prefetch_tiles_quiet(cart);
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
    /// Starts at the tile boundary the PPU is at (dot 0, 8, ..., 248), like
    /// [`Ppu::run_line_rest`], and returns the dots it ran.
    #[inline(never)]
    pub(super) fn run_line_watched(&mut self, cart: &mut Cartridge) -> u32 {
        let line = self.scanline;
        let from = self.dot;
        debug_assert!(from & 7 == 0 && from <= 248 && self.rendering_active());
        let start = self.dots - from as u64;
        let mut consumed = DOTS_PER_SCANLINE as u32;
        let visible = line < 240;
        if from == 0 {
            self.begin_rendering_line();
        }
        let done = (from / 8) as usize;
        // With the background in the low pattern table every background
        // fetch has A12 low, so only the first one still to come can be a
        // change the mapper is told of: that one is reported, the rest
        // read quietly.
        let bg_low = self.ctrl & CTRL_BG_TABLE == 0;
        if bg_low {
            self.dots = start + from as u64 + 1;
            self.report_bus(0x2000, cart);
            self.background_tiles_quiet(2 + done, super::LINE_TILES - 2 - done, cart);
        } else {
            for tile in 2 + done..super::LINE_TILES {
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
            self.prefetch_tiles_quiet(cart);
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
        consumed - from as u32
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

    /// Dots 249-256 where no mapper watches the bus and no log is kept:
    /// the line's last tile, then dot 256's work (the pixels drawn, the
    /// evaluation finished, the next pixel row). Returns the dots run.
    fn run_last_tile(&mut self, cart: &mut Cartridge) -> u32 {
        self.background_tiles_quiet(super::LINE_TILES - 1, 1, cart);
        self.dots += 8;
        self.dot = 256;
        if self.scanline < 240 {
            self.flush_pixels();
            self.finish_sprite_evaluation();
        }
        self.increment_y();
        self.next_event = 0;
        8
    }

    /// Runs the next whole tiles, up to `dots` dots, as tile steps when
    /// they are exactly background tiles' fetches with nothing else due
    /// (dots 1-248 and 321-336 of a rendering line, starting on a tile
    /// boundary; and, quietly, dots 249-256 with dot 256's work). Returns
    /// the dots run: 0, doing nothing, when the next 8 dots are not such a
    /// tile. Where no mapper watches the bus and no log
    /// is kept, all of them in one go ([`Ppu::background_tiles_quiet`]);
    /// otherwise one tile (the caller comes back for the next). Also on
    /// boards whose mapper watches the PPU bus: the bus never runs a
    /// catch-up past the dot the mapper's IRQ could first rise at, and the
    /// mapper sees each fetch at its dot.
    pub(super) fn run_tiles(&mut self, dots: u32, cart: &mut Cartridge) -> u32 {
        let dot = self.dot;
        let line = self.scanline;
        if dot & 7 != 0
            || self.exact_ticking
            || !(dot <= 248 || dot == 320 || dot == 328)
            || !(line < 240 || line == PRE_RENDER_LINE)
            || !self.rendering_enabled()
        {
            return 0;
        }
        let quiet = !cart.watches_ppu() && cart.access_log.is_none();
        if dot == 248 {
            return if quiet { self.run_last_tile(cart) } else { 0 };
        }
        if dot == 0 {
            self.begin_rendering_line();
        }
        let tile = if dot < 256 {
            (dot >> 3) as usize + 2
        } else {
            ((dot - 320) >> 3) as usize
        };
        let mut tiles = 1;
        let start = self.dots;
        if cart.watches_ppu() {
            // A mapper watching the bus (MMC3) sees each fetch at its own
            // dot, as ticking would show it: its A12 filter times the gaps.
            self.background_tile_timed(tile, cart, start);
        } else if quiet {
            // The tiles up to dot 248 (the next one has dot 256's work) or
            // up to the prefetch's end, as many as the dots cover.
            let last = if dot < 256 { 248 } else { 336 };
            tiles = (((last - dot) / 8) as u32).min(dots / 8);
            self.background_tiles_quiet(tile, tiles as usize, cart);
        } else {
            self.background_tile::<true>(tile, cart);
        }
        self.dots = start + 8 * tiles as u64;
        self.dot += 8 * tiles as u16;
        self.next_event = 0;
        8 * tiles
    }
}
