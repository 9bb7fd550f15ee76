//! The one interface every hot-CFG builder offers: what the profiler's
//! feeder thread, the sweep's replays and the live overlay call, whichever
//! algorithm builds the graph.

use crate::cfg::Cfg;
use crate::gaussiano::params::GfcParams;
use crate::gaussiano::{Counters, GfcGaussiano};
use crate::sample::{Addr, Sample};
use crate::trace::TraceBuilder;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The hot-CFG builders, by the name `--builder` takes.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum BuilderKind {
    /// GFCGaussiano as the thesis specifies it (`gaussiano/`).
    Gfc,
    /// Batches read as exact traces, counts estimated with flow
    /// conservation (`trace/`); the default, as it finds far more of the
    /// hot edges.
    #[default]
    Trace,
}

impl BuilderKind {
    pub const ALL: [BuilderKind; 2] = [BuilderKind::Gfc, BuilderKind::Trace];

    pub fn name(self) -> &'static str {
        match self {
            BuilderKind::Gfc => "gfc",
            BuilderKind::Trace => "trace",
        }
    }

    /// A fresh builder of this kind; `params` configure GFCGaussiano and are
    /// ignored by builders without parameters.
    pub fn build(self, params: GfcParams) -> Box<dyn HotCfgBuilder> {
        match self {
            BuilderKind::Gfc => Box::new(GfcGaussiano::new(params)),
            BuilderKind::Trace => Box::new(TraceBuilder::new()),
        }
    }

    /// Whether the builder takes GFCGaussiano's parameters.
    pub fn has_params(self) -> bool {
        self == BuilderKind::Gfc
    }
}

impl std::fmt::Display for BuilderKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for BuilderKind {
    type Err = String;

    fn from_str(s: &str) -> Result<BuilderKind, String> {
        BuilderKind::ALL
            .into_iter()
            .find(|b| b.name() == s)
            .ok_or_else(|| format!("unknown builder {s:?} (gfc or trace)"))
    }
}

/// An incremental hot-CFG builder: fed batch by batch, it holds its current
/// estimate of the hot CFG at all times.
pub trait HotCfgBuilder: Send {
    /// Feeds one batch (consecutive samples, hardware interrupt entries as
    /// samples of their own).
    fn process_batch(&mut self, batch: &[Sample]);

    /// The hot CFG built so far: the builder's estimate of H90.
    fn graph(&self) -> &Cfg;

    /// Every edge observed, with its estimated count: what profile overlap
    /// is computed on. A builder that keeps nothing beyond its hot CFG
    /// returns the hot CFG.
    fn edge_profile(&self) -> &Cfg {
        self.graph()
    }

    /// Batches and instructions processed so far (and the algorithm's own
    /// counters, where it has them).
    fn counters(&self) -> Counters;

    /// Per edge of the edge profile, the probability that it is in H90,
    /// for a builder that estimates it (the trace builder); `None` for
    /// one that does not.
    fn confidence(&self) -> Option<&HashMap<(Addr, Addr), f64>> {
        None
    }

    /// The engines' record of where branches were taken, for a builder
    /// that can use it (the trace builder); ignored by others.
    fn set_taken_targets(&mut self, _taken: Option<crate::trace::TakenTargets>) {}

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

impl HotCfgBuilder for TraceBuilder {
    fn process_batch(&mut self, batch: &[Sample]) {
        TraceBuilder::process_batch(self, batch)
    }

    fn graph(&self) -> &Cfg {
        TraceBuilder::graph(self)
    }

    fn edge_profile(&self) -> &Cfg {
        TraceBuilder::edge_profile(self)
    }

    fn counters(&self) -> Counters {
        TraceBuilder::counters(self)
    }

    fn confidence(&self) -> Option<&HashMap<(Addr, Addr), f64>> {
        Some(TraceBuilder::confidence(self))
    }

    fn set_taken_targets(&mut self, taken: Option<crate::trace::TakenTargets>) {
        TraceBuilder::set_taken_targets(self, taken)
    }
}
