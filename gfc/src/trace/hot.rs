//! The hot CFG: the edges the estimates say are most probably H90's, cut
//! where the expected agreement with H90 is best, and how sure each one is.
//!
//! Each observed edge's count is an estimate with a standard error (from
//! independent batches, `estimate`), and so is the count at which H90 is
//! cut (the edge at the estimated cut-off: the shortest prefix of the
//! profile, by estimated count, reaching 90 % of the estimated
//! transitions, exactly as H90 is cut from the truth). So every edge has a
//! **confidence**, the probability that it is in H90: that its true count
//! is at or above the true cut-off, `Φ((ĉ − t) / sqrt(σ² + σ_t²))` under a
//! normal approximation; likewise the probability that it is in H95 (the
//! set the hot precision is measured against, with its five-point margin).
//!
//! **The cut.** The hot set is the prefix of the edges, most confident
//! first, that maximises the expected F1 of the two ways a hot set can be
//! wrong: the expected share of H90 it finds (Σ P(H90) over it, over the
//! expected size of H90: Σ P(H90) over every edge) and the expected share
//! of it in H95 (Σ P(H95) over it, over its size). An edge near the H90
//! cut-off that is surely in H95 costs nothing and may be an H90 edge, so
//! it goes in; one whose count is so uncertain that it may not even be in
//! H95 goes in only if its chance of being an H90 edge pays for that, which
//! with sparse samples it rarely does: the set then leaves out a doubtful
//! edge rather than admit several. With exact counts (no doubt) the set is
//! the estimated H90 itself. No constant is tuned: the objective is the
//! metrics' own F1, and the only approximation the normal one.
//!
//! (It replaced a rule that admitted every edge within two standard errors
//! below the cut-off and above the estimated H95 cut-off: right where the
//! errors were small, it let in edges whose true counts lay below H95 when
//! they were large, X = 30 ms on games with large H90s: hot precision 0.80
//! to 0.89, EXPERIMENTS.md "Issue 44".)

use crate::cfg::{Cfg, Edge};
use crate::hot::{copy_edge, hottest_first};
use crate::sample::Addr;
use statrs::distribution::{ContinuousCDF, Normal};
use std::collections::HashMap;

/// The profile's edges by estimated count, descending (ties by src, dst),
/// and the index of the edge at which their running sum first reaches
/// `fraction` of `total`.
fn cut(sorted: &[Edge], total: f64, fraction: f64) -> Option<usize> {
    let mut sum = 0.0;
    for (i, e) in sorted.iter().enumerate() {
        sum += e.count as f64;
        if sum >= fraction * total {
            return Some(i);
        }
    }
    sorted.len().checked_sub(1)
}

/// The probability that a count estimated as `count` (standard error
/// `sigma`) is at or above a cut-off estimated as `at` (`sigma_at`); a
/// step when neither is in doubt.
fn above(count: f64, sigma: f64, at: f64, sigma_at: f64) -> f64 {
    let s = sigma.hypot(sigma_at);
    if s > 0.0 {
        Normal::standard().cdf((count - at) / s)
    } else if count >= at {
        1.0
    } else {
        0.0
    }
}

/// The hot set and every observed edge's confidence.
#[derive(Debug, Clone, Default)]
pub struct Hot {
    pub cfg: Cfg,
    /// Per edge of the profile: the probability that it is in H90.
    pub confidence: HashMap<(Addr, Addr), f64>,
}

