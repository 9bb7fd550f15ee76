//! Background fetches (NESdev wiki "PPU rendering"): every 8 dots the PPU
//! fetches a nametable byte, an attribute byte and two pattern bytes, at the
//! dots hardware does (so mappers watching the PPU bus see them on time).
//!
//! Instead of modelling the 16-bit shift registers dot by dot, each completed
//! tile is expanded into `bg_line`, a line of background pixels in fetch order
//! (the two tiles prefetched at dots 321-336 of the previous line first).
//! Pixel x on screen is `bg_line[x + fine_x]`: exactly what the shifters and
//! the fine-X multiplexer select, because the shifters reload at 8-dot
//! intervals aligned to the fetches. The pixel output itself is batched (see
//! `render.rs`).
//!
//! The catch-up paths that run a line's tiles where no mapper watches the
//! bus and no log records them ([`Ppu::background_tiles_quiet`]) draw them
//! from CHR memory's decoded pattern rows (`pattern_rows.rs`) and the
//! nametable row, instead of making the four fetches one by one.

use super::tile_row::TileRowKey;
use super::{Ppu, CTRL_BG_TABLE, MASK_BG, PRE_RENDER_LINE};
use crate::access_log::CHR_DRAWN;
use crate::cartridge::Cartridge;
use crate::pattern_rows::{decode_row, PatternTable};

impl Ppu {
    /// Reads PPU memory for rendering, reporting the address to mappers that
    /// watch the PPU bus (MMC3's A12 counter).
    #[inline(always)]
    pub(super) fn fetch(&mut self, addr: u16, cart: &mut Cartridge) -> u8 {
        if cart.watches_ppu() {
            self.report_bus(addr, cart);
        }
        cart.ppu_read(addr)
    }

    /// The fetch work of dots 1-256 and 321-336 (`tile` is the index in
    /// `bg_line` the tile being fetched will occupy).
    #[inline(always)]
    pub(super) fn background_fetch(&mut self, dot: u16, tile: usize, cart: &mut Cartridge) {
        match dot & 7 {
            1 => self.fetch_nametable(cart),
            3 => self.fetch_attribute(cart),
            5 => self.fetch_pattern_lo::<true>(cart),
            7 => self.fetch_pattern_hi::<true>(tile, cart),
            0 => self.increment_coarse_x(),
            _ => {}
        }
    }

    /// All four fetches of a tile and the coarse-X increment, as one step
    /// (for catch-up runs, where nothing can observe the dots in between).
    /// `LOG` false: the caller knows no code/data log is attached, and the
    /// tile pays no check for one.
    #[inline(always)]
    pub(super) fn background_tile<const LOG: bool>(&mut self, tile: usize, cart: &mut Cartridge) {
        self.fetch_nametable(cart);
        self.fetch_attribute(cart);
        self.fetch_pattern_lo::<LOG>(cart);
        self.fetch_pattern_hi::<LOG>(tile, cart);
        self.increment_coarse_x();
    }

    /// `count` tiles' fetches in one go, into `bg_line` from tile `first`
    /// on: what `count` tile steps with nothing reported to a mapper or
    /// logged do, latches and v included, in far fewer host instructions.
    /// A line's tiles read one row of a nametable (two, after coarse X
    /// wraps), so the row is looked up once per nametable, not once per
    /// fetch; the attribute quadrant's shift has its Y part fixed for the
    /// row; and the pattern rows come decoded (`pattern_rows.rs`). For the
    /// catch-up paths, where nothing can observe the fetches' order or
    /// dots.
    pub(super) fn background_tiles_quiet(&mut self, first: usize, count: usize, cart: &Cartridge) {
        if count == 0 {
            return;
        }
        if first == 2 && count == 32 {
            self.background_row_kept(cart);
            return;
        }
        let v = self.v;
        let fine_y = (v >> 12) as usize & 7;
        let coarse_y = (v >> 5) as usize & 31;
        let table = self.bg_table();
        let patterns = cart.pattern_table(table);
        let mut x = v as usize & 31;
        let mut which = (v >> 10) as usize & 3;
        let mut out = &mut self.bg_line[first * 8..(first + count) * 8];
        let mut last = (0, 0);
        while !out.is_empty() {
            // The tiles up to the nametable's right edge.
            let n = (out.len() / 8).min(32 - x);
            let (now, rest) = out.split_at_mut(n * 8);
            let row = NametableRow::new(cart.nametable(which), coarse_y);
            last = row.draw(now, x, &patterns, fine_y);
            out = rest;
            x += n;
            if x == 32 {
                x = 0;
                which ^= 1;
            }
        }
        self.v = (v & !0x041F) | (which as u16 & 1) << 10 | x as u16;
        (self.nt_latch, self.at_latch) = last;
        self.pattern_lo_latch = cart.ppu_read(self.bg_pattern_address());
    }

