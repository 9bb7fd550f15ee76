//! OAM corruption from switching rendering off mid-line (NESdev wiki
//! "Errata", OAM and sprites; AccuracyCoin "OAM Corruption", measured on a
//! 2C02G). Rendering switched off on a rendering line freezes the sprite
//! circuitry's secondary-OAM address (0-31) wherever it was. On the first
//! dot of a rendering line after rendering is switched back on, the PPU
//! copies OAM row 0 (bytes 0-7) over the row that address names (bytes
//! 8·a to 8·a+7), and secondary OAM byte 0 over byte a.
//!
//! Nothing here runs per dot: the address is worked out from the dot and
//! the evaluation state when a $2001 write switches rendering off, and the
//! copy is made when a $2001 write switches it back on during a rendering
//! line, or at the start of the pre-render line if it came back on during
//! vertical blank.

use super::sprite_eval::Phase;
use super::{Ppu, PRE_RENDER_LINE};

/// Dots from the dot this emulator applies a $2001 write at to the dot whose
/// secondary-OAM address seeds the corruption. On the console that is 2 or 3
/// dots depending on the CPU/PPU clock alignment (AccuracyCoin: a write on
/// dot 7 of line 0 corrupts row 4 or 5); this emulator has one alignment.
/// 4 gives row 5 there, one of the console's answers, and keeps blargg's
/// hardware-verified sprite_overflow_tests 5.Emulator passing: it switches
/// rendering off at dot 14 of line 126 here ("delay 4; hack to make it
/// reliable on NES" in its source), where 2 or 3 would seed row 8 and turn
/// two of its nine sprites on line 230 into copies of sprites 0 and 1.
const STOP_DELAY: u16 = 4;

impl Ppu {
    /// The secondary-OAM address after dot `dot` of the current line has
    /// run, as the corruption uses it (AccuracyCoin's notes on
    /// TEST_OAM_Corruption):
    /// - dots 1-64 (clearing secondary OAM, visible lines): one byte every
    ///   two dots, the address going up after each even dot;
    /// - dots 65-256 (evaluation, visible lines): 4 × the sprites found,
    ///   rounded up to the next multiple of 4 while a sprite's bytes are
    ///   being copied; 32, a full secondary OAM, wraps to 0;
    /// - dots 257-320 (the 8 sprite fetch slots, also on the pre-render
    ///   line): from 0, up by one on the first three dots of a slot and on
    ///   its last;
    /// - elsewhere 0 (where the fetches left it; the pre-render line neither
    ///   clears nor evaluates).
    fn secondary_oam_address(&self, dot: u16) -> u8 {
        let visible = self.scanline < 240;
        let address = match dot {
            1..=64 if visible => dot / 2,
            65..=256 if visible => {
                let copying = matches!(self.eval.phase, Phase::CopyRest(_));
                (self.eval.found as u16 + copying as u16) * 4
            }
            257..=320 => {
                let (slot, step) = ((dot - 257) / 8, (dot - 257) % 8);
                4 * slot + if step == 7 { 4 } else { (step + 1).min(3) }
            }
            _ => 0,
        };
        (address & 0x1F) as u8
    }

    /// A $2001 write is switching rendering off during a rendering line:
    /// note the row the next re-enable will corrupt.
    #[cold]
    #[inline(never)]
    pub(super) fn seed_oam_corruption(&mut self) {
        debug_assert!(self.scanline < 240 || self.scanline == PRE_RENDER_LINE);
        // Past the line's last dot the fetches are over: address 0.
        let stop = self.dot + STOP_DELAY;
        let dot = if stop <= 340 { stop } else { 0 };
        self.oam_corrupt_row = self.secondary_oam_address(dot);
    }

