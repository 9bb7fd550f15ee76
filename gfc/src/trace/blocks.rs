//! Blocks from the observed instructions, by the truth's leader rules
//! (DESIGN.md "Ground truth"): a leader is a proved one (a transfer target,
//! a branch fall-through, an interrupt handler entry) or an observed
//! instruction that no observed straight-line instruction leads into, or
//! two do (code entered at two alignments joining there); a
//! block runs from a leader through straight-line instructions up to a
//! control-flow instruction or the next leader.
//!
//! Limits: an instruction never sampled is a gap; the block before it ends
//! there with no known exit and the code after it starts a block of its
//! own, which the truth may not have. A sampled branch's target is a
//! leader if the engines saw a branch taken there (their record, when the
//! builder has it: `TraceBuilder::set_taken_targets`), else always. A
//! leader proved only by a jump never sampled (a rare jump into the middle
//! of hot code) is not known, and the block around it stays whole. Both happen in cold code: every
//! instruction of a block is executed as often as the block, so a block
//! sampled at all is sampled throughout.

use super::observe::Observations;
use crate::hash::AddrHashBuilder;
use crate::sample::{Addr, Flow};
use std::collections::HashMap;

/// How a block is left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Through the control-flow instruction at this address (its observed
    /// transfers are the out-edges).
    Transfer(Addr),
    /// Falling through into the leader at this address.
    FallThrough(Addr),
    /// Into an instruction never sampled: unknown.
    Gap,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub entry: Addr,
    pub instrs: Vec<Addr>,
    /// Byte address just past the last instruction.
    pub end: Addr,
    pub exit: Exit,
}

/// The blocks, in entry order.
#[derive(Debug, Clone, Default)]
pub struct Blocks {
    pub list: Vec<Found>,
}

impl Blocks {
    /// The blocks of `seen`; `taken` says whether a branch was ever taken
    /// to an address, where the engines kept that (`None`: every sampled
    /// branch's target is taken to be a leader).
    pub fn find(seen: &Observations, taken: Option<&dyn Fn(Addr) -> bool>) -> Blocks {
        let mut pcs: Vec<Addr> = seen.instrs.keys().copied().collect();
        pcs.sort_unstable();
        // Observed straight-line instructions leading into each address;
        // none (an entry) or two (a join of two alignments) make a leader.
        let mut into: HashMap<Addr, u8, AddrHashBuilder> = HashMap::default();
        for (&pc, i) in &seen.instrs {
            if i.flow == Flow::None {
                let n = into.entry(pc.wrapping_add(i.len as Addr)).or_insert(0);
                *n = n.saturating_add(1);
            }
        }
        let is_leader = |pc: Addr| {
            seen.leaders.contains(&pc)
                || into.get(&pc) != Some(&1)
                || (seen.branch_targets.contains(&pc) && taken.is_none_or(|t| t(pc)))
        };
        let mut list = Vec::new();
        for &entry in pcs.iter().filter(|&&pc| is_leader(pc)) {
            let mut instrs = vec![entry];
            let mut pc = entry;
            let exit = loop {
                let instr = &seen.instrs[&pc];
                if instr.flow.ends_block() {
                    break Exit::Transfer(pc);
                }
                let next = pc.wrapping_add(instr.len.max(1) as Addr);
                if !seen.instrs.contains_key(&next) {
                    break Exit::Gap;
                }
                if is_leader(next) || next <= entry {
                    break Exit::FallThrough(next);
                }
                instrs.push(next);
                pc = next;
            };
            let last = &seen.instrs[&pc];
            list.push(Found {
                entry,
                end: pc.wrapping_add(last.len as Addr),
                instrs,
                exit,
            });
        }
        Blocks { list }
    }
}
