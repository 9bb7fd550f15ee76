//! GFCGaussiano (thesis 4.2.3 and appendix): the incremental hot-CFG builder
//! invoked once per batch.
//!
//! Per batch: split off interrupt handlers (`segment`), then for each flow
//! segment compute the sliding-window means (`windows`), compare the standard
//! deviation of those means with stdevThreshold, and either count the windows
//! into the bins and build blocks and edges (`lowStddevBatchProcess` +
//! `buildCFGR`), or only link recurrent blocks (`highStddevBatchProcess`).
//! The graph is updated in place; all scratch buffers are reused, so a batch
//! allocates only when the graph or the bins grow.
//!
//! Decisions:
//! - What decides local vs. global is σ(μ_w), the standard deviation of the
//!   window means. The pseudo-code's `batch.stddev` is that value: its comment
//!   says "o desvio padrao das médias das janelas em batch." (the line is cut
//!   off there), and the text: "o nível das transições de um lote pode ser
//!   determinado a partir do cálculo do desvio padrão das médias das janelas".
//! - Local iff `σ(μ_w) < stdevThreshold`, strictly, as the text defines it:
//!   "um lote contém apenas transições locais se e somente se σ(μ_w) < σ_t";
//!   the pseudo-code's `<=` is read as a slip.
//! - Statistics are per flow segment (the main flow with handlers excised, and
//!   each handler), so an NMI landing in a tight loop does not turn the batch
//!   "global". A segment shorter than windowSize has no window (n_w ≤ 0): it
//!   cannot feed the bins and goes to the high routine, which only counts
//!   transitions between blocks already known to be recurrent.

pub mod bins;
pub mod build;
pub mod params;
pub mod segment;
pub mod windows;

use self::bins::{Bin, Bins};
use self::build::{Path, Repository};
use self::params::GfcParams;
use self::segment::Segmenter;
use self::windows::{means_stddev, sum_to_mean, window_sums};
use crate::cfg::Cfg;
use crate::sample::{Addr, Flow, Sample};
use serde::{Deserialize, Serialize};

/// Running totals, for reports and the live overlay.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    /// Batches processed.
    pub batches: u64,
    /// Instructions processed (interrupt markers excluded).
    pub instructions: u64,
    /// Flow segments processed (a batch without interrupts is one segment).
    /// Always `low_stddev + high_stddev + short_segments`.
    pub segments: u64,
    /// Segments processed by the low std-dev (local) routine.
    pub low_stddev: u64,
    /// Segments processed by the high std-dev (global) routine.
    pub high_stddev: u64,
    /// Segments shorter than a window, sent to the high routine.
    pub short_segments: u64,
    /// Hardware interrupt markers seen.
    pub interrupts: u64,
}

/// The GFCGaussiano state: bins, targets, block repository and graph.
#[derive(Debug)]
pub struct GfcGaussiano {
    params: GfcParams,
    bins: Bins,
    repo: Repository,
    counters: Counters,
    last_stddev: Option<f64>,
    segmenter: Segmenter,
    sums: Vec<u64>,
    means: Vec<f64>,
}

impl GfcGaussiano {
    /// A builder with no history. `params` should be valid
    /// ([`GfcParams::validate`]); a zero window or bin size is treated as 1.
    pub fn new(params: GfcParams) -> Self {
        GfcGaussiano {
            params,
            bins: Bins::new(params.bin_size.max(1), params.window_size),
            repo: Repository::default(),
            counters: Counters::default(),
            last_stddev: None,
            segmenter: Segmenter::new(),
            sums: Vec::new(),
            means: Vec::new(),
        }
    }

    /// The parameters.
    pub fn params(&self) -> &GfcParams {
        &self.params
    }

    /// The hot CFG built so far (G).
    pub fn graph(&self) -> &Cfg {
        self.repo.cfg()
    }

    /// Consumes the builder, keeping the graph.
    pub fn into_graph(self) -> Cfg {
        self.repo.into_cfg()
    }

    /// The bins, sorted by centroid.
    pub fn bins(&self) -> &[Bin] {
        self.bins.as_slice()
    }

    /// Running totals.
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// Number of bins.
    pub fn num_bins(&self) -> usize {
        self.bins.len()
    }

    /// σ(μ_w) of the last segment that had at least one window.
    pub fn last_stddev(&self) -> Option<f64> {
        self.last_stddev
    }

    /// How often `addr` was seen as a control-transfer successor (its entry
    /// in `Targets`; 0 if unknown).
    pub fn target_count(&self, addr: Addr) -> u64 {
        self.repo.target_count(addr)
    }

    /// Number of known targets.
    pub fn num_targets(&self) -> usize {
        self.repo.num_targets()
    }

