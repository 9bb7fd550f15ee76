//! Sprites (NESdev wiki "PPU sprite evaluation", "PPU OAM"). Dots 1-64 clear
//! secondary OAM; dots 65-256 evaluate primary OAM for the next line, one read
//! on each odd dot, including the hardware bug that, once 8 sprites are found,
//! increments the byte index along with the sprite index when a sprite is not
//! in range (so later sprites' X, tile or attribute bytes are taken as Y);
//! dots 257-320 fetch the pattern bytes of the 8 sprite slots.
//!
//! Evaluation runs lazily: [`Ppu::catch_up_evaluation`] executes the steps
//! whose dots have passed. The PPU calls it at dot 256 and before any CPU
//! access to its registers, so everything the CPU can observe (the overflow
//! flag's timing, $2000/$2001 changes mid-evaluation) is exact.

use super::sprite_eval::{Phase, SpriteEval, FIRST_EVAL_DOT, LAST_EVAL_DOT};
use super::{Ppu, CTRL_SPRITE_16, CTRL_SPRITE_TABLE, MASK_SPRITES, PRE_RENDER_LINE};
use crate::access_log::CHR_DRAWN;
use crate::cartridge::Cartridge;
use crate::pattern_rows::decode_row;

impl Ppu {
    #[inline(always)]
    fn sprite_height(&self) -> u16 {
        if self.ctrl & CTRL_SPRITE_16 != 0 {
            16
        } else {
            8
        }
    }

    /// Dot 1 of a visible line: secondary OAM is filled with $FF during dots
    /// 1-64 and evaluation restarts.
    pub(super) fn clear_secondary_oam(&mut self) {
        self.secondary_oam = [0xFF; 32];
        self.eval = SpriteEval {
            next_dot: FIRST_EVAL_DOT,
            ..SpriteEval::default()
        };
    }

    /// Runs the evaluation steps due by the current dot (visible lines only).
    pub(super) fn catch_up_evaluation(&mut self) {
        if self.scanline >= 240 || !self.rendering_enabled() {
            return;
        }
        let until = self.dot.min(LAST_EVAL_DOT);
        if self.eval.next_dot == FIRST_EVAL_DOT {
            // Evaluation starts at the OAM byte OAMADDR points to, and the
            // sprite read there, whichever it is, is "sprite 0" for the hit
            // flag (AccuracyCoin "Arbitrary Sprite zero"). From a misaligned
            // address the four bytes copied for an in-range "sprite" are the
            // four from there on, and the next one starts 4 bytes later,
            // still misaligned; an out-of-range one realigns, the address
            // going up by 4 and down to a multiple of 4 (AccuracyCoin
            // "Misaligned OAM behavior").
            self.eval.begin_at(self.oam_addr);
        }
        if self.eval.next_dot == FIRST_EVAL_DOT && until == LAST_EVAL_DOT {
            self.evaluate_whole_line();
            return;
        }
        while self.eval.next_dot <= until {
            self.evaluation_step();
            self.eval.next_dot += 2;
        }
    }

    /// Dot 256: evaluation completes; its result is used by the fetches.
    pub(super) fn finish_sprite_evaluation(&mut self) {
        self.catch_up_evaluation();
        self.next_sprite_count = self.eval.found;
        self.next_has_sprite0 = self.eval.has_sprite0();
    }

