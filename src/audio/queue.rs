//! The sample queue between the emulator thread (producer) and the audio
//! device's callback thread (consumer).
//!
//! It is the `ringbuf` crate's lock-free SPSC ring buffer: the device
//! callback runs on a real-time thread where taking a lock or allocating can
//! cause audible drop-outs, and a wait-free ring with one writer and one
//! reader is the standard structure for that. `ringbuf` is small, widely used
//! and tested (including under Miri); writing our own atomics-based ring would
//! add unsafe code for no gain. This wrapper adds what the rest of nesprof
//! needs: the fill level for rate control and an underrun count.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use ringbuf::traits::{Consumer, Observer, Producer, Split};
use ringbuf::{HeapCons, HeapProd, HeapRb};

/// Counters shared by both ends.
#[derive(Debug, Default)]
pub struct QueueStats {
    /// Device callbacks that found fewer samples than they needed.
    pub underruns: AtomicU64,
    /// Samples the producer could not store because the queue was full.
    pub overflowed: AtomicU64,
}

/// The emulator's end.
pub struct QueueWriter {
    prod: HeapProd<f32>,
    stats: Arc<QueueStats>,
}

/// The device's end.
pub struct QueueReader {
    cons: HeapCons<f32>,
    stats: Arc<QueueStats>,
    /// Last sample played, held (fading) through an underrun so a gap is not
    /// a click.
    last: f32,
}

/// A queue holding up to `capacity` samples.
pub fn queue(capacity: usize) -> (QueueWriter, QueueReader) {
    let (prod, cons) = HeapRb::<f32>::new(capacity.max(1)).split();
    let stats = Arc::new(QueueStats::default());
    (
        QueueWriter {
            prod,
            stats: stats.clone(),
        },
        QueueReader {
            cons,
            stats,
            last: 0.0,
        },
    )
}

impl QueueWriter {
    /// Queues as many of `samples` as fit; returns how many did.
    pub fn push(&mut self, samples: &[f32]) -> usize {
        let pushed = self.prod.push_slice(samples);
        if pushed < samples.len() {
            self.stats
                .overflowed
                .fetch_add((samples.len() - pushed) as u64, Ordering::Relaxed);
        }
        pushed
    }

    /// Queued samples as a fraction of the capacity (0.0-1.0).
    pub fn fill_ratio(&self) -> f64 {
        self.prod.occupied_len() as f64 / self.prod.capacity().get() as f64
    }

    pub fn stats(&self) -> &Arc<QueueStats> {
        &self.stats
    }
}

impl QueueReader {
    /// Fills `out` from the queue. Missing samples (an underrun) continue
    /// the last sample, decaying to 0. Returns how many came from the queue.
    pub fn pop_into(&mut self, out: &mut [f32]) -> usize {
        let got = self.cons.pop_slice(out);
        if got > 0 {
            self.last = out[got - 1];
        }
        if got < out.len() {
            self.stats.underruns.fetch_add(1, Ordering::Relaxed);
            for s in &mut out[got..] {
                self.last *= 0.995;
                *s = self.last;
            }
        }
        got
    }

    /// Queued samples.
    pub fn len(&self) -> usize {
        self.cons.occupied_len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_samples_in_order_and_reports_fill() {
        let (mut w, mut r) = queue(8);
        assert_eq!(w.push(&[1.0, 2.0, 3.0, 4.0]), 4);
        assert_eq!(w.fill_ratio(), 0.5);
        let mut out = [0.0; 3];
        assert_eq!(r.pop_into(&mut out), 3);
        assert_eq!(out, [1.0, 2.0, 3.0]);
        assert_eq!(r.len(), 1);
    }

    #[test]
    fn counts_overflow_and_underrun() {
        let (mut w, mut r) = queue(2);
        assert_eq!(w.push(&[0.5, 0.5, 0.5]), 2);
        assert_eq!(w.stats().overflowed.load(Ordering::Relaxed), 1);
        let mut out = [0.0; 4];
        assert_eq!(r.pop_into(&mut out), 2);
        assert_eq!(w.stats().underruns.load(Ordering::Relaxed), 1);
        assert!(out[2] > 0.4 && out[3] < out[2], "held and fading: {out:?}");
    }

    #[test]
    fn works_across_threads() {
        let (mut w, mut r) = queue(1024);
        let producer = std::thread::spawn(move || {
            let mut sent = 0u32;
            while sent < 100_000 {
                let chunk: Vec<f32> = (sent..sent + 100).map(|i| i as f32).collect();
                let n = w.push(&chunk);
                sent += n as u32;
                if n < chunk.len() {
                    std::thread::yield_now();
                }
            }
        });
        let mut expected = 0u32;
        let mut buf = [0.0f32; 64];
        while expected < 100_000 {
            let n = r.cons.pop_slice(&mut buf);
            for &v in &buf[..n] {
                assert_eq!(v, expected as f32);
                expected += 1;
            }
            if n == 0 {
                std::thread::yield_now();
            }
        }
        producer.join().unwrap();
    }
}
