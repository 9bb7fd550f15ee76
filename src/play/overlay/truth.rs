//! Live metrics against the ground truth recorded in the same run
//! (`--truth`): similarity, precision and weighted (DESIGN.md "Metrics").
//!
//! Building the exact CFG scans all 64K addresses and takes milliseconds, too
//! much for a 16.7 ms frame, so it runs on its own thread: about once a second
//! the emulation thread flushes the probes and hands over a copy of the flow
//! counts (a memcpy of ~1.2 MB, ~0.2 ms), and only if the worker is idle. The
//! copy goes into a buffer the worker hands back after each comparison:
//! allocating 1.2 MB afresh each time cost the emulation thread page faults,
//! now and then several milliseconds. The result comes back behind a lock
//! the emulation thread only ever `try_lock`s.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

use emu::flow_counts::FlowCounts;
use gfc::{Cfg, Metrics};
use parking_lot::{Mutex, RwLock};
use profiler::feeder::Snapshot;

/// What the panel shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LiveMetrics {
    pub similarity: f64,
    pub precision: f64,
    pub weighted: f64,
    pub edges_h90: usize,
    /// Frame whose counts were compared.
    pub frame: u64,
    epoch: u64,
}

struct Job {
    counts: Box<FlowCounts>,
    frame: u64,
    epoch: u64,
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
        epoch: 0,
    }
}

pub struct TruthWorker {
    tx: Option<SyncSender<Job>>,
    /// Count buffers the worker is done with, for the next copy.
    spare_rx: Receiver<Box<FlowCounts>>,
    spare: Option<Box<FlowCounts>>,
    busy: Arc<AtomicBool>,
    result: Arc<Mutex<Option<LiveMetrics>>>,
    /// Bumped on reset: results computed for an older graph are dropped.
    epoch: u64,
    latest: Option<LiveMetrics>,
    thread: Option<JoinHandle<()>>,
}

impl TruthWorker {
    pub fn spawn(snapshot: Arc<RwLock<Snapshot>>) -> TruthWorker {
        let (tx, rx) = sync_channel::<Job>(1);
        let (spare_tx, spare_rx) = sync_channel::<Box<FlowCounts>>(1);
        let busy = Arc::new(AtomicBool::new(false));
        let result = Arc::new(Mutex::new(None));
        let (b, r) = (busy.clone(), result.clone());
        let thread = std::thread::Builder::new()
            .name("nesprof-overlay-truth".into())
            .spawn(move || work(rx, spare_tx, snapshot, b, r))
            .expect("spawn the overlay's truth thread");
        TruthWorker {
            tx: Some(tx),
            spare_rx,
            spare: None,
            busy,
            result,
            epoch: 0,
            latest: None,
            thread: Some(thread),
        }
    }

    /// Whether a new comparison would be taken now.
    pub fn idle(&self) -> bool {
        !self.busy.load(Ordering::Acquire)
    }

    /// Hands the worker a copy of the counts (call only when [`idle`]).
    ///
    /// [`idle`]: TruthWorker::idle
    pub fn submit(&mut self, counts: &FlowCounts, frame: u64) {
        let Some(tx) = &self.tx else { return };
        if let Ok(back) = self.spare_rx.try_recv() {
            self.spare = Some(back);
        }
        let copy = match self.spare.take() {
            Some(mut buffer) => {
                buffer.copy_from(counts);
                buffer
            }
            None => Box::new(counts.clone()),
        };
        self.busy.store(true, Ordering::Release);
        let job = Job {
            counts: copy,
            frame,
            epoch: self.epoch,
        };
        if tx.try_send(job).is_err() {
            self.busy.store(false, Ordering::Release);
        }
    }

    /// The latest result for the current graph, if any.
    pub fn latest(&mut self) -> Option<LiveMetrics> {
        if let Some(guard) = self.result.try_lock() {
            if let Some(m) = *guard {
                if m.epoch == self.epoch {
                    self.latest = Some(m);
                }
            }
        }
        self.latest
    }

    /// Sets the result directly (the headless path computes it in place).
    pub fn set(&mut self, mut m: LiveMetrics) {
        m.epoch = self.epoch;
        self.latest = Some(m);
    }

    /// Forgets results: the graph started over.
    pub fn reset(&mut self) {
        self.epoch += 1;
        self.latest = None;
    }
}

fn work(
    rx: Receiver<Job>,
    spare: SyncSender<Box<FlowCounts>>,
    snapshot: Arc<RwLock<Snapshot>>,
    busy: Arc<AtomicBool>,
    result: Arc<Mutex<Option<LiveMetrics>>>,
) {
    while let Ok(job) = rx.recv() {
        // The graph is cloned out so the feeder is held up only for a copy.
        let graph = snapshot.read().graph.clone();
        let mut m = compare(&graph, &job.counts, job.frame);
        m.epoch = job.epoch;
        *result.lock() = Some(m);
        // The buffer goes back before the worker reports idle, so the next
        // submit finds it.
        let _ = spare.try_send(job.counts);
        busy.store(false, Ordering::Release);
    }
}

impl Drop for TruthWorker {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
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
