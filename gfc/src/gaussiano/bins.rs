//! Self-organising bins of window means (thesis 4.2.2, Figure 9; appendix
//! `lowStddevBatchProcess`).
//!
//! Bins live in a vector sorted by centroid. A window mean μ_w is located by
//! binary search; the three centroids around the hit (R_{b−1}, R_b, R_{b+1})
//! are compared with μ_w and the nearest is taken; μ_w joins that bin if the
//! distance is below binSize, otherwise a new bin is inserted at the sorted
//! position. A bin is hot once it has counted recurrentThreshold windows.
//!
//! Decisions, each against the thesis' wording:
//! - Join test is strict, `distance < binSize`. The prose says twice "menor
//!   que determinado limiar δ (binSize)" and, for Figure 9, "esta distância
//!   ainda é menor que o limiar binSize"; the pseudo-code's `<=` and the
//!   displayed formula's `≥` (which inverts the prose) are read as slips.
//! - The centroid is the mean of the bin's *distinct* window means: the
//!   pseudo-code appends W "caso nao esteja no balde" (only if not already in
//!   the bin), while the count C_b grows on every window. Figure 9's
//!   33115 → 33116 after adding 33120 then means the bin held 4 distinct
//!   means averaging 33115: (4·33115 + 33120)/5 = 33116 exactly. (Any of 3..9
//!   windows would round to 33116; 4 is the only count giving it exactly, and
//!   the centroid is kept unrounded.) Each bin's distinct means stay within
//!   about ±binSize of it, so the set is bounded by ~2·binSize·windowSize
//!   sums (while the centroid does not wander).
//! - A new bin counts the window that created it: C_b = 1. `createBin(W)`
//!   does not say; one window has been seen, as C_b is defined
//!   ("a contagem da quantidade de janelas que já foram executadas").
//! - Recurrent iff `count ≥ recurrentThreshold`: the formal statement "B_k é
//!   considerada quente se e somente se C_k ≥ λ" and the high-stddev routine's
//!   `>=` win over buildCFGR's `>` and the prose's "maior que"; one predicate
//!   serves both routines.
//! - Address → bin ("dado o endereço de uma instrução, o balde que deve
//!   conter esta instrução pode ser encontrado aplicando uma busca binária"):
//!   the same three-neighbour nearest search, and the address belongs to that
//!   bin iff it is closer than binSize — the thesis says binSize
//!   "determina, indiretamente, intervalo de abrangência dos endereços
//!   representados pelos baldes".
//! - Equal distances to two neighbours pick the lower centroid (scan order
//!   b−1, b, b+1), so results never depend on float noise in ties.

use super::windows::sum_to_mean;
use crate::sample::Addr;

/// A set of window sums. A bin's sums all lie within about
/// ±binSize·windowSize of its centroid times windowSize, so normally a bitmap
/// of a few words over a sliding base holds them and membership is one load
/// (a sorted vector's binary search was the replay's hottest spot). Should
/// the span grow past `MAX_BITMAP_WORDS` (absurd off-grid binSizes, or a
/// centroid wandering far), the set falls back to a sorted vector so memory
/// stays proportional to the number of sums.
#[derive(Debug, Clone, PartialEq, Eq)]
enum SumSet {
    Bitmap {
        /// Sum represented by bit 0 of `words[0]`; a multiple of 64.
        base: u64,
        words: Vec<u64>,
    },
    Sorted(Vec<u64>),
}

const MAX_BITMAP_WORDS: u64 = 1024;

impl Default for SumSet {
    fn default() -> Self {
        SumSet::Bitmap {
            base: 0,
            words: Vec::new(),
        }
    }
}

