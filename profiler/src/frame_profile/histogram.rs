//! A routine's cycles per frame, as a histogram of fixed bins: the
//! median, 99th percentile and maximum of its per-frame cycles over the
//! frames it ran in, in memory bounded per routine, not per frame.
//!
//! Bins are [`BIN_CYCLES`] (16) cycles wide up to [`RANGE_CYCLES`]
//! (65 536, more than two frames' 29 780); a value at or past that falls
//! in one overflow bin. Only bins holding a value are kept (a routine's
//! per-frame cycles take few distinct values), so a histogram costs at
//! most 4 097 entries of 8 bytes. The minimum and maximum are exact; a
//! percentile is the nearest-rank one read from its bin, reported as the
//! bin's middle clamped to the exact minimum and maximum: within 8 cycles
//! of the exact value (exact when all values share a bin), and the
//! maximum when it falls in the overflow bin.

/// Width of a bin, in CPU cycles.
pub const BIN_CYCLES: u64 = 16;

/// Values from here on share the overflow bin.
pub const RANGE_CYCLES: u64 = 1 << 16;

const BINS: u64 = RANGE_CYCLES / BIN_CYCLES;

/// Per-frame cycles of one routine (see the module doc).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrameHistogram {
    /// (bin, frames), sorted by bin; bin `BINS` is the overflow bin.
    bins: Vec<(u16, u32)>,
    frames: u64,
    min: u64,
    max: u64,
}

impl FrameHistogram {
    pub fn new() -> FrameHistogram {
        FrameHistogram::default()
    }

    /// One frame in which the routine took `cycles`.
    pub fn add(&mut self, cycles: u64) {
        let bin = (cycles / BIN_CYCLES).min(BINS) as u16;
        match self.bins.binary_search_by_key(&bin, |&(b, _)| b) {
            Ok(i) => self.bins[i].1 = self.bins[i].1.saturating_add(1),
            Err(i) => self.bins.insert(i, (bin, 1)),
        }
        if self.frames == 0 {
            (self.min, self.max) = (cycles, cycles);
        } else {
            self.min = self.min.min(cycles);
            self.max = self.max.max(cycles);
        }
        self.frames += 1;
    }

    /// Frames counted.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// The exact maximum (`None` with no frame).
    pub fn max(&self) -> Option<u64> {
        (self.frames > 0).then_some(self.max)
    }

    /// The exact minimum (`None` with no frame).
    pub fn min(&self) -> Option<u64> {
        (self.frames > 0).then_some(self.min)
    }

    /// The nearest-rank `p`-quantile (`p` in (0, 1]): the smallest value
    /// at least a `p` share of the frames do not exceed, at the bins'
    /// resolution (see the module doc).
    pub fn quantile(&self, p: f64) -> Option<u64> {
        if self.frames == 0 {
            return None;
        }
        let total: u64 = self.bins.iter().map(|&(_, n)| n as u64).sum();
        let rank = ((p * total as f64).ceil() as u64).clamp(1, total);
        let mut seen = 0;
        for &(bin, n) in &self.bins {
            seen += n as u64;
            if seen >= rank {
                if bin as u64 == BINS {
                    return Some(self.max);
                }
                let middle = bin as u64 * BIN_CYCLES + BIN_CYCLES / 2;
                return Some(middle.clamp(self.min, self.max));
            }
        }
        Some(self.max)
    }

    pub fn median(&self) -> Option<u64> {
        self.quantile(0.5)
    }

    pub fn p99(&self) -> Option<u64> {
        self.quantile(0.99)
    }

    /// Bins kept (what the histogram costs).
    pub fn bins_kept(&self) -> usize {
        self.bins.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_by_nearest_rank_at_the_bin_resolution() {
        let mut h = FrameHistogram::new();
        assert_eq!((h.median(), h.p99(), h.max()), (None, None, None));
        // 100 frames: 1000 cycles in 98, 5000 in one, 20000 in one.
        for _ in 0..98 {
            h.add(1000);
        }
        h.add(5000);
        h.add(20000);
        assert_eq!(h.frames(), 100);
        // All of 1000's bin is the value 1000: the middle is clamped to
        // neither end, but the bin is [992, 1008): 1000.
        assert_eq!(h.median(), Some(1000));
        // Rank 99 of 100 is the 5000 (bin [4992, 5008): its middle).
        assert_eq!(h.p99(), Some(5000));
        assert_eq!(h.quantile(1.0), Some(20000));
        assert_eq!((h.min(), h.max()), (Some(1000), Some(20000)));
        assert_eq!(h.bins_kept(), 3);
    }

    #[test]
    fn values_within_a_bin_read_as_its_middle() {
        let mut h = FrameHistogram::new();
        for v in [1601, 1603, 1610, 1615] {
            h.add(v);
        }
        // One bin [1600, 1616): its middle, 1608, within [min, max].
        assert_eq!(h.median(), Some(1608));
        assert_eq!(h.max(), Some(1615));
        let mut one = FrameHistogram::new();
        one.add(7);
        assert_eq!((one.median(), one.p99()), (Some(7), Some(7)));
    }

    #[test]
    fn past_the_range_is_one_bin_and_the_maximum_is_exact() {
        let mut h = FrameHistogram::new();
        h.add(10);
        for v in [70_000, 100_000, 1 << 40] {
            h.add(v);
        }
        assert_eq!(h.bins_kept(), 2);
        assert_eq!(h.max(), Some(1 << 40));
        assert_eq!(h.p99(), Some(1 << 40));
        assert_eq!(h.quantile(0.25), Some(10));
    }

    /// However many frames and values, at most 4 097 bins.
    #[test]
    fn memory_is_bounded_by_the_bins() {
        let mut h = FrameHistogram::new();
        for v in 0..200_000u64 {
            h.add(v * 7 % 90_000);
        }
        assert!(h.bins_kept() <= (BINS + 1) as usize);
    }
}
