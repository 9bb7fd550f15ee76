//! The GFC parameter presets behind keys 1–4.
//!
//! Key 1 is the thesis' best configuration; 2 and 4 are opposite corners of
//! its grid (finest bins, strictest locality, shortest windows, lowest λ —
//! versus the coarsest bins and highest λ), and 3 sits in the middle. Switching
//! between them while a game runs shows how each parameter shapes the graph:
//! 2 grows many small fragments quickly, 4 only the most recurrent code.

use gfc::GfcParams;

pub const PRESETS: [GfcParams; 4] = [
    gfc::THESIS_BEST,
    GfcParams {
        bin_size: 8,
        stdev_threshold: 8,
        window_size: 6,
        recurrent_threshold: 5,
    },
    GfcParams {
        bin_size: 13,
        stdev_threshold: 12,
        window_size: 10,
        recurrent_threshold: 8,
    },
    GfcParams {
        bin_size: 16,
        stdev_threshold: 15,
        window_size: 13,
        recurrent_threshold: 12,
    },
];

/// The preset number (1-based) of `params`, if it is one.
pub fn number_of(params: &GfcParams) -> Option<usize> {
    PRESETS.iter().position(|p| p == params).map(|i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_on_the_grid() {
        for p in PRESETS {
            assert!(p.id().is_some(), "{p} is a grid point");
        }
        assert_eq!(number_of(&gfc::THESIS_BEST), Some(1));
    }
}
