//! PNG screenshots of the emulated picture (256×240, NTSC palette, emphasis
//! applied per row), written atomically (temporary file + rename).

use std::path::Path;

use anyhow::Context;
use emu::ppu::{palette, HEIGHT, WIDTH};
use emu::Nes;

/// The last frame as 0x00RRGGBB pixels.
pub fn frame_rgb(nes: &Nes, table: &[u32]) -> Vec<u32> {
    let ppu = nes.ppu();
    let mut out = Vec::with_capacity(WIDTH * HEIGHT);
    for (y, row) in ppu.frame_buffer.chunks_exact(WIDTH).enumerate() {
        let base = ppu.emphasis[y] as usize * 64;
        out.extend(row.iter().map(|&index| table[base + index as usize]));
    }
    out
}

/// Writes 0x00RRGGBB pixels as an RGB PNG.
pub fn write_png(path: &Path, width: usize, height: usize, pixels: &[u32]) -> anyhow::Result<()> {
    let say = |e: std::io::Error| crate::atomic::say(path, e);
    let mut file = crate::atomic::Staged::create(path).map_err(say)?;
    let mut encoder = png::Encoder::new(&mut file, width as u32, height as u32);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    let bytes: Vec<u8> = pixels
        .iter()
        .flat_map(|p| [(p >> 16) as u8, (p >> 8) as u8, *p as u8])
        .collect();
    writer
        .write_image_data(&bytes)
        .with_context(|| format!("cannot write {}", path.display()))?;
    writer
        .finish()
        .with_context(|| format!("cannot write {}", path.display()))?;
    file.commit().map_err(say)
}

/// Writes the last frame of `nes` to `path`.
pub fn save(nes: &Nes, path: &Path) -> anyhow::Result<()> {
    let table = palette::rgb_table();
    write_png(path, WIDTH, HEIGHT, &frame_rgb(nes, &table))
}
