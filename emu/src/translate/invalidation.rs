//! Invalidation: dropping the blocks whose code was overwritten (the bus's
//! code watch lists the written bytes), and leaving RAM that is rewritten
//! over and over to the interpreter.

use super::Translator;
use crate::bus::Bus;
use crate::code_watch::CodeKey;
use crate::flow_counts::FlowCounts;

impl Translator {
    /// Drops every block whose bytes cover a written code byte the bus
    /// reported, adding their pending counts to `counts` first.
    #[inline]
    pub fn invalidate_written(&mut self, bus: &mut Bus, mut counts: Option<&mut FlowCounts>) {
        for written in bus.code.take_writes() {
            let mut i = 0;
            while i < self.writable_blocks.len() {
                let id = self.writable_blocks[i] as usize;
                let block = &self.blocks[id];
                if !Self::covered_bytes(block.key, &block.ops, self.prg_ram_cover.len())
                    .any(|loc| loc == written)
                {
                    i += 1;
                    continue;
                }
                self.writable_blocks.swap_remove(i);
                if let Some(c) = counts.as_deref_mut() {
                    Self::flush_block(&mut self.blocks[id], c);
                }
                let key = self.blocks[id].key;
                let ops = std::mem::take(&mut self.blocks[id].ops);
                for loc in Self::covered_bytes(key, &ops, self.prg_ram_cover.len()) {
                    let cover = self.cover_slot(loc);
                    *cover = cover.saturating_sub(1);
                    if *cover == 0 {
                        bus.set_code_mark(loc, false);
                    }
                }
                if let CodeKey::Ram(a) = key {
                    self.ram_churn[a as usize] = self.ram_churn[a as usize].saturating_add(1);
                }
                *self.index_slot(key) = 0;
                self.blocks[id].valid = false;
                self.free.push(id as u32);
                self.link_epoch = self.link_epoch.wrapping_add(1).max(1);
                self.stats.invalidated += 1;
            }
        }
    }
}
