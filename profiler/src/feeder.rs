//! The feeder: the thread that feeds sample batches to a hot-CFG builder
//! ([`gfc::HotCfgBuilder`], the algorithm) over a bounded channel, updating
//! the hot CFG incrementally. Batches travel as the emulator recorded them
//! and are converted to samples here, once, on the feeder's core, not the
//! emulation's; when the session keeps the sample stream, the converted
//! batches are kept here too. The emulation side only ever `try_send`s:
//! when the feeder falls behind, the batch is dropped for the builder and
//! counted, and emulation never waits — nor makes a system call, as the
//! feeder polls the queue rather than sleeping on it (see
//! [`POLL_INTERVAL`]). A dropped batch still reaches the stream: it is sent
//! again, for the stream only, ahead of the next offer.
//!
//! The stream, when kept, goes to a [`BatchSink`] as the feeder converts
//! it (the sample-stream file `profile` writes during the run), or into
//! memory for callers that replay it (the sweep); every batch is also
//! tallied per address ([`SampleTally`]). The queue is bounded in bytes
//! ([`MAX_QUEUED_BYTES`]) as well as in offers, and batches the queue
//! could not take wait on the emulation side only up to
//! [`MAX_UNSENT_BYTES`]: beyond that the emulation waits for the feeder
//! rather than let them grow with the run.
//!
//! Batch buffers go round in a circle: the feeder hands each one back
//! once processed ([`Feeder::take_from`] refills it), so the emulation
//! thread allocates nothing per frame.
//!
//! Readers (the live overlay, progress reports) get [`Snapshot`]s published
//! behind a parking_lot lock at most every `publish_every` batches, so the
//! feeder never blocks on them either.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use crossbeam_channel::{bounded, Receiver, Sender, TryRecvError, TrySendError};
use emu::sampling::{Batches, SampleCapture};
use emu::translate::hot_paths::HotPaths;
use gfc::{Cfg, GfcParams, HotCfgBuilder, Sample};
use parking_lot::RwLock;

use crate::convert;
use crate::sink::{BatchSink, SampleTally};

/// Most bytes of batches in the queue (sent, not yet processed by the
/// feeder): past this an offer counts as not taken, as when the queue is
/// full. The queue's bound in offers alone let it hold gigabytes: an offer
/// carries [`OFFER_INTERVAL`] of batches, half a megabyte at a fast rate
/// (X = 0.5 ms, 60× real time), and a feeder slowed by a loaded machine
/// let thousands pile up (the soak test's profile grew by 4 MB). 4 MB is
/// some seconds of batches at the thesis' rates.
pub const MAX_QUEUED_BYTES: usize = 4 << 20;

/// Most bytes of batches kept on the emulation side for the stream while
/// the queue takes none: past this the offer waits for room. The feeder
/// only falls this far behind when its disk or core stalls for seconds;
/// waiting then keeps the stream whole and the memory bounded.
pub const MAX_UNSENT_BYTES: usize = 4 << 20;

/// How long the feeder sleeps when its queue is empty. It polls instead of
/// blocking in `recv` so that no receiver is ever parked on the channel:
/// then `try_send` never has to wake one, and the emulation thread makes no
/// system call per offer (blocking cost it a futex wake every few batches,
/// ~0.1 s of system time per 18000 frames, invisible to callgrind, which
/// counts user-space instructions). At 1 ms the queue holds at most a
/// millisecond of offers — a few frames' worth even at full speed, against
/// a capacity of thousands — and a live view lags by at most that.
pub const POLL_INTERVAL: std::time::Duration = std::time::Duration::from_millis(1);

/// The least time between two offers from [`Feeder::offer_from`].
/// The feeder looks at its queue once per [`POLL_INTERVAL`], so offering
/// after every frame at full speed (~0.2 ms) only costs the emulation
/// thread: each offer moves the channel's and the buffers' cache lines
/// between the cores. 1, 10 and 50 ms measured alike within noise; 10 ms
/// keeps a live view's lag under one displayed frame.
pub const OFFER_INTERVAL: std::time::Duration = std::time::Duration::from_millis(10);

/// Processed buffers the feeder can hand back before it drops the rest.
const RETURNED_BUFFERS: usize = 8;

/// A published view of the builder's state.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// The hot CFG.
    pub graph: Cfg,
    /// Every edge the builder estimated (`HotCfgBuilder::edge_profile`).
    pub profile: Cfg,
    pub bins: Vec<(f64, u64)>,
    pub batches: u64,
    pub sampled_instructions: u64,
    pub params: Option<GfcParams>,
    /// The number [`Feeder::publish_now`] gave the last snapshot asked
    /// for (0 before any).
    pub generation: u64,
    /// The regions' guide derived from the edge profile, when the feeder
    /// was given a [`Guide`] (then `graph`, `profile` and `bins` are left
    /// empty: the guide is all its reader wants).
    pub guide: Option<Arc<HotPaths>>,
}

