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

/// The edge profile and each edge's standard error, in the same units.
#[derive(Debug, Clone, Default)]
pub struct Profile {
    pub cfg: Cfg,
    pub sigma: HashMap<(Addr, Addr), f64>,
}

pub fn edge_profile(seen: &Observations, blocks: &Blocks) -> Profile {
    let scale = seen.scale();
    let mut profile = Profile::default();
    for b in &blocks.list {
        let (samples, sumsq) = b.instrs.iter().fold((0u64, 0u64), |(s, q), pc| {
            let i = &seen.instrs[pc];
            (s + i.samples, q + i.sumsq)
        });
        let len = b.instrs.len() as f64;
        let f = samples as f64 / len;
        let var_f = sumsq as f64 / len;
        profile.cfg.insert_block(Block {
            entry: b.entry,
            instrs: b.instrs.clone(),
            end: b.end,
            count: to_count(f * scale),
        });
        let exits: Vec<(Addr, f64, f64)> = match b.exit {
            Exit::Gap => Vec::new(),
            Exit::FallThrough(next) => vec![(next, f, var_f)],
            Exit::Transfer(pc) => {
                let targets = seen.transfers.get(&pc).map_or(&[][..], |t| &t[..]);
                let total: u64 = targets.iter().map(|&(_, n)| n).sum();
                targets
                    .iter()
                    .map(|&(dst, n)| {
                        let share = n as f64 / total as f64;
                        let var =
                            share * share * var_f + f * f * share * (1.0 - share) / total as f64;
                        (dst, f * share, var)
                    })
                    .collect()
            }
        };
        for (dst, c, var) in exits {
            profile.cfg.set_edge(b.entry, dst, to_count(c * scale));
            profile.sigma.insert((b.entry, dst), var.sqrt() * scale);
        }
    }
    for (&handler, &n) in &seen.interrupts {
        profile.cfg.add_interrupts(handler, n);
    }
    profile
}

/// An estimate as a graph count: rounded, and at least 1 for what was
/// observed at all (a zero-count edge would read as never taken).
fn to_count(x: f64) -> u64 {
    (x.round() as u64).max(1)
}
