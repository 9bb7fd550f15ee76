//! The colours the pixel output maps pixel values to (`render.rs`), as
//! plain data in a module of its own, so that the PPU can hold them
//! without `ppu` and `ppu::render` importing each other.

/// The colours of the 16 background and 16 sprite pixel values, the
/// transparent ones mapped to the backdrop, for a palette and greyscale
/// mask: kept from one flush to the next, as building them cost about as
/// much as drawing the pixels of a short flush (a raster-effect game
/// flushes a few pixels at a time, issue 46).
#[derive(Debug, Clone)]
pub(super) struct PixelColors {
    /// What they were made from: palette RAM and the greyscale mask.
    palette: [u8; 32],
    grey: u8,
    pub(super) bg: [u8; 16],
    pub(super) sprite: [u8; 16],
}

impl PixelColors {
    pub(super) fn new(palette: &[u8; 32], grey: u8) -> PixelColors {
        let mut bg = [0u8; 16];
        let mut sprite = [0u8; 16];
        for p in 0..16 {
            bg[p] = palette[if p & 3 == 0 { 0 } else { p }] & grey;
            sprite[p] = palette[if p & 3 == 0 { 0 } else { 0x10 | p }] & grey;
        }
        PixelColors {
            palette: *palette,
            grey,
            bg,
            sprite,
        }
    }

    /// Whether these are the colours of `palette` under `grey`. Compared
    /// in four 8-byte words: an array comparison became a `memcmp` call.
    #[inline(always)]
    pub(super) fn made_from(&self, palette: &[u8; 32], grey: u8) -> bool {
        let words = |p: &[u8; 32]| -> [u64; 4] {
            std::array::from_fn(|i| u64::from_le_bytes(p[i * 8..i * 8 + 8].try_into().unwrap()))
        };
        self.grey == grey && words(&self.palette) == words(palette)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Any palette byte or greyscale change makes the kept colours stale,
    /// and fresh ones follow the palette (backdrop for value 0 of every
    /// palette, sprites from $3F10 up).
    #[test]
    fn kept_colours_follow_the_palette() {
        let palette: [u8; 32] = std::array::from_fn(|i| i as u8 + 1);
        let colors = PixelColors::new(&palette, 0x3F);
        assert!(colors.made_from(&palette, 0x3F));
        assert!(!colors.made_from(&palette, 0x30));
        for i in 0..32 {
            let mut changed = palette;
            changed[i] ^= 0x20;
            assert!(!colors.made_from(&changed, 0x3F), "byte {i}");
        }
        assert_eq!(colors.bg[0], 1);
        assert_eq!(colors.bg[4], 1);
        assert_eq!(colors.bg[5], 6);
        assert_eq!(colors.sprite[8], 1);
        assert_eq!(colors.sprite[9], 0x1A);
    }
}
