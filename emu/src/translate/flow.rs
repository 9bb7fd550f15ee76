//! The ground-truth recorder's counts for translated code: a block's
//! straight-line instructions are counted per run in bulk, and the pending
//! counts are added to the flow counts before anyone reads them.

use super::block::Block;
use super::Translator;
use crate::flow_counts::FlowCounts;

impl Translator {
    #[inline]
    pub(super) fn flush_block(block: &mut Block, counts: &mut FlowCounts) {
        if block.pending_body_runs > 0 {
            let body = &block.ops[..block.ops.len() - 1];
            counts.add_body_executions(
                body.iter()
                    .map(|op| (op.code(block.code_high), op.opcode())),
                block.pending_body_runs,
            );
            block.pending_body_runs = 0;
        }
    }

    /// Adds every block's pending counts to `counts` (before reading them).
    #[inline]
    pub fn flush_counts(&mut self, counts: &mut FlowCounts) {
        for id in std::mem::take(&mut self.dirty) {
            let block = &mut self.blocks[id as usize];
            if block.valid {
                Self::flush_block(block, counts);
            }
        }
    }

    /// Flushes pending counts if the PRG mapping changed since the last
    /// flush. The flow counts remember the last opcode executed at each CPU
    /// address, and under another bank the same address holds other code:
    /// flushing at every mapping change keeps "last" in execution order, as
    /// the interpreter records it.
    #[inline]
    pub fn flush_on_bank_switch(&mut self, generation: u32, counts: &mut FlowCounts) {
        if generation != self.flushed_generation {
            self.flush_counts(counts);
            self.flushed_generation = generation;
        }
    }
}
