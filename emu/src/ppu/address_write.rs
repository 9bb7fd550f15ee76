//! The second `$2006` write while rendering: the new v reaches the PPU's
//! address bus a few dots after the write, and a fetch that latched its
//! address's low byte just before then reads a hybrid address.
//!
//! A fetch takes two dots: on the first the PPU drives the address and
//! the octal latch on the board keeps its low byte (ALE); on the second
//! the read happens, with the high six bits driven from v again. When the
//! new v lands between the two, the fetch reads the new v's high byte with
//! the old v's low byte (AccuracyCoin "Hybrid Addresses": v $2C19 with a
//! write of $2F00 reads $2F19). This PPU does a fetch's work on its first
//! dot, so a fetch there whose read dot is the landing dot reads the
//! hybrid address; every dot after sees the new v, and the increments in
//! between went to the old one. Off the rendering lines, or with rendering
//! off, nothing reads v per dot and the write lands at once, as before.

use super::background::attribute_address;
use super::Ppu;

/// Dots from the one on which this emulator handles the second `$2006`
/// write to the one on which the console's fetches first read the new v.
/// AccuracyCoin's "Hybrid Addresses" fixes it: its write, handled here on
/// dot 182 of line 4 (after the coarse X increment of dot 184 would make
/// the old v $2C19), is to land on dot 186, the read of the nametable
/// fetch latched on 185. With 3 that fetch reads the new v whole ($2F00),
/// with 5 the old one ($2C19), and the ROM's first attempt fails; 5 then
/// passes its retry a line later (meant for the console's other CPU/PPU
/// alignment) only because the first attempt's write left the ordinary
/// fetch reading $2F19. (Mesen counts 3 dots from its own write dot.)
pub(super) const V_UPDATE_DOTS: u64 = 4;

impl Ppu {
    /// Sets v to `t` after the second `$2006` write: at once, or
    /// [`V_UPDATE_DOTS`] later while rendering, where a background fetch
    /// in between reads v (`watched`: the mapper sees every fetch, so
    /// every dot counts). Elsewhere on a rendering line (the sprite slots,
    /// the last dots) the later landing changes nothing: no fetch there
    /// shows v, and the copies from t on dot 257 and the pre-render
    /// line's 280-304 copy bits that t and the new v share.
    pub(super) fn address_written(&mut self, watched: bool) {
        let reads_v = |dot: u16| matches!(dot, 1..=256 | 321..=336 | 341..);
        let window = self.dot + 1..=self.dot + V_UPDATE_DOTS as u16;
        if self.rendering_active() && (watched || window.into_iter().any(reads_v)) {
            self.pending_v = Some((self.dots + V_UPDATE_DOTS, self.t));
        } else {
            self.pending_v = None;
            self.v = self.t;
        }
    }

    /// Lands a pending v now: before a register access (only an RMW
    /// instruction's two writes come close enough to need it).
    #[inline(always)]
    pub(super) fn land_pending_v(&mut self) {
        if let Some((_, value)) = self.pending_v.take() {
            self.v = value;
        }
    }

    /// The v whose fetch on `dot` of the current line reads the address
    /// the console reads when the new v (`new`) lands on the next dot:
    /// the new v's part of the address's high byte, the old v's part of
    /// its low byte. Unchanged (`old`) on dots that fetch nothing by v or
    /// whose address takes no bits of v above the low byte.
    pub(super) fn hybrid_v(&self, dot: u16, old: u16, new: u16) -> u16 {
        let fetching = matches!(dot, 1..=256 | 321..=336) && self.rendering_active();
        let nametable =
            (fetching && dot & 7 == 1) || (matches!(dot, 337 | 339) && self.rendering_active());
        if nametable {
            // $2000 | v & $0FFF: bits 8-11 in the high byte.
            (old & !0x0F00) | (new & 0x0F00)
        } else if fetching && dot & 7 == 3 {
            // `attribute_address`: bits 10-11 in the high byte.
            let hybrid = (old & !0x0C00) | (new & 0x0C00);
            debug_assert_eq!(
                attribute_address(hybrid),
                (attribute_address(new) & 0x3F00) | (attribute_address(old) & 0xFF)
            );
            hybrid
        } else {
            old
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{nrom, run_to};
    use super::super::Ppu;
    use crate::cartridge::Cartridge;

    /// Background on, the nametable at $2C00 shown from line 0 (v $2C00
    /// at the frame's start), with marked bytes where the fetches of
    /// AccuracyCoin's "Hybrid Addresses" can read.
    fn setup() -> (Ppu, Cartridge) {
        let mut cart = nrom();
        for (addr, byte) in [
            (0x2C19, 0x33), // the old v, after dot 184's increment
            (0x2F00, 0x11), // the new v
            (0x2F01, 0x22), // the new v, incremented once
            (0x2F02, 0x44), // ... twice
            (0x2F19, 0xCA), // the hybrid address
        ] {
            cart.ppu_write(addr, byte);
        }
        let mut ppu = Ppu::new();
        ppu.oam = [0xFF; 256];
        run_to(&mut ppu, &mut cart, 250, 0);
        ppu.write_register(0x2000, 0x03, &mut cart);
        ppu.write_register(0x2001, 0x08, &mut cart);
        run_to(&mut ppu, &mut cart, 261, 200);
        (ppu, cart)
    }

    /// The nametable bytes fetched on dots 185 (tile $19's address latched
    /// there, read on 186) and 193 of line 4 after writing $2F, $00 to
    /// $2006 with the second write handled on dot `dot`.
    fn fetched_after_write_at(dot: u16) -> (u8, u8) {
        let (mut ppu, mut cart) = setup();
        run_to(&mut ppu, &mut cart, 4, dot - 6);
        ppu.write_register(0x2006, 0x2F, &mut cart);
        run_to(&mut ppu, &mut cart, 4, dot);
        ppu.write_register(0x2006, 0x00, &mut cart);
        run_to(&mut ppu, &mut cart, 4, 185);
        let first = ppu.nt_latch;
        run_to(&mut ppu, &mut cart, 4, 193);
        (first, ppu.nt_latch)
    }

    #[test]
    fn a_write_landing_between_latch_and_read_reads_the_hybrid_address() {
        // Lands on 186: $2F19, then $2F01 (the new v, incremented on 192).
        assert_eq!(fetched_after_write_at(182), (0xCA, 0x22));
        // Lands on 185: the new v whole, then incremented on 192.
        assert_eq!(fetched_after_write_at(181), (0x11, 0x22));
        // Lands on 187: the old v, then the new one incremented.
        assert_eq!(fetched_after_write_at(183), (0x33, 0x22));
    }

    #[test]
    fn with_rendering_off_the_write_lands_at_once() {
        let (mut ppu, mut cart) = setup();
        ppu.write_register(0x2001, 0x00, &mut cart);
        run_to(&mut ppu, &mut cart, 4, 100);
        ppu.write_register(0x2006, 0x2F, &mut cart);
        ppu.write_register(0x2006, 0x19, &mut cart);
        assert_eq!(ppu.v, 0x2F19);
        ppu.read_register(0x2007, &mut cart);
        run_to(&mut ppu, &mut cart, 4, 120);
        assert_eq!(ppu.read_register(0x2007, &mut cart), 0xCA);
    }
}
