//! Reads the text a test ROM drew. The test ROMs of this era use a CHR font
//! whose tile numbers are ASCII codes, so the nametable is the text.

use emu::Nes;

const COLUMNS: u16 = 32;
const ROWS: u16 = 30;

/// The visible nametable as lines of text, trailing blanks trimmed, empty
/// lines dropped.
pub fn screen_text(nes: &Nes) -> Vec<String> {
    screen_text_with(nes, |tile| {
        if (0x20..0x7F).contains(&tile) {
            tile as char
        } else {
            ' '
        }
    })
}

/// [`screen_text`] with the ROM's own mapping from tile numbers to
/// characters.
pub fn screen_text_with(nes: &Nes, char_of: impl Fn(u8) -> char) -> Vec<String> {
    let ppu = nes.ppu();
    let base = ppu.base_nametable();
    (0..ROWS)
        .map(|row| {
            (0..COLUMNS)
                .map(|col| char_of(ppu.peek_vram(base + row * COLUMNS + col, nes.cartridge())))
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .filter(|line| !line.trim().is_empty())
        .collect()
}
