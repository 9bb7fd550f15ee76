//! The builder thread: receives sample batches over a bounded channel and
//! feeds them to GFCGaussiano, updating the hot CFG incrementally. Batches
//! travel as the emulator recorded them and are converted to samples here,
//! on the builder's core, not the emulation's. The emulation side only ever
//! `try_send`s: when the builder falls behind, the batch is dropped and
//! counted, and emulation never waits — nor makes a system call, as the
//! builder polls the queue rather than sleeping on it (see
//! [`POLL_INTERVAL`]).
//!
//! Batch buffers go round in a circle: the builder hands each one back
//! once processed ([`BuilderHandle::take_from`] refills it), so the
//! emulation thread allocates nothing per frame.
//!
//! Readers (the live overlay, progress reports) get [`Snapshot`]s published
//! behind a parking_lot lock at most every `publish_every` batches, so the
//! builder never blocks on them either.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use crossbeam_channel::{bounded, Receiver, Sender, TryRecvError, TrySendError};
use emu::sampling::{Batches, SampleCapture};
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
pub const POLL_INTERVAL: std::time::Duration = std::time::Duration::from_millis(1);

/// The least time between two offers from [`BuilderHandle::offer_from`].
/// The builder looks at its queue once per [`POLL_INTERVAL`], so offering
/// after every frame at full speed (~0.2 ms) only costs the emulation
/// thread: each offer moves the channel's and the buffers' cache lines
/// between the cores. 1, 10 and 50 ms measured alike within noise; 10 ms
/// keeps a live view's lag under one displayed frame.
pub const OFFER_INTERVAL: std::time::Duration = std::time::Duration::from_millis(10);

/// Processed buffers the builder can hand back before it drops the rest.
const RETURNED_BUFFERS: usize = 8;

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
    /// Buffers the builder is done with, to be refilled.
    returned: Receiver<Batches>,
    /// A buffer kept here (offered empty, so never sent).
    spare: Option<Batches>,
    last_offer: Instant,
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
    /// the batches of up to [`OFFER_INTERVAL`], or of one frame at real-time
    /// speed).
    pub fn spawn(params: GfcParams, capacity: usize, publish_every: u64) -> BuilderHandle {
        let (tx, rx) = bounded::<Message>(capacity.max(1));
        let (give_back, returned) = bounded::<Batches>(RETURNED_BUFFERS);
        let snapshot = Arc::new(RwLock::new(Snapshot {
            params: Some(params),
            ..Snapshot::default()
        }));
        let published = snapshot.clone();
        let thread = std::thread::Builder::new()
            .name("nesprof-gfc-builder".into())
            .spawn(move || run(params, rx, give_back, published, publish_every.max(1)))
            .expect("spawn the GFC builder thread");
        BuilderHandle {
            tx: Some(tx),
            returned,
            spare: None,
            last_offer: Instant::now(),
            dropped: Arc::new(AtomicU64::new(0)),
            sent: 0,
            snapshot,
            thread: Some(thread),
        }
    }

    /// The batches `sampler` completed since the last call, in a buffer
    /// the builder handed back when there is one (see
    /// [`SampleCapture::take_batches_into`]).
    pub fn take_from(&mut self, sampler: &mut SampleCapture) -> Batches {
        let mut buffer = self
            .spare
            .take()
            .or_else(|| self.returned.try_recv().ok())
            .unwrap_or_default();
        sampler.take_batches_into(&mut buffer);
        buffer
    }

    /// What to call after each frame: offers `sampler`'s completed batches
    /// if [`OFFER_INTERVAL`] has passed since the last offer (else they wait
    /// in the sampler). Returns false if they were dropped.
    pub fn offer_from(&mut self, sampler: &mut SampleCapture) -> bool {
        !self.offer_due() || self.flush_from(sampler)
    }

    /// Whether [`OFFER_INTERVAL`] has passed since the last offer.
    pub fn offer_due(&self) -> bool {
        self.last_offer.elapsed() >= OFFER_INTERVAL
    }

    /// Offers every batch `sampler` completed, now: at the end of a run,
    /// before [`BuilderHandle::finish`].
    pub fn flush_from(&mut self, sampler: &mut SampleCapture) -> bool {
        if !sampler.has_batches() {
            return true;
        }
        let batches = self.take_from(sampler);
        self.offer(batches)
    }

    /// Offers batches (all those taken at once: one message, not one per
    /// batch); never blocks. Returns false if they were dropped (and
    /// counted).
    pub fn offer(&mut self, batches: Batches) -> bool {
        let Some(tx) = &self.tx else { return false };
        if batches.is_empty() {
            self.spare = Some(batches);
            return true;
        }
        let count = batches.len() as u64;
        self.last_offer = Instant::now();
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
    give_back: Sender<Batches>,
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
                // Full (the emulation is not taking them back): drop it.
                let _ = give_back.try_send(batches);
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