impl SumSet {
    /// Inserts `sum`; returns whether it was new.
    fn insert(&mut self, sum: u64) -> bool {
        match self {
            SumSet::Bitmap { base, words } => {
                let aligned = sum & !63;
                let lo = if words.is_empty() {
                    aligned
                } else {
                    (*base).min(aligned)
                };
                let hi = if words.is_empty() {
                    aligned
                } else {
                    (*base + (words.len() as u64 - 1) * 64).max(aligned)
                };
                if (hi - lo) / 64 >= MAX_BITMAP_WORDS {
                    *self = SumSet::Sorted(self.to_sorted());
                    return self.insert(sum);
                }
                if words.is_empty() {
                    *base = aligned;
                } else if aligned < *base {
                    let grow = ((*base - aligned) / 64) as usize;
                    words.splice(0..0, std::iter::repeat_n(0, grow));
                    *base = aligned;
                }
                let idx = ((aligned - *base) / 64) as usize;
                if idx >= words.len() {
                    words.resize(idx + 1, 0);
                }
                let bit = 1u64 << (sum & 63);
                let new = words[idx] & bit == 0;
                words[idx] |= bit;
                new
            }
            SumSet::Sorted(v) => match v.binary_search(&sum) {
                Ok(_) => false,
                Err(pos) => {
                    v.insert(pos, sum);
                    true
                }
            },
        }
    }

    fn to_sorted(&self) -> Vec<u64> {
        match self {
            SumSet::Bitmap { base, words } => {
                let mut v = Vec::new();
                for (k, &w) in words.iter().enumerate() {
                    let mut bits = w;
                    while bits != 0 {
                        let b = bits.trailing_zeros() as u64;
                        v.push(base + k as u64 * 64 + b);
                        bits &= bits - 1;
                    }
                }
                v
            }
            SumSet::Sorted(v) => v.clone(),
        }
    }
}

/// One bin: a cluster of window means.
#[derive(Debug, Clone, PartialEq)]
pub struct Bin {
    centroid: f64,
    count: u64,
    /// Distinct window sums (sum = mean × windowSize).
    sums: SumSet,
    /// How many distinct sums `sums` holds.
    distinct: u64,
    /// Σ of the distinct sums, exact.
    sums_total: u128,
}

impl Bin {
    /// R_b: mean of the distinct window means assigned to the bin.
    pub fn centroid(&self) -> f64 {
        self.centroid
    }

    /// C_b: windows counted into the bin, repeats included.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Number of distinct window means behind the centroid.
    pub fn distinct_windows(&self) -> usize {
        self.distinct as usize
    }
}

/// The sorted bin vector 𝕍.
#[derive(Debug, Clone)]
pub struct Bins {
    bins: Vec<Bin>,
    bin_size: f64,
    window_size: usize,
    /// Bumped whenever a centroid moves or a bin is inserted, i.e. whenever
    /// the outcome of the nearest-bin search may change.
    generation: u64,
    /// Direct-mapped memo of recent windows: (sum, bin index, generation).
    /// A window sum seen before, with no bin changed since, joins the same bin
    /// and, being already in it, only bumps its count — so the search can be
    /// skipped with an identical result. Most windows of a hot loop hit.
    memo: Vec<(u64, usize, u64)>,
}

const MEMO_SLOTS: usize = 256;

impl Bins {
    /// No bins yet, for windows of `window_size` and joins closer than
    /// `bin_size`.
    pub fn new(bin_size: u32, window_size: u32) -> Self {
        Bins {
            bins: Vec::new(),
            bin_size: bin_size as f64,
            window_size: window_size.max(1) as usize,
            generation: 1,
            memo: vec![(0, 0, 0); MEMO_SLOTS],
        }
    }

    /// Bins in ascending centroid order.
    pub fn as_slice(&self) -> &[Bin] {
        &self.bins
    }

    /// Number of bins.
    pub fn len(&self) -> usize {
        self.bins.len()
    }

    /// Whether there is no bin yet.
    pub fn is_empty(&self) -> bool {
        self.bins.is_empty()
    }

    /// The binary-search hit b for `x`: the last bin whose centroid is ≤ x,
    /// or the first bin when x is below them all (Figure 9: 33120 hits
    /// 33115). `None` without bins.
    pub fn probe(&self, x: f64) -> Option<usize> {
        if self.bins.is_empty() {
            return None;
        }
        let above = self.bins.partition_point(|b| b.centroid <= x);
        Some(above.saturating_sub(1))
    }