    /// Rendering is on at a rendering line's dot with a corruption pending:
    /// OAM row 0 is copied over the seeded row.
    #[cold]
    #[inline(never)]
    pub(super) fn corrupt_oam_row(&mut self) {
        let row = self.oam_corrupt_row as usize;
        self.oam_corrupt_row = 0;
        self.oam.copy_within(0..8, row * 8);
        self.secondary_oam[row] = self.secondary_oam[0];
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{nrom, run_to};
    use super::super::Ppu;

    /// OAM with a recognisable row 0 and every other sprite off screen
    /// (Y = $F0), plus `in_range` sprites from sprite 2 on with Y = 8.
    fn ppu_with_oam(in_range: usize) -> Ppu {
        let mut ppu = Ppu::new();
        ppu.oam = [0xF0; 256];
        ppu.oam[..8].copy_from_slice(&[0xF0, 1, 2, 3, 0xF0, 5, 6, 7]);
        for s in 2..2 + in_range {
            ppu.oam[s * 4] = 8;
        }
        ppu
    }

    /// The rows of OAM that now equal row 0.
    fn copies_of_row0(ppu: &Ppu) -> Vec<usize> {
        (1..32)
            .filter(|&r| ppu.oam[r * 8..r * 8 + 8] == ppu.oam[..8])
            .collect()
    }

    /// Switched off at dot 7 of line 0 (secondary OAM being cleared), the
    /// address is 5 (AccuracyCoin "OAM Corruption" 2-4; see `STOP_DELAY`):
    /// nothing happens while rendering is off, nor when it is switched on
    /// and off again in vertical blank; row 5 becomes a copy of row 0 on the
    /// pre-render line's first dot with rendering on.
    #[test]
    fn corrupts_on_the_first_rendering_dot_after_reenabling() {
        let mut cart = nrom();
        let mut ppu = ppu_with_oam(0);
        ppu.write_register(0x2001, 0x18, &mut cart);
        run_to(&mut ppu, &mut cart, 0, 7);
        ppu.write_register(0x2001, 0x00, &mut cart);
        run_to(&mut ppu, &mut cart, 100, 0);
        assert_eq!(copies_of_row0(&ppu), Vec::<usize>::new(), "rendering off");
        run_to(&mut ppu, &mut cart, 250, 0);
        ppu.write_register(0x2001, 0x18, &mut cart);
        ppu.write_register(0x2001, 0x00, &mut cart);
        run_to(&mut ppu, &mut cart, 255, 0);
        assert_eq!(copies_of_row0(&ppu), Vec::<usize>::new(), "in vblank");
        ppu.write_register(0x2001, 0x18, &mut cart);
        run_to(&mut ppu, &mut cart, 260, 340);
        assert_eq!(copies_of_row0(&ppu), Vec::<usize>::new(), "before line 261");
        run_to(&mut ppu, &mut cart, 261, 1);
        assert_eq!(copies_of_row0(&ppu), vec![5]);
    }

    /// Switched off during evaluation, the address is rounded up to a
    /// multiple of 4: a sprite's bytes half copied count as a whole sprite.
    /// Switched back on during a visible line, the copy is made at once.
    #[test]
    fn evaluation_address_rounds_up_to_a_whole_sprite() {
        for (dot, row) in [(74, 4), (80, 8), (100, 12)] {
            let mut cart = nrom();
            let mut ppu = ppu_with_oam(3);
            ppu.write_register(0x2001, 0x18, &mut cart);
            // Sprites 0 and 1 are read out of range on dots 65 and 67;
            // sprite 2's Y is read on dot 69 and its other bytes on 71-75,
            // sprite 3's on 77-83, sprite 4's on 85-91.
            run_to(&mut ppu, &mut cart, 10, dot);
            ppu.write_register(0x2001, 0x00, &mut cart);
            run_to(&mut ppu, &mut cart, 20, 10);
            assert_eq!(copies_of_row0(&ppu), Vec::<usize>::new());
            ppu.write_register(0x2001, 0x18, &mut cart);
            assert_eq!(copies_of_row0(&ppu), vec![row], "off at dot {dot}");
        }
    }

    /// Switched off during the sprite fetches: the address goes up on the
    /// first three dots of each 8-dot slot and on its last. Off at dot 266
    /// the seed is taken at dot 270, slot 1's sixth dot: 4 + 3; off at dot
    /// 300, at dot 304, the end of slot 5: 4 × 6.
    #[test]
    fn fetch_address_follows_the_slots() {
        for (line, dot, row) in [(10, 266, 7), (261, 266, 7), (10, 300, 24)] {
            let mut cart = nrom();
            let mut ppu = ppu_with_oam(0);
            ppu.write_register(0x2001, 0x18, &mut cart);
            run_to(&mut ppu, &mut cart, line, dot);
            ppu.write_register(0x2001, 0x00, &mut cart);
            run_to(&mut ppu, &mut cart, 0, 10);
            ppu.write_register(0x2001, 0x18, &mut cart);
            assert_eq!(copies_of_row0(&ppu), vec![row], "line {line} dot {dot}");
        }
    }
}
