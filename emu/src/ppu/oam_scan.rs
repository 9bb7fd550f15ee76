//! Which of the 64 sprites a line's evaluation finds in range, all at once.
//!
//! A whole-line evaluation (`sprites.rs`) tests every sprite's Y against
//! the line until it has 8; done one sprite at a time that was ~700 host
//! instructions a line, a sixth of the PPU's cost on a plain NROM game
//! (issue 46). The in-range test is the same for every sprite, so here it
//! is made on 16 Y bytes per vector step (SSE2, which every x86-64 CPU
//! has), and the evaluation then visits only the sprites whose bit is set.

/// Bit n set: sprite n (Y at OAM byte 4n) is on line `line` (0-239) for
/// sprites `height` (8 or 16) lines tall, the range test of the
/// evaluation: `line - y`, unsigned, below `height`.
#[inline(always)]
pub(super) fn in_range(oam: &[u8; 256], line: u16, height: u16) -> u64 {
    debug_assert!(line < 240 && (height == 8 || height == 16));
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        unsafe { in_range_sse2(oam, line as u8, height as u8) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    in_range_scalar(oam, line, height)
}

#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn in_range_scalar(oam: &[u8; 256], line: u16, height: u16) -> u64 {
    (0..64).fold(0, |mask, n| {
        let y = oam[n * 4] as u16;
        mask | ((line.wrapping_sub(y) < height) as u64) << n
    })
}

/// With `d = (line + 1) - y` saturated at 0 (0 when the sprite starts
/// below the line), the sprite is in range exactly when `1 <= d <=
/// height`, that is when `d - 1` (wrapping, so 0 becomes 255) is at most
/// `height - 1`. `line + 1` is at most 240, so all of it fits in bytes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
unsafe fn in_range_sse2(oam: &[u8; 256], line: u8, height: u8) -> u64 {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8,
        _mm_packs_epi32, _mm_packus_epi16, _mm_set1_epi32, _mm_set1_epi8, _mm_sub_epi8,
        _mm_subs_epu8,
    };
    let mut mask = 0u64;
    // SAFETY: every load is of 16 bytes inside `oam` (offsets 0-240).
    unsafe {
        let low_byte = _mm_set1_epi32(0xFF);
        let below = _mm_set1_epi8((line + 1) as i8);
        let one = _mm_set1_epi8(1);
        let top = _mm_set1_epi8(height as i8 - 1);
        for group in 0..4 {
            let load = |k: usize| {
                let at = oam.as_ptr().add(group * 64 + k * 16) as *const __m128i;
                _mm_and_si128(_mm_loadu_si128(at), low_byte)
            };
            // The Y bytes of sprites 16·group .. 16·group + 15, in order.
            let ys = _mm_packus_epi16(
                _mm_packs_epi32(load(0), load(1)),
                _mm_packs_epi32(load(2), load(3)),
            );
            let d = _mm_sub_epi8(_mm_subs_epu8(below, ys), one);
            let hit = _mm_cmpeq_epi8(_mm_min_epu8(d, top), d);
            mask |= (_mm_movemask_epi8(hit) as u16 as u64) << (group * 16);
        }
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vector test agrees with the plain one for every Y, line and
    /// height.
    #[test]
    fn vector_and_scalar_agree() {
        let mut oam = [0u8; 256];
        for start in [0usize, 64, 128, 192] {
            for (n, y) in (start..start + 64).enumerate() {
                oam[n * 4] = y as u8;
                oam[n * 4 + 1] = 0xFF;
                oam[n * 4 + 2] = 0x80;
                oam[n * 4 + 3] = 0x7F;
            }
            for line in 0..240 {
                for height in [8, 16] {
                    let expected = in_range_scalar(&oam, line, height);
                    assert_eq!(in_range(&oam, line, height), expected, "line {line}");
                }
            }
        }
        oam[0] = 255;
        assert_eq!(in_range(&oam, 0, 16) & 1, 0, "Y 255 is never in range");
        oam[0] = 239;
        assert_eq!(in_range(&oam, 239, 8) & 1, 1);
    }
}
