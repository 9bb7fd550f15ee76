//! The ground-truth recorder's counts for translated code, kept per block
//! and per link and added to the flow counts before anyone reads them.
//!
//! A complete run of a block whose exit is a fall-through, branch, `JMP`,
//! `JSR` or `RTS` (`Block::counts_by_links`) costs the recorder two
//! increments: the block's `pending_runs`, which stands for one execution
//! of each of its ops, and the count on the link the chain takes next
//! (`Translator::successor_counted`), which stands for one transfer from
//! its last op to that link's block. Only the call stacks hear of the run
//! as it happens (a `JSR` or `RTS` moves them, and the instructions retired
//! are credited to the context they ran in). Other runs (BRK, RTI, a branch,
//! `JMP` or `JSR` whose operands are live, a run that stops early) are
//! counted op by op, with the body in bulk (`pending_body_runs`). Going
//! through the flow counts' tables at every run (their pages, the static
//! target's bookkeeping, the hash map of returns) was most of what the
//! truth recorder cost (BENCHMARKS.md, issue 26).

use super::block::{Block, Link};
use super::Translator;
use crate::bus::Bus;
use crate::cpu::Cpu;
use crate::flow_counts::FlowCounts;
use crate::mapper::banks::Banks;
use crate::probes::Probes;

impl Translator {
    /// Adds block `block`'s pending counts (executions, and the transfers
    /// counted on its links) to `counts`.
    #[inline]
    pub(super) fn flush_block(block: &mut Block, counts: &mut FlowCounts) {
        if block.ops.is_empty() {
            // A dropped block's slot.
            return;
        }
        let high = block.code_high;
        let (exit, opcode) = block.exit();
        let body = &block.ops[..block.ops.len() - 1];
        let body_runs = block.pending_body_runs + block.pending_runs;
        if body_runs > 0 {
            counts.add_body_executions(
                body.iter().map(|op| (op.code(high), op.opcode())),
                body_runs,
            );
        }
        if block.pending_runs > 0 {
            counts.add_body_executions(std::iter::once((exit, opcode)), block.pending_runs);
        }
        block.pending_body_runs = 0;
        block.pending_runs = 0;
        for link in &mut block.links {
            Self::flush_link(exit, opcode, link, counts);
        }
    }

    /// Adds the transfers counted on `link` (from the op at code address
    /// `from`, `opcode`) to `counts`.
    #[inline]
    pub(super) fn flush_link(from: u32, opcode: u8, link: &mut Link, counts: &mut FlowCounts) {
        if link.count > 0 {
            counts.add_transfers(from, opcode, link.code, link.count);
            link.count = 0;
        }
    }

    /// A complete run of block `id` whose counts were left to the links
    /// (see the module doc) leaves the chain before its successor is
    /// known: its transfer to the CPU's PC is counted now.
    #[cold]
    pub(super) fn count_exit(&mut self, id: u32, cpu: &Cpu, bus: &Bus, probes: &mut Probes) {
        let Some(c) = probes.flow.as_deref_mut() else {
            return;
        };
        let (exit, opcode) = self.blocks[id as usize].exit();
        let next = probes.code_map.key(&bus.cart.banks, cpu.pc);
        c.add_transfers(exit, opcode, next, 1);
    }

    /// Marks block `id` as having pending counts (see
    /// [`Translator::flush_counts`]).
    #[inline(always)]
    pub(super) fn mark_pending(dirty: &mut Vec<u32>, block: &Block, id: u32) {
        if block.pending_body_runs == 0 && block.pending_runs == 0 {
            dirty.push(id);
        }
    }

    /// Adds every block's pending counts to `counts` (before reading them).
    #[inline]
    pub fn flush_counts(&mut self, counts: &mut FlowCounts) {
        // Taken and put back, so the list keeps its buffer.
        let mut dirty = std::mem::take(&mut self.dirty);
        for &id in &dirty {
            let block = &mut self.blocks[id as usize];
            if block.valid {
                Self::flush_block(block, counts);
            }
        }
        dirty.clear();
        self.dirty = dirty;
        for (from, opcode, to, n) in self.spilled.drain(..) {
            counts.add_transfers(from, opcode, to, n);
        }
        self.dynamic_transfers.flush(counts);
    }

    /// Flushes pending counts if the PRG mapping changed since the last
    /// flush in a way that puts other code at a code address. The flow
    /// counts remember the last opcode executed at each code address, and
    /// where a mapping change puts other bytes there, flushing keeps "last"
    /// in execution order, as the interpreter records it. On a board whose
    /// code addresses name the PRG-ROM bank (`banked`, see `code_addr`)
    /// that happens only where PRG RAM, named by its CPU address, is
    /// switched; with 32 KiB of PRG ROM or less, at every change. (Flushing
    /// at every change cost a UxROM game that switches banks several times
    /// a frame more than the rest of the recording.)
    #[inline]
    pub fn flush_on_bank_switch(&mut self, banks: &Banks, banked: bool, counts: &mut FlowCounts) {
        if banks.prg_generation == self.flushed_generation {
            return;
        }
        self.flushed_generation = banks.prg_generation;
        if banked && banks.prg_ram == self.flushed_prg_ram {
            return;
        }
        self.flushed_prg_ram = banks.prg_ram;
        self.flush_counts(counts);
    }
}
