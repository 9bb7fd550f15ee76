//! Bitmap text from the public-domain 8×8 font of the `font8x8` crate
//! (ASCII plus the Greek block, for λ), drawn at an integer scale.

use font8x8::legacy::{BASIC_LEGACY, GREEK_LEGACY};

use super::canvas::Canvas;

/// Glyph cell size at scale 1, in pixels.
pub const CELL: i32 = 8;

fn glyph(c: char) -> [u8; 8] {
    let code = c as usize;
    match code {
        0..=127 => BASIC_LEGACY[code],
        0x390..=0x3C9 => GREEK_LEGACY[code - 0x390],
        _ => BASIC_LEGACY[b'?' as usize],
    }
}

/// Draws `text` with its top-left corner at `(x, y)`; returns the x just past
/// the last glyph.
pub fn draw(canvas: &mut Canvas, x: i32, y: i32, scale: i32, color: u32, text: &str) -> i32 {
    let mut pen = x;
    for c in text.chars() {
        if c != ' ' {
            for (row, &bits) in glyph(c).iter().enumerate() {
                canvas.bits(pen, y + row as i32 * scale, bits, scale, color);
            }
        }
        pen += CELL * scale;
    }
    pen
}

/// Width of `text` in pixels.
pub fn width(text: &str, scale: i32) -> i32 {
    text.chars().count() as i32 * CELL * scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_glyph_bits() {
        let mut buf = vec![0u32; 32 * 8];
        let mut c = Canvas::new(&mut buf, 32, 0, 0, 32, 8);
        let end = draw(&mut c, 0, 0, 1, 1, "Iλ");
        assert_eq!(end, 16);
        // 'I' and 'λ' both have set pixels; the space after them none.
        assert!(buf.chunks(32).any(|r| r[..8].contains(&1)));
        assert!(buf.chunks(32).any(|r| r[8..16].contains(&1)));
        assert!(buf.chunks(32).all(|r| !r[16..].contains(&1)));
    }
}
