//! Reads the text a test ROM drew. The test ROMs of this era use a CHR font
//! whose tile numbers are ASCII codes, so the nametable is the text.

use emu::Nes;

const COLUMNS: u16 = 32;
const ROWS: u16 = 30;

/// The visible nametable as lines of text, trailing blanks trimmed, empty
/// lines dropped.
pub fn screen_text(nes: &Nes) -> Vec<String> {
    let ppu = nes.ppu();
    let base = ppu.base_nametable();
    (0..ROWS)
        .map(|row| {
            (0..COLUMNS)
                .map(|col| {
                    let tile = ppu.peek_vram(base + row * COLUMNS + col, nes.cartridge());
                    if (0x20..0x7F).contains(&tile) {
                        tile as char
                    } else {
                        ' '
                    }
                })
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .filter(|line| !line.trim().is_empty())
        .collect()
}