    /// The whole evaluation in one pass, when nothing observed it start to
    /// finish. It always completes within its 96 read slots (8 in-range
    /// sprites take 4 reads each, every other sprite 1), so the outcome equals
    /// running [`Ppu::evaluation_step`] for every slot.
    fn evaluate_whole_line(&mut self) {
        if self.eval.m != 0 {
            self.evaluate_whole_line_misaligned();
            return;
        }
        // Aligned (OAMADDR a multiple of 4 at dot 65, as nearly always): it
        // stays aligned, so the four bytes of a sprite are one slice. Kept
        // apart from the misaligned case: sharing one loop cost ~3 % more
        // instructions per movie here, and the larger code inlined into
        // `run_dots` kept the compiler from taking the fetch loops' "does
        // the mapper watch the bus" test out of them (~9 % more; measured
        // with cachegrind on lunarlimit, see BENCHMARKS.md).
        // The in-range sprites from `first` on, all found at once
        // (`oam_scan.rs`); the evaluation copies the first 8 of them.
        let height = self.sprite_height();
        let line = self.scanline;
        let first = self.eval.first();
        let in_range = super::oam_scan::in_range(&self.oam, line, height);
        let mut pending = in_range & (!0u64 << first);
        let mut found = 0usize;
        let mut n = 64;
        while pending != 0 {
            let sprite = pending.trailing_zeros() as usize;
            self.secondary_oam[found * 4..found * 4 + 4]
                .copy_from_slice(&self.oam[sprite * 4..sprite * 4 + 4]);
            found += 1;
            pending &= pending - 1;
            if found == 8 {
                n = sprite + 1;
                break;
            }
        }
        // Every sprite's Y is copied into the slot being filled before its
        // range test; of those not in range only the last one's stays.
        if found < 8 && in_range >> 63 == 0 {
            self.secondary_oam[found * 4] = self.oam[63 * 4];
        }
        if in_range >> first & 1 != 0 {
            self.eval.found_in_range(first);
        }
        self.finish_whole_line(found, n, 0);
    }

    /// [`Ppu::evaluate_whole_line`] from a misaligned OAMADDR.
    #[cold]
    #[inline(never)]
    fn evaluate_whole_line_misaligned(&mut self) {
        let height = self.sprite_height();
        let line = self.scanline;
        let mut found = 0usize;
        let mut n = self.eval.first();
        let mut m = self.eval.m as usize;
        while n < 64 && found < 8 {
            let at = n * 4 + m;
            let y = self.oam[at];
            self.secondary_oam[found * 4] = y;
            if line.wrapping_sub(y as u16) < height {
                for k in 1..4 {
                    self.secondary_oam[found * 4 + k] = self.oam[(at + k) & 0xFF];
                }
                self.eval.found_in_range(n);
                found += 1;
            } else {
                m = 0;
            }
            n += 1;
        }
        self.finish_whole_line(found, n, m);
    }

    /// The buggy overflow search after 8 sprites (the byte index m advances
    /// with n), and the evaluation's end.
    fn finish_whole_line(&mut self, found: usize, mut n: usize, mut m: usize) {
        let height = self.sprite_height();
        let line = self.scanline;
        // The evaluation's reads so far: 4 for each of the 8 sprites found,
        // 1 for every other sprite visited; the dot of the read that finds
        // the overflow decides when a $2002 read sees it.
        let mut reads = n - self.eval.first() + 24;
        while found == 8 && n < 64 {
            if line.wrapping_sub(self.oam[n * 4 + m] as u16) < height {
                self.set_sprite_overflow(FIRST_EVAL_DOT + 2 * reads as u16);
                break;
            }
            m = (m + 1) & 3;
            n += 1;
            reads += 1;
        }
        self.eval.found = found as u8;
        self.eval.phase = Phase::Done;
        self.eval.next_dot = LAST_EVAL_DOT + 2;
    }

    fn in_range(&self, y: u8) -> bool {
        self.scanline.wrapping_sub(y as u16) < self.sprite_height()
    }

    /// One read (and the write on the following dot) of the evaluation.
    fn evaluation_step(&mut self) {
        let (n, m, found) = (
            self.eval.n as usize,
            self.eval.m as usize,
            self.eval.found as usize,
        );
        match self.eval.phase {
            Phase::ReadY => {
                let y = self.oam[n * 4 + m];
                self.secondary_oam[found * 4] = y;
                if self.in_range(y) {
                    self.eval.found_in_range(n);
                    self.eval.phase = Phase::CopyRest(1);
                } else {
                    // Out of range realigns (see `catch_up_evaluation`).
                    self.eval.m = 0;
                    self.next_sprite();
                }
            }
            Phase::CopyRest(k) => {
                self.secondary_oam[found * 4 + k as usize] =
                    self.oam[(n * 4 + m + k as usize) & 0xFF];
                if k == 3 {
                    self.eval.found += 1;
                    self.next_sprite();
                } else {
                    self.eval.phase = Phase::CopyRest(k + 1);
                }
            }
            Phase::Overflow => {
                if self.in_range(self.oam[n * 4 + m]) {
                    self.set_sprite_overflow(self.eval.next_dot);
                    self.eval.phase = Phase::Done;
                } else {
                    // The bug: the byte index advances with the sprite index.
                    self.eval.m = ((m + 1) & 3) as u8;
                    self.eval.n += 1;
                    if self.eval.n == 64 {
                        self.eval.phase = Phase::Done;
                    }
                }
            }
            Phase::Done => {}
        }
    }