    /// Nearest bin to `x` among b−1, b, b+1 around the probe, with its
    /// distance. Because the vector is sorted this is the global nearest.
    pub fn nearest(&self, x: f64) -> Option<(usize, f64)> {
        let b = self.probe(x)?;
        let lo = b.saturating_sub(1);
        let hi = (b + 1).min(self.bins.len() - 1);
        let mut best = (lo, (self.bins[lo].centroid - x).abs());
        for k in lo + 1..=hi {
            let d = (self.bins[k].centroid - x).abs();
            if d < best.1 {
                best = (k, d);
            }
        }
        Some(best)
    }

    /// Counts one window (given by its address sum) into the bins, creating a
    /// bin if none is close enough. Returns the index of the bin it joined.
    pub fn insert_window(&mut self, sum: u64) -> usize {
        let slot = (sum as usize ^ (sum >> 8) as usize) % MEMO_SLOTS;
        let (m_sum, m_idx, m_gen) = self.memo[slot];
        if m_gen == self.generation && m_sum == sum {
            let bin = &mut self.bins[m_idx];
            bin.count = bin.count.saturating_add(1);
            return m_idx;
        }
        let idx = self.insert_window_searching(sum);
        self.memo[slot] = (sum, idx, self.generation);
        idx
    }

    fn insert_window_searching(&mut self, sum: u64) -> usize {
        let mean = sum_to_mean(sum, self.window_size);
        match self.nearest(mean) {
            Some((k, d)) if d < self.bin_size => {
                self.join(k, sum);
                self.restore_order(k)
            }
            _ => {
                let pos = self.bins.partition_point(|b| b.centroid <= mean);
                let mut sums = SumSet::default();
                sums.insert(sum);
                self.generation += 1;
                self.bins.insert(
                    pos,
                    Bin {
                        centroid: mean,
                        count: 1,
                        sums,
                        distinct: 1,
                        sums_total: sum as u128,
                    },
                );
                pos
            }
        }
    }

    fn join(&mut self, k: usize, sum: u64) {
        let w = self.window_size;
        let bin = &mut self.bins[k];
        bin.count = bin.count.saturating_add(1);
        if bin.sums.insert(sum) {
            self.generation += 1;
            bin.distinct += 1;
            bin.sums_total += sum as u128;
            bin.centroid = bin.sums_total as f64 / (bin.distinct as u128 * w as u128) as f64;
        }
    }

    /// The new centroid lies between the old one and the window mean, and no
    /// other centroid lies strictly between those (else it would have been
    /// nearer), so order holds mathematically; this guards against rounding
    /// leaving two near-equal centroids inverted.
    fn restore_order(&mut self, mut k: usize) -> usize {
        while k > 0 && self.bins[k - 1].centroid > self.bins[k].centroid {
            self.bins.swap(k - 1, k);
            k -= 1;
        }
        while k + 1 < self.bins.len() && self.bins[k + 1].centroid < self.bins[k].centroid {
            self.bins.swap(k, k + 1);
            k += 1;
        }
        k
    }

