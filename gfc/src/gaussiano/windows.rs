//! Sliding-window statistics of a batch (thesis 4.2.2, Figure 8).
//!
//! "para um lote contendo M amostras e uma janela deslizante de tamanho N, as
//! medidas gaussianas são calculadas para n_w = M − N + 1 janelas
//! deslizantes" — a batch of M samples and windows of N give M − N + 1
//! window means of the instruction addresses. The batch is local iff the
//! standard deviation of those means is below stdevThreshold.
//!
//! Window means are kept as exact integer *sums* of addresses: the window size
//! is fixed per run, so a sum identifies its mean exactly, which lets a bin
//! test "is this window mean already in the bin" without float equality.

use crate::sample::{Addr, Sample};
use statrs::statistics::Statistics;

/// Fills `out` with the address sums of every window of `window` consecutive
/// samples (`samples.len() − window + 1` of them; none if the batch is
/// shorter than a window or `window` is 0). Running sum: O(M).
pub fn window_sums(samples: &[Sample], window: usize, out: &mut Vec<u64>) {
    out.clear();
    if window == 0 || samples.len() < window {
        return;
    }
    let mut sum: u64 = samples[..window].iter().map(|s| s.pc as u64).sum();
    out.push(sum);
    for k in window..samples.len() {
        sum = sum + samples[k].pc as u64 - samples[k - window].pc as u64;
        out.push(sum);
    }
}

/// The mean a window sum stands for.
#[inline]
pub fn sum_to_mean(sum: u64, window: usize) -> f64 {
    sum as f64 / window as f64
}

/// Window means of a plain address sequence — the Figure 8 computation.
pub fn window_means(pcs: &[Addr], window: usize) -> Vec<f64> {
    let samples: Vec<Sample> = pcs.iter().map(|&pc| Sample::plain(pc, 1)).collect();
    let mut sums = Vec::new();
    window_sums(&samples, window, &mut sums);
    sums.into_iter().map(|s| sum_to_mean(s, window)).collect()
}

/// Standard deviation σ(μ_w) of the window means.
///
/// Decision: *population* standard deviation (divide by n_w). The thesis
/// writes σ(μ_w) over "w = 1, …, n_w" — all windows of the batch, a complete
/// set rather than a sample of a larger population — and its Python
/// implementation most plausibly used numpy's default, which is the
/// population form. It also stays defined (0) for a single window.
/// Returns 0 for no window.
pub fn means_stddev(means: &[f64]) -> f64 {
    if means.is_empty() {
        return 0.0;
    }
    means.population_std_dev()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figure_8_twenty_four_instructions_window_six() {
        // A batch of 24 instructions (a loop body at $8000.. with a call out
        // to $8040 and back) and windows of 6: 24 − 6 + 1 = 19 windows.
        let pcs: [Addr; 24] = [
            0x8000, 0x8002, 0x8004, 0x8005, 0x8007, 0x8040, 0x8042, 0x8043, 0x800A, 0x800C, 0x800D,
            0x8000, 0x8002, 0x8004, 0x8005, 0x8007, 0x8040, 0x8042, 0x8043, 0x800A, 0x800C, 0x800D,
            0x8000, 0x8002,
        ];
        let means = window_means(&pcs, 6);
        assert_eq!(means.len(), 19);
        // Hand sums, offsets from 0x8000 (= 32768):
        // w1 = 0+2+4+5+7+64 = 82 → 32768 + 82/6
        // w2 = 2+4+5+7+64+66 = 148
        // w6 = 64+66+67+10+12+13 = 232
        // w12 = 0+2+4+5+7+64 = 82 (the loop repeats every 11)
        // w19 = 12+13+0+2+... = pcs[18..24] = 67+10+12+13+0+2 = 104
        let at = |off: f64| 32768.0 + off / 6.0;
        let expect = [(0, 82.0), (1, 148.0), (5, 232.0), (11, 82.0), (18, 104.0)];
        for (i, off) in expect {
            assert!(
                (means[i] - at(off)).abs() < 1e-9,
                "window {}: {}",
                i + 1,
                means[i]
            );
        }
        // Periodicity: window w and w + 11 see the same instructions.
        for i in 0..8 {
            assert_eq!(means[i], means[i + 11]);
        }
    }

    #[test]
    fn windows_of_a_short_batch() {
        assert!(window_means(&[1, 2, 3], 4).is_empty());
        assert_eq!(window_means(&[1, 2, 3], 3), vec![2.0]);
        assert!(window_means(&[1, 2, 3], 0).is_empty());
    }

    #[test]
    fn population_stddev_by_hand() {
        // Means 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squared deviations sum 32,
        // population variance 32/8 = 4 → σ = 2 (the sample form would be
        // √(32/7) ≈ 2.138).
        let s = means_stddev(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert!((s - 2.0).abs() < 1e-12, "{s}");
        assert_eq!(means_stddev(&[33120.0]), 0.0);
        assert_eq!(means_stddev(&[]), 0.0);
    }
}
