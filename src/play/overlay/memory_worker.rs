//! The memory view's refreshes (`memory.rs`), off the emulation thread.
//!
//! A refresh analyses the whole memory profile and builds the exact CFG to
//! name its blocks: 1 ms on tracker, 10–15 ms on fff, most of a 16.7 ms
//! frame. So, as the live metrics do (`truth.rs`), about once a second the
//! emulation thread copies what the analysis reads — the flow counts
//! (their call stacks and the CFG) into a buffer the worker hands back, and
//! the memory profile — and only if the worker is idle; the worker makes
//! the [`Picture`] and leaves it behind a lock the emulation thread only
//! ever `try_lock`s.
//!
//! Both are copied into the buffers of the previous copies, which the
//! worker hands back (`FlowCounts::copy_from`, `MemoryProfile::copy_from`):
//! a fresh clone of the profile each time, its pages faulted in anew, cost
//! fff's emulation thread 2.4–3.8 ms instead of 0.4 ms.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::Arc;
use std::thread::JoinHandle;

use emu::flow_counts::FlowCounts;
use emu::memory_profile::MemoryProfile;
use emu::Nes;
use parking_lot::Mutex;
use profiler::symbols::Symbols;

use super::memory::{self, Picture};
use super::panel::Layout;

struct Job {
    counts: Box<FlowCounts>,
    memory: Box<MemoryProfile>,
    frame: u64,
    epoch: u64,
}

pub struct MemoryWorker {
    tx: Option<SyncSender<Job>>,
    /// Count and profile buffers the worker is done with, to copy into.
    spare_rx: Receiver<(Box<FlowCounts>, Box<MemoryProfile>)>,
    spare: Option<(Box<FlowCounts>, Box<MemoryProfile>)>,
    busy: Arc<AtomicBool>,
    /// The newest picture and the epoch it was made in.
    result: Arc<Mutex<Option<(u64, Picture)>>>,
    /// Bumped when the profile starts over: pictures of the old one are
    /// dropped.
    epoch: u64,
    latest: Option<Picture>,
    thread: Option<JoinHandle<()>>,
}

impl MemoryWorker {
    /// A worker making pictures for the panel `layout`, naming code and
    /// data by `symbols`.
    pub fn spawn(layout: Layout, symbols: Option<Arc<Symbols>>) -> MemoryWorker {
        let (tx, rx) = sync_channel::<Job>(1);
        let (spare_tx, spare_rx) = sync_channel(1);
        let busy = Arc::new(AtomicBool::new(false));
        let result = Arc::new(Mutex::new(None));
        let (b, r) = (busy.clone(), result.clone());
        let thread = std::thread::Builder::new()
            .name("nesprof-overlay-memory".into())
            .spawn(move || work(rx, spare_tx, layout, symbols, b, r))
            .expect("spawn the overlay's memory thread");
        MemoryWorker {
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

    /// Whether a new refresh would be taken now.
    pub fn idle(&self) -> bool {
        !self.busy.load(Ordering::Acquire)
    }

    /// Hands the worker copies of `nes`'s flow counts and memory profile
    /// (call only when [`idle`]); false if it records none (the session
    /// ended).
    ///
    /// [`idle`]: MemoryWorker::idle
    pub fn submit(&mut self, nes: &mut Nes, frame: u64) -> bool {
        let Some(tx) = &self.tx else { return false };
        if let Ok(buffers) = self.spare_rx.try_recv() {
            self.spare = Some(buffers);
        }
        if nes.memory_profile().is_none() {
            return false;
        }
        let Some(counts) = nes.flow_counts() else {
            return false;
        };
        let (counts, memory) = match self.spare.take() {
            Some((mut counts_buffer, mut memory_buffer)) => {
                counts_buffer.copy_from(counts);
                if let Some(memory) = nes.memory_profile() {
                    memory_buffer.copy_from(memory);
                }
                (counts_buffer, memory_buffer)
            }
            None => {
                let counts = Box::new(counts.clone());
                let Some(memory) = nes.memory_profile() else {
                    return false;
                };
                (counts, Box::new(memory.clone()))
            }
        };
        let job = Job {
            counts,
            memory,
            frame,
            epoch: self.epoch,
        };
        self.busy.store(true, Ordering::Release);
        if let Err(e) = tx.try_send(job) {
            self.busy.store(false, Ordering::Release);
            let (TrySendError::Full(job) | TrySendError::Disconnected(job)) = e;
            self.spare = Some((job.counts, job.memory));
            return false;
        }
        true
    }

    /// The newest picture of the current profile, if any.
    pub fn latest(&mut self) -> Option<&Picture> {
        if let Some(mut guard) = self.result.try_lock() {
            if let Some((epoch, picture)) = guard.take() {
                if epoch == self.epoch {
                    self.latest = Some(picture);
                }
            }
        }
        self.latest.as_ref()
    }

    /// Sets the picture directly (the headless path makes it in place);
    /// one still being made is dropped.
    pub fn set(&mut self, picture: Picture) {
        self.epoch += 1;
        self.latest = Some(picture);
    }

    /// Forgets the picture: the profile started over.
    pub fn reset(&mut self) {
        self.epoch += 1;
        self.latest = None;
    }
}

fn work(
    rx: Receiver<Job>,
    spare: SyncSender<(Box<FlowCounts>, Box<MemoryProfile>)>,
    layout: Layout,
    symbols: Option<Arc<Symbols>>,
    busy: Arc<AtomicBool>,
    result: Arc<Mutex<Option<(u64, Picture)>>>,
) {
    while let Ok(job) = rx.recv() {
        let picture = memory::picture(
            &layout,
            symbols.as_deref(),
            &job.memory,
            &job.counts,
            job.frame,
        );
        *result.lock() = Some((job.epoch, picture));
        // Both go back before the worker reports idle, so the next submit
        // finds them.
        let _ = spare.try_send((job.counts, job.memory));
        busy.store(false, Ordering::Release);
    }
}

impl Drop for MemoryWorker {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