/// Derives the translator's regions guide from a builder's edge profile,
/// on the feeder's thread ([`Feeder::guide_with`]): the work then stays off
/// the emulation thread, and the snapshot skips what only the other
/// readers want (the hot graph's derivation, about a millisecond on fff).
pub type Guide = Box<dyn FnMut(&Cfg) -> HotPaths + Send>;

enum Message {
    /// For the builder (and the stream, if kept).
    Batches(Batches),
    /// Dropped for the builder earlier, for the stream only.
    StreamOnly(Vec<Batches>),
    /// Start over with this builder.
    Reset(Box<dyn HotCfgBuilder>),
    /// Publish a snapshot of everything before this message, numbered so.
    Publish(u64),
    /// From now on, snapshots carry this guide's result (and no graphs).
    Guide(Guide),
}

/// The heap bytes of a list of buffers.
fn total_bytes(list: &[Batches]) -> usize {
    list.iter().map(Batches::heap_bytes).sum()
}

impl Message {
    /// The bytes of batches it carries ([`MAX_QUEUED_BYTES`]).
    fn bytes(&self) -> usize {
        match self {
            Message::Batches(b) => b.heap_bytes(),
            Message::StreamOnly(list) => total_bytes(list),
            _ => 0,
        }
    }
}

/// What the feeder thread ends with.
pub struct Fed {
    /// The builder, with every batch it was given.
    pub builder: Box<dyn HotCfgBuilder>,
    /// Every batch offered, in order, converted to samples (empty unless the
    /// feeder was asked to keep the stream in memory).
    pub stream: Vec<Vec<Sample>>,
    /// The sink the stream went to, if one was given.
    pub sink: Option<Box<dyn BatchSink>>,
    /// The sink's first error (a full disk): it took no batch after it.
    pub sink_error: Option<std::io::Error>,
    /// Every batch offered, tallied per address.
    pub tally: SampleTally,
}

/// The emulation thread's end.
pub struct Feeder {
    tx: Option<Sender<Message>>,
    /// Buffers the feeder is done with, to be refilled.
    returned: Receiver<Batches>,
    /// A buffer kept here (offered empty, so never sent).
    spare: Option<Batches>,
    /// Keeping the stream: batches the queue could not take, to be sent
    /// again for the stream ahead of the next offer.
    /// Kept as the buffers they came in: appending them to one another
    /// copied them and let the buffer's capacity double past the bound.
    unsent: Vec<Batches>,
    keep_stream: bool,
    last_offer: Instant,
    dropped: Arc<AtomicU64>,
    /// Bytes of batches sent and not yet processed ([`MAX_QUEUED_BYTES`]).
    queued: Arc<AtomicUsize>,
    sent: u64,
    /// The last number [`Feeder::publish_now`] gave.
    generation: u64,
    snapshot: Arc<RwLock<Snapshot>>,
    thread: Option<JoinHandle<Fed>>,
}

impl Feeder {
    /// Starts a feeder thread for `builder` with a queue of `capacity`
    /// offers (each the batches of up to [`OFFER_INTERVAL`], or of one frame
    /// at real-time speed), publishing a snapshot every `publish_every`
    /// batches; with `keep_stream` it also keeps every batch, converted.
    pub fn spawn(
        builder: Box<dyn HotCfgBuilder>,
        capacity: usize,
        publish_every: u64,
        keep_stream: bool,
    ) -> Feeder {
        let stream = if keep_stream {
            Stream::Memory
        } else {
            Stream::Nowhere
        };
        Feeder::spawn_streaming(builder, capacity, publish_every, stream)
    }

    /// [`Feeder::spawn`], with the stream going to `stream`.
    pub fn spawn_streaming(
        builder: Box<dyn HotCfgBuilder>,
        capacity: usize,
        publish_every: u64,
        stream: Stream,
    ) -> Feeder {
        let keep_stream = !matches!(stream, Stream::Nowhere);
        let (tx, rx) = bounded::<Message>(capacity.max(1));
        let (give_back, returned) = bounded::<Batches>(RETURNED_BUFFERS);
        let snapshot = Arc::new(RwLock::new(Snapshot {
            params: builder.params(),
            ..Snapshot::default()
        }));
        let published = snapshot.clone();
        let queued = Arc::new(AtomicUsize::new(0));
        let processed = queued.clone();
        let thread = std::thread::Builder::new()
            .name("nesprof-feeder".into())
            .spawn(move || {
                run(
                    builder,
                    rx,
                    give_back,
                    published,
                    publish_every.max(1),
                    stream,
                    processed,
                )
            })
            .expect("spawn the feeder thread");
        Feeder {
            tx: Some(tx),
            returned,
            spare: None,
            unsent: Vec::new(),
            keep_stream,
            last_offer: Instant::now(),
            dropped: Arc::new(AtomicU64::new(0)),
            queued,
            sent: 0,
            generation: 0,
            snapshot,
            thread: Some(thread),
        }
    }

