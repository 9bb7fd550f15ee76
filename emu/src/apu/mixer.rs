//! The non-linear mixer (NESdev wiki "APU Mixer", lookup-table form):
//!
//! ```text
//! pulse_out = 95.52 / (8128 / (pulse1 + pulse2) + 100)
//! tnd_out   = 163.67 / (24329 / (3 triangle + 2 noise + dmc) + 100)
//! ```
//!
//! Both are 0 when their inputs are 0. The sum lies in 0.0..~1.0. The pulses
//! share one resistor network and the other three another, which is why a
//! channel's loudness depends on what the others in its group are doing; the
//! apu_mixer tests cancel each channel against the DMC on exactly that basis.

/// Channel mask bits for [`Mixer::mix`] (1 = audible).
pub const PULSE1: u8 = 0x01;
pub const PULSE2: u8 = 0x02;
pub const TRIANGLE: u8 = 0x04;
pub const NOISE: u8 = 0x08;
pub const DMC: u8 = 0x10;
pub const ALL: u8 = 0x1F;

#[derive(Debug, Clone)]
pub struct Mixer {
    pulse: [f32; 31],
    tnd: [f32; 203],
}

impl Default for Mixer {
    fn default() -> Self {
        Mixer::new()
    }
}

/// The wiki's pulse formula for `n` = pulse1 + pulse2 (0-30).
pub fn pulse_level(n: u32) -> f64 {
    if n == 0 {
        0.0
    } else {
        95.52 / (8128.0 / n as f64 + 100.0)
    }
}

/// The wiki's triangle/noise/DMC formula for `n` = 3t + 2n + d (0-202).
pub fn tnd_level(n: u32) -> f64 {
    if n == 0 {
        0.0
    } else {
        163.67 / (24329.0 / n as f64 + 100.0)
    }
}

impl Mixer {
    pub fn new() -> Mixer {
        let mut mixer = Mixer {
            pulse: [0.0; 31],
            tnd: [0.0; 203],
        };
        for (n, v) in mixer.pulse.iter_mut().enumerate() {
            *v = pulse_level(n as u32) as f32;
        }
        for (n, v) in mixer.tnd.iter_mut().enumerate() {
            *v = tnd_level(n as u32) as f32;
        }
        mixer
    }

    /// Mixes DAC inputs (pulses and noise 0-15, triangle 0-15, DMC 0-127),
    /// silencing the channels whose bit in `mask` is clear.
    #[inline(always)]
    pub fn mix(&self, dacs: [u8; 5], mask: u8) -> f32 {
        // All-ones or all-zeros per channel: no branches in the hot path.
        let on = |bit: u8, v: u8| (v & 0u8.wrapping_sub((mask & bit != 0) as u8)) as usize;
        let p = on(PULSE1, dacs[0]) + on(PULSE2, dacs[1]);
        let tnd = 3 * on(TRIANGLE, dacs[2]) + 2 * on(NOISE, dacs[3]) + on(DMC, dacs[4]);
        self.pulse[p.min(30)] + self.tnd[tnd.min(202)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_scale_is_about_one() {
        let m = Mixer::new();
        let max = m.mix([15, 15, 15, 15, 127], ALL);
        assert!((max - 1.0).abs() < 0.01, "{max}");
        assert_eq!(m.mix([0; 5], ALL), 0.0);
    }

    #[test]
    fn pulses_are_not_linear() {
        let m = Mixer::new();
        let one = m.mix([15, 0, 0, 0, 0], ALL);
        let two = m.mix([15, 15, 0, 0, 0], ALL);
        assert!(two < 2.0 * one * 0.9, "{one} {two}");
    }

    #[test]
    fn mask_silences_a_channel() {
        let m = Mixer::new();
        assert_eq!(m.mix([0, 0, 0, 0, 64], ALL & !DMC), 0.0);
    }
}
