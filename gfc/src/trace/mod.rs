//! The trace builder: the hot CFG from each batch read as what it is, a
//! short exact trace of execution (a software last-branch record), instead
//! of GFCGaussiano's binned window means.
//!
//! Per batch it only counts (`observe`): how often each instruction was
//! sampled (weighted by the batch's cycles per instruction, since a batch
//! starts at a point uniform in time), every control transfer a sample's
//! `next_pc` shows, the leaders those transfers prove and the interrupt
//! entries. From those counts it derives, when the graph is read:
//!
//! 1. blocks, by the truth's leader rules applied to the observed
//!    instructions (`blocks`);
//! 2. each block's execution frequency from *every* sample in it (N per
//!    batch), each edge's share of its block's outflow from the observed
//!    transfers, and the two tied by flow conservation (`estimate`);
//! 3. the edge profile (every observed edge with its estimated count),
//!    each edge's confidence (the probability, given the estimates'
//!    standard errors, that it is in H90) and the hot CFG, the prefix of
//!    the most confident edges that maximises the expected agreement with
//!    H90 (`hot`).
//!
//! Flow conservation here is the simple form: a block's outflow equals its
//! sampled frequency, split by the observed exits. It does not solve for
//! unobserved edges (profi's min-cost flow would); the edges it holds are
//! exactly those observed, which the property tests check. Its limit is
//! structure the samples cannot show (`blocks`).
//!
//! Everything it needs comes from the stream: counts, the batches' cycle
//! stamps (for the scale of the counts) and nothing per game. The counts are
//! updated per batch in O(N) hash updates; the derivation is a pure function
//! of them, so any read sees every batch so far and a replay of the same
//! batches gives the same graph whenever it is read (live and replayed
//! results are identical).

mod blocks;
mod estimate;
mod hot;
mod observe;

use std::cell::OnceCell;

use std::collections::HashMap;

use crate::cfg::Cfg;
use crate::gaussiano::Counters;
use crate::sample::{Addr, Sample};

pub use self::observe::Observations;

/// The hot set derived from the edge profile.
#[derive(Debug, Clone, Default)]
pub struct Derived {
    /// The estimated hot set.
    pub hot: Cfg,
    /// Per observed edge: the probability that it is in H90 (`hot`).
    pub confidence: HashMap<(Addr, Addr), f64>,
}

/// Whether a branch was ever taken to a code address: the engines' record
/// (`emu::taken_targets`), shared with the emulation thread.
pub type TakenTargets = std::sync::Arc<dyn Fn(Addr) -> bool + Send + Sync>;

/// The trace builder (`--builder trace`).
#[derive(Default)]
pub struct TraceBuilder {
    seen: Observations,
    /// Where branches were taken, if the engines kept it.
    taken: Option<TakenTargets>,
    /// The edge profile derived from `seen`, made on the first read after
    /// a batch.
    profiled: OnceCell<estimate::Profile>,
    /// The hot set derived from `profiled`, made apart: a reader of the
    /// profile alone (the regions' guide) is spared it, 30 % of the
    /// derivation on fff.
    derived: OnceCell<Derived>,
}

impl std::fmt::Debug for TraceBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TraceBuilder")
            .field("seen", &self.seen)
            .field("taken", &self.taken.is_some())
            .finish_non_exhaustive()
    }
}

impl TraceBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts one batch.
    pub fn process_batch(&mut self, batch: &[Sample]) {
        self.seen.batch(batch);
        self.forget();
    }

    /// Gives the builder the engines' record of where branches were taken
    /// (`None`: it has none): a sampled branch's target then starts a block
    /// only where a branch really went, as in the truth, instead of
    /// wherever a sampled branch could go. Read at every derivation, so
    /// set it again (or read after the run) for a graph from the whole
    /// record.
    pub fn set_taken_targets(&mut self, taken: Option<TakenTargets>) {
        self.taken = taken;
        self.forget();
    }

    /// The counts so far.
    pub fn observations(&self) -> &Observations {
        &self.seen
    }

    /// The hot CFG: the estimate of H90.
    pub fn graph(&self) -> &Cfg {
        &self.derived().hot
    }

    /// Every observed edge with its estimated count.
    pub fn edge_profile(&self) -> &Cfg {
        &self.profiled().cfg
    }

    /// Per observed edge, the probability that it is in H90: how sure the
    /// hot CFG is of each of its edges (`hot`).
    pub fn confidence(&self) -> &HashMap<(Addr, Addr), f64> {
        &self.derived().confidence
    }

    /// Batches, instructions and interrupt events counted.
    pub fn counters(&self) -> Counters {
        Counters {
            batches: self.seen.batches,
            instructions: self.seen.instructions,
            interrupts: self.seen.interrupt_events,
            ..Counters::default()
        }
    }

    fn forget(&mut self) {
        self.profiled = OnceCell::new();
        self.derived = OnceCell::new();
    }

    fn profiled(&self) -> &estimate::Profile {
        self.profiled.get_or_init(|| {
            let taken = self.taken.as_deref().map(|t| t as &dyn Fn(Addr) -> bool);
            let blocks = blocks::Blocks::find(&self.seen, taken);
            estimate::edge_profile(&self.seen, &blocks)
        })
    }

    fn derived(&self) -> &Derived {
        self.derived.get_or_init(|| {
            let profile = self.profiled();
            let hot = hot::hot_set(&profile.cfg, &profile.sigma, profile.total);
            Derived {
                hot: hot.cfg,
                confidence: hot.confidence,
            }
        })
    }
}

#[cfg(test)]
mod tests;