    /// The batches `sampler` completed since the last call, in a buffer
    /// the feeder handed back when there is one (see
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
    /// before [`Feeder::finish`].
    pub fn flush_from(&mut self, sampler: &mut SampleCapture) -> bool {
        if !sampler.has_batches() {
            return true;
        }
        let batches = self.take_from(sampler);
        self.offer(batches)
    }

    /// Offers batches (all those taken at once: one message, not one per
    /// batch); never blocks unless the stream's unsent batches reached
    /// [`MAX_UNSENT_BYTES`]. Returns false if they were dropped for the
    /// builder (and counted; kept for the stream if it is kept).
    pub fn offer(&mut self, batches: Batches) -> bool {
        if self.tx.is_none() {
            return false;
        }
        if batches.is_empty() {
            self.spare = Some(batches);
            return true;
        }
        let count = batches.len() as u64;
        self.last_offer = Instant::now();
        // Batches dropped earlier go first, so the stream stays in order.
        if !self.unsent.is_empty() {
            let unsent = std::mem::take(&mut self.unsent);
            let bytes = total_bytes(&unsent);
            if bytes + batches.heap_bytes() > MAX_UNSENT_BYTES {
                // Far behind: wait for room rather than grow.
                self.wait_for_room(bytes);
                let _ = self.send(Message::StreamOnly(unsent), true);
            } else if let Err(Message::StreamOnly(mut unsent)) =
                self.send(Message::StreamOnly(unsent), false)
            {
                unsent.push(batches);
                self.unsent = unsent;
                self.dropped.fetch_add(count, Ordering::Relaxed);
                return false;
            }
        }
        match self.send(Message::Batches(batches), false) {
            Ok(()) => {
                self.sent += count;
                true
            }
            Err(message) => {
                self.dropped.fetch_add(count, Ordering::Relaxed);
                if let (true, Message::Batches(batches)) = (self.keep_stream, message) {
                    self.unsent.push(batches);
                }
                false
            }
        }
    }

    /// Sends a message of batches, counting its bytes as queued: with
    /// `wait`, whatever the queue holds; else only when the queue has room
    /// for it in offers and in bytes (an offer alone in the queue always
    /// has room, however large). Gives the message back when not sent.
    fn send(&self, message: Message, wait: bool) -> Result<(), Message> {
        let Some(tx) = &self.tx else {
            return Err(message);
        };
        let bytes = message.bytes();
        let queued = self.queued.load(Ordering::Acquire);
        if !wait && queued > 0 && queued + bytes > MAX_QUEUED_BYTES {
            return Err(message);
        }
        // Counted before it is sent, so the feeder never takes off bytes
        // not yet added.
        self.queued.fetch_add(bytes, Ordering::AcqRel);
        let sent = if wait {
            tx.send(message).map_err(|e| e.into_inner())
        } else {
            tx.try_send(message).map_err(|e| match e {
                TrySendError::Full(m) | TrySendError::Disconnected(m) => m,
            })
        };
        if sent.is_err() {
            self.queued.fetch_sub(bytes, Ordering::AcqRel);
        }
        sent
    }

    /// Waits until the queue has room for `bytes` more (or holds nothing,
    /// or the feeder thread is gone).
    fn wait_for_room(&self, bytes: usize) {
        loop {
            let queued = self.queued.load(Ordering::Acquire);
            let gone = self.thread.as_ref().is_none_or(|t| t.is_finished());
            if queued == 0 || queued + bytes <= MAX_QUEUED_BYTES || gone {
                return;
            }
            std::thread::sleep(POLL_INTERVAL);
        }
    }

