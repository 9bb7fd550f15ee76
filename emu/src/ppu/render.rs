//! Pixel output: the multiplexer between background and sprites, sprite 0
//! hit, greyscale and the backdrop. Pixels are produced in batches: at dot 256
//! of each visible line, and before any CPU access to a PPU register (so a
//! mid-line change of $2001, fine X or the palette, and a $2002 read of the
//! sprite 0 flag, all happen at the exact pixel they would on hardware).

use super::pixel_colors::PixelColors;
use super::{
    palette, Ppu, MASK_BG, MASK_BG_LEFT, MASK_GREYSCALE, MASK_SPRITES, MASK_SPRITES_LEFT, WIDTH,
};

impl Ppu {
    /// Outputs the pixels of the current visible line that precede the
    /// current dot (pixel x appears on dot x + 1).
    pub(super) fn flush_pixels(&mut self) {
        if self.scanline >= 240 {
            return;
        }
        let until = self.dot.min(256);
        if self.rendered_x >= until {
            return;
        }
        let (from, y) = (self.rendered_x as usize, self.scanline as usize);
        self.rendered_x = until;
        if from == 0 {
            self.emphasis[y] = self.mask >> 5;
        }
        let grey = if self.mask & MASK_GREYSCALE != 0 {
            0x30
        } else {
            0x3F
        };
        let row = y * WIDTH;
        if !self.rendering_enabled() {
            // The backdrop colour, or the palette entry v points at when v is
            // inside palette RAM (the "background palette hack").
            let index = if self.v & 0x3F00 == 0x3F00 {
                palette::mirror_index(self.v)
            } else {
                0
            };
            let color = self.palette[index] & grey;
            self.frame_buffer[row + from..row + until as usize].fill(color);
            return;
        }
        if !self.colors.made_from(&self.palette, grey) {
            self.colors = PixelColors::new(&self.palette, grey);
        }
        let PixelColors {
            bg: bg_colors,
            sprite: sprite_colors,
            ..
        } = self.colors;
        let show_bg = self.mask & MASK_BG != 0;
        let (sprites_from, sprites_to) = self.sprite_span;
        let show_sprites = self.mask & MASK_SPRITES != 0 && sprites_from < sprites_to;
        let bg_left = self.mask & MASK_BG_LEFT != 0;
        let sprites_left = self.mask & MASK_SPRITES_LEFT != 0;
        let fine_x = self.fine_x as usize;
        let until = until as usize;
        let line = &mut self.frame_buffer[row..row + WIDTH];
        // The exact model's pixels while it ticks (`stale.rs`).
        let bg_line = if self.exact_ticking {
            &self.stale.pixels[..]
        } else {
            &self.bg_line[fine_x..fine_x + WIDTH]
        };
        // Background first, with the left-column clip as a span of
        // backdrop; then the sprite pixels over it, visited only where the
        // line has one (most of a line has none).
        let clipped_to = if show_bg && bg_left {
            from
        } else {
            until.min(8).max(from)
        };
        let backdrop = bg_colors[0];
        line[from..clipped_to].fill(backdrop);
        if show_bg {
            map_colors(
                &mut line[clipped_to..until],
                &bg_line[clipped_to..until],
                &bg_colors,
            );
        } else {
            line[clipped_to..until].fill(backdrop);
        }
        if !show_sprites {
            return;
        }
        let start = if sprites_left { from } else { from.max(8) };
        let start = start.max(sprites_from as usize);
        let until = until.min(sprites_to as usize);
        let mut next = start;
        // Eight pixels at a time as one 64-bit word, a byte each: most of
        // the span from the leftmost sprite to the rightmost is gaps, and
        // where there are sprite pixels the tests below are made on all
        // eight at once (fff, 600 frames: this function 79.5 → 75.1 M host
        // instructions). The last few pixels go one by one.
        const ONES: u64 = 0x0101_0101_0101_0101;
        while next + 8 <= until {
            let sprites = u64::from_le_bytes(
                self.line_sprites[next..next + 8]
                    .try_into()
                    .expect("eight pixels"),
            );
            if sprites == 0 {
                next += 8;
                continue;
            }
            let bg = u64::from_le_bytes(bg_line[next..next + 8].try_into().expect("eight pixels"));
            // 0x01 in each byte whose pixel is opaque: the sprite's (its
            // byte is non-zero only where a sprite drew an opaque pixel)
            // and the background's, where it is shown.
            let sprite = (sprites | (sprites >> 1)) & ONES;
            let mut opaque_bg = if show_bg { (bg | (bg >> 1)) & ONES } else { 0 };
            if next < 8 && !bg_left {
                // The left column's clip: pixels 0-7 show no background.
                opaque_bg &= (!0u64).checked_shl(8 * (8 - next) as u32).unwrap_or(0);
            }
            if !self.sprite0_hit {
                let mut hits = (sprites >> 7) & opaque_bg & sprite;
                if next + 8 > 255 {
                    // No hit at x = 255.
                    hits &= !(0xFFu64 << (8 * (255 - next)));
                }
                if hits != 0 {
                    let x = next + (hits.trailing_zeros() / 8) as usize;
                    self.sprite0_hit = true;
                    self.sprite0_hit_from = super::sprite0_hit_visible_from(y as u16, x as u16);
                }
            }
            // A sprite pixel shows unless it is behind an opaque
            // background pixel.
            let mut shown = sprite & !(opaque_bg & (sprites >> 5));
            while shown != 0 {
                let i = (shown.trailing_zeros() / 8) as usize;
                line[next + i] = sprite_colors[((sprites >> (8 * i)) & 0x0F) as usize];
                shown &= shown - 1;
            }
            next += 8;
        }
        while next < until {
            let x = next;
            next += 1;
            let sprite = self.line_sprites[x];
            if sprite == 0 {
                continue;
            }
            let opaque_bg = show_bg && (x >= 8 || bg_left) && bg_line[x] & 3 != 0;
            if sprite & 0x80 != 0 && opaque_bg && x != 255 && !self.sprite0_hit {
                self.sprite0_hit = true;
                self.sprite0_hit_from = super::sprite0_hit_visible_from(y as u16, x as u16);
            }
            if !(opaque_bg && sprite & 0x20 != 0) {
                line[x] = sprite_colors[(sprite & 0x0F) as usize];
            }
        }
    }
}