    /// The two tiles fetched at dots 321-336 for the next line:
    /// [`Ppu::background_tiles_quiet`] of tiles 0 and 1, written out for
    /// two. The general loop's set-up was most of its cost for two tiles
    /// (about 220 host instructions a line on fff).
    pub(super) fn prefetch_tiles_quiet(&mut self, cart: &Cartridge) {
        let v = self.v;
        let fine_y = (v >> 12) as usize & 7;
        let coarse_y = (v >> 5) as usize & 31;
        let patterns = cart.pattern_table(self.bg_table());
        // Coarse X and the nametable of each tile, and after the second
        // tile's increment.
        let step = |x: usize, which: usize| {
            if x == 31 {
                (0, which ^ 1)
            } else {
                (x + 1, which)
            }
        };
        let (x0, which0) = (v as usize & 31, (v >> 10) as usize & 3);
        let (x1, which1) = step(x0, which0);
        let (x2, which2) = step(x1, which1);
        let tiles = [
            NametableRow::new(cart.nametable(which0), coarse_y).tile(x0),
            NametableRow::new(cart.nametable(which1), coarse_y).tile(x1),
        ];
        for (out, (name, palette)) in self.bg_line[..16].chunks_exact_mut(8).zip(tiles) {
            let row = patterns.row(name, fine_y) | ATTRIBUTE_BITS[palette as usize];
            out.copy_from_slice(&row.to_le_bytes());
        }
        self.v = (v & !0x041F) | (which2 as u16 & 1) << 10 | x2 as u16;
        (self.nt_latch, self.at_latch) = tiles[1];
        self.pattern_lo_latch = cart.ppu_read(self.bg_pattern_address());
    }

    /// A line's 32 tiles from dot 1 on ([`Ppu::background_tiles_quiet`]
    /// of tiles 2-33), from the kept tile row when it is still what they
    /// would fetch (`tile_row.rs`), else from a fresh one.
    fn background_row_kept(&mut self, cart: &Cartridge) {
        let v = self.v;
        let fine_y = (v >> 12) as usize & 7;
        let table = self.bg_table();
        let patterns = cart.pattern_table(table);
        let which = (v >> 10) as usize & 3;
        let key = TileRowKey {
            v: v & 0x0FFF,
            pages: patterns.pages(),
            nametables: [which, which ^ 1].map(|w| cart.nametable(w).as_ptr() as usize),
            nametable_writes: cart.nametable_writes(),
        };
        if self.tile_row.key != Some(key) {
            self.keep_tile_row(key, &patterns, cart);
        }
        let kept = &self.tile_row;
        let tiles = kept.entries.iter().zip(&kept.palettes);
        for (out, (&entry, &palette)) in self.bg_line[16..].chunks_exact_mut(8).zip(tiles) {
            out.copy_from_slice(&(patterns.row_at(entry + fine_y) | palette).to_le_bytes());
        }
        // 32 coarse X increments: the same coarse X, the other nametable.
        self.v = v ^ 0x0400;
        (self.nt_latch, self.at_latch) = kept.last;
        self.pattern_lo_latch = cart.ppu_read(self.bg_pattern_address());
    }

