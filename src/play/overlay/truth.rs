//! Live metrics against the ground truth recorded in the same run
//! (`--truth`): similarity, precision and weighted (docs/metrics.md).
//!
//! Building the exact CFG scans all 64K addresses and takes milliseconds, too
//! much for a 16.7 ms frame, so it runs on its own thread (`background.rs`):
//! about once a second the emulation thread flushes the probes and copies
//! the flow counts (a memcpy of ~1.2 MB, ~0.2 ms) into the buffer the worker
//! handed back, and only if the worker is idle.

use std::sync::Arc;

use emu::flow_counts::FlowCounts;
use gfc::{Cfg, Metrics};
use parking_lot::RwLock;
use profiler::feeder::Snapshot;

use super::background::Background;

/// What the panel shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LiveMetrics {
    pub similarity: f64,
    pub precision: f64,
    pub weighted: f64,
    pub edges_h90: usize,
    /// Frame whose counts were compared.
    pub frame: u64,
}

/// Metrics of the hot graph `g` against the truth built from `counts`.
pub fn compare(g: &Cfg, counts: &FlowCounts, frame: u64) -> LiveMetrics {
    let truth = profiler::truth::build(counts);
    let h90 = gfc::h90(&truth);
    let m = Metrics::compute(g, &truth, &h90, 0, 0);
    LiveMetrics {
        similarity: m.similarity,
        precision: m.precision,
        weighted: m.weighted,
        edges_h90: m.edges_h90,
        frame,
    }
}

pub struct TruthWorker {
    worker: Background<Box<FlowCounts>, LiveMetrics>,
}

impl TruthWorker {
    pub fn spawn(snapshot: Arc<RwLock<Snapshot>>) -> TruthWorker {
        let worker = Background::<Box<FlowCounts>, _>::spawn(
            "nesprof-overlay-truth",
            move |counts, frame| {
                // The graph is cloned out so the feeder is held up only for
                // a copy.
                let graph = snapshot.read().graph.clone();
                compare(&graph, counts, frame)
            },
        );
        TruthWorker { worker }
    }

    /// Whether a new comparison would be taken now.
    pub fn idle(&self) -> bool {
        self.worker.idle()
    }

    /// Hands the worker a copy of the counts (call only when [`idle`]).
    ///
    /// [`idle`]: TruthWorker::idle
    pub fn submit(&mut self, counts: &FlowCounts, frame: u64) {
        let copy = match self.worker.take_spare() {
            Some(mut buffer) => {
                buffer.copy_from(counts);
                buffer
            }
            None => Box::new(counts.clone()),
        };
        self.worker.submit(copy, frame);
    }

    /// The latest result for the current graph, if any.
    pub fn latest(&mut self) -> Option<LiveMetrics> {
        self.worker.latest().copied()
    }

    /// Sets the result directly (the headless path computes it in place).
    pub fn set(&mut self, m: LiveMetrics) {
        self.worker.set(m);
    }

    /// Forgets results: the graph started over.
    pub fn reset(&mut self) {
        self.worker.reset();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_into_a_reused_buffer_exactly() {
        let mut counts = FlowCounts::new();
        // JMP $8000, 6 times; one banked address; an interrupt entry.
        counts.instruction_repeated(0x8000, 0x4C, 0x8000, 6);
        counts.instruction(0x1C_8010, 0xEA, 0x1C_8011, 0xFD);
        counts.hardware_interrupt(0xC000, 0xFA);
        let mut buffer = FlowCounts::new();
        // Pages the copy has and the original has not are dropped.
        buffer.instruction(0x1234, 0xEA, 0x1235, 0xFD);
        buffer.dynamic.insert((1, 2), 5);
        buffer.copy_from(&counts);
        assert_eq!(format!("{buffer:?}"), format!("{counts:?}"));
    }
}