    /// Step 2: move to the next sprite.
    fn next_sprite(&mut self) {
        let e = &mut self.eval;
        e.n += 1;
        e.phase = if e.n == 64 {
            Phase::Done
        } else if e.found < 8 {
            Phase::ReadY
        } else {
            Phase::Overflow
        };
    }

    /// Dots 257-320 of visible and pre-render lines: eight 8-dot sprite slots
    /// (two garbage nametable fetches, pattern low, pattern high).
    #[inline(always)]
    pub(super) fn sprite_fetch_dot(&mut self, dot: u16, cart: &mut Cartridge) {
        self.oam_addr = 0;
        if dot == 257 {
            self.begin_sprite_fetches();
        }
        let step = (dot - 257) & 7;
        let slot = ((dot - 257) >> 3) as usize;
        match step {
            0 | 2 if cart.watches_ppu() => {
                self.report_bus(0x2000 | (self.v & 0x0FFF), cart);
            }
            4 | 6 => {
                // Empty slots fetch too (tile $FF), which only a mapper
                // watching the bus can notice.
                let used = if self.scanline == PRE_RENDER_LINE {
                    self.pre_render_slot_in_range(slot)
                } else {
                    slot < self.fetch_sprite_count as usize
                };
                if !used && !cart.watches_ppu() {
                    return;
                }
                let addr = self.sprite_pattern_address(slot) | if step == 6 { 8 } else { 0 };
                let data = self.fetch(addr, cart);
                // Drawn: with sprites on, for lines 0-239 (line 239's
                // fetches are for line 240, never shown; the pre-render
                // line's are for line 0).
                if used
                    && cart.access_log.is_some()
                    && self.mask & MASK_SPRITES != 0
                    && self.scanline != 239
                {
                    cart.log_chr(addr, 0, CHR_DRAWN);
                }
                if step == 4 {
                    self.sprite_lo_latch = data;
                } else if used {
                    let pre_render = self.scanline == PRE_RENDER_LINE;
                    self.sprite_row_fetched(slot, self.sprite_lo_latch, data, pre_render);
                }
            }
            _ => {}
        }
    }

    /// Dots 257-320 of a whole line on a board whose mapper does not watch
    /// the bus (`run_line`): only the used slots' pattern fetches matter.
    pub(super) fn sprite_fetches_quiet(&mut self, cart: &mut Cartridge) {
        self.begin_sprite_fetches();
        let pre_render = self.scanline == PRE_RENDER_LINE;
        for slot in 0..8 {
            let used = if pre_render {
                self.pre_render_slot_in_range(slot)
            } else {
                slot < self.fetch_sprite_count as usize
            };
            if used {
                let addr = self.sprite_pattern_address(slot);
                let (lo, hi) = (cart.ppu_read(addr), cart.ppu_read(addr | 8));
                self.sprite_row_fetched(slot, lo, hi, pre_render);
            }
        }
        self.dot = 319;
    }

