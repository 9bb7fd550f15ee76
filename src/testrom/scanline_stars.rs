//! The verdict of `scanline.nes` ("a test for proper mid-scanline PPU write
//! emulation"). Its screen has three areas of text, each with a column of
//! `******` in the nametable that the NMI handler hides on every line by
//! mid-scanline writes: area 1 turns background rendering off and on with
//! $2001, area 2 switches the background pattern table with $2000, area 3
//! moves the VRAM address with $2005/$2006. Its legend: "Stars below denote
//! errors". The handler is timed in cycles from the NMI, which interrupts a
//! `JMP *` loop, so on hardware too its writes land a few dots earlier or
//! later from frame to frame (up to 2 CPU cycles of NMI entry, 6 dots) and
//! the edges of the hidden column may show a few pixels. A star is shown
//! when every pixel of its glyph is drawn; the ROM passes when no star cell
//! shows a whole star on any of [`FRAMES`] consecutive frames (more than
//! the frames its timing takes to repeat).

use std::path::Path;

use emu::ppu::WIDTH;
use emu::Nes;

/// Frames looked at, from frame [`FIRST`] on.
const FRAMES: u64 = 6;
const FIRST: u64 = 300;
const STAR: u8 = b'*';

pub fn is_scanline(rom: &Path) -> bool {
    rom.file_name().is_some_and(|n| n == "scanline.nes")
}

/// Screen positions (column, row) of the nametable's star cells.
fn star_cells(nes: &Nes) -> Vec<(usize, usize)> {
    let ppu = nes.ppu();
    let base = ppu.base_nametable();
    let mut cells = Vec::new();
    for row in 0..30u16 {
        for col in 0..32u16 {
            if ppu.peek_vram(base + row * 32 + col, nes.cartridge()) == STAR {
                cells.push((col as usize, row as usize));
            }
        }
    }
    cells
}

/// Pixels set in the star's glyph in the background pattern table.
fn glyph_pixels(nes: &Nes) -> u32 {
    let ppu = nes.ppu();
    let at = ppu.background_pattern_base() + u16::from(STAR) * 16;
    (0..8)
        .map(|y| {
            let lo = ppu.peek_vram(at + y, nes.cartridge());
            let hi = ppu.peek_vram(at + y + 8, nes.cartridge());
            (lo | hi).count_ones()
        })
        .sum()
}

/// Pixels of cell (`col`, `row`) not in the backdrop colour.
fn drawn_pixels(nes: &Nes, (col, row): (usize, usize)) -> u32 {
    let ppu = nes.ppu();
    let backdrop = ppu.peek_vram(0x3F00, nes.cartridge());
    let mut drawn = 0;
    for y in row * 8..row * 8 + 8 {
        for x in col * 8..col * 8 + 8 {
            drawn += u32::from(ppu.frame_buffer[y * WIDTH + x] != backdrop);
        }
    }
    drawn
}

pub fn verdict(nes: &mut Nes, run: &mut dyn FnMut(&mut Nes)) -> (bool, String) {
    while nes.frame_count() < FIRST {
        run(nes);
    }
    let glyph = glyph_pixels(nes);
    let cells = star_cells(nes);
    if cells.is_empty() || glyph == 0 {
        return (false, "no star column on screen".into());
    }
    let mut largest = 0;
    let mut shown = 0;
    for _ in 0..FRAMES {
        run(nes);
        for &cell in &cells {
            let drawn = drawn_pixels(nes, cell);
            largest = largest.max(drawn);
            shown += u32::from(drawn >= glyph);
        }
    }
    let account = format!(
        "{} star cells over {FRAMES} frames: largest part drawn {largest} of the glyph's {glyph} pixels",
        cells.len()
    );
    if shown == 0 {
        (true, format!("no star shown ({account})"))
    } else {
        (
            false,
            format!("{shown} stars shown, each an error ({account})"),
        )
    }
}