    /// Whether the block entered at `entry` may still grow (a batch ended
    /// inside it before its end was seen).
    pub fn is_open(&self, entry: Addr) -> bool {
        self.repo.is_open(entry)
    }

    /// Blocks split at a newly learnt target so far.
    pub fn splits(&self) -> u64 {
        self.repo.splits()
    }

    /// Processes one batch — the thesis' `GFCGaussiano(batch)` — updating the
    /// graph in place.
    pub fn process_batch(&mut self, batch: &[Sample]) {
        self.counters.batches += 1;
        let needs_split = batch
            .iter()
            .any(|s| matches!(s.flow, Flow::Interrupt | Flow::ReturnInterrupt));
        if !needs_split {
            // One flow, one segment: skip the segmenter's copies.
            if !batch.is_empty() {
                self.process_segment(batch);
            }
            return;
        }
        let mut segmenter = std::mem::take(&mut self.segmenter);
        let repo = &mut self.repo;
        let counters = &mut self.counters;
        segmenter.split(batch, |handler| {
            counters.interrupts += 1;
            repo.cfg_mut().add_interrupts(handler, 1);
            repo.add_target(handler);
        });
        for k in 0..segmenter.len() {
            self.process_segment(segmenter.segment(k));
        }
        self.segmenter = segmenter;
    }

    fn process_segment(&mut self, seg: &[Sample]) {
        let w = self.params.window_size.max(1) as usize;
        self.counters.segments += 1;
        self.counters.instructions += seg.len() as u64;
        window_sums(seg, w, &mut self.sums);
        if self.sums.is_empty() {
            self.counters.short_segments += 1;
            self.repo
                .walk(seg, Path::High, &self.bins, self.params.recurrent_threshold);
            return;
        }
        self.means.clear();
        self.means
            .extend(self.sums.iter().map(|&s| sum_to_mean(s, w)));
        let stddev = means_stddev(&self.means);
        self.last_stddev = Some(stddev);
        if stddev < self.params.stdev_threshold as f64 {
            self.counters.low_stddev += 1;
            for &sum in &self.sums {
                self.bins.insert_window(sum);
            }
            self.repo
                .walk(seg, Path::Low, &self.bins, self.params.recurrent_threshold);
        } else {
            self.counters.high_stddev += 1;
            self.repo
                .walk(seg, Path::High, &self.bins, self.params.recurrent_threshold);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::params::THESIS_BEST;
    use super::*;

    fn assert_send<T: Send>() {}

    #[test]
    fn it_can_move_to_the_feeder_thread() {
        assert_send::<GfcGaussiano>();
        assert_send::<Cfg>();
    }

    fn params(stdev_threshold: u32) -> GfcParams {
        GfcParams::new(100, stdev_threshold, 1, 5).unwrap()
    }

    fn alternating(n: usize) -> Vec<Sample> {
        (0..n)
            .map(|i| Sample::plain(if i % 2 == 0 { 1000 } else { 1020 }, 1))
            .collect()
    }

    #[test]
    fn local_iff_stddev_strictly_below_threshold() {
        // Windows of 1 over 1000, 1020, 1000, 1020: population σ = 10 exactly
        // (the sample form would be 10·√(4/3) ≈ 11.5).
        let batch = alternating(4);
        let mut at = GfcGaussiano::new(params(10));
        at.process_batch(&batch);
        assert_eq!(at.last_stddev(), Some(10.0));
        assert_eq!(
            (at.counters().low_stddev, at.counters().high_stddev),
            (0, 1)
        );
        assert_eq!(at.num_bins(), 0);

        let mut above = GfcGaussiano::new(params(11));
        above.process_batch(&batch);
        assert_eq!(
            (above.counters().low_stddev, above.counters().high_stddev),
            (1, 0)
        );
        assert_eq!(above.num_bins(), 1);
        assert_eq!(above.bins()[0].count(), 4);
        assert_eq!(above.bins()[0].centroid(), 1010.0);
    }

    #[test]
    fn short_and_empty_batches() {
        let mut g = GfcGaussiano::new(THESIS_BEST);
        g.process_batch(&[]);
        g.process_batch(&alternating(12));
        let c = *g.counters();
        assert_eq!(c.batches, 2);
        assert_eq!(c.segments, 1);
        assert_eq!(c.short_segments, 1);
        assert_eq!(c.instructions, 12);
        assert_eq!(g.last_stddev(), None);
        assert_eq!(g.num_bins(), 0);
        assert_eq!(g.graph().num_blocks(), 0);
    }

    #[test]
    fn degenerate_params_do_not_panic() {
        let p = GfcParams {
            bin_size: 0,
            stdev_threshold: 0,
            window_size: 0,
            recurrent_threshold: 0,
        };
        let mut g = GfcGaussiano::new(p);
        g.process_batch(&alternating(30));
        assert_eq!(g.counters().segments, 1);
    }
}
