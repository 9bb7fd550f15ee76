//! What a `$2007` read's buffer refill gets while the PPU is rendering
//! (AccuracyCoin "$2007 Stress Test", from its source's notes on the PPU
//! DATA state machine).
//!
//! The PPU's eight low address pins are also its data pins: every memory
//! access takes two dots, one that puts the address out (ALE: the low byte
//! is held in an external latch) and one that reads. While rendering, every
//! dot of a visible or pre-render line is one of the two for the
//! background and sprite fetches. A `$2007` read starts the data state
//! machine when the CPU's read ends: it asks for its own address dot, an
//! idle dot and a read dot. Its read dot then coincides with one of the
//! fetches' dots, and the fetch wins: on a fetch's read dot, the byte that
//! fetch reads is what lands in the read buffer (on an address dot, what
//! lands depends on an analogue feedback loop between latch and bus, which
//! no test requires; the read from v is kept there).
//!
//! The refill is computed when the CPU reads, for the dot it will land on:
//! v is carried forward over the dots in between (the fetch's address is
//! put out on the dot before it reads, so the events of that dot itself
//! come after). The rendering glitch of the access (v's coarse X and Y
//! increments, [`Ppu::vram_access_done`]) is applied when the CPU reads,
//! as before; the fetch sees v without it, as the console's buffers show.

use super::background::attribute_address;
use super::scroll::{coarse_x_incremented, horizontal_copied, vertical_copied, y_incremented};
use super::{Ppu, PRE_RENDER_LINE};
use crate::cartridge::Cartridge;

/// Dots on a line (0-340).
const LINE_DOTS: u16 = 341;

/// Dots from the one at which a `$2007` read is handled here (the CPU read
/// cycle's) to the state machine's read dot: the read ends when M2 falls,
/// a dot or two later, and the state machine reads on the fourth dot after
/// that ("t4" in AccuracyCoin's timeline). AccuracyCoin's stress test takes
/// this dot or the next (its two CPU/PPU clock alignments).
pub(super) const REFILL_FETCH_DOTS: u16 = 5;

impl Ppu {
    /// The byte the fetch whose read dot is `dot` of line `line` reads
    /// with v `v`; `None` off the fetches' read dots.
    fn byte_fetched_at(&self, line: u16, dot: u16, v: u16, cart: &Cartridge) -> Option<u8> {
        if !fetching(line) || dot == 0 || dot & 1 == 1 {
            return None;
        }
        let nametable = |v: u16| cart.ppu_read(0x2000 | (v & 0x0FFF));
        let pattern = |v: u16, plane: u16| {
            let table = self.bg_table();
            cart.ppu_read(table | (nametable(v) as u16) << 4 | plane | (v >> 12) & 7)
        };
        Some(match dot {
            1..=256 | 321..=336 => match (dot - 1) & 7 {
                1 => nametable(v),
                3 => cart.ppu_read(attribute_address(v)),
                5 => pattern(v, 0),
                _ => pattern(v, 8),
            },
            257..=320 => {
                let slot = ((dot - 257) >> 3) as usize;
                match (dot - 257) & 7 {
                    // Two nametable fetches in a sprite slot, none of the
                    // attribute table.
                    1 | 3 => nametable(v),
                    5 => cart.ppu_read(self.sprite_pattern_address(slot)),
                    _ => cart.ppu_read(self.sprite_pattern_address(slot) | 8),
                }
            }
            // 338, 340: the two unused nametable fetches.
            _ => nametable(v),
        })
    }

    /// The line and dot `delay` (at least 2) dots from now, and v as the
    /// fetch on that dot reads it if it is a read dot: carried forward
    /// over the dots before, up to the fetch's address dot (whose own
    /// events come after its address goes out). On an attribute or
    /// low-plane address dot the same v holds (no update falls on the dot
    /// before either).
    fn ahead(&self, delay: u16) -> (u16, u16, u16) {
        let (mut line, mut dot) = (self.scanline, self.dot);
        let mut v = self.v;
        for step in 1..=delay {
            dot += 1;
            if dot == LINE_DOTS {
                dot = 0;
                line = if line == PRE_RENDER_LINE { 0 } else { line + 1 };
            }
            if step < delay - 1 && fetching(line) {
                v = v_after_dot(v, self.t, line, dot);
            }
        }
        (line, dot, v)
    }

