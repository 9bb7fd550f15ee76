//! The verdict of Damian Yerrick's Holy Mapperel (a cartridge-board test):
//! it draws what it found and a detailed result code, and prints no pass or
//! fail word. Its font has the digits and punctuation at their ASCII tile
//! numbers and the letters A–Z at tiles $01–$1A. The screen reads, e.g.:
//!
//! ```text
//! 001 SNROM (MMC1)
//! 128K PRG ROM
//! 8K PRG RAM OK
//! 8K CHR RAM OK
//! DETAILED TEST RESULT: 0000
//! ```
//!
//! The ROM's file name says what board it is for (`M1_P128K_...`: mapper 1,
//! 128 KiB of PRG ROM). It passes when the detected mapper and PRG size are
//! the file name's, every memory it lists is `OK`, and the detailed result
//! is `0000` (its README: "`0000` = OK").

use std::path::Path;

use emu::Nes;

use super::screen::screen_text_with;

fn char_of(tile: u8) -> char {
    match tile {
        0x01..=0x1A => (b'A' + tile - 1) as char,
        0x20..=0x7E => tile as char,
        _ => ' ',
    }
}

/// Mapper number and PRG ROM KiB from a file name like `M4_P128K_CR8K.nes`.
fn expected(rom: &Path) -> Option<(u32, u32)> {
    let stem = rom.file_stem()?.to_str()?;
    let mut parts = stem.split('_');
    let mapper = parts.next()?.strip_prefix('M')?.parse().ok()?;
    let prg = parts
        .next()?
        .strip_prefix('P')?
        .strip_suffix('K')?
        .parse()
        .ok()?;
    Some((mapper, prg))
}

/// Whether `rom` is a Holy Mapperel build (by its directory and name).
pub fn is_holy_mapperel(rom: &Path) -> bool {
    rom.parent()
        .and_then(Path::file_name)
        .is_some_and(|d| d == "holy_mapperel")
        && expected(rom).is_some()
}

/// The verdict and the screen, once the detailed result is drawn; `None`
/// before.
pub fn verdict(rom: &Path, nes: &Nes) -> Option<(bool, String)> {
    let lines = screen_text_with(nes, char_of);
    let lines: Vec<&str> = lines.iter().map(|l| l.trim()).collect();
    let code_at = lines
        .iter()
        .position(|l| l.starts_with("DETAILED TEST RESULT:"))?;
    let code = lines[code_at]["DETAILED TEST RESULT:".len()..].trim();
    if code.len() != 4 {
        return None;
    }
    let text = lines[..=code_at].join(" / ");
    let (mapper, prg) = expected(rom)?;
    let number = |l: &str| -> Option<u32> {
        let digits: String = l.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    };
    let found_mapper = lines.first().and_then(|l| number(l));
    let found_prg = lines[..code_at]
        .iter()
        .find(|l| l.ends_with("PRG ROM"))
        .and_then(|l| number(l));
    let memories_ok = lines[1..code_at]
        .iter()
        .filter(|l| l.contains(" RAM") || l.contains("CHR ROM"))
        .all(|l| l.ends_with(" OK"));
    let passed =
        found_mapper == Some(mapper) && found_prg == Some(prg) && memories_ok && code == "0000";
    Some((passed, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_name_says_the_board() {
        assert_eq!(expected(Path::new("x/M4_P128K_CR8K.nes")), Some((4, 128)));
        assert_eq!(expected(Path::new("x/M0_P32K_C8K_V.nes")), Some((0, 32)));
        assert_eq!(expected(Path::new("x/mmc1_a12.nes")), None);
        assert!(is_holy_mapperel(Path::new(
            "r/holy_mapperel/M1_P512K_S8K.nes"
        )));
        assert!(!is_holy_mapperel(Path::new("r/other/M1_P512K_S8K.nes")));
    }

    #[test]
    fn letters_sit_at_tiles_1_to_26() {
        assert_eq!(char_of(0x13), 'S');
        assert_eq!(char_of(0x30), '0');
        assert_eq!(char_of(0x80), ' ');
    }
}