    /// Looks up the 32 tiles' names and palettes of the row `key` says.
    fn keep_tile_row(&mut self, key: TileRowKey, patterns: &PatternTable, cart: &Cartridge) {
        let coarse_y = (key.v >> 5) as usize & 31;
        let mut x = key.v as usize & 31;
        let mut which = (key.v >> 10) as usize & 3;
        let mut row = NametableRow::new(cart.nametable(which), coarse_y);
        let kept = &mut self.tile_row;
        for i in 0..32 {
            let (name, palette) = row.tile(x);
            kept.entries[i] = patterns.tile_entry(name);
            kept.palettes[i] = ATTRIBUTE_BITS[palette as usize];
            kept.last = (name, palette);
            x += 1;
            if x == 32 {
                x = 0;
                which ^= 1;
                row = NametableRow::new(cart.nametable(which), coarse_y);
            }
        }
        kept.key = Some(key);
    }

    /// [`Ppu::background_tile`] for a mapper that watches the PPU bus: the
    /// tile's dots start after `start` (the dot counter before its first
    /// dot), and each fetch is made with the counter at its own dot (1, 3,
    /// 5 and 7 dots in), as dot-by-dot ticking makes them.
    #[inline(always)]
    pub(super) fn background_tile_timed(&mut self, tile: usize, cart: &mut Cartridge, start: u64) {
        self.dots = start + 1;
        self.fetch_nametable(cart);
        self.dots = start + 3;
        self.fetch_attribute(cart);
        self.dots = start + 5;
        self.fetch_pattern_lo::<true>(cart);
        self.dots = start + 7;
        self.fetch_pattern_hi::<true>(tile, cart);
        self.increment_coarse_x();
    }

    #[inline(always)]
    fn fetch_nametable(&mut self, cart: &mut Cartridge) {
        self.nt_latch = self.fetch(0x2000 | (self.v & 0x0FFF), cart);
    }

    #[inline(always)]
    fn fetch_attribute(&mut self, cart: &mut Cartridge) {
        let v = self.v;
        let addr = attribute_address(v);
        let shift = ((v >> 4) & 4) | (v & 2);
        self.at_latch = (self.fetch(addr, cart) >> shift) & 3;
    }

    #[inline(always)]
    fn fetch_pattern_lo<const LOG: bool>(&mut self, cart: &mut Cartridge) {
        let addr = self.bg_pattern_address();
        self.pattern_lo_latch = self.fetch(addr, cart);
        if LOG {
            self.pattern_lo_addr = addr;
        }
    }

    #[inline(always)]
    fn fetch_pattern_hi<const LOG: bool>(&mut self, tile: usize, cart: &mut Cartridge) {
        let addr = self.bg_pattern_address() | 8;
        let hi = self.fetch(addr, cart);
        // Both planes (the low one's address kept at its fetch, so a
        // $2000 write between the two is seen as the PPU saw it). The low
        // address never has bit 3 set and the high one always does, so the
        // difference is never 0.
        if LOG && cart.access_log.is_some() && self.bg_fetch_drawn() {
            let lo = self.pattern_lo_addr;
            cart.log_chr(lo, addr.wrapping_sub(lo), CHR_DRAWN);
        }
        self.store_tile(tile, self.pattern_lo_latch, hi);
    }

    /// Whether the tile row being fetched now can reach the screen (the
    /// code/data log's "drawn", `access_log.rs`): the background is on, and
    /// the row is for a line 0-239 — not the pre-render line's dots 1-256,
    /// which fetch from wherever the CPU left the VRAM address, nor line
    /// 239's two tiles for line 240. (The PPU fetches all of them while
    /// either layer is on.) `dot` is the tile's first dot or one of its
    /// fetch dots: 320 and above is the next line's first two tiles.
    fn bg_fetch_drawn(&self) -> bool {
        let next_line = self.dot >= 320;
        self.mask & MASK_BG != 0
            && match self.scanline {
                PRE_RENDER_LINE => next_line,
                239 => !next_line,
                _ => true,
            }
    }

    /// Dots 337 and 339: two unused nametable fetches.
    pub(super) fn dummy_nametable_fetch(&mut self, cart: &mut Cartridge) {
        self.nt_latch = self.fetch(0x2000 | (self.v & 0x0FFF), cart);
    }

    /// The background pattern table's base ($2000 bit 4).
    #[inline(always)]
    pub(super) fn bg_table(&self) -> u16 {
        if self.ctrl & CTRL_BG_TABLE != 0 {
            0x1000
        } else {
            0
        }
    }

    #[inline(always)]
    pub(super) fn bg_pattern_address(&self) -> u16 {
        self.bg_table() | (self.nt_latch as u16) << 4 | (self.v >> 12) & 7
    }

