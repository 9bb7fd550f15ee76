//! The verdict of Bregalad's `mmc1_a12` ("MMC1 WRAM disable scanline
//! counter test"). On SNROM, bit 4 of the CHR register in use drives the
//! PRG RAM's enable; in 4 KiB CHR mode the register in use follows PPU A12.
//! The ROM sets CHR bank 1's bit 4 only, so the RAM reads as open bus
//! exactly while the PPU fetches sprite patterns from $1000 (dots 257-320
//! of each line). After the sprite-0 hit it turns on greyscale, counts
//! DELAY lines by polling the RAM for those gaps, and turns greyscale off:
//! the picture shows a grey band DELAY scanlines tall, DELAY being printed
//! on screen ("ADJUST DELAY=16"; its font has ASCII codes $21 below the
//! tile numbers). Greyscale starts and ends part-way through a line, so the
//! band has DELAY − 1 whole grey lines (DELAY if it lands on a line start).
//! Without the A12-driven enable the poll never sees a gap and no band is
//! drawn.

use std::path::Path;

use emu::ppu::WIDTH;
use emu::Nes;

use super::screen::screen_text_with;

/// The picture is looked at on this frame (counted from power-on).
const FRAME: u64 = 300;

pub fn is_mmc1_a12(rom: &Path) -> bool {
    rom.file_name().is_some_and(|n| n == "mmc1_a12.nes")
}

/// The DELAY the ROM prints.
fn printed_delay(nes: &Nes) -> Option<usize> {
    let text = screen_text_with(nes, |tile| match tile.wrapping_add(0x21) {
        c @ 0x20..=0x7E => c as char,
        _ => ' ',
    })
    .join(" ");
    let at = text.find("DELAY=")? + "DELAY=".len();
    // A tens digit of 0 is drawn as a blank tile (not a font character).
    text[at..]
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take(2)
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .ok()
}

/// Lines whose every pixel is a grey (greyscale keeps only the brightness
/// bits of the colour).
fn grey_lines(nes: &Nes) -> usize {
    nes.ppu()
        .frame_buffer
        .chunks_exact(WIDTH)
        .filter(|line| line.iter().all(|&c| c & 0x0F == 0))
        .count()
}

pub fn verdict(nes: &mut Nes, run: &mut dyn FnMut(&mut Nes)) -> (bool, String) {
    while nes.frame_count() < FRAME {
        run(nes);
    }
    let Some(delay) = printed_delay(nes) else {
        return (false, "no DELAY=n on screen".into());
    };
    let grey = grey_lines(nes);
    let expected = delay.saturating_sub(1)..=delay;
    let account = format!("DELAY={delay}, {grey} whole grey lines");
    if expected.contains(&grey) {
        (true, format!("{account}: the band is DELAY lines tall"))
    } else {
        (
            false,
            format!(
                "{account}; expected {}-{} (PRG RAM enable not following PPU A12?)",
                expected.start(),
                expected.end()
            ),
        )
    }
}