    /// The refill of a `$2007` read while rendering, if the state
    /// machine's read lands on a fetch's dot `delay` dots from now
    /// ([`REFILL_FETCH_DOTS`]): the byte the buffer gets (on a read dot,
    /// the byte that fetch reads; see the module doc), and, where the read
    /// lands on the address dot of an attribute or low-plane fetch, that
    /// fetch's address changed for when it runs (AccuracyCoin "ALE +
    /// Read", from its notes). `None` where the read from v stands.
    ///
    /// On a fetch's address dot the latch's ALE and the state machine's
    /// read are both active: the latch keeps the byte on the bus, the one
    /// the fetch before read on the dot before, instead of the new
    /// address's low byte, and both the buffer and the fetch read from the
    /// new address's high byte with that low byte. (The notes call the
    /// loop of latch and bus an analogue feedback that their test makes
    /// stable; here the latch keeps the previous byte, its first step.)
    /// The nametable fetch's address dot follows the previous tile's
    /// high-plane read, and this PPU draws a tile's pixels at its
    /// high-plane fetch: neither is modelled, and the read from v stands
    /// there as before.
    pub(super) fn refill_byte(&mut self, delay: u16, cart: &Cartridge) -> Option<u8> {
        if !self.rendering_enabled() || delay < 2 {
            return None;
        }
        let (line, dot, v) = self.ahead(delay);
        if fetching(line) && matches!(dot, 1..=256 | 321..=336) && matches!(dot & 7, 3 | 5) {
            let nametable = cart.ppu_read(0x2000 | (v & 0x0FFF));
            let (high, low) = if dot & 7 == 3 {
                (attribute_address(v) & 0x3F00, nametable)
            } else {
                let address = self.bg_table() | (nametable as u16) << 4;
                (address & 0x3F00, cart.ppu_read(attribute_address(v)))
            };
            self.pending_latch = Some((self.dots + u64::from(delay), low));
            return Some(cart.ppu_read(high | low as u16));
        }
        self.byte_fetched_at(line, dot, v, cart)
    }

    /// The attribute or low-plane fetch just run (this dot) again, from
    /// its address's high byte with `low` as the low byte (see
    /// [`Ppu::refill_byte`]).
    pub(super) fn refetch_with_latched_low(&mut self, low: u8, cart: &mut Cartridge) {
        let rendering = self.rendering_enabled() && fetching(self.scanline);
        if !rendering || !matches!(self.dot, 1..=256 | 321..=336) {
            return;
        }
        match self.dot & 7 {
            3 => {
                let v = self.v;
                let address = attribute_address(v) & 0x3F00 | low as u16;
                let shift = ((v >> 4) & 4) | (v & 2);
                self.at_latch = (cart.ppu_read(address) >> shift) & 3;
            }
            5 => {
                let address = self.bg_pattern_address() & 0x3F00 | low as u16;
                self.pattern_lo_latch = cart.ppu_read(address);
                self.pattern_lo_addr = address;
            }
            _ => {}
        }
    }
}

/// Whether line `line` fetches (with rendering on).
fn fetching(line: u16) -> bool {
    line < 240 || line == PRE_RENDER_LINE
}

