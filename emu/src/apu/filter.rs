//! The output filters of the NES-001's audio path (NESdev wiki "APU Mixer"
//! § Emulation): first-order high-pass at 90 Hz and 440 Hz and low-pass at
//! 14 kHz, applied at the output sample rate. The high-passes also remove the
//! mixer's DC offset, so silence is 0.

#[derive(Debug, Clone)]
struct HighPass {
    alpha: f32,
    prev_in: f32,
    prev_out: f32,
}

impl HighPass {
    fn new(cutoff_hz: f64, sample_rate: f64) -> HighPass {
        let rc = 1.0 / (2.0 * std::f64::consts::PI * cutoff_hz);
        let dt = 1.0 / sample_rate;
        HighPass {
            alpha: (rc / (rc + dt)) as f32,
            prev_in: 0.0,
            prev_out: 0.0,
        }
    }

    #[inline]
    fn run(&mut self, x: f32) -> f32 {
        let y = self.alpha * (self.prev_out + x - self.prev_in);
        self.prev_in = x;
        self.prev_out = y;
        y
    }
}

#[derive(Debug, Clone)]
struct LowPass {
    alpha: f32,
    prev_out: f32,
}

impl LowPass {
    fn new(cutoff_hz: f64, sample_rate: f64) -> LowPass {
        let rc = 1.0 / (2.0 * std::f64::consts::PI * cutoff_hz);
        let dt = 1.0 / sample_rate;
        LowPass {
            alpha: (dt / (rc + dt)) as f32,
            prev_out: 0.0,
        }
    }

    #[inline]
    fn run(&mut self, x: f32) -> f32 {
        self.prev_out += self.alpha * (x - self.prev_out);
        self.prev_out
    }
}

/// Which output filtering to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FilterMode {
    /// 90 Hz and 440 Hz high-pass, 14 kHz low-pass, like the NES-001.
    #[default]
    Nes,
    /// Only a 10 Hz DC blocker (flat response; used by measurements).
    DcBlock,
}

#[derive(Debug, Clone)]
pub struct OutputFilter {
    high: Vec<HighPass>,
    low: Option<LowPass>,
}

impl OutputFilter {
    pub fn new(mode: FilterMode, sample_rate: f64) -> OutputFilter {
        match mode {
            FilterMode::Nes => OutputFilter {
                high: vec![
                    HighPass::new(90.0, sample_rate),
                    HighPass::new(440.0, sample_rate),
                ],
                low: Some(LowPass::new(14_000.0, sample_rate)),
            },
            FilterMode::DcBlock => OutputFilter {
                high: vec![HighPass::new(10.0, sample_rate)],
                low: None,
            },
        }
    }

    #[inline]
    pub fn run(&mut self, x: f32) -> f32 {
        let mut y = x;
        for hp in &mut self.high {
            y = hp.run(y);
        }
        match &mut self.low {
            Some(lp) => lp.run(y),
            None => y,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_dc() {
        let mut f = OutputFilter::new(FilterMode::Nes, 48000.0);
        let mut y = 1.0;
        for _ in 0..48000 {
            y = f.run(0.7);
        }
        assert!(y.abs() < 1e-4, "{y}");
    }
}
