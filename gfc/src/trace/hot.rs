//! The hot CFG: the builder's estimate of H90, widened at the cut-off by
//! the estimates' own uncertainty.
//!
//! The estimated H90 is the shortest prefix of the edge profile, by
//! estimated count, reaching 90 % of the estimated transitions, exactly as
//! H90 is cut from the truth. Near the cut-off, edges whose true counts are
//! close to it land on either side by sampling noise alone; an H90 edge
//! left out is a miss, and the noise is largest exactly when sampling is
//! sparse. So an edge below the cut-off is kept too when the two could be
//! in the other order: its count plus `Z` of its standard errors reaches the
//! cut-off count minus `Z` of the cut-off's (both are estimates). It cannot
//! be told apart from an H90 edge with the samples at hand. It must still be
//! in the estimated H95 (the prefix reaching 95 %): with sparse samples the
//! standard errors of cold edges are wide, and an edge that is probably not
//! even among those covering 95 % of the transitions is not called hot. With
//! many samples the standard errors shrink and the hot CFG tends to the
//! estimated H90 itself.

use crate::cfg::Cfg;
use crate::hot::{hot_subgraph, HotFraction};
use crate::sample::Addr;
use std::collections::HashMap;

/// Standard errors of doubt at the cut-off: a one-sided 97.7 % bound, the
/// usual two sigmas, not tuned on any workload.
pub const Z: f64 = 2.0;

pub fn hot_set(profile: &Cfg, sigma: &HashMap<(Addr, Addr), f64>) -> Cfg {
    let mut hot = hot_subgraph(profile, HotFraction::H90);
    let floor = hot_subgraph(profile, HotFraction::percent(95))
        .edges()
        .iter()
        .map(|e| e.count)
        .min()
        .unwrap_or(0);
    // The last edge the prefix took: the estimated cut-off, with its own
    // standard error (the cut is an estimate too).
    let Some(last) = hot.edges().into_iter().min_by(|a, b| {
        a.count
            .cmp(&b.count)
            .then(b.src.cmp(&a.src))
            .then(b.dst.cmp(&a.dst))
    }) else {
        return hot;
    };
    let sigma_cut = sigma.get(&(last.src, last.dst)).copied().unwrap_or(0.0);
    let cut = last.count as f64 - Z * sigma_cut;
    for e in profile.edges() {
        if hot.contains_edge(e.src, e.dst) {
            continue;
        }
        let s = sigma.get(&(e.src, e.dst)).copied().unwrap_or(0.0);
        if e.count >= floor && e.count as f64 + Z * s >= cut {
            for entry in [e.src, e.dst] {
                if hot.block(entry).is_none() {
                    if let Some(b) = profile.block(entry) {
                        hot.insert_block(b.clone());
                    }
                }
            }
            hot.set_edge(e.src, e.dst, e.count);
        }
    }
    hot
}