    /// Runs dots from the current one (256-319) up to `dots` dots but not
    /// past dot 320, where no mapper watches the bus and no log is kept:
    /// the sprite slots' fetches whose dots the span covers, in one step,
    /// instead of one tick per fetch dot. Nothing outside the PPU can
    /// change what they fetch inside one catch-up (a register or mapper
    /// write ends it), so doing them together gives what ticking gives.
    /// Returns the dots run.
    pub(super) fn run_sprite_fetches(&mut self, dots: u32, cart: &Cartridge) -> u32 {
        let from = self.dot;
        debug_assert!((256..320).contains(&from) && self.rendering_active());
        let to = (from as u32 + dots).min(320) as u16;
        self.oam_addr = 0;
        if from < 257 {
            self.begin_sprite_fetches();
        }
        let pre_render = self.scanline == PRE_RENDER_LINE;
        for slot in 0..8 {
            // The slot's pattern fetches: low plane at dot 261 + 8·slot,
            // high plane 2 dots later.
            let lo_dot = 261 + 8 * slot as u16;
            let hi_dot = lo_dot + 2;
            if hi_dot <= from {
                continue;
            }
            if lo_dot > to {
                break;
            }
            let used = if pre_render {
                self.pre_render_slot_in_range(slot)
            } else {
                slot < self.fetch_sprite_count as usize
            };
            if !used {
                continue;
            }
            let addr = self.sprite_pattern_address(slot);
            if lo_dot > from {
                self.sprite_lo_latch = cart.ppu_read(addr);
            }
            if hi_dot <= to {
                let hi = cart.ppu_read(addr | 8);
                self.sprite_row_fetched(slot, self.sprite_lo_latch, hi, pre_render);
            }
        }
        if pre_render && from < 304 && to >= 280 {
            self.copy_vertical();
        }
        self.dots += (to - from) as u64;
        self.dot = to;
        self.next_event = 0;
        (to - from) as u32
    }

    /// Dot 257: the fetches start (horizontal scroll reloaded, the
    /// evaluation's result latched, the sprite buffer emptied).
    fn begin_sprite_fetches(&mut self) {
        self.oam_addr = 0;
        self.copy_horizontal();
        self.fetch_sprite_count = self.next_sprite_count;
        self.fetch_has_sprite0 = self.next_has_sprite0;
        self.clear_line_sprites();
        self.line0_slots = 0;
        self.stale
            .begin_line(&self.secondary_oam, self.fetch_has_sprite0);
    }

    /// A used slot's pattern row arrived: drawn (and on the pre-render
    /// line kept for line 0's shift, see [`Ppu::shift_line0_sprites`]).
    fn sprite_row_fetched(&mut self, slot: usize, lo: u8, hi: u8, pre_render: bool) {
        self.sprite_lo_latch = lo;
        self.stale.slot_fetched(slot, lo, hi);
        if pre_render {
            self.line0_patterns[slot] = (lo, hi);
            self.line0_slots |= 1 << slot;
        }
        self.draw_sprite(slot, lo, hi, false);
    }

    /// Dots 257-320 of a whole line on a board whose mapper watches the
    /// bus (`run_line_watched`, the line starting at `dots` count `start`),
    /// slot by slot: what [`Ppu::sprite_fetch_dot`] does on each of the 32
    /// fetch dots, with the second garbage nametable fetch of each slot left
    /// out (same address as the first, so nothing for the mapper to see).
    pub(super) fn sprite_fetches_watched(&mut self, start: u64, cart: &mut Cartridge) {
        self.begin_sprite_fetches();
        let pre_render = self.scanline == PRE_RENDER_LINE;
        let garbage = 0x2000 | (self.v & 0x0FFF);
        // With 8×8 sprites every slot's pattern fetches have the same A12,
        // and the nametable fetch before them A12 low: a fall, then a rise
        // 4 dots later. Where the mapper ignores such a rise, the unused
        // slots between the first and the last change nothing the last
        // does not set again, and are not reported.
        let quiet_middle = self.sprite_height() == 8 && cart.a12_rise_filter_dots() > 4;
        for slot in 0..8 {
            let used = if pre_render {
                self.pre_render_slot_in_range(slot)
            } else {
                slot < self.fetch_sprite_count as usize
            };
            if !used && quiet_middle && (1..7).contains(&slot) {
                continue;
            }
            let base = 257 + 8 * slot as u64;
            self.dots = start + base;
            self.report_bus(garbage, cart);
            let addr = self.sprite_pattern_address(slot);
            self.dots = start + base + 4;
            if used {
                let lo = self.fetch(addr, cart);
                self.dots = start + base + 6;
                let hi = self.fetch(addr | 8, cart);
                self.sprite_row_fetched(slot, lo, hi, pre_render);
            } else if slot == 7 {
                // The last slot's low plane stays in the latch.
                self.sprite_lo_latch = self.fetch(addr, cart);
            } else {
                // An unused slot's bytes are overwritten unread: the mapper
                // is told of the address (both planes share its A12).
                self.report_bus(addr, cart);
            }
        }
        self.dot = 319;
    }

