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

    /// Flushes pending counts before a chain runs, when they must or may
    /// wait no longer: too many transfers held from pushed-out links (see
    /// [`super::MAX_SPILLED`]), or a mapping change that puts other code at a
    /// code address ([`Translator::flush_on_bank_switch`]).
    #[inline]
    pub fn flush_if_due(&mut self, banks: &Banks, banked: bool, counts: &mut FlowCounts) {
        if self.spilled.len() >= self.spill_limit {
            self.flush_spilled(counts);
        }
        self.flush_on_bank_switch(banks, banked, counts);
    }

    #[cold]
    #[inline(never)]
    fn flush_spilled(&mut self, counts: &mut FlowCounts) {
        self.flush_counts(counts);
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
    fn flush_on_bank_switch(&mut self, banks: &Banks, banked: bool, counts: &mut FlowCounts) {
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

#[cfg(test)]
impl Translator {
    /// Transfers held from pushed-out links, not yet flushed.
    pub(crate) fn spilled_len(&self) -> usize {
        self.spilled.len()
    }

    pub(crate) fn set_spill_limit(&mut self, limit: usize) {
        self.spill_limit = limit;
    }
}

#[cfg(test)]
mod tests {
    use crate::nes::Engine;
    use crate::{Cartridge, FlowCounts, Nes};

    /// Main calls one routine from three sites in a loop: the routine's
    /// `RTS` block has three successors and pushes a link out at every
    /// run, two of them counted in the burst before.
    fn three_returns() -> Cartridge {
        let mut image = vec![b'N', b'E', b'S', 0x1A, 1, 1, 0, 0];
        image.resize(16, 0);
        let mut prg = vec![0xEA; 0x4000];
        let main = [
            0x20, 0x00, 0x81, // 8000 JSR $8100
            0x20, 0x00, 0x81, // 8003 JSR $8100
            0x20, 0x00, 0x81, // 8006 JSR $8100
            0x4C, 0x00, 0x80, // 8009 JMP $8000
        ];
        prg[..main.len()].copy_from_slice(&main);
        prg[0x100] = 0x60; // 8100 RTS
        prg[0x3FFA..].copy_from_slice(&[0x00, 0x80, 0x00, 0x80, 0x00, 0x80]);
        image.extend(prg);
        image.resize(16 + 0x4000 + 0x2000, 0);
        Cartridge::from_bytes(&image).expect("valid NROM image")
    }

    /// Executions, transfers, instructions and call stacks, comparable.
    type Summary = (
        Vec<(u32, u64)>,
        Vec<(u32, Vec<(u32, u64)>)>,
        u64,
        Vec<(Vec<crate::call_stacks::Frame>, u64)>,
    );

    fn summary(flow: &FlowCounts) -> Summary {
        let executed: Vec<_> = flow.executed_addresses().collect();
        let transfers = executed
            .iter()
            .map(|&(code, _)| (code, flow.transfers_from(code)))
            .collect();
        let stacks = flow.call_stacks().stacks().collect();
        (executed, transfers, flow.instructions, stacks)
    }

    /// In truth bursts (every other frame), on `engine`, with at most
    /// `limit` pushed-out links' counts held (translator): the counts, and
    /// the most held after a frame.
    fn bursty(engine: Engine, limit: Option<usize>) -> (Summary, usize) {
        let mut nes = Nes::new(three_returns());
        nes.set_engine(engine);
        nes.record_flow();
        let mut most = 0;
        for frame in 0..120 {
            nes.set_flow_recording(frame % 2 == 0);
            nes.run_frame();
            if let Some(t) = nes.translator_mut() {
                if let Some(limit) = limit {
                    t.set_spill_limit(limit);
                }
                most = most.max(t.spilled_len());
            }
        }
        (summary(nes.flow_counts().expect("recording")), most)
    }

    /// Held without a limit, the pushed-out links' counts pile up from
    /// burst to burst until the counts are read; with one they are added
    /// as they reach it, and the counts are the interpreter's either way.
    #[test]
    fn pushed_out_link_counts_are_flushed_at_the_limit_with_the_same_counts() {
        let (interpreted, _) = bursty(Engine::Interpreter, None);
        let (unbounded, piled) = bursty(Engine::Translator, Some(usize::MAX));
        let (bounded, held) = bursty(Engine::Translator, Some(3));
        assert!(piled >= 100, "two a burst over 60 bursts: {piled}");
        // A chain run can add one more per link of the routine's block
        // after the flush before it.
        assert!(held <= 3 + 2, "{held}");
        assert_eq!(unbounded, interpreted);
        assert_eq!(bounded, interpreted);
    }
}
