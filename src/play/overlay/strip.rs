//! The address-space strip: one row per few bytes of the address axis
//! (`axis.rs`), each row coloured by what the builder counted there.
//! GFCGaussiano: the bins whose centroid range covers the row; bins that
//! reached the recurrentThreshold λ (the algorithm's "recurrent", i.e. hot,
//! bins) use the heat ramp and get a tick beside the strip, colder bins are
//! grey, and the legend under the text marks λ on the same scale. The trace
//! builder keeps no bins: the rows are its hot CFG's blocks, coloured by
//! their estimated execution counts on the heat ramp (no λ, no ticks).

use super::axis::Axis;
use super::canvas::Canvas;
use super::colors::{self, Colouring, Ramps};
use super::view::BlockView;

#[derive(Default)]
pub struct Strip {
    /// Largest bin count covering each row.
    count: Vec<u64>,
    /// The counts before the last rebuild.
    previous: Vec<u64>,
    /// Frame at which a row's count last grew.
    last_grown: Vec<u64>,
    /// Largest bin count overall (the top of the ramp).
    pub max_count: u64,
    /// Bins at or above λ.
    pub hot_bins: usize,
    threshold: u64,
    /// Whether rows at or above λ get a tick (GFCGaussiano's bins).
    ticks: bool,
}

/// Recency horizon of the strip and the graph: ten seconds of frames.
pub const RECENCY_FRAMES: u64 = 600;

impl Strip {
    /// Recomputes the rows from `bins` (centroid, count) for an axis of
    /// `rows` rows; `bin_size` is δ (a bin covers its centroid ± δ) and
    /// `threshold` λ.
    pub fn rebuild(
        &mut self,
        axis: &Axis,
        bins: &[(f64, u64)],
        bin_size: u32,
        threshold: u32,
        frame: u64,
    ) {
        let delta = bin_size as f64;
        let spans = bins.iter().map(|&(c, count)| (c - delta, c + delta, count));
        self.fill(axis, spans, threshold as u64, frame);
        self.hot_bins = bins
            .iter()
            .filter(|&&(_, count)| count >= threshold as u64)
            .count();
        self.ticks = true;
    }

    /// Recomputes the rows from the trace builder's hot CFG: each block
    /// `[entry, end)` covers its rows with its estimated count.
    pub fn rebuild_blocks(&mut self, axis: &Axis, blocks: &[BlockView], frame: u64) {
        let spans = blocks
            .iter()
            .map(|b| (b.entry as f64, b.end.max(b.entry + 1) as f64, b.count));
        self.fill(axis, spans, 1, frame);
        self.hot_bins = 0;
        self.ticks = false;
    }

    /// Each row's count: the largest of the `(lo, hi, count)` address spans
    /// covering it; rows whose count grew are stamped with `frame`.
    fn fill(
        &mut self,
        axis: &Axis,
        spans: impl Iterator<Item = (f64, f64, u64)>,
        threshold: u64,
        frame: u64,
    ) {
        let rows = axis.height.max(0.0) as usize;
        if self.count.len() != rows {
            self.count = vec![0; rows];
            self.previous = vec![0; rows];
            self.last_grown = vec![0; rows];
        }
        // The old counts become `previous`: a row whose maximum grew was
        // active since the last snapshot.
        std::mem::swap(&mut self.count, &mut self.previous);
        self.count.fill(0);
        let mut max_count = 0;
        for (lo, hi, count) in spans {
            max_count = max_count.max(count);
            let ya = (axis.y_of(lo).floor().max(0.0) as usize).min(rows);
            let yb = (axis.y_of(hi).ceil() as usize).clamp(ya + 1, rows.max(1));
            for row in &mut self.count[ya.min(yb)..yb.min(rows)] {
                *row = (*row).max(count);
            }
        }
        for ((new, was), grown) in self
            .count
            .iter()
            .zip(&self.previous)
            .zip(&mut self.last_grown)
        {
            if new > was {
                *grown = frame;
            }
        }
        self.max_count = max_count;
        self.threshold = threshold;
    }

    /// Draws the strip into `(x, y, w, rows)` of `canvas`, with λ ticks in the
    /// `tick` columns to its right.
    #[allow(clippy::too_many_arguments)]
    pub fn draw(
        &self,
        canvas: &mut Canvas,
        ramps: &Ramps,
        colouring: Colouring,
        (x, y, w): (i32, i32, i32),
        tick: i32,
        frame: u64,
    ) {
        for (row, &count) in self.count.iter().enumerate() {
            let yy = y + row as i32;
            let color = if count == 0 {
                colors::STRIP_EMPTY
            } else {
                match colouring {
                    Colouring::Count if count < self.threshold => colors::COLD_BIN,
                    Colouring::Count => {
                        ramps.heat[hot_level(count, self.threshold, self.max_count) as usize]
                    }
                    Colouring::Recency => {
                        let age = frame.saturating_sub(self.last_grown[row]);
                        ramps.recent[colors::recency_level(age, RECENCY_FRAMES) as usize]
                    }
                }
            };
            canvas.fill_rect(x, yy, w, 1, color);
            if self.ticks && count >= self.threshold && tick > 0 {
                canvas.fill_rect(x + w + 1, yy, tick, 1, colors::THRESHOLD);
            }
        }
    }
}

/// Position of a hot count on the heat ramp: λ at the bottom, the largest
/// count at the top, log-scaled.
pub fn hot_level(count: u64, threshold: u64, max: u64) -> u32 {
    let lo = threshold.max(1) as f32;
    let hi = (max as f32).max(lo + 1.0);
    let v = ((count as f32).max(lo) / lo).ln() / (hi / lo).ln();
    (v.clamp(0.0, 1.0) * 255.0) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::overlay::axis::Bands;

    #[test]
    fn rows_take_the_largest_covering_bin() {
        let axis = Axis::new(256.0, Bands::default());
        let mut s = Strip::default();
        s.rebuild(&axis, &[(0x8000 as f64, 3), (0xC000 as f64, 40)], 10, 5, 1);
        assert_eq!(s.max_count, 40);
        assert_eq!(s.hot_bins, 1);
        assert_eq!(s.count[0], 3);
        assert_eq!(s.count[128], 40);
        assert_eq!(s.last_grown[128], 1);
        s.rebuild(&axis, &[(0x8000 as f64, 3), (0xC000 as f64, 40)], 10, 5, 2);
        assert_eq!(s.last_grown[128], 1);
        assert_eq!(hot_level(5, 5, 500), 0);
        assert_eq!(hot_level(500, 5, 500), 255);
    }

    #[test]
    fn trace_builder_blocks_fill_their_rows() {
        let axis = Axis::new(256.0, Bands::default());
        let mut s = Strip::default();
        let block = |entry: u32, end: u32, count: u64| BlockView { entry, end, count };
        s.rebuild_blocks(
            &axis,
            &[block(0x8000, 0x8100, 7), block(0xC000, 0xC010, 900)],
            3,
        );
        assert_eq!((s.max_count, s.hot_bins, s.ticks), (900, 0, false));
        assert_eq!(s.count[0], 7);
        assert_eq!(s.count[128], 900);
        assert_eq!(s.count[64], 0);
        assert_eq!(s.last_grown[128], 3);
    }
}
