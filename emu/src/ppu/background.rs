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

use super::{Ppu, CTRL_BG_TABLE, MASK_BG, PRE_RENDER_LINE};
use crate::access_log::CHR_DRAWN;
use crate::cartridge::Cartridge;

/// `SPREAD[b]` puts bit 7-i of `b` into bit 0 of byte i (left pixel first).
const SPREAD: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut v = 0u64;
        let mut i = 0;
        while i < 8 {
            if b & (0x80 >> i) != 0 {
                v |= 1 << (8 * i);
            }
            i += 1;
        }
        table[b] = v;
        b += 1;
    }
    table
};

impl Ppu {
    /// [`Ppu::fetch`] if `REPORT`, else a plain read.
    #[inline(always)]
    fn fetch_if<const REPORT: bool>(&mut self, addr: u16, cart: &mut Cartridge) -> u8 {
        if REPORT {
            self.fetch(addr, cart)
        } else {
            cart.ppu_read(addr)
        }
    }

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
            1 => self.fetch_nametable::<true>(cart),
            3 => self.fetch_attribute::<true>(cart),
            5 => self.fetch_pattern_lo::<true, true>(cart),
            7 => self.fetch_pattern_hi::<true, true>(tile, cart),
            0 => self.increment_coarse_x(),
            _ => {}
        }
    }

    /// All four fetches of a tile and the coarse-X increment, as one step
    /// (for catch-up runs, where nothing can observe the dots in between).
    #[inline(always)]
    /// `LOG` false: the caller knows no code/data log is attached, and the
    /// tile pays no check for one (the whole-line paths, which `run_dots`
    /// takes only when there is none).
    pub(super) fn background_tile<const LOG: bool>(&mut self, tile: usize, cart: &mut Cartridge) {
        self.background_tile_reporting::<true, LOG>(tile, cart);
    }

    /// [`Ppu::background_tile`], telling a watching mapper of the fetches
    /// only if `REPORT` (off: the caller reported what needs reporting).
    #[inline(always)]
    pub(super) fn background_tile_reporting<const REPORT: bool, const LOG: bool>(
        &mut self,
        tile: usize,
        cart: &mut Cartridge,
    ) {
        self.fetch_nametable::<REPORT>(cart);
        self.fetch_attribute::<REPORT>(cart);
        self.fetch_pattern_lo::<REPORT, LOG>(cart);
        self.fetch_pattern_hi::<REPORT, LOG>(tile, cart);
        self.increment_coarse_x();
    }

    /// [`Ppu::background_tile`] for a mapper that watches the PPU bus: the
    /// tile's dots start after `start` (the dot counter before its first
    /// dot), and each fetch is made with the counter at its own dot (1, 3,
    /// 5 and 7 dots in), as dot-by-dot ticking makes them.
    #[inline(always)]
    pub(super) fn background_tile_timed(&mut self, tile: usize, cart: &mut Cartridge, start: u64) {
        self.dots = start + 1;
        self.fetch_nametable::<true>(cart);
        self.dots = start + 3;
        self.fetch_attribute::<true>(cart);
        self.dots = start + 5;
        self.fetch_pattern_lo::<true, true>(cart);
        self.dots = start + 7;
        self.fetch_pattern_hi::<true, true>(tile, cart);
        self.increment_coarse_x();
    }

    #[inline(always)]
    fn fetch_nametable<const REPORT: bool>(&mut self, cart: &mut Cartridge) {
        self.nt_latch = self.fetch_if::<REPORT>(0x2000 | (self.v & 0x0FFF), cart);
    }

    #[inline(always)]
    fn fetch_attribute<const REPORT: bool>(&mut self, cart: &mut Cartridge) {
        let v = self.v;
        let addr = 0x23C0 | (v & 0x0C00) | ((v >> 4) & 0x38) | ((v >> 2) & 0x07);
        let shift = ((v >> 4) & 4) | (v & 2);
        self.at_latch = (self.fetch_if::<REPORT>(addr, cart) >> shift) & 3;
    }

    #[inline(always)]
    fn fetch_pattern_lo<const REPORT: bool, const LOG: bool>(&mut self, cart: &mut Cartridge) {
        let addr = self.bg_pattern_address();
        self.pattern_lo_latch = self.fetch_if::<REPORT>(addr, cart);
        if LOG {
            self.pattern_lo_addr = addr;
        }
    }

    #[inline(always)]
    fn fetch_pattern_hi<const REPORT: bool, const LOG: bool>(
        &mut self,
        tile: usize,
        cart: &mut Cartridge,
    ) {
        let addr = self.bg_pattern_address() | 8;
        let hi = self.fetch_if::<REPORT>(addr, cart);
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

    #[inline(always)]
    fn bg_pattern_address(&self) -> u16 {
        let table = if self.ctrl & CTRL_BG_TABLE != 0 {
            0x1000
        } else {
            0
        };
        table | (self.nt_latch as u16) << 4 | (self.v >> 12) & 7
    }

    /// Expands a fetched tile row into 8 pixel bytes: pattern bits 0-1,
    /// palette bits 2-3.
    #[inline(always)]
    fn store_tile(&mut self, tile: usize, lo: u8, hi: u8) {
        let attribute = (self.at_latch as u64 * 4) * 0x0101_0101_0101_0101;
        let pixels = SPREAD[lo as usize] | SPREAD[hi as usize] << 1 | attribute;
        self.bg_line[tile * 8..tile * 8 + 8].copy_from_slice(&pixels.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::SPREAD;

    #[test]
    fn spread_puts_the_left_pixel_first() {
        assert_eq!(SPREAD[0x80], 1);
        assert_eq!(SPREAD[0x01], 1 << 56);
        assert_eq!(SPREAD[0xFF], 0x0101_0101_0101_0101);
    }
}
