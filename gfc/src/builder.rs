//! The one interface every hot-CFG builder offers: what the profiler's
//! feeder thread, the sweep's replays and the live overlay call, whichever
//! algorithm builds the graph.

use crate::cfg::Cfg;
use crate::gaussiano::params::GfcParams;
use crate::gaussiano::{Counters, GfcGaussiano};
use crate::sample::Sample;

/// An incremental hot-CFG builder: fed batch by batch, it holds its current
/// estimate of the hot CFG at all times.
pub trait HotCfgBuilder: Send {
    /// Feeds one batch (consecutive samples, hardware interrupt entries as
    /// samples of their own).
    fn process_batch(&mut self, batch: &[Sample]);

    /// The hot CFG built so far.
    fn graph(&self) -> &Cfg;

    /// Batches and instructions processed so far (and the algorithm's own
    /// counters, where it has them).
    fn counters(&self) -> Counters;

    /// Its bins as (centroid, count), for the overlay's address strip; empty
    /// for a builder that keeps none.
    fn bins(&self) -> Vec<(f64, u64)> {
        Vec::new()
    }

    /// Its GFCGaussiano parameters, if it has them.
    fn params(&self) -> Option<GfcParams> {
        None
    }
}

impl HotCfgBuilder for GfcGaussiano {
    fn process_batch(&mut self, batch: &[Sample]) {
        GfcGaussiano::process_batch(self, batch)
    }

    fn graph(&self) -> &Cfg {
        GfcGaussiano::graph(self)
    }

    fn counters(&self) -> Counters {
        *GfcGaussiano::counters(self)
    }

    fn bins(&self) -> Vec<(f64, u64)> {
        GfcGaussiano::bins(self)
            .iter()
            .map(|b| (b.centroid(), b.count()))
            .collect()
    }

    fn params(&self) -> Option<GfcParams> {
        Some(*GfcGaussiano::params(self))
    }
}