    /// Pattern address of the row of slot's sprite shown on the next line.
    pub(super) fn sprite_pattern_address(&self, slot: usize) -> u16 {
        let s = &self.secondary_oam[slot * 4..slot * 4 + 4];
        let (y, tile, attr) = (s[0], s[1], s[2]);
        let height = self.sprite_height();
        let mut row = self.scanline.wrapping_sub(y as u16) & (height - 1);
        if attr & 0x80 != 0 {
            row = height - 1 - row;
        }
        if height == 16 {
            let table = (tile as u16 & 1) * 0x1000;
            let tile = (tile & 0xFE) as u16 + (row >> 3);
            table | tile << 4 | (row & 7)
        } else {
            let table = if self.ctrl & CTRL_SPRITE_TABLE != 0 {
                0x1000
            } else {
                0
            };
            table | (tile as u16) << 4 | row
        }
    }

    /// Whether the pre-render line's fetch for `slot` loads a sprite for
    /// line 0. That line has no evaluation, so the fetches see what secondary
    /// OAM still holds from the last evaluated line (or from before rendering
    /// was switched off), and the in-range comparison uses the line number's
    /// low 8 bits: 261 & $FF = 5. Nothing shows in normal frames (line 239's
    /// sprites have Y >= 224), but a program that switches rendering on
    /// during the pre-render line can draw a stale sprite on line 0
    /// (NESdev forum thread 26291; AccuracyCoin "Sprites On Scanline 0").
    fn pre_render_slot_in_range(&self, slot: usize) -> bool {
        let y = self.secondary_oam[slot * 4] as u16;
        (PRE_RENDER_LINE & 0xFF).wrapping_sub(y) < self.sprite_height()
    }

    /// The odd-frame skip shortened the pre-render line: on a 2C02 the sprites
    /// its fetches loaded for line 0 come out one dot early, their first
    /// pixel at x = 0 and the other seven one pixel left of their place
    /// (AccuracyCoin "Sprites On Scanline 0", composite PPU; a sprite at
    /// X = 0 is unchanged). Redraws line 0's sprites that way.
    #[cold]
    pub(super) fn shift_line0_sprites(&mut self) {
        if self.line0_slots == 0 {
            return;
        }
        self.clear_line_sprites();
        for slot in 0..8 {
            if self.line0_slots & 1 << slot != 0 {
                let (lo, hi) = self.line0_patterns[slot];
                self.draw_sprite(slot, lo, hi, true);
            }
        }
        self.line0_slots = 0;
    }

    /// Empties the sprite buffer (only the span that holds pixels).
    #[inline(always)]
    fn clear_line_sprites(&mut self) {
        let (from, to) = self.sprite_span;
        if from < to {
            self.line_sprites[from as usize..to as usize].fill(0);
        }
        self.sprite_span = (super::WIDTH as u16, 0);
    }

    /// Draws a fetched sprite row into the next line's sprite buffer. Lower
    /// slots were drawn first and keep priority. `early`: the odd-frame skip
    /// placement of [`Ppu::shift_line0_sprites`].
    fn draw_sprite(&mut self, slot: usize, lo: u8, hi: u8, early: bool) {
        if lo | hi == 0 {
            return;
        }
        let attr = self.secondary_oam[slot * 4 + 2];
        let x = self.secondary_oam[slot * 4 + 3] as usize;
        let flags = ((attr & 3) << 2)
            | (attr & 0x20)
            | if slot == 0 && self.fetch_has_sprite0 {
                0x80
            } else {
                0
            };
        let flip = attr & 0x40 != 0;
        if !early && x + 8 <= super::WIDTH {
            self.draw_sprite_row(x, lo, hi, flip, flags);
        } else {
            self.draw_sprite_pixels(x, lo, hi, flip, flags, early);
        }
    }

