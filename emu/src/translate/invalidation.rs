//! Invalidation: dropping the blocks whose code was overwritten (the bus's
//! code watch lists the written bytes), with a short look-back for RAM.

use super::block::MAX_BLOCK_OPS;
use super::Translator;
use crate::bus::Bus;
use crate::code_watch::CodeKey;
use crate::flow_counts::FlowCounts;

/// The most bytes one block watches: its ops' 3-byte windows, back to
/// back, and what the wait-loop rule may read past the last one
/// (`Block::watch_end`).
const MAX_BLOCK_SPAN: u16 =
    MAX_BLOCK_OPS as u16 * 3 + 3 * crate::wait_loop::MAX_INSTRUCTIONS as u16;

impl Translator {
    /// Drops every block whose bytes cover a written code byte the bus
    /// reported, adding their pending counts to `counts` first; a block
    /// with live operands whose opcodes were not written takes the new
    /// bytes instead.
    #[inline]
    pub fn invalidate_written(&mut self, bus: &mut Bus, mut counts: Option<&mut FlowCounts>) {
        // Both lists keep their buffers from call to call (taken and put
        // back around the loop, which needs `self`).
        let mut writes = std::mem::take(&mut self.written);
        let mut candidates = std::mem::take(&mut self.candidates);
        bus.code.take_writes(&mut writes);
        for &written in &writes {
            candidates.clear();
            match written {
                // A RAM block covering the byte starts at most one block's
                // span before it, and the index holds every RAM block: a
                // short look-back instead of a pass over all of them (code
                // that patches itself writes here all the time).
                CodeKey::Ram(at) => candidates.extend((0..MAX_BLOCK_SPAN).filter_map(|back| {
                    let slot = self.ram_index[(at.wrapping_sub(back) & 0x7FF) as usize];
                    (slot != 0).then(|| slot - 1)
                })),
                _ => candidates.extend_from_slice(&self.writable_blocks),
            }
            for &id in &candidates {
                let block = &mut self.blocks[id as usize];
                if !block.valid || !Self::covers(block, written, self.prg_ram_cover.len()) {
                    continue;
                }
                if block.live && !Self::live_watches(block, written) {
                    // Its operands are read at run time.
                    continue;
                }
                self.drop_block(id, bus, counts.as_deref_mut());
            }
        }
        self.written = writes;
        self.candidates = candidates;
    }

    /// Watches `entries` (see [`Translator::watched`]): every block is
    /// dropped, to be translated again with them starting blocks. (The
    /// caller adds pending flow counts first.)
    pub fn watch(&mut self, entries: impl IntoIterator<Item = u32>, bus: &mut Bus) {
        self.watched = entries.into_iter().map(|e| (e, ())).collect();
        for id in 0..self.blocks.len() as u32 {
            let block = &mut self.blocks[id as usize];
            if !block.valid {
                continue;
            }
            if let CodeKey::PrgRom(_) = block.key {
                // Nothing watches PRG ROM's bytes: only its index entry.
                let key = block.key;
                block.ops = Vec::new();
                block.valid = false;
                *self.index_slot(key) = 0;
                self.release_region(id);
                self.free.push(id);
            } else {
                self.drop_block(id, bus, None);
            }
        }
        self.next_link_epoch();
        self.set_regions(self.region_choice.clone());
    }

    /// Makes every link made so far stale (`Translator::link_stamp`). The
    /// epoch takes 16 bits of a stamp and is never 0 (so that stamp 0, a
    /// new block's, is never current); when it would wrap, every link is
    /// made stale by hand instead.
    pub(super) fn next_link_epoch(&mut self) {
        if self.link_epoch >= 0xFFFF {
            for block in &mut self.blocks {
                for link in &mut block.links {
                    link.stamp = 0;
                }
            }
            self.link_epoch = 1;
        } else {
            self.link_epoch += 1;
        }
    }

    /// Makes every successor link stale, so that each is made again (and
    /// noticed: `taken_targets`) the next time it is taken.
    pub fn forget_links(&mut self) {
        self.next_link_epoch();
        self.set_regions(self.region_choice.clone());
        for block in &mut self.blocks {
            block.branch_noted = false;
        }
        self.refresh_repeats();
    }

    /// Sets every block's [`Block::repeat_at`] again, after the settings it
    /// depends on changed.
    pub(super) fn refresh_repeats(&mut self) {
        let (no_idle_skip, taken) = (self.no_idle_skip, self.taken.is_some());
        for block in &mut self.blocks {
            if !block.ops.is_empty() {
                block.repeat_at = block.repeat_at_for(no_idle_skip, taken);
            }
        }
    }

    /// Switches idle-loop skipping (see `Nes::set_idle_skip`).
    pub fn set_no_idle_skip(&mut self, no_idle_skip: bool) {
        self.no_idle_skip = no_idle_skip;
        self.refresh_repeats();
    }

    /// Drops block `id` (its code was overwritten): its pending counts go
    /// to `counts`, its bytes stop being watched if no other block covers
    /// them, and its id is free for reuse.
    fn drop_block(&mut self, id: u32, bus: &mut Bus, counts: Option<&mut FlowCounts>) {
        if let Some(i) = self.writable_blocks.iter().position(|&b| b == id) {
            self.writable_blocks.swap_remove(i);
        }
        let id = id as usize;
        if let Some(c) = counts {
            Self::flush_block(&mut self.blocks[id], c);
        }
        let key = self.blocks[id].key;
        let live = self.blocks[id].live;
        let watch_end = self.blocks[id].watch_end;
        let ops = std::mem::take(&mut self.blocks[id].ops);
        let extra = std::mem::take(&mut self.blocks[id].watch_extra);
        let prg_ram_len = self.prg_ram_cover.len();
        for loc in Self::watched_bytes(key, &ops, live, watch_end, &extra, prg_ram_len) {
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
        self.release_region(id as u32);
        if self.blocks[id].in_region {
            self.drop_regions_through(id as u32);
        }
        self.free.push(id as u32);
        self.next_link_epoch();
        self.stats.invalidated += 1;
    }

    /// Whether `written` is one of the bytes block `block` watches, or lies
    /// among them ([`Translator::watched_bytes`]): they are one run, from
    /// its entry to [`super::block::Block::watch_end`].
    fn covers(block: &super::block::Block, written: CodeKey, prg_ram_len: usize) -> bool {
        if block.ops.is_empty() {
            return false;
        }
        let span = block.watch_end as u32;
        match (block.key, written) {
            (CodeKey::Ram(entry), CodeKey::Ram(at)) => {
                ((at.wrapping_sub(entry) & 0x7FF) as u32) < span
            }
            (CodeKey::PrgRam(entry), CodeKey::PrgRam(at)) => {
                let len = prg_ram_len.max(1) as u32;
                (at + len - entry % len) % len < span
            }
            _ => false,
        }
    }

    /// Whether RAM byte `written` is one a block with live operands
    /// watches: one of its opcodes, or an operand byte the wait-loop rule
    /// read ([`super::block::Block::watch_extra`]).
    fn live_watches(block: &super::block::Block, written: CodeKey) -> bool {
        let (CodeKey::Ram(entry), CodeKey::Ram(at)) = (block.key, written) else {
            return true;
        };
        let first_pc = block.ops[0].pc;
        let offset = at.wrapping_sub(entry) & 0x7FF;
        block
            .ops
            .iter()
            .any(|op| op.pc.wrapping_sub(first_pc) & 0x7FF == offset)
            || block.watch_extra.contains(&offset)
    }
}
