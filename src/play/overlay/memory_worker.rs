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
//! The profile has no copy into an existing buffer, so it is cloned anew;
//! the worker hands the last copy back and the emulation thread frees it
//! just before cloning, so the allocator gives the same memory back. Freed
//! on the worker instead, a second later, the copy cost fff's emulation
//! thread 2.4–3.8 ms (fresh pages faulted in each time) instead of 0.4 ms.

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
    /// Count buffers and profile copies the worker is done with: the one
    /// to copy into, the other to free before the next copy.
    spare_rx: Receiver<(Box<FlowCounts>, Box<MemoryProfile>)>,
    spare: Option<Box<FlowCounts>>,
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
        if let Ok((counts, memory)) = self.spare_rx.try_recv() {
            self.spare = Some(counts);
            drop(memory);
        }
        let Some(counts) = nes.flow_counts() else {
            return false;
        };
        let counts = match self.spare.take() {
            Some(mut buffer) => {
                buffer.copy_from(counts);
                buffer
            }
            None => Box::new(counts.clone()),
        };
        let Some(memory) = nes.memory_profile() else {
            self.spare = Some(counts);
            return false;
        };
        let job = Job {
            counts,
            memory: Box::new(memory.clone()),
            frame,
            epoch: self.epoch,
        };
        self.busy.store(true, Ordering::Release);
        if let Err(e) = tx.try_send(job) {
            self.busy.store(false, Ordering::Release);
            let (TrySendError::Full(job) | TrySendError::Disconnected(job)) = e;
            self.spare = Some(job.counts);
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
