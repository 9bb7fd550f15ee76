//! The builder thread: receives sample batches over a bounded channel and
//! feeds them to GFCGaussiano, updating the hot CFG incrementally. Batches
//! travel as the emulator recorded them and are converted to samples here,
//! on the builder's core, not the emulation's. The
//! emulation side only ever `try_send`s: when the builder falls behind, the
//! batch is dropped and counted, and emulation never waits.
//!
//! Readers (the live overlay, progress reports) get [`Snapshot`]s published
//! behind a parking_lot lock at most every `publish_every` batches, so the
//! builder never blocks on them either.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::{bounded, Receiver, Sender, TrySendError};
use emu::sampling::Retired;
use gfc::{Bin, Cfg, GfcGaussiano, GfcParams};
use parking_lot::RwLock;

use crate::convert;

/// A published view of the builder's state.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub graph: Cfg,
    pub bins: Vec<(f64, u64)>,
    pub batches: u64,
    pub sampled_instructions: u64,
    pub params: Option<GfcParams>,
}

enum Message {
    Batch(Vec<Retired>),
    Reset(GfcParams),
}

/// The emulation thread's end.
pub struct BuilderHandle {
    tx: Option<Sender<Message>>,
    dropped: Arc<AtomicU64>,
    sent: u64,
    snapshot: Arc<RwLock<Snapshot>>,
    thread: Option<JoinHandle<GfcGaussiano>>,
}

fn bin_view(bins: &[Bin]) -> Vec<(f64, u64)> {
    bins.iter().map(|b| (b.centroid(), b.count())).collect()
}

impl BuilderHandle {
    /// Starts a builder for `params` with a queue of `capacity` batches.
    pub fn spawn(params: GfcParams, capacity: usize, publish_every: u64) -> BuilderHandle {
        let (tx, rx) = bounded::<Message>(capacity.max(1));
        let snapshot = Arc::new(RwLock::new(Snapshot {
            params: Some(params),
            ..Snapshot::default()
        }));
        let published = snapshot.clone();
        let thread = std::thread::Builder::new()
            .name("nesprof-gfc-builder".into())
            .spawn(move || run(params, rx, published, publish_every.max(1)))
            .expect("spawn the GFC builder thread");
        BuilderHandle {
            tx: Some(tx),
            dropped: Arc::new(AtomicU64::new(0)),
            sent: 0,
            snapshot,
            thread: Some(thread),
        }
    }

    /// Offers a batch; never blocks. Returns false if it was dropped.
    pub fn offer(&mut self, batch: Vec<Retired>) -> bool {
        let Some(tx) = &self.tx else { return false };
        match tx.try_send(Message::Batch(batch)) {
            Ok(()) => {
                self.sent += 1;
                true
            }
            Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {
                self.dropped.fetch_add(1, Ordering::Relaxed);
                false
            }
        }
    }

    /// Starts over with new parameters (the overlay's preset keys).
    pub fn reset(&mut self, params: GfcParams) {
        if let Some(tx) = &self.tx {
            // A reset must not be lost: this one may wait for queue space.
            let _ = tx.send(Message::Reset(params));
        }
    }

    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// The latest published state (cheap to clone out under a read lock).
    pub fn snapshot(&self) -> Arc<RwLock<Snapshot>> {
        self.snapshot.clone()
    }

    /// Closes the channel, waits for the builder to finish the queued
    /// batches, and returns its final state.
    pub fn finish(mut self) -> GfcGaussiano {
        self.tx = None;
        self.thread
            .take()
            .and_then(|t| t.join().ok())
            .expect("the GFC builder thread panicked")
    }
}

impl Drop for BuilderHandle {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn publish(gfc: &GfcGaussiano, target: &RwLock<Snapshot>) {
    let snapshot = Snapshot {
        graph: gfc.graph().clone(),
        bins: bin_view(gfc.bins()),
        batches: gfc.counters().batches,
        sampled_instructions: gfc.counters().instructions,
        params: Some(gfc_params(gfc)),
    };
    *target.write() = snapshot;
}

fn gfc_params(gfc: &GfcGaussiano) -> GfcParams {
    *gfc.params()
}

fn run(
    params: GfcParams,
    rx: Receiver<Message>,
    published: Arc<RwLock<Snapshot>>,
    every: u64,
) -> GfcGaussiano {
    let mut gfc = GfcGaussiano::new(params);
    let mut since_publish = 0;
    while let Ok(message) = rx.recv() {
        match message {
            Message::Batch(batch) => {
                gfc.process_batch(&convert::batch(&batch));
                since_publish += 1;
                if since_publish >= every && rx.is_empty() {
                    publish(&gfc, &published);
                    since_publish = 0;
                }
            }
            Message::Reset(p) => {
                gfc = GfcGaussiano::new(p);
                publish(&gfc, &published);
            }
        }
    }
    publish(&gfc, &published);
    gfc
}
