//! Comparison of a sampled hot CFG G with the ground truth H and its hot part
//! H90 (docs/metrics.md says the same in words). Edges match as (src entry, dst entry) pairs.
//!
//! Every ratio with an empty denominator is 0, never NaN: an empty sampled
//! graph "found" nothing, and an empty truth has nothing to be found, so
//! neither deserves credit and a CSV of results stays numeric.

use crate::cfg::Cfg;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// All metrics of one comparison, plus the edge-set sizes behind them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// The thesis' metric: |E(G) ∩ E(H90)| / |E(H90)|.
    pub similarity: f64,
    /// |E(G) ∩ E(H)| / |E(G)|.
    pub precision: f64,
    /// Harmonic mean of `similarity` and `precision`.
    pub f1: f64,
    /// Σ count_H(e), e ∈ E(G) ∩ E(H90) / Σ count_H(e), e ∈ E(H90).
    pub weighted: f64,
    /// Σ over e ∈ E(G) ∩ E(H) of min(w_G(e)/W_G, w_H(e)/W_H).
    pub overlap: f64,
    /// Sampled instructions / executed instructions × 100.
    pub sampled_pct: f64,
    /// |E(G)|.
    pub edges_g: usize,
    /// |E(H)|.
    pub edges_h: usize,
    /// |E(H90)|.
    pub edges_h90: usize,
    /// |E(G) ∩ E(H)|.
    pub common_h: usize,
    /// |E(G) ∩ E(H90)|.
    pub common_h90: usize,
    /// |E(G) ∩ E(H99)| / |E(H99)|: the thesis' metric against the hot set
    /// of 99 % of the transitions, which a degenerate H90 of a few edges
    /// cannot make trivial.
    pub similarity99: f64,
    /// |E(G) ∩ E(H95)| / |E(G)|: how much of what G calls hot really is,
    /// with a five-point margin at the cut-off, so that a builder cannot
    /// score by emitting everything it saw.
    pub hot_precision: f64,
    /// |E(H99)|.
    pub edges_h99: usize,
}

/// The truth and its hot sets, computed once per run and compared with any
/// number of sampled graphs.
#[derive(Debug, Clone)]
pub struct HotTruth<'a> {
    pub h: &'a Cfg,
    pub h90: Cow<'a, Cfg>,
    /// The margin `hot_precision` allows at the cut-off.
    pub h95: Cow<'a, Cfg>,
    /// Ours, not the thesis': NES games idle in a wait-for-vblank loop, so
    /// H90 is often one or two edges; H99 keeps the game's real per-frame
    /// work.
    pub h99: Cow<'a, Cfg>,
}

impl<'a> HotTruth<'a> {
    pub fn new(h: &'a Cfg) -> Self {
        use crate::hot::{hot_subgraph, HotFraction};
        HotTruth {
            h,
            h90: Cow::Owned(hot_subgraph(h, HotFraction::H90)),
            h95: Cow::Owned(hot_subgraph(h, HotFraction::percent(95))),
            h99: Cow::Owned(hot_subgraph(h, HotFraction::percent(99))),
        }
    }
}

impl Metrics {
    /// Computes every metric. `h90` is normally `hot::h90(h)`; it is taken as
    /// an argument so callers compute it once per workload, not per config.
    pub fn compute(g: &Cfg, h: &Cfg, h90: &Cfg, sampled: u64, executed: u64) -> Self {
        let s = similarity(g, h90);
        let p = precision(g, h);
        Metrics {
            similarity: s,
            precision: p,
            f1: f1(s, p),
            weighted: weighted(g, h, h90),
            overlap: overlap(g, h),
            sampled_pct: sampled_pct(sampled, executed),
            edges_g: g.num_edges(),
            edges_h: h.num_edges(),
            edges_h90: h90.num_edges(),
            common_h: common(g, h),
            common_h90: common(g, h90),
            similarity99: 0.0,
            hot_precision: 0.0,
            edges_h99: 0,
        }
    }

    /// Every metric of a builder's output: the hot CFG `g` for the set
    /// metrics, its edge profile `profile` (every edge it observed, with
    /// estimated counts) for `overlap`, as in the profile-accuracy
    /// literature.
    pub fn evaluate(
        g: &Cfg,
        profile: &Cfg,
        truth: &HotTruth<'_>,
        sampled: u64,
        executed: u64,
    ) -> Self {
        let mut m = Self::compute(g, truth.h, &truth.h90, sampled, executed);
        m.overlap = overlap(profile, truth.h);
        m.similarity99 = similarity(g, &truth.h99);
        m.hot_precision = ratio(common(g, &truth.h95) as f64, g.num_edges() as f64);
        m.edges_h99 = truth.h99.num_edges();
        m
    }
}

fn ratio(num: f64, den: f64) -> f64 {
    if den > 0.0 {
        num / den
    } else {
        0.0
    }
}

/// |E(a) ∩ E(b)|.
pub fn common(a: &Cfg, b: &Cfg) -> usize {
    // Probe the smaller graph's edges in the larger one.
    let (small, large) = if a.num_edges() <= b.num_edges() {
        (a, b)
    } else {
        (b, a)
    };
    small
        .graph()
        .all_edges()
        .filter(|&(s, d, _)| large.contains_edge(s, d))
        .count()
}