/// `dst[i] = colors[src[i] & 15]`: the background pixels' colours, the
/// most repeated step of drawing a frame. With SSSE3 (any x86-64 CPU since
/// 2006; checked at run time) 16 pixels at a time, one byte shuffle each.
fn map_colors(dst: &mut [u8], src: &[u8], colors: &[u8; 16]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("ssse3") {
        // SAFETY: the CPU has SSSE3, checked just above.
        unsafe { map_colors_ssse3(dst, src, colors) };
        return;
    }
    map_colors_scalar(dst, src, colors);
}

fn map_colors_scalar(dst: &mut [u8], src: &[u8], colors: &[u8; 16]) {
    for (out, &pixel) in dst.iter_mut().zip(src) {
        *out = colors[(pixel & 15) as usize];
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
unsafe fn map_colors_ssse3(dst: &mut [u8], src: &[u8], colors: &[u8; 16]) {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_loadu_si128, _mm_set1_epi8, _mm_shuffle_epi8, _mm_storeu_si128,
    };
    let n = dst.len().min(src.len());
    let whole = n - n % 16;
    // SAFETY: every load and store is of 16 bytes inside `colors`, `src`
    // or `dst` (i + 16 <= whole <= both lengths); unaligned accesses are
    // what loadu/storeu are for.
    unsafe {
        let table = _mm_loadu_si128(colors.as_ptr() as *const __m128i);
        let low_bits = _mm_set1_epi8(0x0F);
        for i in (0..whole).step_by(16) {
            let pixels = _mm_loadu_si128(src.as_ptr().add(i) as *const __m128i);
            let out = _mm_shuffle_epi8(table, _mm_and_si128(pixels, low_bits));
            _mm_storeu_si128(dst.as_mut_ptr().add(i) as *mut __m128i, out);
        }
    }
    map_colors_scalar(&mut dst[whole..n], &src[whole..n], colors);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vector path gives what the scalar one gives, at every length
    /// and offset a partial line can have.
    #[test]
    fn map_colors_paths_agree() {
        let colors: [u8; 16] = std::array::from_fn(|i| (i as u8 * 7 + 3) & 0x3F);
        let src: Vec<u8> = (0..300u32).map(|i| (i * 37 % 256) as u8).collect();
        for start in 0..20 {
            for len in [0, 1, 15, 16, 17, 31, 32, 100, 256] {
                let src = &src[start..start + len];
                let mut fast = vec![0xEE; len];
                let mut slow = vec![0xEE; len];
                map_colors(&mut fast, src, &colors);
                map_colors_scalar(&mut slow, src, &colors);
                assert_eq!(fast, slow, "start {start}, len {len}");
                assert!(slow
                    .iter()
                    .zip(src)
                    .all(|(&c, &p)| c == colors[(p & 15) as usize]));
            }
        }
    }
}
