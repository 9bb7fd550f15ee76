//! The hot CFG: the builder's estimate of H90, widened at the cut-off by
//! the estimates' own uncertainty.
//!
//! The estimated H90 is the shortest prefix of the edge profile, by
//! estimated count, reaching 90 % of the estimated transitions, exactly as
//! H90 is cut from the truth. Near the cut-off, edges whose true counts are
//! close to it land on either side by sampling noise alone; an H90 edge
//! left out is a miss, and the noise is largest exactly when sampling is
//! sparse. So an edge below the cut-off is kept too when the two could be
//! in the other order: the cut-off count exceeds its count by less than `Z`
//! standard errors of that difference, `sqrt(σ_edge² + σ_cut²)` (both are
//! estimates, from independent batches). It cannot be told apart from an
//! H90 edge with the samples at hand. (Adding the two errors instead,
//! `Z·(σ_edge + σ_cut)`, overstates the doubt by up to √2 and let in a
//! fifth of fff's cold edges at X = 30 ms: hot precision 0.79.) It must still be
//! in the estimated H95 (the prefix reaching 95 %): with sparse samples the
//! standard errors of cold edges are wide, and an edge that is probably not
//! even among those covering 95 % of the transitions is not called hot. With
//! many samples the standard errors shrink and the hot CFG tends to the
//! estimated H90 itself.

use crate::cfg::{Cfg, Edge};
use crate::hot::{copy_edge, hottest_first};
use crate::sample::Addr;
use std::collections::HashMap;

/// Standard errors of doubt at the cut-off: a one-sided 97.7 % bound, the
/// usual two sigmas, not tuned on any workload.
pub const Z: f64 = 2.0;

/// The profile's edges by estimated count, descending (ties by src, dst),
/// and the count of the edge at which their running sum first reaches
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

/// The hot set of `profile`, whose transitions are estimated to total
/// `total` over the run (more than the profile's own sum: it also counts
/// the exits of blocks with no observed exit and the code never sampled).
pub fn hot_set(profile: &Cfg, sigma: &HashMap<(Addr, Addr), f64>, total: f64) -> Cfg {
    let sorted = hottest_first(profile);
    let mut hot = Cfg::new();
    let Some(last) = cut(&sorted, total, 0.90) else {
        return hot;
    };
    // The estimated H95 cut-off, taken as it is: lowered by its doubt too,
    // it lets in hundreds of cold edges when samples are sparse (fff at
    // X = 30 ms: 854 edges for an H90 of 373, hot precision 0.53).
    let floor = cut(&sorted, total, 0.95).map_or(0.0, |i| sorted[i].count as f64);
    // The edge at the cut-off, with its own standard error (the cut is an
    // estimate too).
    let at = &sorted[last];
    let sigma_cut = sigma.get(&(at.src, at.dst)).copied().unwrap_or(0.0);
    for (i, e) in sorted.iter().enumerate() {
        let s = sigma.get(&(e.src, e.dst)).copied().unwrap_or(0.0);
        let gap = at.count as f64 - e.count as f64;
        let doubtful = e.count as f64 >= floor && gap <= Z * s.hypot(sigma_cut);
        if i > last && !doubtful {
            continue;
        }
        copy_edge(&mut hot, profile, *e);
    }
    hot
}
