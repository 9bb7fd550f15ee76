//! Verdicts for visual test ROMs that print no result (blargg's
//! `full_palette` trio): the picture at a fixed frame must equal a reference
//! image committed in `tests/reference/`, which was checked by eye against
//! what the ROM is meant to draw; `tests/reference/README.md` says how.
//! The comparison is of RGB pixels through our palette, so a change to the
//! palette means looking at the images again.

use std::path::Path;

use emu::ppu::{palette, HEIGHT, WIDTH};
use emu::Nes;

struct Reference {
    /// The ROM's file name.
    rom: &'static str,
    /// Compared at the end of this frame (counted from power-on).
    frame: u64,
    png: &'static [u8],
}

const REFERENCES: &[Reference] = &[
    Reference {
        rom: "full_palette.nes",
        frame: 300,
        png: include_bytes!("../../tests/reference/full_palette.png"),
    },
    Reference {
        rom: "full_palette_smooth.nes",
        frame: 300,
        png: include_bytes!("../../tests/reference/full_palette_smooth.png"),
    },
    Reference {
        rom: "flowing_palette.nes",
        frame: 300,
        png: include_bytes!("../../tests/reference/flowing_palette.png"),
    },
];

fn reference(rom: &Path) -> Option<&'static Reference> {
    let name = rom.file_name()?.to_str()?;
    REFERENCES.iter().find(|r| r.rom == name)
}

/// RGB bytes of a committed reference PNG.
fn decode(png_bytes: &[u8]) -> Result<Vec<u8>, String> {
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut reader = decoder.read_info().map_err(|e| e.to_string())?;
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).map_err(|e| e.to_string())?;
    if info.color_type != png::ColorType::Rgb
        || info.width as usize != WIDTH
        || info.height as usize != HEIGHT
    {
        return Err("not a 256×240 RGB image".into());
    }
    buf.truncate(info.buffer_size());
    Ok(buf)
}

/// Runs `nes` to the reference's frame and compares; `None` when `rom` has
/// no reference image.
pub fn verdict(rom: &Path, nes: &mut Nes, run: &mut dyn FnMut(&mut Nes)) -> Option<(bool, String)> {
    let r = reference(rom)?;
    while nes.frame_count() < r.frame {
        run(nes);
    }
    let expected = match decode(r.png) {
        Ok(rgb) => rgb,
        Err(e) => return Some((false, format!("reference image for {}: {e}", r.rom))),
    };
    let table = palette::rgb_table();
    let ours: Vec<u8> = crate::screenshot::frame_rgb(nes, &table)
        .iter()
        .flat_map(|p| [(p >> 16) as u8, (p >> 8) as u8, *p as u8])
        .collect();
    let differing = ours
        .chunks_exact(3)
        .zip(expected.chunks_exact(3))
        .filter(|(a, b)| a != b)
        .count();
    Some(if differing == 0 {
        (
            true,
            format!(
                "frame {} equals the reference image checked by eye (tests/reference/)",
                r.frame
            ),
        )
    } else {
        (
            false,
            format!(
                "frame {}: {differing} pixels differ from the reference image (tests/reference/{})",
                r.frame,
                r.rom.replace(".nes", ".png")
            ),
        )
    })
}
