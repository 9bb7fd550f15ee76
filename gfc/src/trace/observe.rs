//! What the trace builder keeps from each batch: counts, nothing derived.
//!
//! A sample's `next_pc` is the address its own flow executed next, so every
//! sampled control-flow instruction is one exact observation of a control
//! transfer, the last of a batch included: N transfers' worth of
//! information per batch, not N−1. The interrupt rule of DESIGN.md is
//! applied as in the truth: a hardware interrupt entry is counted per
//! handler, not as an edge, and the RTI that returns from it is not a
//! transfer; the RTI of a BRK is. Limit: an RTI whose interrupt or BRK
//! began before the batch cannot be told apart; it is taken as returning
//! from a hardware interrupt, since games rarely use BRK.
//!
//! Counts are weighted. A batch starts at the first instruction after a
//! point drawn uniformly in *time*, so an execution is sampled with a
//! probability proportional to the time the N instructions before it took,
//! not to the count of instructions: code of fast instructions (2-cycle
//! loops) is under-sampled and slow code over-sampled, by 20 % either way in
//! the bundled games. Each batch's observations are therefore weighted by
//! 1 / (its own cycles per instruction), the local rate standing in for the
//! window's, which makes every execution count alike.

use crate::hash::{AddrHashBuilder, AddrMap};
use crate::sample::{Addr, Flow, Sample};
use std::collections::HashSet;

/// One sampled instruction address.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Instr {
    /// Length in bytes and control-flow class, as last sampled.
    pub len: u8,
    pub flow: Flow,
    /// Times sampled, weighted (see the module doc).
    pub samples: f64,
    /// Σ over batches of (weighted times sampled in that batch)²: the
    /// batches are the independent draws, so this is what the variance of
    /// `samples` is estimated from (samples inside one batch are
    /// correlated).
    pub sumsq: f64,
    /// Batches it was sampled in.
    pub batches: u64,
}

/// The counts, updated per batch.
#[derive(Debug, Clone, Default)]
pub struct Observations {
    pub instrs: AddrMap<Addr, Instr>,
    /// Per control-flow instruction: its observed successors with weighted
    /// counts.
    pub transfers: AddrMap<Addr, Vec<(Addr, f64)>>,
    /// Addresses taken to start a block: transfer targets, branch
    /// fall-throughs and targets, the return points of calls, interrupt
    /// handler entries.
    ///
    /// A sampled branch's target is a leader even when no sample saw it
    /// taken (`branch_targets`), when nothing better is known. The truth's
    /// rule is "targets of taken branches", and a branch
    /// taken 15 times in 77 000 (yun) is almost never seen taken at a 1 %
    /// sampling rate, yet its target splits a hot block in the truth: left
    /// whole, that block's edges all miss (yun: similarity 0.89 → 1.00 at
    /// both rates). The cost is the opposite error for a branch never taken
    /// in the whole run, whose target the truth does not split; such
    /// branches guard rare cases and are fewer (measured over every
    /// workload in EXPERIMENTS.md, no workload lost similarity).
    pub leaders: HashSet<Addr, AddrHashBuilder>,
    /// Targets of sampled branches, taken or not: leaders too (see
    /// `leaders`), unless the engines' set of taken targets is at hand
    /// and does not hold them (`TraceBuilder::set_taken_targets`).
    pub branch_targets: HashSet<Addr, AddrHashBuilder>,
    /// Hardware interrupt events per handler entry.
    pub interrupts: AddrMap<Addr, u64>,
    pub batches: u64,
    /// Instructions sampled (interrupt markers excluded), and their total
    /// weight.
    pub instructions: u64,
    pub weight: f64,
    pub interrupt_events: u64,
    /// Cycle of the first sample of the first batch, and of the last sample
    /// of the latest batch: the stretch of the run the batches cover.
    pub first_cycle: Option<u64>,
    pub last_cycle: u64,
    /// Σ over batches of the cycles from first to last instruction, and of
    /// the instruction steps between them: cycles per instruction, for the
    /// scale of the estimated counts.
    pub batch_cycles: u64,
    pub batch_steps: u64,
    /// Scratch: the batch's instruction addresses, sorted to count repeats.
    scratch: Vec<Addr>,
    /// BRKs awaiting their RTI, per open flow (index 0: the batch's first
    /// flow; one more per hardware interrupt entered).
    contexts: Vec<u32>,
}