    /// The bin an instruction address belongs to: the nearest, if closer than
    /// binSize.
    pub fn bin_for_addr(&self, addr: Addr) -> Option<&Bin> {
        let (k, d) = self.nearest(addr as f64)?;
        (d < self.bin_size).then(|| &self.bins[k])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn centroids(b: &Bins) -> Vec<f64> {
        b.as_slice().iter().map(Bin::centroid).collect()
    }

    /// Figure 9 with window size 1, so a window sum is its mean.
    fn figure_9_bins() -> Bins {
        let mut bins = Bins::new(10, 1);
        bins.insert_window(28036);
        // Four distinct means averaging 33115: 33113, 33114, 33116, 33117.
        for m in [33113, 33114, 33116, 33117] {
            bins.insert_window(m);
        }
        // 16 away from 33115 → a bin of its own.
        bins.insert_window(33131);
        bins
    }

    #[test]
    fn figure_9_setup() {
        let bins = figure_9_bins();
        assert_eq!(centroids(&bins), vec![28036.0, 33115.0, 33131.0]);
        assert_eq!(bins.as_slice()[1].distinct_windows(), 4);
    }

    #[test]
    fn figure_9_insertion_of_33120() {
        let mut bins = figure_9_bins();
        // Binary search hits the 33115 bin; its neighbours are 28036 and 33131.
        assert_eq!(bins.probe(33120.0), Some(1));
        // Distances 5084, 5, 11: nearest 33115 at 5, below binSize 10.
        assert_eq!(bins.nearest(33120.0), Some((1, 5.0)));
        let count_before = bins.as_slice()[1].count();
        assert_eq!(bins.insert_window(33120), 1);
        assert_eq!(centroids(&bins), vec![28036.0, 33116.0, 33131.0]);
        assert_eq!(bins.as_slice()[1].count(), count_before + 1);
        assert_eq!(bins.as_slice()[1].distinct_windows(), 5);
    }

    #[test]
    fn join_is_strictly_below_bin_size() {
        let mut bins = Bins::new(10, 1);
        bins.insert_window(100);
        // Exactly binSize away: a new bin, not a join.
        assert_eq!(bins.insert_window(110), 1);
        assert_eq!(bins.len(), 2);
        assert_eq!(bins.insert_window(109), 1);
        assert_eq!(bins.len(), 2);
    }

    #[test]
    fn repeated_means_count_but_do_not_move_the_centroid() {
        let mut bins = Bins::new(10, 2);
        // Sums 200 and 204 → means 100 and 102; centroid 101.
        bins.insert_window(200);
        bins.insert_window(204);
        for _ in 0..5 {
            bins.insert_window(204);
        }
        let b = &bins.as_slice()[0];
        assert_eq!(b.centroid(), 101.0);
        assert_eq!(b.count(), 7);
        assert_eq!(b.distinct_windows(), 2);
    }

    #[test]
    fn new_bins_keep_the_vector_sorted() {
        let mut bins = Bins::new(8, 1);
        for m in [500, 100, 300, 50, 900, 301, 700] {
            bins.insert_window(m);
        }
        let c = centroids(&bins);
        assert!(c.windows(2).all(|w| w[0] <= w[1]), "{c:?}");
        assert_eq!(bins.len(), 6);
        assert_eq!(bins.probe(10.0), Some(0));
        assert_eq!(bins.nearest(10.0), Some((0, 40.0)));
    }

    #[test]
    fn address_lookup_uses_bin_size() {
        let bins = figure_9_bins();
        assert_eq!(bins.bin_for_addr(33120).map(Bin::centroid), Some(33115.0));
        assert_eq!(bins.bin_for_addr(33125).map(Bin::centroid), Some(33131.0));
        assert!(bins.bin_for_addr(33141).is_none());
        assert!(Bins::new(10, 1).bin_for_addr(5).is_none());
    }

    #[test]
    fn sum_set_grows_both_ways() {
        let mut s = SumSet::default();
        assert!(s.insert(1000));
        assert!(!s.insert(1000));
        assert!(s.insert(10));
        assert!(s.insert(5000));
        assert!(s.insert(1001));
        assert!(!s.insert(10) && !s.insert(5000) && !s.insert(1001));
        match &s {
            SumSet::Bitmap { base, words } => assert_eq!((*base, words.len()), (0, 5000 / 64 + 1)),
            SumSet::Sorted(_) => panic!("small span must stay a bitmap"),
        }
        assert_eq!(s.to_sorted(), vec![10, 1000, 1001, 5000]);
    }

    #[test]
    fn sum_set_falls_back_to_sorted_for_wide_spans() {
        let mut s = SumSet::default();
        assert!(s.insert(7));
        assert!(s.insert(u64::MAX));
        assert!(s.insert(1 << 40));
        assert!(!s.insert(7) && !s.insert(u64::MAX) && !s.insert(1 << 40));
        assert_eq!(s, SumSet::Sorted(vec![7, 1 << 40, u64::MAX]));
    }

    #[test]
    fn equal_distance_prefers_lower_centroid() {
        let mut bins = Bins::new(100, 1);
        bins.insert_window(0);
        bins.insert_window(1000);
        assert_eq!(bins.nearest(500.0), Some((0, 500.0)));
    }
}
