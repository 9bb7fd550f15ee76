//! Band-limited step synthesis: turns a signal given as amplitude steps at CPU
//! cycle timestamps into samples at the host rate without aliasing.
//!
//! Why: the APU's output is piecewise constant and changes at up to ~1.8 MHz.
//! Point-sampling it at 48 kHz folds every harmonic above 24 kHz back into the
//! audible band (the "hiss" on high notes). Instead each step is added to the
//! output as a band-limited step: its derivative, a windowed-sinc impulse, is
//! accumulated into a difference buffer at the step's fractional sample
//! position, and reading the buffer integrates it. The cost is one short
//! multiply-add per *change* of the output, none per CPU cycle.
//!
//! Kernel: 16 taps, Kaiser window (β = 8, ≈ -80 dB side lobes), cutoff
//! 0.43 × sample rate, 64 sub-sample phases (≈0.3 µs resolution), each phase
//! normalised to unit DC gain so steps land at exactly their height. The
//! kernel delays the output by 8 samples.
//!
//! The conversion ratio can be nudged between frames (dynamic rate control);
//! a new ratio takes effect at the next [`BlipBuffer::end_frame`] so the steps
//! of one frame share one time base.

const PHASE_BITS: u32 = 6;
const PHASES: usize = 1 << PHASE_BITS;
pub const TAPS: usize = 16;
const FRAC_BITS: u32 = 32;
const CUTOFF: f64 = 0.43;
const KAISER_BETA: f64 = 8.0;

pub struct BlipBuffer {
    clock_rate: f64,
    sample_rate: f64,
    /// Output samples per clock, fixed point with FRAC_BITS fraction bits.
    factor: u64,
    next_factor: u64,
    /// Position of `base_cycle` in `buf`, fixed point.
    offset: u64,
    base_cycle: u64,
    buf: Vec<f32>,
    kernel: Vec<[f32; TAPS]>,
    integrator: f32,
}

/// Modified Bessel function of the first kind, order 0 (series).
fn bessel_i0(x: f64) -> f64 {
    let mut sum = 1.0;
    let mut term = 1.0;
    let half = x / 2.0;
    for k in 1..50 {
        term *= (half / k as f64) * (half / k as f64);
        sum += term;
        if term < sum * 1e-12 {
            break;
        }
    }
    sum
}

fn make_kernel() -> Vec<[f32; TAPS]> {
    let half_width = TAPS as f64 / 2.0;
    let centre = half_width - 0.5;
    let norm = bessel_i0(KAISER_BETA);
    (0..PHASES)
        .map(|phase| {
            let frac = phase as f64 / PHASES as f64;
            let mut taps = [0.0f64; TAPS];
            for (i, tap) in taps.iter_mut().enumerate() {
                let t = i as f64 - frac - centre;
                let x = t / half_width;
                let window = if x.abs() >= 1.0 {
                    0.0
                } else {
                    bessel_i0(KAISER_BETA * (1.0 - x * x).sqrt()) / norm
                };
                let arg = 2.0 * CUTOFF * t;
                let sinc = if arg.abs() < 1e-12 {
                    1.0
                } else {
                    (std::f64::consts::PI * arg).sin() / (std::f64::consts::PI * arg)
                };
                *tap = 2.0 * CUTOFF * sinc * window;
            }
            let sum: f64 = taps.iter().sum();
            let mut out = [0.0f32; TAPS];
            for (o, t) in out.iter_mut().zip(taps) {
                *o = (t / sum) as f32;
            }
            out
        })
        .collect()
}

impl BlipBuffer {
    /// A buffer converting `clock_rate` clocks/s to `sample_rate` samples/s,
    /// holding frames of up to `max_frame_clocks` clocks.
    pub fn new(clock_rate: f64, sample_rate: f64, max_frame_clocks: u64) -> BlipBuffer {
        let mut blip = BlipBuffer {
            clock_rate,
            sample_rate,
            factor: 0,
            next_factor: 0,
            offset: 0,
            base_cycle: 0,
            buf: Vec::new(),
            kernel: make_kernel(),
            integrator: 0.0,
        };
        blip.set_ratio(1.0);
        blip.factor = blip.next_factor;
        // Room for the longest frame at the highest allowed ratio, plus the
        // kernel's tail.
        let samples = (max_frame_clocks as f64 * sample_rate * MAX_RATIO / clock_rate).ceil();
        blip.buf = vec![0.0; samples as usize + TAPS + 4];
        blip
    }

    /// Scales the output rate by `ratio` (clamped to ±5 %) from the next frame.
    pub fn set_ratio(&mut self, ratio: f64) {
        let ratio = ratio.clamp(MIN_RATIO, MAX_RATIO);
        let per_clock = self.sample_rate * ratio / self.clock_rate;
        self.next_factor = (per_clock * (1u64 << FRAC_BITS) as f64).round() as u64;
    }

    /// Starts the time base at `cycle` (no samples before it).
    pub fn restart_at(&mut self, cycle: u64) {
        self.base_cycle = cycle;
        self.offset = 0;
    }

