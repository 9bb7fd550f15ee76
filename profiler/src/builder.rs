//! The builder thread: receives sample batches over a bounded channel and
//! feeds them to GFCGaussiano, updating the hot CFG incrementally. Batches
//! travel as the emulator recorded them and are converted to samples here,
//! on the builder's core, not the emulation's. The emulation side only ever
//! `try_send`s: when the builder falls behind, the batch is dropped and
//! counted, and emulation never waits — nor makes a system call, as the
//! builder polls the queue rather than sleeping on it (see
//! [`POLL_INTERVAL`]).
//!
//! Readers (the live overlay, progress reports) get [`Snapshot`]s published
//! behind a parking_lot lock at most every `publish_every` batches, so the
//! builder never blocks on them either.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::{bounded, Receiver, Sender, TryRecvError, TrySendError};
use emu::sampling::Batches;
use gfc::{Bin, Cfg, GfcGaussiano, GfcParams};
use parking_lot::RwLock;

use crate::convert;

/// How long the builder sleeps when its queue is empty. It polls instead of
/// blocking in `recv` so that no receiver is ever parked on the channel:
/// then `try_send` never has to wake one, and the emulation thread makes no
/// system call per offer (blocking cost it a futex wake every few batches,
/// ~0.1 s of system time per 18000 frames, invisible to callgrind, which
/// counts user-space instructions). At 1 ms the queue holds at most a
/// millisecond of offers — a few frames' worth even at full speed, against
/// a capacity of thousands — and a live view lags by at most that.
const POLL_INTERVAL: std::time::Duration = std::time::Duration::from_millis(1);

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
    Batches(Batches),
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
    /// Starts a builder for `params` with a queue of `capacity` offers (each
    /// one frame's batches when offered per frame).
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

    /// Offers batches (a frame's worth: one message, not one per batch);
    /// never blocks. Returns false if they were dropped (and counted).
    pub fn offer(&mut self, batches: Batches) -> bool {
        let Some(tx) = &self.tx else { return false };
        if batches.is_empty() {
            return true;
        }
        let count = batches.len() as u64;
        match tx.try_send(Message::Batches(batches)) {
            Ok(()) => {
                self.sent += count;
                true
            }
            Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {
                self.dropped.fetch_add(count, Ordering::Relaxed);
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
    loop {
        let message = match rx.try_recv() {
            Ok(message) => message,
            Err(TryRecvError::Empty) => {
                std::thread::sleep(POLL_INTERVAL);
                continue;
            }
            Err(TryRecvError::Disconnected) => break,
        };
        match message {
            Message::Batches(batches) => {
                for batch in batches.iter() {
                    gfc.process_batch(&convert::batch(batch));
                }
                since_publish += batches.len() as u64;
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
