//! What the PPU's unit tests share: a blank cartridge and a way to run the
//! PPU to a given dot.

use super::Ppu;
use crate::cartridge::Cartridge;

/// An NROM cartridge of zeros (16 KiB PRG, 8 KiB CHR ROM).
pub fn nrom() -> Cartridge {
    let mut image = vec![b'N', b'E', b'S', 0x1A, 1, 1, 0, 0];
    image.resize(16 + 0x4000 + 0x2000, 0);
    Cartridge::from_bytes(&image).expect("valid NROM image")
}

/// Runs `ppu` dot by dot until it is at dot `dot` of line `line`.
pub fn run_to(ppu: &mut Ppu, cart: &mut Cartridge, line: u16, dot: u16) {
    while !(ppu.scanline == line && ppu.dot == dot) {
        ppu.run_dots(1, cart);
    }
}