    /// Adds a step of `delta` at clock `cycle` (not before the current frame's
    /// start, and within `max_frame_clocks` of it).
    #[inline(always)]
    pub fn add_delta(&mut self, cycle: u64, delta: f32) {
        let clocks = cycle.saturating_sub(self.base_cycle);
        let pos = self.offset + clocks * self.factor;
        let index = (pos >> FRAC_BITS) as usize;
        let phase = ((pos >> (FRAC_BITS - PHASE_BITS)) as usize) & (PHASES - 1);
        let kernel: &[f32; TAPS] = &self.kernel[phase];
        let window: Option<&mut [f32; TAPS]> = self
            .buf
            .get_mut(index..index + TAPS)
            .and_then(|w| w.try_into().ok());
        if let Some(out) = window {
            // Fixed-size arrays: the compiler emits straight-line SIMD.
            for i in 0..TAPS {
                out[i] += delta * kernel[i];
            }
        }
    }

    /// Ends the frame at clock `cycle`: every sample that no later step can
    /// touch any more is integrated and passed to `sink`.
    pub fn end_frame(&mut self, cycle: u64, mut sink: impl FnMut(f32)) {
        let clocks = cycle.saturating_sub(self.base_cycle);
        let pos = self.offset + clocks * self.factor;
        let count = ((pos >> FRAC_BITS) as usize).min(self.buf.len() - TAPS);
        for &d in &self.buf[..count] {
            self.integrator += d;
            sink(self.integrator);
        }
        self.buf.copy_within(count..count + TAPS, 0);
        self.buf[TAPS..count + TAPS].fill(0.0);
        self.offset = pos - ((count as u64) << FRAC_BITS);
        self.base_cycle = cycle;
        self.factor = self.next_factor;
    }
}

/// Limits of the rate-control nudge.
pub const MIN_RATIO: f64 = 0.95;
pub const MAX_RATIO: f64 = 1.05;

#[cfg(test)]
mod tests {
    use super::*;

    const CLOCK: f64 = 1_789_773.0;

    /// Amplitude of the sine at `freq` Hz in `x` (Hann-windowed Goertzel).
    fn tone(x: &[f32], rate: f64, freq: f64) -> f64 {
        let w = 2.0 * std::f64::consts::PI * freq / rate;
        let n = x.len() as f64;
        let (mut s1, mut s2, mut wsum) = (0.0f64, 0.0f64, 0.0f64);
        for (i, &v) in x.iter().enumerate() {
            let hann = 0.5 - 0.5 * (2.0 * std::f64::consts::PI * i as f64 / n).cos();
            wsum += hann;
            let s = v as f64 * hann + 2.0 * w.cos() * s1 - s2;
            s2 = s1;
            s1 = s;
        }
        let power = s1 * s1 + s2 * s2 - 2.0 * w.cos() * s1 * s2;
        2.0 * power.max(0.0).sqrt() / wsum
    }

    /// The same square wave point-sampled (what band-limiting avoids).
    fn point_sampled(half_period_clocks: u64, seconds: f64) -> Vec<f32> {
        let count = (48000.0 * seconds) as usize;
        (0..count)
            .map(|i| {
                let clock = (i as f64 * CLOCK / 48000.0) as u64;
                if (clock / half_period_clocks).is_multiple_of(2) {
                    0.25
                } else {
                    -0.25
                }
            })
            .collect()
    }

    fn square_wave(half_period_clocks: u64, seconds: f64) -> Vec<f32> {
        let mut blip = BlipBuffer::new(CLOCK, 48000.0, 8192);
        let mut out = Vec::new();
        let end = (CLOCK * seconds) as u64;
        let mut level = 0.5f32;
        let mut next_edge = 0;
        let mut frame_end = 8000;
        while frame_end < end {
            while next_edge < frame_end {
                blip.add_delta(next_edge, level);
                level = -level;
                next_edge += half_period_clocks;
            }
            blip.end_frame(frame_end, |s| out.push(s - 0.25));
            frame_end += 8000;
        }
        out
    }

    #[test]
    fn steps_integrate_to_their_height() {
        let mut blip = BlipBuffer::new(CLOCK, 48000.0, 8192);
        blip.add_delta(100, 0.5);
        let mut out = Vec::new();
        blip.end_frame(4000, |s| out.push(s));
        assert!((out.last().unwrap() - 0.5).abs() < 1e-5);
    }

    #[test]
    fn high_square_wave_has_no_aliases() {
        // 7.1 kHz square: harmonics at 21.3 kHz (kept), 35.5, 49.7 kHz...
        // (removed). Without band-limiting, 35.5 kHz would alias to 12.5 kHz.
        let half = 126; // clocks
        let freq = CLOCK / (2.0 * half as f64);
        let out = square_wave(half, 0.5);
        let x = &out[2000..];
        let fundamental = tone(x, 48000.0, freq);
        let alias = tone(x, 48000.0, 48000.0 - 5.0 * freq);
        let alias2 = tone(x, 48000.0, 7.0 * freq - 48000.0);
        // A 0/0.5 square: fundamental amplitude 4/π × 0.25 = 1/π.
        let expected = std::f64::consts::FRAC_1_PI;
        assert!((fundamental - expected).abs() < 0.02, "{fundamental}");
        assert!(alias < fundamental * 1e-3, "alias {alias} vs {fundamental}");
        assert!(
            alias2 < fundamental * 1e-3,
            "alias {alias2} vs {fundamental}"
        );
        // Point sampling the same wave leaves the alias at about the 5th
        // harmonic's level (1/5 of the fundamental).
        let naive = point_sampled(half, 0.5);
        let naive_alias = tone(&naive[2000..], 48000.0, 48000.0 - 5.0 * freq);
        println!("fundamental {fundamental:.4}, aliases {alias:.2e} {alias2:.2e}, point-sampled alias {naive_alias:.2e}");
        assert!(naive_alias > 100.0 * alias, "{naive_alias} vs {alias}");
    }
}