impl Observations {
    /// Counts one batch.
    pub fn batch(&mut self, batch: &[Sample]) {
        let w = weight(batch);
        self.batches += 1;
        self.scratch.clear();
        self.contexts.clear();
        self.contexts.push(0);
        let mut first_instr: Option<u64> = None;
        let mut last_instr = 0u64;
        let mut n = 0u64;
        for s in batch {
            if s.flow == Flow::Interrupt {
                self.interrupt_events += 1;
                *self.interrupts.entry(s.pc).or_insert(0) += 1;
                self.leaders.insert(s.pc);
                self.contexts.push(0);
                continue;
            }
            n += 1;
            first_instr.get_or_insert(s.cycle);
            last_instr = s.cycle;
            self.scratch.push(s.pc);
            let entry = self.instrs.entry(s.pc).or_insert(Instr {
                len: s.len,
                flow: s.flow,
                samples: 0.0,
                sumsq: 0.0,
                batches: 0,
            });
            entry.len = s.len;
            entry.flow = s.flow;
            match s.flow {
                Flow::None | Flow::Interrupt => {}
                Flow::ReturnInterrupt => {
                    let depth = self.contexts.len();
                    let top = &mut self.contexts[depth - 1];
                    if *top > 0 {
                        *top -= 1;
                        self.transfer(s.pc, s.next_pc, w);
                    } else if depth > 1 {
                        self.contexts.pop();
                    }
                }
                Flow::Break => {
                    let depth = self.contexts.len();
                    self.contexts[depth - 1] += 1;
                    self.transfer(s.pc, s.next_pc, w);
                }
                // A branch's target is a leader whether or not this
                // execution took it (see `leaders`).
                Flow::Branch => {
                    self.branch_targets.insert(s.target);
                    self.leaders.insert(s.end());
                    self.transfer(s.pc, s.next_pc, w);
                }
                // A subroutine returns to the instruction after its call:
                // that is a leader even before a return to it is sampled.
                Flow::Call => {
                    self.leaders.insert(s.end());
                    self.transfer(s.pc, s.next_pc, w);
                }
                Flow::Jump | Flow::Return => self.transfer(s.pc, s.next_pc, w),
            }
        }
        self.instructions += n;
        self.weight += n as f64 * w;
        self.scratch.sort_unstable();
        let mut i = 0;
        while i < self.scratch.len() {
            let pc = self.scratch[i];
            let mut k = 1;
            while i + k < self.scratch.len() && self.scratch[i + k] == pc {
                k += 1;
            }
            if let Some(instr) = self.instrs.get_mut(&pc) {
                let kw = k as f64 * w;
                instr.samples += kw;
                instr.sumsq += kw * kw;
                instr.batches += 1;
            }
            i += k;
        }
        if let Some(first) = first_instr {
            self.first_cycle.get_or_insert(first);
            self.last_cycle = self.last_cycle.max(last_instr);
            if n > 1 && last_instr >= first {
                self.batch_cycles += last_instr - first;
                self.batch_steps += n - 1;
            }
        }
    }

    fn transfer(&mut self, from: Addr, to: Addr, w: f64) {
        self.leaders.insert(to);
        let targets = self.transfers.entry(from).or_default();
        match targets.iter_mut().find(|(t, _)| *t == to) {
            Some((_, c)) => *c += w,
            None => targets.push((to, w)),
        }
    }

    /// Estimated instructions executed over the stretch the batches cover,
    /// per unit of sample weight: the factor from weighted sample counts to
    /// execution counts. The stretch's cycles over the cycles per
    /// instruction seen inside batches; 1 per sample when the samples carry
    /// no cycles.
    pub fn scale(&self) -> f64 {
        let Some(first) = self.first_cycle else {
            return 1.0;
        };
        if self.batch_cycles == 0 || self.batch_steps == 0 || self.instructions == 0 {
            return 1.0;
        }
        let cpi = self.batch_cycles as f64 / self.batch_steps as f64;
        let executed = (self.last_cycle.saturating_sub(first)) as f64 / cpi + 1.0;
        (executed / self.weight).max(f64::MIN_POSITIVE)
    }
}

/// A batch's weight: 1 / its cycles per instruction (first to last
/// instruction, interrupt entries included in the time); 1 when it has no
/// cycles to go by (fewer than two instructions, or no cycle stamps).
fn weight(batch: &[Sample]) -> f64 {
    let mut instrs = batch.iter().filter(|s| s.flow != Flow::Interrupt);
    let Some(first) = instrs.next() else {
        return 1.0;
    };
    let (last, steps) = instrs.fold((first, 0u64), |(_, n), s| (s, n + 1));
    if steps == 0 || last.cycle <= first.cycle {
        return 1.0;
    }
    steps as f64 / (last.cycle - first.cycle) as f64
}