    /// [`Ppu::draw_sprite`]'s row pixel by pixel: a row that runs off the
    /// line's right end, or one placed as the odd-frame skip places it
    /// (`early`). The tests hold [`Ppu::draw_sprite_row`] to it.
    fn draw_sprite_pixels(&mut self, x: usize, lo: u8, hi: u8, flip: bool, flags: u8, early: bool) {
        for i in 0..8 {
            let px = match (early && x != 0, i) {
                (false, _) => x + i,
                (true, 0) => 0,
                (true, _) => x + i - 1,
            };
            if px >= super::WIDTH {
                break;
            }
            let bit = if flip { i } else { 7 - i };
            let pixel = ((lo >> bit) & 1) | (((hi >> bit) & 1) << 1);
            if pixel != 0 && self.line_sprites[px] == 0 {
                self.line_sprites[px] = pixel | flags;
                let (from, to) = &mut self.sprite_span;
                *from = (*from).min(px as u16);
                *to = (*to).max(px as u16 + 1);
            }
        }
    }

    /// [`Ppu::draw_sprite`] for a row that lies whole on the line (`x` at
    /// most 248, not the odd-frame skip's placement): its eight pixels as
    /// one 64-bit word, a byte each, merged into the line's sprite buffer
    /// where the row is opaque and no lower slot drew. Pixel by pixel, a
    /// row cost about 140 host instructions, and fff draws some 220 rows a
    /// frame.
    #[inline(always)]
    fn draw_sprite_row(&mut self, x: usize, lo: u8, hi: u8, flip: bool, flags: u8) {
        const ONES: u64 = 0x0101_0101_0101_0101;
        // Byte i is pixel x + i's 2-bit value (a horizontal flip reverses
        // the row's bits, so the bytes).
        let row = decode_row(lo, hi);
        let row = if flip { row.swap_bytes() } else { row };
        // 0x01 in each opaque pixel's byte (the values are 0-3).
        let opaque = (row | (row >> 1)) & ONES;
        let slots: &mut [u8; 8] = (&mut self.line_sprites[x..x + 8])
            .try_into()
            .expect("eight pixels");
        let drawn = u64::from_le_bytes(*slots);
        // 0x01 in each byte a lower slot already drew (any bit set).
        let taken = {
            let low7 = (drawn & !(ONES * 0x80)) + ONES * 0x7F;
            ((low7 | drawn) >> 7) & ONES
        };
        let write = (opaque & !taken) * 0xFF;
        *slots = ((drawn & !write) | ((row | (ONES * flags as u64)) & write)).to_le_bytes();
        if opaque != 0 {
            // The span grows over the opaque pixels: any of them not drawn
            // here was drawn by a lower slot, inside the span already.
            let first = x as u16 + (opaque.trailing_zeros() / 8) as u16;
            let last = x as u16 + (63 - opaque.leading_zeros()) as u16 / 8;
            let (from, to) = &mut self.sprite_span;
            *from = (*from).min(first);
            *to = (*to).max(last + 1);
        }
    }

