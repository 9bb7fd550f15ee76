//! Dynamic rate control (the scheme byuu described for higan): the emulator
//! produces audio at `sample_rate × ratio`, where
//!
//! ```text
//! ratio = 1 - max_delta × (fill - target) / target
//! ```
//!
//! A queue fuller than its target makes the emulator produce slightly fewer
//! samples per emulated second, an emptier one slightly more. With
//! `max_delta` = 0.5 % the pitch change is inaudible, yet it absorbs the
//! difference between the NES's 60.0988 Hz and a 60 Hz display (0.16 %) or a
//! device clock that is off by a few hundred ppm, so the queue settles near
//! its target instead of draining or overflowing.

/// Proportional controller from queue fill to resampling ratio.
#[derive(Debug, Clone, Copy)]
pub struct RateControl {
    /// Fill (0-1) the controller steers toward.
    pub target_fill: f64,
    /// Largest ratio change, reached at an empty or double-target fill.
    pub max_delta: f64,
}

impl Default for RateControl {
    fn default() -> Self {
        RateControl {
            target_fill: 0.5,
            max_delta: 0.005,
        }
    }
}

impl RateControl {
    /// The resampling ratio to use given the queue's current fill (0-1).
    pub fn ratio(&self, fill: f64) -> f64 {
        let error = ((fill - self.target_fill) / self.target_fill).clamp(-1.0, 1.0);
        1.0 - self.max_delta * error
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Simulates `minutes` of a frame loop paced at `display_hz` producing
    /// NES audio into a queue of `capacity` that a device drains at exactly
    /// `device_rate` in blocks of 512. Returns (min fill, max fill, underruns,
    /// overflows) after the first 5 seconds.
    fn simulate(
        display_hz: f64,
        device_rate: f64,
        minutes: f64,
        control: bool,
    ) -> (f64, f64, u32, u32) {
        const NES_FRAME_HZ: f64 = 60.0988;
        let capacity = 4800.0;
        let block = 512.0;
        let ctl = RateControl::default();
        let mut fill = capacity / 2.0;
        let mut fraction = 0.0;
        let (mut min, mut max, mut under, mut over) = (1.0f64, 0.0f64, 0, 0);
        let mut device_due = 0.0;
        let frames = (minutes * 60.0 * display_hz) as u64;
        for frame in 0..frames {
            // One emulated frame's worth of samples at the controlled ratio.
            let ratio = if control {
                ctl.ratio(fill / capacity)
            } else {
                1.0
            };
            let produced = device_rate * ratio / NES_FRAME_HZ + fraction;
            fraction = produced.fract();
            fill += produced.floor();
            if fill > capacity {
                over += 1;
                fill = capacity;
            }
            // The device pulls whole blocks as its own clock dictates.
            device_due += device_rate / display_hz;
            while device_due >= block {
                device_due -= block;
                if fill < block {
                    under += 1;
                    fill = 0.0;
                } else {
                    fill -= block;
                }
            }
            if frame as f64 > 5.0 * display_hz {
                min = min.min(fill / capacity);
                max = max.max(fill / capacity);
            }
        }
        (min, max, under, over)
    }

    #[test]
    fn ratio_moves_against_the_fill_error() {
        let c = RateControl::default();
        assert_eq!(c.ratio(0.5), 1.0);
        assert!(c.ratio(0.8) < 1.0 && c.ratio(0.2) > 1.0);
        assert!((c.ratio(1.0) - 0.995).abs() < 1e-12);
        assert!((c.ratio(0.0) - 1.005).abs() < 1e-12);
    }

    #[test]
    fn ten_minutes_at_60hz_without_underrun_or_drift() {
        let (min, max, under, over) = simulate(60.0, 48_000.0, 10.0, true);
        assert_eq!((under, over), (0, 0));
        assert!(min > 0.2 && max < 0.8, "fill {min}..{max}");
    }

    #[test]
    fn ten_minutes_with_a_fast_device_clock() {
        // A device 300 ppm fast plus a 59.94 Hz display.
        let (min, max, under, over) = simulate(59.94, 48_014.4, 10.0, true);
        assert_eq!((under, over), (0, 0));
        assert!(min > 0.1 && max < 0.9, "fill {min}..{max}");
    }

    #[test]
    fn without_control_the_queue_drains() {
        let (_, _, under, _) = simulate(60.0, 48_000.0, 10.0, false);
        assert!(under > 0);
    }
}
