//! Transfer counts of returns and indirect jumps on their way from the
//! translator's links to the flow counts (see [`DynamicTransfers`]).

use crate::flow_counts::FlowCounts;

/// Counts of transfers from `RTS` and `JMP` indirect (by source and target
/// code address) on their way to the flow counts' hash map: a small
/// direct-mapped table, each slot holding one pair and its count until
/// another pair takes it or the counts are flushed. A block whose return
/// dispatches to more places than its two links hold (a script
/// interpreter's `RTS` dispatch) pushes a link out at nearly every run,
/// and adding each pushed-out count to the hash map was the largest part
/// of what the truth recorder cost there.
#[derive(Debug, Default)]
pub struct DynamicTransfers {
    /// `(from << 32 | to, count)`; empty until first used.
    slots: Vec<(u64, u64)>,
    /// Some slot may hold a count (flushing need not look otherwise: on
    /// small boards it happens at every bank switch).
    pending: bool,
}

impl DynamicTransfers {
    const BITS: u32 = 8;

    /// `n` transfers from `from` to `to`; a pair it displaces goes to
    /// `counts`.
    #[inline]
    pub fn add(&mut self, from: u32, to: u32, n: u64, counts: &mut FlowCounts) {
        if self.slots.is_empty() {
            self.slots = vec![(0, 0); 1 << Self::BITS];
        }
        self.pending = true;
        let key = (from as u64) << 32 | to as u64;
        let index = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - Self::BITS)) as usize;
        let slot = &mut self.slots[index];
        if slot.0 != key {
            if slot.1 > 0 {
                counts.add_dynamic_transfers((slot.0 >> 32) as u32, slot.0 as u32, slot.1);
            }
            *slot = (key, 0);
        }
        slot.1 += n;
    }

    /// Adds every pair's count to `counts`.
    pub fn flush(&mut self, counts: &mut FlowCounts) {
        if !std::mem::take(&mut self.pending) {
            return;
        }
        for slot in &mut self.slots {
            if slot.1 > 0 {
                counts.add_dynamic_transfers((slot.0 >> 32) as u32, slot.0 as u32, slot.1);
                slot.1 = 0;
            }
        }
    }
}
