//! Audio synthesis: mixes the five DAC levels whenever one of them changes,
//! feeds the changes as band-limited steps to the [`BlipBuffer`], and filters
//! the samples that come out. Owned by the APU only while audio is enabled,
//! so a headless run without audio does none of this work.

use super::blip::BlipBuffer;
use super::filter::{FilterMode, OutputFilter};
use super::mixer::{Mixer, ALL};

/// The APU closes an audio frame at least this often (CPU cycles), which
/// bounds the blip buffer and the latency of [`Synth::take`].
pub const FRAME_CLOCKS: u64 = 8192;

/// Samples kept for the front-end before the oldest are dropped (seconds).
const MAX_PENDING_SECONDS: f64 = 2.0;

pub struct Synth {
    blip: BlipBuffer,
    mixer: Mixer,
    filter: OutputFilter,
    mask: u8,
    /// The mix as last given to the blip buffer.
    level: f32,
    pending: Vec<f32>,
    max_pending: usize,
    /// Samples dropped because no one took them in time.
    pub dropped: u64,
}

impl Synth {
    pub fn new(clock_rate: f64, sample_rate: u32, mode: FilterMode, start_cycle: u64) -> Synth {
        let rate = sample_rate.max(1) as f64;
        let mut blip = BlipBuffer::new(clock_rate, rate, FRAME_CLOCKS + 64);
        blip.restart_at(start_cycle);
        Synth {
            blip,
            mixer: Mixer::new(),
            filter: OutputFilter::new(mode, rate),
            mask: ALL,
            level: 0.0,
            pending: Vec::new(),
            max_pending: (rate * MAX_PENDING_SECONDS) as usize,
            dropped: 0,
        }
    }

    pub fn set_mask(&mut self, mask: u8) {
        self.mask = mask;
    }

    pub fn set_ratio(&mut self, ratio: f64) {
        self.blip.set_ratio(ratio);
    }

    /// Takes `dacs` as the starting point without a step: audio switched on
    /// mid-run (or at power, with the triangle resting at 15) starts silent
    /// instead of with a pop.
    pub fn prime(&mut self, dacs: [u8; 5]) {
        self.level = self.mixer.mix(dacs, self.mask);
    }

    /// The DAC inputs are now `dacs` as of `cycle`.
    #[inline(always)]
    pub fn update(&mut self, cycle: u64, dacs: [u8; 5]) {
        let level = self.mixer.mix(dacs, self.mask);
        if level != self.level {
            self.blip.add_delta(cycle, level - self.level);
            self.level = level;
        }
    }

    /// Closes the audio frame at `cycle`, moving finished samples to the
    /// pending queue.
    pub fn end_frame(&mut self, cycle: u64) {
        let filter = &mut self.filter;
        let pending = &mut self.pending;
        self.blip.end_frame(cycle, |s| pending.push(filter.run(s)));
        if self.pending.len() > self.max_pending {
            let excess = self.pending.len() - self.max_pending / 2;
            self.pending.drain(..excess);
            self.dropped += excess as u64;
        }
    }

    /// Appends the pending samples to `out`.
    pub fn take(&mut self, out: &mut Vec<f32>) {
        out.append(&mut self.pending);
    }
}
