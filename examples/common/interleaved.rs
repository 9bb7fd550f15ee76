//! Timing two machines A/B by interleaving (shared by `sampler_wall` and
//! `regions_wall`): both advance in alternating slices of frames, the order
//! flipping every slice, each slice timed on its own. On a shared machine
//! whose speed drifts by tens of percent from run to run, the drift then
//! falls on both sides alike.

use std::time::{Duration, Instant};

/// Frames in one slice.
pub const SLICE_FRAMES: u64 = 30;

/// The times of the two sides, and each slice's ratio.
#[derive(Default)]
pub struct Interleaved {
    pub a: Duration,
    pub b: Duration,
    ratios: Vec<f64>,
    slices: usize,
}

impl Interleaved {
    /// Runs one slice of each side (`a` first in every other slice).
    pub fn slice(&mut self, mut a: impl FnMut(), mut b: impl FnMut()) {
        let mut pair = [Duration::ZERO; 2];
        for turn in 0..2 {
            let start = Instant::now();
            if (turn + self.slices).is_multiple_of(2) {
                a();
                pair[0] = start.elapsed();
            } else {
                b();
                pair[1] = start.elapsed();
            }
        }
        self.a += pair[0];
        self.b += pair[1];
        self.ratios
            .push(pair[1].as_secs_f64() / pair[0].as_secs_f64());
        self.slices += 1;
    }

    /// How much longer B took than A, in percent of A's time.
    pub fn change_pct(&self) -> f64 {
        (self.b.as_secs_f64() / self.a.as_secs_f64() - 1.0) * 100.0
    }

    /// The mean of the slices' B/A ratios with the 10 % highest and lowest
    /// dropped, as a change in percent: a hiccup of the machine cannot
    /// move it.
    pub fn trimmed_pct(&self) -> f64 {
        let mut ratios = self.ratios.clone();
        ratios.sort_by(f64::total_cmp);
        let cut = ratios.len() / 10;
        let kept = &ratios[cut..ratios.len() - cut];
        (kept.iter().sum::<f64>() / kept.len().max(1) as f64 - 1.0) * 100.0
    }
}