    /// Starts over with a new builder (the overlay's preset keys).
    pub fn reset(&mut self, builder: Box<dyn HotCfgBuilder>) {
        if let Some(tx) = &self.tx {
            // A reset must not be lost: this one may wait for queue space.
            let _ = tx.send(Message::Reset(builder));
        }
    }

    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Asks for a snapshot of the builder once every batch offered so far
    /// is in it (whatever `publish_every` says); returns the number its
    /// [`Snapshot::generation`] will carry (`None`: the feeder thread is
    /// gone, and no snapshot will come). It may wait for queue space.
    pub fn publish_now(&mut self) -> Option<u64> {
        self.generation += 1;
        let tx = self.tx.as_ref()?;
        tx.send(Message::Publish(self.generation)).ok()?;
        Some(self.generation)
    }

    /// Makes every snapshot from now on carry `guide`'s result over the
    /// builder's edge profile in place of the graphs ([`Snapshot::guide`]).
    /// It may wait for queue space.
    pub fn guide_with(&mut self, guide: Guide) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(Message::Guide(guide));
        }
    }

    /// The latest published state (cheap to clone out under a read lock).
    pub fn snapshot(&self) -> Arc<RwLock<Snapshot>> {
        self.snapshot.clone()
    }

    /// Closes the channel, waits for the feeder to finish the queued
    /// batches, and returns the builder's final state (and the stream).
    pub fn finish(mut self) -> Fed {
        let unsent = std::mem::take(&mut self.unsent);
        if !unsent.is_empty() {
            // The end of the run: the stream's last batches may wait.
            let _ = self.send(Message::StreamOnly(unsent), true);
        }
        self.tx = None;
        self.thread
            .take()
            .and_then(|t| t.join().ok())
            .expect("the feeder thread panicked")
    }
}

impl Drop for Feeder {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn publish(
    builder: &dyn HotCfgBuilder,
    target: &RwLock<Snapshot>,
    generation: u64,
    guide: Option<&mut Guide>,
) {
    let counters = builder.counters();
    let snapshot = match guide {
        Some(guide) => Snapshot {
            guide: Some(Arc::new(guide(builder.edge_profile()))),
            batches: counters.batches,
            sampled_instructions: counters.instructions,
            params: builder.params(),
            generation,
            ..Snapshot::default()
        },
        None => Snapshot {
            graph: builder.graph().clone(),
            profile: builder.edge_profile().clone(),
            bins: builder.bins(),
            batches: counters.batches,
            sampled_instructions: counters.instructions,
            params: builder.params(),
            generation,
            guide: None,
        },
    };
    *target.write() = snapshot;
}

/// Where the feeder puts the stream (every batch, in order, converted).
pub enum Stream {
    /// Nowhere: only the builder and the tally see the batches.
    Nowhere,
    /// Into memory, returned in [`Fed::stream`] (for replaying it).
    Memory,
    /// Into a sink as it comes, returned in [`Fed::sink`].
    Sink(Box<dyn BatchSink>),
}

/// The feeder's end of the stream.
struct Keeper {
    stream: Stream,
    kept: Vec<Vec<Sample>>,
    error: Option<std::io::Error>,
    tally: SampleTally,
}

impl Keeper {
    /// After the batches of one message.
    fn end_of_group(&mut self) {
        if let Stream::Sink(sink) = &mut self.stream {
            sink.end_of_group();
        }
    }

