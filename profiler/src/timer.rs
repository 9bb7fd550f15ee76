//! The wall-clock trigger of count-and-time sampling (thesis 4.1.1): a thread
//! that asks the emulator for a batch every X milliseconds of real time by
//! setting a flag the CPU loop checks. Stops (and joins) when dropped.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub struct WallTimer {
    flag: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<u64>>,
}

impl WallTimer {
    /// Starts requesting a batch every `interval`.
    pub fn start(interval: Duration) -> WallTimer {
        let flag = Arc::new(AtomicBool::new(false));
        let stop = Arc::new(AtomicBool::new(false));
        let (f, s) = (flag.clone(), stop.clone());
        let thread = std::thread::Builder::new()
            .name("nesprof-sample-timer".into())
            .spawn(move || {
                let mut requests = 0;
                let mut next = Instant::now() + interval;
                while !s.load(Ordering::Relaxed) {
                    let now = Instant::now();
                    if next > now {
                        std::thread::sleep(next - now);
                    }
                    next += interval;
                    // Catch up without a burst if the thread was delayed.
                    if Instant::now() > next + interval {
                        next = Instant::now() + interval;
                    }
                    f.store(true, Ordering::Relaxed);
                    requests += 1;
                }
                requests
            })
            .expect("spawn the sampling timer thread");
        WallTimer {
            flag,
            stop,
            thread: Some(thread),
        }
    }

    /// The flag the emulator's sample capture watches.
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.flag.clone()
    }

    /// Stops the thread; returns how many batches it requested.
    pub fn stop(mut self) -> u64 {
        self.shutdown()
    }

    fn shutdown(&mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.thread
            .take()
            .map(|t| t.join().unwrap_or(0))
            .unwrap_or(0)
    }
}

impl Drop for WallTimer {
    fn drop(&mut self) {
        self.shutdown();
    }
}