/// The hot set of `profile` (see the module doc), whose transitions are
/// estimated to total `total` over the run (more than the profile's own
/// sum: it also counts the exits of blocks with no observed exit and the
/// code never sampled), with `sigma` each edge's standard error.
pub fn hot_set(profile: &Cfg, sigma: &HashMap<(Addr, Addr), f64>, total: f64) -> Hot {
    let sorted = hottest_first(profile);
    let mut hot = Hot::default();
    let (Some(h90), Some(h95)) = (cut(&sorted, total, 0.90), cut(&sorted, total, 0.95)) else {
        return hot;
    };
    let sigma_of = |e: &Edge| sigma.get(&(e.src, e.dst)).copied().unwrap_or(0.0);
    let (t90, s90) = (sorted[h90].count as f64, sigma_of(&sorted[h90]));
    let (t95, s95) = (sorted[h95].count as f64, sigma_of(&sorted[h95]));
    // (edge, P(in H90), P(in H95)), most confident first; ties keep the
    // hottest-first order.
    let mut ranked: Vec<(Edge, f64, f64)> = sorted
        .iter()
        .map(|e| {
            let (c, s) = (e.count as f64, sigma_of(e));
            (*e, above(c, s, t90, s90), above(c, s, t95, s95))
        })
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    let expected_h90: f64 = ranked.iter().map(|r| r.1).sum();
    if expected_h90 <= 0.0 {
        return hot;
    }
    let (mut found, mut in_h95) = (0.0, 0.0);
    let (mut best, mut best_f1) = (0, 0.0);
    for (k, (_, p90, p95)) in ranked.iter().enumerate() {
        found += p90;
        in_h95 += p95;
        let share_found = found / expected_h90;
        let share_hot = in_h95 / (k + 1) as f64;
        let f1 = if share_found + share_hot > 0.0 {
            2.0 * share_found * share_hot / (share_found + share_hot)
        } else {
            0.0
        };
        if f1 > best_f1 {
            (best, best_f1) = (k + 1, f1);
        }
    }
    for (e, p90, _) in &ranked {
        hot.confidence.insert((e.src, e.dst), *p90);
    }
    for (e, _, _) in &ranked[..best] {
        copy_edge(&mut hot.cfg, profile, *e);
    }
    hot
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A profile of `counts` (edges 0 → 1, 1 → 2, …) with standard errors
    /// `sigmas`.
    fn profile(counts: &[u64], sigmas: &[f64]) -> (Cfg, HashMap<(Addr, Addr), f64>) {
        let mut cfg = Cfg::new();
        let mut sigma = HashMap::new();
        for (i, (&c, &s)) in counts.iter().zip(sigmas).enumerate() {
            let (src, dst) = (0x8000 + i as Addr, 0x8001 + i as Addr);
            cfg.add_edge(src, dst, c);
            sigma.insert((src, dst), s);
        }
        (cfg, sigma)
    }

    #[test]
    fn exact_counts_give_the_estimated_h90() {
        let counts = [500, 300, 100, 60, 30, 10];
        let (cfg, sigma) = profile(&counts, &[0.0; 6]);
        let hot = hot_set(&cfg, &sigma, 1000.0);
        // 500 + 300 + 100 = 900: the first three.
        assert_eq!(hot.cfg.num_edges(), 3);
        assert_eq!(hot.confidence[&(0x8002, 0x8003)], 1.0);
        assert_eq!(hot.confidence[&(0x8003, 0x8004)], 0.0);
    }

    #[test]
    fn an_edge_as_hot_as_the_cut_off_and_surely_in_h95_goes_in() {
        // Two edges of equal count at the H90 cut-off: the ranking puts one
        // above the cut and one below by chance; both go in.
        let counts = [500, 300, 50, 50, 50, 25, 25];
        let (cfg, sigma) = profile(&counts, &[10.0, 10.0, 3.0, 3.0, 3.0, 1.0, 1.0]);
        let hot = hot_set(&cfg, &sigma, 1000.0);
        for i in 2..5 {
            let e = (0x8000 + i, 0x8001 + i);
            assert!(hot.cfg.edge(e.0, e.1).is_some(), "edge {i}");
            assert!((hot.confidence[&e] - 0.5).abs() < 1e-9);
        }
    }

    #[test]
    fn doubtful_edges_below_the_cut_off_stay_out_when_they_may_not_be_in_h95() {
        // Sparse samples: many small edges whose errors reach the cut-off
        // and below H95's: the set is not padded with them.
        let mut counts = vec![600, 300];
        counts.extend(std::iter::repeat_n(10, 10));
        let mut sigmas = vec![30.0, 30.0];
        sigmas.extend(std::iter::repeat_n(10.0, 10));
        let (cfg, sigma) = profile(&counts, &sigmas);
        let hot = hot_set(&cfg, &sigma, 1000.0);
        assert_eq!(hot.cfg.num_edges(), 2);
    }
}