    fn keep(&mut self, samples: Vec<Sample>) {
        self.tally.add(&samples);
        match &mut self.stream {
            Stream::Nowhere => {}
            Stream::Memory => self.kept.push(samples),
            Stream::Sink(sink) => {
                if self.error.is_none() {
                    if let Err(e) = sink.batch(&samples) {
                        self.error = Some(e);
                    }
                }
            }
        }
    }
}

fn run(
    mut builder: Box<dyn HotCfgBuilder>,
    rx: Receiver<Message>,
    give_back: Sender<Batches>,
    published: Arc<RwLock<Snapshot>>,
    every: u64,
    stream: Stream,
    queued: Arc<AtomicUsize>,
) -> Fed {
    let mut keeper = Keeper {
        stream,
        kept: Vec::new(),
        error: None,
        tally: SampleTally::default(),
    };
    let mut since_publish = 0;
    let mut generation = 0;
    let mut guide: Option<Guide> = None;
    loop {
        let message = match rx.try_recv() {
            Ok(message) => message,
            Err(TryRecvError::Empty) => {
                std::thread::sleep(POLL_INTERVAL);
                continue;
            }
            Err(TryRecvError::Disconnected) => break,
        };
        // Off the queue's count once processed (at the end of this turn).
        let bytes = message.bytes();
        match message {
            Message::Batches(batches) => {
                for batch in batches.iter() {
                    let samples = convert::batch(batch);
                    builder.process_batch(&samples);
                    keeper.keep(samples);
                }
                keeper.end_of_group();
                since_publish += batches.len() as u64;
                if since_publish >= every && rx.is_empty() {
                    publish(builder.as_ref(), &published, generation, guide.as_mut());
                    since_publish = 0;
                }
                // Full (the emulation is not taking them back): drop it.
                let _ = give_back.try_send(batches);
            }
            Message::StreamOnly(list) => {
                for batches in list {
                    for batch in batches.iter() {
                        keeper.keep(convert::batch(batch));
                    }
                    keeper.end_of_group();
                    let _ = give_back.try_send(batches);
                }
            }
            Message::Reset(fresh) => {
                builder = fresh;
                publish(builder.as_ref(), &published, generation, guide.as_mut());
            }
            Message::Guide(given) => guide = Some(given),
            Message::Publish(asked) => {
                generation = asked;
                publish(builder.as_ref(), &published, generation, guide.as_mut());
                since_publish = 0;
            }
        }
        queued.fetch_sub(bytes, Ordering::AcqRel);
    }
    publish(builder.as_ref(), &published, generation, guide.as_mut());
    let sink = match keeper.stream {
        Stream::Sink(sink) => Some(sink),
        _ => None,
    };
    Fed {
        builder,
        stream: keeper.kept,
        sink,
        sink_error: keeper.error,
        tally: keeper.tally,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use emu::sampling::Retired;
    use gfc::gaussiano::Counters;

    /// A builder that takes no batch until told to, as a feeder on a
    /// loaded machine.
    struct Stalled {
        go: crossbeam_channel::Receiver<()>,
        graph: Cfg,
        batches: u64,
    }

    impl HotCfgBuilder for Stalled {
        fn process_batch(&mut self, _batch: &[Sample]) {
            if self.batches == 0 {
                let _ = self.go.recv();
            }
            self.batches += 1;
        }
        fn graph(&self) -> &Cfg {
            &self.graph
        }
        fn counters(&self) -> Counters {
            Counters {
                batches: self.batches,
                ..Counters::default()
            }
        }
    }

    fn stalled() -> (Box<dyn HotCfgBuilder>, crossbeam_channel::Sender<()>) {
        let (go, wait) = crossbeam_channel::bounded(1);
        let builder = Stalled {
            go: wait,
            graph: Cfg::new(),
            batches: 0,
        };
        (Box::new(builder), go)
    }

    /// An offer of about a megabyte: 40,000 records in one batch.
    fn megabyte(n: u64) -> Batches {
        let record = Retired {
            pc: 0x8000,
            opcode: Some(0xEA),
            next_pc: 0x8001,
            target: 0x8001,
            cycle: n,
        };
        let mut batches = Batches::default();
        batches.push(&vec![record; 40_000]);
        batches
    }

    #[test]
    fn a_stalled_feeder_queues_a_bounded_number_of_bytes() {
        let (builder, go) = stalled();
        let mut feeder = Feeder::spawn(builder, 4096, u64::MAX, false);
        let size = megabyte(0).heap_bytes();
        for n in 0..64 {
            feeder.offer(megabyte(n));
            let queued = feeder.queued.load(Ordering::Acquire);
            assert!(queued <= MAX_QUEUED_BYTES + size, "{queued} bytes queued");
        }
        // The offers past the bound were dropped, not queued.
        assert!(feeder.dropped() >= 64 - (MAX_QUEUED_BYTES / size) as u64 - 1);
        assert_eq!(feeder.sent + feeder.dropped(), 64);
        let sent = feeder.sent;
        go.send(()).unwrap();
        let fed = feeder.finish();
        // What was queued was all processed.
        assert_eq!(fed.builder.counters().batches, sent);
    }

    #[test]
    fn a_stalled_feeder_keeps_the_whole_stream_in_bounded_memory() {
        let (builder, go) = stalled();
        let mut feeder = Feeder::spawn(builder, 4096, u64::MAX, true);
        let size = megabyte(0).heap_bytes();
        // The feeder resumes a while after the emulation side had to wait.
        let release = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(200));
            go.send(()).unwrap();
        });
        for n in 0..32 {
            feeder.offer(megabyte(n));
            let queued = feeder.queued.load(Ordering::Acquire);
            let unsent = total_bytes(&feeder.unsent);
            assert!(queued <= MAX_QUEUED_BYTES + size, "{queued} bytes queued");
            assert!(unsent <= MAX_UNSENT_BYTES + size, "{unsent} bytes unsent");
        }
        release.join().unwrap();
        let fed = feeder.finish();
        // Every batch reached the stream, in order.
        let cycles: Vec<u64> = fed.stream.iter().map(|b| b[0].cycle).collect();
        assert_eq!(cycles, (0..32).collect::<Vec<_>>());
    }
}
