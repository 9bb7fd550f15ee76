//! A computation the overlay refreshes about once a second on its own
//! thread, because it takes milliseconds of a 16.7 ms frame: the live
//! metrics (`truth.rs`) and the memory view (`memory_worker.rs`).
//!
//! The emulation thread never waits on it: it submits a copy of its input
//! only when the worker is idle, and reads the newest result behind a lock
//! it only ever `try_lock`s. The copy goes into the buffers of the previous
//! input, which the worker hands back: allocating megabytes afresh each
//! time cost the emulation thread page faults, now and then several
//! milliseconds. Results carry the epoch they were asked in, so those of a
//! graph or profile that started over since are dropped.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::Arc;
use std::thread::JoinHandle;

use parking_lot::Mutex;

/// The worker for inputs `I` (buffers that are copied into) and results
/// `R`.
pub struct Background<I, R> {
    /// Inputs with the frame they were copied at and their epoch.
    tx: Option<SyncSender<(I, u64, u64)>>,
    /// Inputs the worker is done with, to copy the next one into.
    spare_rx: Receiver<I>,
    spare: Option<I>,
    busy: Arc<AtomicBool>,
    /// The newest result and the epoch it was asked in.
    result: Arc<Mutex<Option<(u64, R)>>>,
    epoch: u64,
    latest: Option<R>,
    thread: Option<JoinHandle<()>>,
}

impl<I: Send + 'static, R: Send + 'static> Background<I, R> {
    /// A thread named `name` turning each input, copied at a frame, into a
    /// result with `work`.
    pub fn spawn(name: &str, mut work: impl FnMut(&I, u64) -> R + Send + 'static) -> Self {
        let (tx, rx) = sync_channel::<(I, u64, u64)>(1);
        let (spare_tx, spare_rx) = sync_channel::<I>(1);
        let busy = Arc::new(AtomicBool::new(false));
        let result = Arc::new(Mutex::new(None));
        let (done, slot) = (busy.clone(), result.clone());
        let thread = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                while let Ok((input, frame, epoch)) = rx.recv() {
                    let r = work(&input, frame);
                    *slot.lock() = Some((epoch, r));
                    // The buffers go back before the worker reports idle,
                    // so the next submit finds them.
                    let _ = spare_tx.try_send(input);
                    done.store(false, Ordering::Release);
                }
            })
            .unwrap_or_else(|e| panic!("spawn the overlay's {name} thread: {e}"));
        Background {
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

    /// Whether a submitted input would be taken now.
    pub fn idle(&self) -> bool {
        !self.busy.load(Ordering::Acquire)
    }

    /// The buffers of an earlier input, to copy the next one into.
    pub fn take_spare(&mut self) -> Option<I> {
        if let Ok(back) = self.spare_rx.try_recv() {
            self.spare = Some(back);
        }
        self.spare.take()
    }

    /// Hands the worker `input`, copied at `frame` (call only when
    /// [`Background::idle`]); false if it was not taken (its buffers are
    /// kept for the next time).
    pub fn submit(&mut self, input: I, frame: u64) -> bool {
        let Some(tx) = &self.tx else {
            self.spare = Some(input);
            return false;
        };
        self.busy.store(true, Ordering::Release);
        match tx.try_send((input, frame, self.epoch)) {
            Ok(()) => true,
            Err(TrySendError::Full((input, ..)) | TrySendError::Disconnected((input, ..))) => {
                self.busy.store(false, Ordering::Release);
                self.spare = Some(input);
                false
            }
        }
    }

    /// The newest result of the current epoch, if any.
    pub fn latest(&mut self) -> Option<&R> {
        if let Some(mut guard) = self.result.try_lock() {
            if let Some((epoch, r)) = guard.take() {
                if epoch == self.epoch {
                    self.latest = Some(r);
                }
            }
        }
        self.latest.as_ref()
    }

    /// Sets the result directly (the headless path computes it in place);
    /// one still being computed is dropped.
    pub fn set(&mut self, r: R) {
        self.epoch += 1;
        self.latest = Some(r);
    }

    /// Forgets the result: what it was computed from started over.
    pub fn reset(&mut self) {
        self.epoch += 1;
        self.latest = None;
    }
}

impl<I, R> Drop for Background<I, R> {
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
    use std::time::{Duration, Instant};

    fn wait_for<R: Clone + Send + 'static>(b: &mut Background<Vec<u8>, R>) -> R {
        let start = Instant::now();
        loop {
            if b.idle() {
                if let Some(r) = b.latest() {
                    return r.clone();
                }
            }
            assert!(start.elapsed() < Duration::from_secs(10), "no result");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn results_come_back_and_buffers_are_reused() {
        let mut b = Background::spawn("test", |input: &Vec<u8>, frame| (input.len(), frame));
        assert!(b.submit(vec![0; 10], 7));
        assert_eq!(wait_for(&mut b), (10, 7));
        let spare = b.take_spare().expect("the input came back");
        assert_eq!(spare.len(), 10);
        assert!(b.submit(spare, 8));
        assert_eq!(wait_for(&mut b), (10, 8));
    }

    #[test]
    fn a_reset_drops_results_asked_before_it() {
        let mut b = Background::spawn("test", |input: &Vec<u8>, _| input.len());
        assert!(b.submit(vec![0; 3], 0));
        b.reset();
        let start = Instant::now();
        while !b.idle() {
            assert!(start.elapsed() < Duration::from_secs(10));
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(b.latest(), None);
        b.set(5);
        assert_eq!(b.latest(), Some(&5));
    }
}
