//! What the PPU's unit tests share: a blank cartridge, one with chosen
//! pattern bytes, and a way to run the PPU to a given dot.

use super::Ppu;
use crate::cartridge::Cartridge;

/// An NROM cartridge of zeros (16 KiB PRG, 8 KiB CHR ROM).
pub fn nrom() -> Cartridge {
    nrom_with_chr(|_| {})
}

/// An NROM cartridge of zeros whose 8 KiB of CHR ROM `draw` fills in first
/// (tile t's low plane is `chr[t * 16..t * 16 + 8]`, its high plane the 8
/// bytes after).
pub fn nrom_with_chr(draw: impl FnOnce(&mut [u8])) -> Cartridge {
    let mut image = vec![b'N', b'E', b'S', 0x1A, 1, 1, 0, 0];
    image.resize(16 + 0x4000 + 0x2000, 0);
    draw(&mut image[16 + 0x4000..]);
    Cartridge::from_bytes(&image).expect("valid NROM image")
}

/// Runs `ppu` dot by dot until it is at dot `dot` of line `line`.
pub fn run_to(ppu: &mut Ppu, cart: &mut Cartridge, line: u16, dot: u16) {
    while !(ppu.scanline == line && ppu.dot == dot) {
        ppu.run_dots(1, cart);
    }
}