    /// Expands a fetched tile row into 8 pixel bytes: pattern bits 0-1,
    /// palette bits 2-3.
    #[inline(always)]
    fn store_tile(&mut self, tile: usize, lo: u8, hi: u8) {
        let attribute = (self.at_latch as u64 * 4) * 0x0101_0101_0101_0101;
        let pixels = decode_row(lo, hi) | attribute;
        self.bg_line[tile * 8..tile * 8 + 8].copy_from_slice(&pixels.to_le_bytes());
    }
}

/// `ATTRIBUTE_BITS[a]`: palette `a` in bits 2-3 of all 8 pixel bytes.
const ATTRIBUTE_BITS: [u64; 4] = [
    0,
    0x0404_0404_0404_0404,
    0x0808_0808_0808_0808,
    0x0C0C_0C0C_0C0C_0C0C,
];

/// One row of tiles of a nametable and the attribute bytes above it.
struct NametableRow<'a> {
    names: &'a [u8; 32],
    attributes: &'a [u8; 8],
    /// The attribute quadrant's Y part of the shift (0 or 4).
    shift_y: usize,
}

impl<'a> NametableRow<'a> {
    fn new(table: &'a [u8; 0x400], coarse_y: usize) -> NametableRow<'a> {
        let names = &table[coarse_y * 32..coarse_y * 32 + 32];
        let at = 0x3C0 + (coarse_y >> 2) * 8;
        NametableRow {
            names: names.try_into().expect("32 names"),
            attributes: table[at..at + 8].try_into().expect("8 attributes"),
            shift_y: (coarse_y & 2) << 1,
        }
    }

    /// Tile `x`'s name and palette.
    #[inline(always)]
    fn tile(&self, x: usize) -> (u8, u8) {
        let palette = (self.attributes[x >> 2] >> (self.shift_y | (x & 2))) & 3;
        (self.names[x], palette)
    }

    /// Draws tiles `x`, `x + 1`, ... into `out` (8 pixel bytes each, as
    /// `Ppu::store_tile` makes them); returns the last tile's name and
    /// palette (the fetch latches' contents after it).
    #[inline(always)]
    fn draw(&self, out: &mut [u8], x: usize, patterns: &PatternTable, fine_y: usize) -> (u8, u8) {
        let mut last = (0, 0);
        for (x, pixels) in (x..32).zip(out.chunks_exact_mut(8)) {
            let (name, palette) = self.tile(x);
            let row = patterns.row(name, fine_y) | ATTRIBUTE_BITS[palette as usize];
            pixels.copy_from_slice(&row.to_le_bytes());
            last = (name, palette);
        }
        last
    }
}

/// The attribute byte covering the tile v points at.
#[inline(always)]
pub(super) const fn attribute_address(v: u16) -> u16 {
    0x23C0 | (v & 0x0C00) | ((v >> 4) & 0x38) | ((v >> 2) & 0x07)
}

#[cfg(test)]
mod tests {
    use super::super::{Ppu, HEIGHT, WIDTH};
    use crate::cartridge::Cartridge;

    /// A cartridge with a nametable of every tile and varied attributes,
    /// from `image`'s header and contents.
    fn cartridge(image: &[u8]) -> Cartridge {
        let mut cart = Cartridge::from_bytes(image).expect("valid image");
        for i in 0..0x800u16 {
            cart.ppu_write(0x2000 + i, (i as u32 * 7 % 256) as u8);
        }
        cart
    }

    /// NROM with 8 KiB of CHR RAM holding a pattern.
    fn chr_ram() -> Cartridge {
        let mut image = vec![b'N', b'E', b'S', 0x1A, 1, 0, 0, 0];
        image.resize(16 + 0x4000, 0);
        let mut cart = cartridge(&image);
        for a in 0..0x2000u16 {
            cart.ppu_write(a, (a as u32 * 13 % 256) as u8);
        }
        cart
    }

    /// CNROM (mapper 3) with two different 8 KiB CHR ROM banks.
    fn cnrom() -> Cartridge {
        let mut image = vec![b'N', b'E', b'S', 0x1A, 1, 2, 0x30, 0];
        image.resize(16 + 0x4000, 0xFF); // No bus conflict in the way.
        image.extend((0..0x4000u32).map(|a| (a * 29 % 253) as u8));
        cartridge(&image)
    }