    /// While rendering a visible line, OAMDATA reads what the sprite
    /// circuitry has on the OAM data bus (NESdev wiki "PPU sprite
    /// evaluation"; AccuracyCoin "Address $2004 behavior" 8 and 9 and
    /// "$2004 Stress Test"): $FF while secondary OAM is cleared (dots
    /// 1-64), the byte evaluation read or wrote on the dot (65-256,
    /// `oam_bus.rs`), the secondary-OAM byte the sprite fetches are at
    /// (257-320), and secondary OAM's first byte from then to the next
    /// line's clearing (321-340 and dot 0).
    pub(super) fn oam_data_read(&mut self) -> u8 {
        let addr = if self.rendering_active() && self.scanline < 240 {
            // An attribute byte copied from OAM lacks bits 2-4; the $FF
            // of an unused slot keeps them.
            let copied = self.next_sprite_count as usize * 4;
            let secondary = |i: usize| {
                let value = self.secondary_oam[i];
                if i & 3 == 2 && i < copied {
                    value & 0xE3
                } else {
                    value
                }
            };
            match self.dot {
                1..=64 => return 0xFF,
                65..=256 => {
                    let height = self.sprite_height();
                    return super::oam_bus::evaluation_bus(
                        &self.oam,
                        self.oam_addr,
                        self.scanline,
                        height,
                        self.dot,
                    );
                }
                257..=320 => {
                    let step = (self.dot - 257) as usize;
                    return secondary((step / 8) * 4 + (step % 8).min(3));
                }
                _ => return secondary(0),
            }
        } else if self.rendering_active() && (1..=64).contains(&self.dot) {
            return 0xFF;
        } else {
            self.oam_addr
        };
        let value = self.oam[addr as usize];
        // Bits 2-4 of the attribute byte do not exist.
        if addr & 3 == 2 {
            value & 0xE3
        } else {
            value
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{nrom, nrom_with_chr, run_to};
    use super::super::{frame_position, Ppu};

    /// Rows drawn eight pixels at a time give the line buffer and span
    /// that drawing them pixel by pixel gives, over lines already holding
    /// lower slots' pixels, with and without flips and every flag bit.
    #[test]
    fn sprite_rows_drawn_as_words_match_pixels() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..20_000 {
            let mut word = Ppu::new();
            // A few lower slots' pixels already on the line.
            for _ in 0..(next() % 4) {
                let (x, lo, hi) = ((next() % 249) as usize, next() as u8, next() as u8);
                let (flip, flags) = (next() & 1 == 1, next() as u8 & 0xAC);
                word.draw_sprite_pixels(x, lo, hi, flip, flags, false);
            }
            let mut pixels = Ppu::new();
            pixels.line_sprites = word.line_sprites;
            pixels.sprite_span = word.sprite_span;
            let (x, lo, hi) = ((next() % 249) as usize, next() as u8, next() as u8);
            let (flip, flags) = (next() & 1 == 1, next() as u8 & 0xAC);
            word.draw_sprite_row(x, lo, hi, flip, flags);
            pixels.draw_sprite_pixels(x, lo, hi, flip, flags, false);
            assert_eq!(
                word.line_sprites, pixels.line_sprites,
                "x {x} lo {lo:02X} hi {hi:02X}"
            );
            assert_eq!(
                word.sprite_span, pixels.sprite_span,
                "x {x} lo {lo:02X} hi {hi:02X}"
            );
        }
    }

    /// With rendering on, OAMDATA reads $FF while secondary OAM is cleared,
    /// a byte evaluation is reading (a sprite's Y, well past sprite 0) in
    /// dots 65-256, and the secondary OAM being fetched in 257-320; a write
    /// bumps OAMADDR by 4 and clears its low bits (AccuracyCoin "Address
    /// $2004 behavior" 8, 9, A).
    #[test]
    fn oamdata_during_rendering() {
        let mut cart = nrom();
        let mut ppu = Ppu::new();
        for i in 0..256 {
            ppu.oam[i] = i as u8; // sprite n has Y = 4n: only sprite 0 is on line 0
        }
        ppu.write_register(0x2001, 0x18, &mut cart);
        run_to(&mut ppu, &mut cart, 0, 30);
        assert_eq!(ppu.oam_data_read(), 0xFF, "clearing secondary OAM");
        run_to(&mut ppu, &mut cart, 0, 131);
        let y = ppu.oam_data_read();
        assert!(
            y.is_multiple_of(4) && (64..=160).contains(&y),
            "mid-evaluation read {y}"
        );
        run_to(&mut ppu, &mut cart, 0, 300);
        assert_eq!(
            ppu.oam_data_read(),
            0xFF,
            "an unused sprite slot being fetched"
        );
        ppu.oam_addr = 1;
        ppu.write_register(0x2004, 0x55, &mut cart);
        assert_eq!(ppu.oam_addr, 4);
        assert_eq!(ppu.oam[1], 1, "the write does not reach OAM");
    }

    /// OAM has no bits 2-4 in a sprite's attribute byte: a $2004 write
    /// stores the byte without them, and evaluation sees it so.
    #[test]
    fn attribute_bytes_lack_bits_2_to_4() {
        let mut cart = nrom();
        let mut ppu = Ppu::new();
        ppu.write_register(0x2003, 0x06, &mut cart);
        ppu.write_register(0x2004, 0xFF, &mut cart);
        ppu.write_register(0x2004, 0xFF, &mut cart);
        assert_eq!(ppu.oam[6], 0xE3);
        assert_eq!(ppu.oam[7], 0xFF);
    }

    /// The sprite flags as the late part of a $2002 read sees them with the
    /// PPU at a given dot (`sprite_status_bits`), in the layout of
    /// AccuracyCoin's "$2002 flag timing": sprite 0 at Y = 127 and the other
    /// 63 at Y = 128, all at X = 128, over an opaque background. Line 128
    /// draws sprite 0's first pixel (x = 128), and its evaluation finds the
    /// ninth sprite with the read on dot 129. The hit shows from dot 130
    /// (x + 2), the overflow from dot 131 (the read + 2), and both are gone
    /// from dot 1 of the pre-render line: the test's $00, $40, $60 for its
    /// reads whose VBL sample falls on dots 128, 129, 130 (the late sample
    /// one dot after it).
    #[test]
    fn sprite_flags_become_visible_late() {
        // Tile 0, for the background and the sprites alike: opaque.
        let mut cart = nrom_with_chr(|chr| chr[..8].fill(0xFF));
        let mut ppu = Ppu::new();
        for sprite in ppu.oam.chunks_mut(4) {
            sprite.copy_from_slice(&[128, 0, 0, 128]);
        }
        ppu.oam[0] = 127;
        ppu.write_register(0x2001, 0x1E, &mut cart);
        let mut seen = Vec::new();
        for dot in 128..=132 {
            run_to(&mut ppu, &mut cart, 128, dot);
            seen.push(ppu.sprite_status_bits());
        }
        assert_eq!(seen, [0, 0, 0x40, 0x60, 0x60], "line 128, dots 128-132");
        run_to(&mut ppu, &mut cart, 261, 0);
        assert_eq!(ppu.sprite_status_bits(), 0x60, "line 261, dot 0");
        run_to(&mut ppu, &mut cart, 261, 1);
        assert_eq!(ppu.sprite_status_bits(), 0, "line 261, dot 1");
        // Next frame nothing looks during the evaluation, which runs in one
        // go at dot 256: it dates the overflow to the same read.
        run_to(&mut ppu, &mut cart, 128, 257);
        assert!(ppu.sprite_overflow);
        assert_eq!(ppu.sprite_overflow_from, frame_position(128, 131));
    }

    /// Rendering switched off after line 3 and back on during the pre-render
    /// line: that line's fetches take the sprite left in secondary OAM
    /// (Y = 0, in range of line 261 & $FF = 5) and draw its row 5 on line 0,
    /// at its X on an even frame and with its first pixel at x = 0 on an odd
    /// frame, whose pre-render line the skip shortens (AccuracyCoin "Sprites
    /// On Scanline 0").
    #[test]
    fn stale_sprite_on_line_0() {
        // Tile 1: one pixel, row 5, column 0.
        let mut cart = nrom_with_chr(|chr| chr[16 + 5] = 0x80);
        let mut ppu = Ppu::new();
        ppu.oam = [0xF8; 256];
        ppu.oam[..4].copy_from_slice(&[0, 1, 0, 0x40]);
        let mut at_x = Vec::new();
        run_to(&mut ppu, &mut cart, 0, 10);
        for _ in 0..4 {
            ppu.write_register(0x2001, 0x1E, &mut cart);
            run_to(&mut ppu, &mut cart, 3, 300);
            ppu.write_register(0x2001, 0x00, &mut cart);
            run_to(&mut ppu, &mut cart, 261, 100);
            ppu.write_register(0x2001, 0x1E, &mut cart);
            run_to(&mut ppu, &mut cart, 0, 10);
            let drawn: Vec<usize> = (0..super::super::WIDTH)
                .filter(|&x| ppu.line_sprites[x] != 0)
                .collect();
            assert_eq!(drawn.len(), 1, "one sprite pixel on line 0: {drawn:?}");
            assert_ne!(ppu.line_sprites[drawn[0]] & 0x80, 0, "it is sprite 0");
            at_x.push(drawn[0]);
        }
        assert!(
            at_x == [0x40, 0, 0x40, 0] || at_x == [0, 0x40, 0, 0x40],
            "alternating frames: {at_x:?}"
        );
    }
}
