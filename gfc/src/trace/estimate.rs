//! Execution counts from sample counts.
//!
//! Every instruction of a block runs as often as the block, so each of the
//! block's samples estimates its frequency: f(B) = Σ samples / |B|, which
//! uses all N samples of a batch, not only the few at block ends. Flow
//! conservation then ties the edges to it: a block's outflow is f(B), split
//! among its observed exits in the proportions its last instruction's
//! transfers were seen in (one exit, a fall-through or an unconditional
//! jump, takes all of it). Counts are scaled from samples to executions by
//! [`Observations::scale`].
//!
//! The total of transitions, which the hot set's cut-off is a share of, is
//! estimated apart from the edges: every block execution ends in one
//! transition, so it is the sum of the block frequencies (exits into code
//! never sampled included), raised by a Good–Turing estimate of the
//! execution in blocks never sampled. The sum of the observed edges alone
//! falls short of the truth's total by the cold tail, which would put the
//! cut-off too early.
//!
//! Uncertainty, for the hot set's cut-off: the batches are the independent
//! draws, so var(f(B)) is estimated from the per-batch repeats
//! (Σ_i sumsq_i / |B|, the bound for instructions of one block sampled
//! together), and an exit's share adds the binomial variance of its
//! transfer count.

use super::blocks::{Blocks, Exit};
use super::observe::Observations;
use crate::cfg::{Block, Cfg};
use crate::sample::Addr;
use std::collections::HashMap;

/// The edge profile, each edge's standard error in the same units, and the
/// estimated total of transitions over the run.
#[derive(Debug, Clone, Default)]
pub struct Profile {
    pub cfg: Cfg,
    pub sigma: HashMap<(Addr, Addr), f64>,
    pub total: f64,
}

pub fn edge_profile(seen: &Observations, blocks: &Blocks) -> Profile {
    let scale = seen.scale();
    let mean_weight = if seen.instructions > 0 {
        seen.weight / seen.instructions as f64
    } else {
        1.0
    };
    let mut profile = Profile::default();
    // Block exits: every execution of a block ends in one transition,
    // observed or not (an exit into never-sampled code included); a block
    // left only by returns from hardware interrupts has none.
    let mut exits = 0.0;
    // Good–Turing over batches: the share of block sightings that are a
    // block's only one estimates the share of execution in blocks never
    // sampled at all.
    let (mut sightings, mut singletons) = (0u64, 0u64);
    for b in &blocks.list {
        let seen_in = b
            .instrs
            .iter()
            .map(|pc| seen.instrs[pc].batches)
            .max()
            .unwrap_or(0);
        sightings += seen_in;
        singletons += u64::from(seen_in == 1);
        let (samples, sumsq) = b.instrs.iter().fold((0.0, 0.0), |(s, q), pc| {
            let i = &seen.instrs[pc];
            (s + i.samples, q + i.sumsq)
        });
        let len = b.instrs.len() as f64;
        let f = samples / len;
        let var_f = sumsq / len;
        profile.cfg.insert_block(Block {
            entry: b.entry,
            instrs: b.instrs.clone(),
            end: b.end,
            count: to_count(f * scale),
        });
        let exits_of: Vec<(Addr, f64, f64)> = match b.exit {
            Exit::Gap => Vec::new(),
            Exit::FallThrough(next) => vec![(next, f, var_f)],
            Exit::Transfer(pc) => {
                let targets = seen.transfers.get(&pc).map_or(&[][..], |t| &t[..]);
                let total: f64 = targets.iter().map(|&(_, n)| n).sum();
                targets
                    .iter()
                    .map(|&(dst, n)| {
                        let share = n / total;
                        // The binomial term counts transfers, not weight.
                        let transfers = (total / mean_weight).max(1.0);
                        let var = share * share * var_f + f * f * share * (1.0 - share) / transfers;
                        (dst, f * share, var)
                    })
                    .collect()
            }
        };
        if !matches!(b.exit, Exit::Transfer(_)) || !exits_of.is_empty() {
            exits += f;
        }
        for (dst, c, var) in exits_of {
            profile.cfg.set_edge(b.entry, dst, to_count(c * scale));
            profile.sigma.insert((b.entry, dst), var.sqrt() * scale);
        }
    }
    for (&handler, &n) in &seen.interrupts {
        profile.cfg.add_interrupts(handler, n);
    }
    // Capped at a half: beyond that nearly every block was seen once, the
    // estimate says little, and 1 / (1 − unseen) would run away.
    let unseen = if sightings > 0 {
        (singletons as f64 / sightings as f64).min(0.5)
    } else {
        0.0
    };
    profile.total = exits * scale / (1.0 - unseen);
    profile
}

/// An estimate as a graph count: rounded, and at least 1 for what was
/// observed at all (a zero-count edge would read as never taken).
fn to_count(x: f64) -> u64 {
    (x.round() as u64).max(1)
}