    /// Two frames with the background on, `change` applied to the
    /// cartridge at dot 0 of the second frame's line 100; the second
    /// frame's pixels. `whole_lines`: run a line at a time (the catch-up
    /// paths), else dot by dot.
    fn frame(mut cart: Cartridge, whole_lines: bool, change: impl Fn(&mut Cartridge)) -> Vec<u8> {
        let mut ppu = Ppu::new();
        for (i, entry) in ppu.palette.iter_mut().enumerate() {
            *entry = i as u8;
        }
        ppu.write_register(0x2000, 0x10, &mut cart);
        ppu.write_register(0x2001, 0x0A, &mut cart);
        let step = if whole_lines { 341 } else { 1 };
        for frame in 0..2 {
            ppu.frame_complete = false;
            while !ppu.frame_complete {
                if frame == 1 && ppu.scanline == 100 && ppu.dot == 0 {
                    change(&mut cart);
                }
                ppu.run_dots(step, &mut cart);
            }
        }
        ppu.frame_buffer.clone()
    }

    /// A CHR RAM write, a CHR bank switch or nametable writes in the
    /// middle of a frame show from the next line on, on the whole-line path (decoded pattern rows)
    /// exactly as on the dot-by-dot one.
    #[test]
    fn chr_changes_show_on_the_next_line() {
        let invert_chr = |cart: &mut Cartridge| {
            for a in 0x1000..0x2000u16 {
                let old = cart.ppu_read(a);
                cart.ppu_write(a, !old);
            }
        };
        let switch_bank = |cart: &mut Cartridge| cart.cpu_write(0x8000, 1, 0);
        // Mid tile row (line 100 is row 4 of tile row 12): the kept tile
        // row must be dropped.
        let rewrite_names = |cart: &mut Cartridge| {
            for a in 0x2000..0x2800u16 {
                let old = cart.ppu_read(a);
                cart.ppu_write(a, old.wrapping_add(1));
            }
        };
        type Change<'a> = &'a dyn Fn(&mut Cartridge);
        let boards: [(fn() -> Cartridge, Change); 3] = [
            (chr_ram, &invert_chr),
            (cnrom, &switch_bank),
            (cnrom, &rewrite_names),
        ];
        for (board, change) in boards {
            let unchanged = frame(board(), true, |_| {});
            let lines = frame(board(), true, change);
            let dots = frame(board(), false, change);
            assert!(lines == dots, "whole lines and dots agree");
            let row = |f: &[u8], y: usize| f[y * WIDTH..(y + 1) * WIDTH].to_vec();
            for y in 0..HEIGHT {
                if y < 100 {
                    assert_eq!(row(&lines, y), row(&unchanged, y), "line {y}");
                } else {
                    assert_ne!(row(&lines, y), row(&unchanged, y), "line {y}");
                }
            }
        }
    }

    /// The two prefetched tiles written out give the pixels, `v` and the
    /// fetch latches that the general run of tiles gives, at every coarse
    /// X (the last ones cross into the other nametable), fine Y and
    /// nametable, from either pattern table.
    #[test]
    fn prefetch_matches_the_general_run() {
        let cart = cnrom();
        for v in (0..0x8000u16).step_by(7) {
            for ctrl in [0x00, 0x10] {
                let mut general = Ppu::new();
                general.ctrl = ctrl;
                general.v = v;
                let mut prefetch = Ppu::new();
                prefetch.ctrl = ctrl;
                prefetch.v = v;
                general.background_tiles_quiet(0, 2, &cart);
                prefetch.prefetch_tiles_quiet(&cart);
                assert_eq!(general.bg_line[..16], prefetch.bg_line[..16], "v {v:04X}");
                assert_eq!(general.v, prefetch.v, "v {v:04X}");
                assert_eq!(
                    (general.nt_latch, general.at_latch, general.pattern_lo_latch),
                    (
                        prefetch.nt_latch,
                        prefetch.at_latch,
                        prefetch.pattern_lo_latch
                    ),
                    "v {v:04X}"
                );
            }
        }
    }
}