/// |E(G) ∩ E(H90)| / |E(H90)|; 0 when H90 has no edge.
pub fn similarity(g: &Cfg, h90: &Cfg) -> f64 {
    ratio(common(g, h90) as f64, h90.num_edges() as f64)
}

/// |E(G) ∩ E(H)| / |E(G)|; 0 when G has no edge.
pub fn precision(g: &Cfg, h: &Cfg) -> f64 {
    ratio(common(g, h) as f64, g.num_edges() as f64)
}

/// 2·s·p / (s + p); 0 when both are 0.
pub fn f1(similarity: f64, precision: f64) -> f64 {
    ratio(2.0 * similarity * precision, similarity + precision)
}

/// Share of H90's transitions (counted in H) on edges that G found; 0 when
/// H90 has no transitions. An H90 edge missing from H (inconsistent inputs)
/// weighs its own H90 count.
pub fn weighted(g: &Cfg, h: &Cfg, h90: &Cfg) -> f64 {
    let mut found = 0u128;
    let mut total = 0u128;
    for (s, d, &c90) in h90.graph().all_edges() {
        let c = h.edge(s, d).unwrap_or(c90) as u128;
        total += c;
        if g.contains_edge(s, d) {
            found += c;
        }
    }
    ratio(found as f64, total as f64)
}

/// Profile overlap: Σ over shared edges of the smaller of the two normalised
/// edge weights. 1 when G's edge profile equals H's up to scale, 0 when they
/// share nothing or either graph has no transitions.
pub fn overlap(g: &Cfg, h: &Cfg) -> f64 {
    let wg = g.total_transitions() as f64;
    let wh = h.total_transitions() as f64;
    if wg <= 0.0 || wh <= 0.0 {
        return 0.0;
    }
    g.graph()
        .all_edges()
        .filter_map(|(s, d, &cg)| h.edge(s, d).map(|ch| (cg as f64 / wg).min(ch as f64 / wh)))
        .sum()
}

/// `sampled / executed × 100`; 0 when nothing was executed.
pub fn sampled_pct(sampled: u64, executed: u64) -> f64 {
    ratio(sampled as f64 * 100.0, executed as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hot::h90;

    fn graph(edges: &[(u32, u32, u64)]) -> Cfg {
        let mut g = Cfg::new();
        for &(s, d, c) in edges {
            g.add_edge(s, d, c);
        }
        g
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn hand_computed_example() {
        // H: total 100. Sorted: A(1→2)=50, B(2→3)=30, C(3→1)=15, D(3→4)=5.
        // H90 needs 90: 50, 80, 95 → {A, B, C}.
        let h = graph(&[(1, 2, 50), (2, 3, 30), (3, 1, 15), (3, 4, 5)]);
        let hot = h90(&h);
        assert_eq!(hot.num_edges(), 3);
        // G: A (count 6), C (count 2), X(5→6) (count 2, not in H). W_G = 10.
        let g = graph(&[(1, 2, 6), (3, 1, 2), (5, 6, 2)]);

        let m = Metrics::compute(&g, &h, &hot, 15, 1000);
        // similarity: {A, C} of 3 → 2/3.
        assert!(close(m.similarity, 2.0 / 3.0), "{m:?}");
        // precision: {A, C} of G's 3 → 2/3.
        assert!(close(m.precision, 2.0 / 3.0));
        // f1 of two equal values is that value.
        assert!(close(m.f1, 2.0 / 3.0));
        // weighted: (50 + 15) / (50 + 30 + 15) = 65/95.
        assert!(close(m.weighted, 65.0 / 95.0));
        // overlap: A: min(6/10, 50/100) = 0.5; C: min(2/10, 15/100) = 0.15.
        assert!(close(m.overlap, 0.65));
        assert!(close(m.sampled_pct, 1.5));
        assert_eq!(
            (m.edges_g, m.edges_h, m.edges_h90, m.common_h, m.common_h90),
            (3, 4, 3, 2, 2)
        );
    }

    #[test]
    fn f1_of_unequal_values() {
        // 2·0.5·1 / 1.5 = 2/3.
        assert!(close(f1(0.5, 1.0), 2.0 / 3.0));
        assert_eq!(f1(0.0, 0.0), 0.0);
    }

    #[test]
    fn identical_profiles_overlap_fully() {
        let h = graph(&[(1, 2, 40), (2, 1, 60)]);
        let g = graph(&[(1, 2, 2), (2, 1, 3)]);
        assert!(close(overlap(&g, &h), 1.0));
        assert!(close(overlap(&h, &h), 1.0));
    }

    #[test]
    fn empty_sets_give_zero_not_nan() {
        let empty = Cfg::new();
        let h = graph(&[(1, 2, 1)]);
        let m = Metrics::compute(&empty, &h, &h, 0, 0);
        for v in [
            m.similarity,
            m.precision,
            m.f1,
            m.weighted,
            m.overlap,
            m.sampled_pct,
        ] {
            assert_eq!(v, 0.0);
        }
        let m = Metrics::compute(&h, &empty, &empty, 5, 10);
        for v in [m.similarity, m.precision, m.f1, m.weighted, m.overlap] {
            assert_eq!(v, 0.0);
        }
        assert!(close(m.sampled_pct, 50.0));
        // Edges with zero counts: overlap has no weight to compare.
        let z = graph(&[(1, 2, 0)]);
        assert_eq!(overlap(&z, &h), 0.0);
        assert_eq!(weighted(&z, &z, &z), 0.0);
    }
}