/// v after the rendering's own updates at `dot` of fetching line `line`
/// (the increments and copies of `Ppu::visible_fetch_dot` and
/// `Ppu::pre_render_fetch_dot`).
fn v_after_dot(v: u16, t: u16, line: u16, dot: u16) -> u16 {
    match dot {
        256 => y_incremented(coarse_x_incremented(v)),
        8..=255 | 328 | 336 if dot & 7 == 0 => coarse_x_incremented(v),
        257 => horizontal_copied(v, t),
        280..=304 if line == PRE_RENDER_LINE => vertical_copied(v, t),
        _ => v,
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::run_to;
    use super::super::Ppu;
    use super::REFILL_FETCH_DOTS as DELAY;
    use crate::cartridge::Cartridge;

    /// NROM with horizontal mirroring ($2400 is $2000 again); nametable
    /// byte i of row 0 is i, attribute byte i is $C0 + i, tile i's pattern
    /// rows are $10 + i (low plane) and $80 + i (high plane) for i < 32,
    /// tile $FF's $5A and $A5.
    fn setup() -> (Ppu, Cartridge) {
        let mut image = vec![b'N', b'E', b'S', 0x1A, 1, 1, 0, 0];
        image.resize(16 + 0x4000 + 0x2000, 0);
        for tile in 0..32 {
            for row in 0..8 {
                image[16 + 0x4000 + tile * 16 + row] = 0x10 + tile as u8;
                image[16 + 0x4000 + tile * 16 + 8 + row] = 0x80 + tile as u8;
            }
        }
        for row in 0..8 {
            image[16 + 0x4000 + 0xFF0 + row] = 0x5A;
            image[16 + 0x4000 + 0xFF8 + row] = 0xA5;
        }
        let mut cart = Cartridge::from_bytes(&image).expect("valid NROM image");
        for i in 0..32 {
            cart.ppu_write(0x2000 + i, i as u8);
        }
        for i in 0..64 {
            cart.ppu_write(0x23C0 + i, 0xC0 + i as u8);
        }
        let mut ppu = Ppu::new();
        ppu.oam = [0xFF; 256];
        run_to(&mut ppu, &mut cart, 250, 0);
        ppu.write_register(0x2001, 0x08, &mut cart);
        run_to(&mut ppu, &mut cart, 0, 0);
        (ppu, cart)
    }

    /// Reads $2007 at `dot` of line 0 and returns what the buffer got.
    fn buffer_after_read_at(dot: u16) -> u8 {
        let (mut ppu, mut cart) = setup();
        run_to(&mut ppu, &mut cart, 0, dot);
        ppu.read_register(0x2007, &mut cart);
        run_to(&mut ppu, &mut cart, 1, 0);
        ppu.write_register(0x2001, 0x00, &mut cart);
        run_to(&mut ppu, &mut cart, 241, 0);
        ppu.read_register(0x2007, &mut cart)
    }

    /// The buffer gets the byte the fetch reads 5 dots after the read:
    /// with tiles 0 and 1 prefetched, dots 1-8 fetch tile 2 (nametable on
    /// dot 2, attribute on 4, pattern planes on 6 and 8), 9-16 tile 3.
    #[test]
    fn a_read_during_rendering_takes_the_fetch_s_byte() {
        let fetched = [
            (6, 0x12),
            (8, 0x82),
            (10, 0x03),
            (12, 0xC0),
            (14, 0x13),
            (16, 0x83),
        ];
        for (dot, expected) in fetched {
            assert_eq!(
                buffer_after_read_at(dot - DELAY),
                expected,
                "the fetch read on dot {dot}"
            );
        }
    }

    /// A refill due on dot 343 lands on dot 2 of the next line: its nametable
    /// fetch of tile 2, v having been copied from t on dot 257 and moved
    /// on two tiles on dots 328 and 336.
    #[test]
    fn the_refill_crosses_into_the_next_line() {
        let (mut ppu, mut cart) = setup();
        run_to(&mut ppu, &mut cart, 0, 343 - DELAY);
        assert_eq!(ppu.refill_byte(DELAY, &cart), Some(0x02));
    }

    /// Dots 257-320 fetch two nametable bytes (the first from v before
    /// its horizontal copy on dot 257: coarse X back at 2 after 32 tiles)
    /// and a sprite's pattern rows (empty slots: tile $FF).
    #[test]
    fn sprite_slots_fetch_the_nametable_twice() {
        assert_eq!(buffer_after_read_at(258 - DELAY), 0x02, "nametable, old v");
        assert_eq!(buffer_after_read_at(260 - DELAY), 0x00, "nametable, new v");
        assert_eq!(
            buffer_after_read_at(262 - DELAY),
            0x5A,
            "tile $FF, low plane"
        );
        assert_eq!(
            buffer_after_read_at(264 - DELAY),
            0xA5,
            "tile $FF, high plane"
        );
    }

    /// On tile 3's low-plane address dot (13) the latch keeps the
    /// attribute byte read on dot 12 ($C0): the fetch and the buffer read
    /// $00C0, tile $0C's low plane ($1C), not tile 3's ($13).
    #[test]
    fn a_read_on_a_low_plane_address_dot_reads_through_the_latch() {
        assert_eq!(buffer_after_read_at(13 - DELAY), 0x1C);
        let (mut ppu, mut cart) = setup();
        run_to(&mut ppu, &mut cart, 0, 13 - DELAY);
        ppu.read_register(0x2007, &mut cart);
        run_to(&mut ppu, &mut cart, 0, 13);
        assert_eq!(ppu.pattern_lo_latch, 0x1C);
        // The read's own coarse X increment: tile 5 next, as ever.
        run_to(&mut ppu, &mut cart, 0, 21);
        assert_eq!(ppu.pattern_lo_latch, 0x15);
    }

    /// On tile 3's attribute address dot (11) the latch keeps the
    /// nametable byte read on dot 10 (3): the fetch and the buffer read
    /// $2303. (The fetch's v has the read's coarse X increment, as
    /// before: its own address would be $23C1, $C1, quadrant 0.)
    #[test]
    fn a_read_on_an_attribute_address_dot_reads_through_the_latch() {
        let (mut ppu, mut cart) = setup();
        cart.ppu_write(0x2303, 0xFF);
        run_to(&mut ppu, &mut cart, 0, 11 - DELAY);
        ppu.read_register(0x2007, &mut cart);
        run_to(&mut ppu, &mut cart, 0, 11);
        assert_eq!(ppu.at_latch, 3, "$FF's quadrant 0, not $C1's");
        run_to(&mut ppu, &mut cart, 1, 0);
        ppu.write_register(0x2001, 0x00, &mut cart);
        run_to(&mut ppu, &mut cart, 241, 0);
        assert_eq!(ppu.read_register(0x2007, &mut cart), 0xFF);
    }

    /// On an address dot, or with rendering off, the read from v stands.
    #[test]
    fn otherwise_the_read_from_v_stands() {
        let (mut ppu, mut cart) = setup();
        run_to(&mut ppu, &mut cart, 0, 7 - DELAY);
        assert_eq!(ppu.refill_byte(DELAY, &cart), None, "dot 7: an address dot");
        run_to(&mut ppu, &mut cart, 245, 0);
        assert_eq!(ppu.refill_byte(DELAY, &cart), None, "vertical blank");
    }
}
