//! Block chaining: running block after block without leaving the
//! translator, each block linking to its recent successors.

use super::block::{Block, Link, NO_CODE};
use super::op::{settle, LONGEST_INSTRUCTION};
use super::region::RegionChoice;
use super::regions::RegionEnd;
use super::{Exit, Translator};
use crate::bus::Bus;
use crate::cpu::opcodes::Flow;
use crate::cpu::Cpu;
use crate::flow_counts::FlowCounts;
use crate::probes::Probes;

impl Translator {
    /// Runs blocks back to back from block `first` (at the CPU's PC), each
    /// successor found through the previous block's links, until a block
    /// stops early (see [`Translator::run_block`]), the CPU jams, the frame
    /// ends or the next code is not translatable. Returns the instructions
    /// retired. Chaining is what makes short blocks cheap: a game's
    /// "wait for NMI" loop is two instructions per block, and going back to
    /// the machine's step loop between them cost more than running them.
    #[inline]
    pub fn run_chain(
        &mut self,
        first: u32,
        cpu: &mut Cpu,
        bus: &mut Bus,
        probes: &mut Probes,
        stop_at_cycle: u64,
    ) -> u64 {
        // With the sampler the only probe, the chain runs unobserved, and
        // the blocks that may reach the cycle at which the sampler is to be
        // asked, or run while a batch is collected, run out of line
        // (`run_sampled_blocks`): the sampler then costs its batches, not a
        // slower loop between them. (The unobserved loop hands a block over
        // at its entry, so that a batch begins inside the block where the
        // observed loop would begin it, and no block is translated from
        // the middle of another.)
        if probes.flow.is_none() && probes.events.is_none() && bus.memory.is_none() {
            // (The taken branch targets cost the loop nothing: see
            // `Block::repeat_at_for`; with regions off, the loop is
            // compiled without them.)
            let regions = !matches!(self.region_choice, RegionChoice::Off);
            let due = probes.sampler.as_ref().map(|s| s.due_cycle());
            let limit = stop_at_cycle;
            return match (due, regions) {
                (None, false) => {
                    self.run_chain_unobserved::<false, false>(first, cpu, bus, probes, limit, 0)
                }
                (None, true) => {
                    self.run_chain_unobserved::<false, true>(first, cpu, bus, probes, limit, 0)
                }
                (Some(due), false) => {
                    self.run_chain_unobserved::<true, false>(first, cpu, bus, probes, limit, due)
                }
                (Some(due), true) => {
                    self.run_chain_unobserved::<true, true>(first, cpu, bus, probes, limit, due)
                }
            };
        }
        let (mut id, mut retired) = (first, 0);
        let mut previous = u32::MAX;
        let mut look_at = Self::look_at(stop_at_cycle, probes.sampler.as_ref());
        // The idle window (see `op::Translated`) lasts from block to
        // block, but not across anything else that runs the machine.
        cpu.idle_budget = 0;
        loop {
            let start = bus.cycles;
            // Whether the run's last transfer is left to the link taken
            // next (see `flow`).
            let mut uncounted = false;
            match self.run_block(id, cpu, bus, probes, stop_at_cycle, &mut look_at) {
                Exit::After(n) => {
                    if n == self.blocks[id as usize].ops.len() {
                        self.note_exit(id, cpu.pc, bus);
                    }
                    return retired + n as u64;
                }
                Exit::Completed => retired += self.blocks[id as usize].ops.len() as u64,
                Exit::CompletedUncounted => {
                    retired += self.blocks[id as usize].ops.len() as u64;
                    uncounted = true;
                }
            }
            if cpu.jammed.is_some() || bus.ppu.frame_complete {
                if uncounted {
                    self.count_exit(id, cpu, bus, probes);
                }
                self.note_exit(id, cpu.pc, bus);
                return retired;
            }
            // An idle loop that just ran its second (or later) iteration in a
            // row: every further iteration is identical, so count as many as
            // fit before anything can happen.
            let block = &self.blocks[id as usize];
            if previous == id && block.idle_loop && cpu.pc == block.entry && !self.no_idle_skip {
                if uncounted {
                    self.count_exit(id, cpu, bus, probes);
                    uncounted = false;
                }
                retired += self.skip_idle_iterations(id, cpu, bus, probes, stop_at_cycle, start);
                cpu.idle_budget = 0;
                look_at = Self::look_at(stop_at_cycle, probes.sampler.as_ref());
            }
            previous = id;
            let next = match probes.flow.as_deref_mut() {
                Some(c) if uncounted => self.successor_counted(id, bus, cpu.pc, c),
                _ => self.successor(id, bus, cpu.pc),
            };
            match next {
                Some(next) => id = next,
                None => {
                    if uncounted {
                        self.count_exit(id, cpu, bus, probes);
                    }
                    self.note_exit(id, cpu.pc, bus);
                    return retired;
                }
            }
        }
    }

    /// [`Translator::run_chain`] with no probe watching (no truth
    /// recorder, no event log, no memory recorder; `LIGHT`: a sampler,
    /// with no batch due before `leave_at`; not `LIGHT`: no sampler): the
    /// same blocks, stops and idle-loop skipping, with nothing to record
    /// between blocks, so the loop from block to block does only what
    /// running them needs. Most runs are this one. A block that could
    /// reach `leave_at` goes to [`Translator::run_sampled_blocks`] with
    /// those after it until the batch is done. With `REGIONS`, a region's
    /// head runs its region (`region`). Returns the instructions retired.
    fn run_chain_unobserved<const LIGHT: bool, const REGIONS: bool>(
        &mut self,
        first: u32,
        cpu: &mut Cpu,
        bus: &mut Bus,
        probes: &mut Probes,
        stop_at_cycle: u64,
        leave_at: u64,
    ) -> u64 {
        let limit = stop_at_cycle;
        let mut leave_at = if LIGHT { leave_at } else { u64::MAX };
        let mut stop_at_cycle = limit.min(leave_at);
        let mut id = first;
        let mut retired = 0;
        let mut previous = u32::MAX;
        cpu.idle_budget = 0;
        let stamp = self.link_stamp(bus);
        // Window cycles owed from block to block (see
        // `run_ops_repeating`): added to the machine before anything else
        // runs it, and before the chain returns.
        let mut owed = 0;
        'chain: loop {
            // A region's head runs its region, which ends in one of its
            // blocks as that block's run would (`region`).
            let mut ran = None;
            let slot = if REGIONS {
                self.blocks[id as usize].region
            } else {
                0
            };
            if REGIONS && slot != 0 {
                match self.region_turn(slot - 1, stamp, cpu, bus, stop_at_cycle, &mut owed) {
                    Some(RegionEnd::In(end, run) | RegionEnd::Exit(end, run)) => {
                        (id, ran) = (end, Some(run));
                    }
                    Some(RegionEnd::At(at, ops, window)) => {
                        (id, owed) = (at, window);
                        retired += ops;
                    }
                    None => {}
                }
            }
            let block = &self.blocks[id as usize];
            let entry = block.entry;
            // A block that loops back to itself runs again straight away:
            // with no stop, no code written and no bank switched, its
            // entry still finds it. It may also repeat inside
            // `run_ops_repeating`, except an idle loop about to be skipped
            // (that wants one run at a time).
            let repeat = block.repeat_at;
            let counts_idle = REGIONS && block.idle_loop;
            let start = loop {
                let start = bus.cycles + owed as u64;
                let run = if let Some(run) = ran.take() {
                    run
                } else if block.live {
                    bus.attention = false;
                    Self::run_ops_repeating::<true>(
                        &block.ops,
                        repeat,
                        cpu,
                        bus,
                        stop_at_cycle,
                        leave_at,
                        owed,
                    )
                } else {
                    bus.attention = false;
                    Self::run_ops_repeating::<false>(
                        &block.ops,
                        repeat,
                        cpu,
                        bus,
                        stop_at_cycle,
                        leave_at,
                        owed,
                    )
                };
                // The sampler is asked inside the block that may reach
                // `leave_at`, out of line: then the chain goes on.
                if LIGHT && run.left {
                    settle(cpu, bus, run.owed);
                    match self.run_sampled_blocks(id, cpu, bus, probes, limit, &mut retired) {
                        Some(next) => {
                            leave_at = probes.sampler.as_ref().map_or(u64::MAX, |s| s.due_cycle());
                            stop_at_cycle = limit.min(leave_at);
                            (owed, previous, id) = (0, u32::MAX, next);
                            cpu.idle_budget = 0;
                            continue 'chain;
                        }
                        None => return retired,
                    }
                }
                owed = run.owed;
                retired += run.retired;
                if counts_idle {
                    self.region_stats.idle += run.retired;
                }
                // Owing cycles, the window is still open: the run completed,
                // no code was written, no interrupt can be pending and the
                // frame cannot have ended.
                let leave = if owed > 0 {
                    bus.cycles + owed as u64 >= stop_at_cycle || cpu.jammed.is_some()
                } else {
                    !run.completed
                        || Self::must_stop(cpu, bus, stop_at_cycle)
                        || cpu.jammed.is_some()
                        || bus.ppu.frame_complete
                };
                if leave {
                    settle(cpu, bus, owed);
                    if run.completed {
                        self.note_exit(id, cpu.pc, bus);
                    }
                    return retired;
                }
                // Back at its entry, a block runs again here unless
                // `repeat_at` says not to: an idle loop about to be
                // skipped after its second run in a row, and otherwise
                // straight away to its link.
                if cpu.pc != entry || (repeat.is_none() && (previous == id || !block.idle_loop)) {
                    break start;
                }
                previous = id;
            };
            let idle_loop = block.idle_loop;
            if previous == id && idle_loop && cpu.pc == entry && !self.no_idle_skip {
                settle(cpu, bus, owed);
                owed = 0;
                let skipped = self.skip_idle_iterations(id, cpu, bus, probes, stop_at_cycle, start);
                retired += skipped;
                if REGIONS {
                    self.region_stats.idle += skipped;
                }
                cpu.idle_budget = 0;
            }
            previous = id;
            match self.successor_stamped(id, bus, cpu.pc, stamp) {
                Some(next) => id = next,
                None => {
                    settle(cpu, bus, owed);
                    self.note_exit(id, cpu.pc, bus);
                    return retired;
                }
            }
        }
    }

    /// Whether [`Translator::run_chain_unobserved`] would run block `id`
    /// now rather than leave it to the observed loop: it ends before
    /// `leave_at` (where the sampler is to be asked).
    #[inline]
    pub(super) fn runs_unobserved(&self, id: u32, bus: &Bus, leave_at: u64) -> bool {
        let block = &self.blocks[id as usize];
        let bound = block.ops.len() as u64 * LONGEST_INSTRUCTION as u64;
        bus.cycles + bound < leave_at
    }

    /// The block to run at `pc` after block `from`, through `from`'s links
    /// when they are current, else by lookup (then remembered).
    #[inline]
    pub(super) fn successor(&mut self, from: u32, bus: &mut Bus, pc: u16) -> Option<u32> {
        let stamp = self.link_stamp(bus);
        self.successor_stamped(from, bus, pc, stamp)
    }

    /// [`Translator::successor`] after a complete run of block `from`
    /// whose last transfer is left to its links (see `flow`): the link
    /// taken counts it. A link pushed out to make room for a new one
    /// hands its count to `counts` first. `None` (the next code cannot be
    /// translated) counts nothing: the caller counts the transfer.
    #[inline]
    fn successor_counted(
        &mut self,
        from: u32,
        bus: &mut Bus,
        pc: u16,
        counts: &mut FlowCounts,
    ) -> Option<u32> {
        let stamp = self.link_stamp(bus);
        for k in 0..2 {
            let link = self.blocks[from as usize].links[k];
            if link.pc == pc && link.stamp == stamp {
                if link.code == NO_CODE {
                    // Made by a run that counted nothing: the block it
                    // names is still the one at `pc` (the stamp is current).
                    let code = self.entry_code(link.id);
                    self.blocks[from as usize].links[k].code = code;
                }
                self.blocks[from as usize].links[k].count += 1;
                return Some(link.id);
            }
        }
        let id = self.block_at(bus, pc)?;
        let code = self.entry_code(id);
        if self.notes_link(from) {
            self.note_link(from, pc, id);
        }
        let block = &mut self.blocks[from as usize];
        let (exit, opcode) = block.exit();
        let pushed_out = &mut block.links[1];
        if pushed_out.count > 0 {
            if FlowCounts::has_dynamic_target(opcode) {
                // Mostly an RTS or JMP indirect dispatching to more places
                // than the links hold, pushing them out at every run.
                self.dynamic_transfers
                    .add(exit, pushed_out.code, pushed_out.count, counts);
                pushed_out.count = 0;
            } else {
                Self::flush_link(exit, opcode, pushed_out, counts);
            }
        }
        block.links[1] = block.links[0];
        block.links[0] = Link {
            pc,
            id,
            stamp,
            code,
            count: 1,
        };
        Some(id)
    }

    /// Keeps the counts of `block`'s second link, about to be pushed
    /// out by a run that counts nothing, for the next flush
    /// (`Translator::flush_counts`).
    #[cold]
    #[inline(never)]
    fn spill_link(block: &mut Block, spilled: &mut Vec<(u32, u8, u32, u64)>) {
        let (exit, opcode) = block.exit();
        let link = &mut block.links[1];
        spilled.push((exit, opcode, link.code, link.count));
        link.count = 0;
    }

    /// Marks `code` (CPU address `pc`) as a taken branch's target if
    /// block `from` ends in a branch to `pc` (see `taken_targets`), the
    /// first time only: called where a link from `from` to the block at
    /// `pc` is made (once per link, not per run), where the plain loop ran
    /// a block again straight after itself, and where a chain ends.
    fn note_taken(&mut self, from: u32, pc: u16, code: impl FnOnce(&Self) -> u32) {
        let block = &self.blocks[from as usize];
        if self.taken.is_none() || block.exit_flow != Flow::Branch || block.branch_noted {
            return;
        }
        let last = &block.ops[block.ops.len() - 1];
        // A branch to the next instruction goes there either way, and is
        // not taken as the interpreter sees it.
        if last.branch_target() == Some(pc) && pc != last.pc.wrapping_add(2) {
            let code = code(self);
            if let Some(taken) = &self.taken {
                taken.mark(code);
            }
            let (no_idle_skip, block) = (self.no_idle_skip, &mut self.blocks[from as usize]);
            block.branch_noted = true;
            block.repeat_at = block.repeat_at_for(no_idle_skip, true);
        }
    }

    /// Whether a new link from block `from` may note a taken branch:
    /// asked inline, since most new links are made by blocks that end in
    /// no branch (an `RTS` dispatching to many places makes one at almost
    /// every run), and calling out for them cost 0.3 % of tracker's host
    /// instructions.
    #[inline(always)]
    fn notes_link(&self, from: u32) -> bool {
        let block = &self.blocks[from as usize];
        self.taken.is_some() && block.exit_flow == Flow::Branch && !block.branch_noted
    }

    /// [`Translator::note_taken`] for a new link from `from` to block `id`
    /// at `pc` (out of line: the loops inline the link lookup).
    #[cold]
    #[inline(never)]
    fn note_link(&mut self, from: u32, pc: u16, id: u32) {
        self.note_taken(from, pc, |t| t.entry_code(id));
    }

    /// [`Translator::note_taken`] where a chain ends after block `from`
    /// ran to its end with the CPU at `pc` (no link is made there).
    #[cold]
    #[inline(never)]
    pub(super) fn note_exit(&mut self, from: u32, pc: u16, bus: &Bus) {
        let prg_len = bus.cart.prg_rom.len();
        let banks = &bus.cart.banks;
        self.note_taken(from, pc, |_| {
            crate::code_addr::code_address(prg_len, banks, pc)
        });
    }

    /// The code address of block `id`'s entry.
    pub(super) fn entry_code(&self, id: u32) -> u32 {
        let block = &self.blocks[id as usize];
        block.ops[0].code(block.code_high)
    }

    /// What makes a link current: the PRG mapping (`Banks::prg_key`, so
    /// that switching back to a mapping, as games do every frame, finds
    /// its links current again: hello_mmc3 1 % fewer host instructions)
    /// and the invalidation epoch ([`Translator::next_link_epoch`]). Neither changes inside a run of
    /// blocks (a bank switch stops the run; invalidation happens between
    /// runs).
    #[inline]
    fn link_stamp(&self, bus: &Bus) -> u64 {
        bus.cart.banks.prg_key() << 16 | self.link_epoch as u64
    }

    /// [`Translator::successor`] with the current [`Translator::link_stamp`].
    /// The links' test is inlined into the loops (called out, it was a
    /// third of the chain's cost per block: hello_mmc3 runs 2.6
    /// instructions a block); a new link is made out of line.
    #[inline(always)]
    fn successor_stamped(&mut self, from: u32, bus: &mut Bus, pc: u16, stamp: u64) -> Option<u32> {
        let [a, b] = &self.blocks[from as usize].links;
        if a.pc == pc && a.stamp == stamp {
            return Some(a.id);
        }
        if b.pc == pc && b.stamp == stamp {
            return Some(b.id);
        }
        self.link_new(from, bus, pc, stamp)
    }

    /// The block at `pc` after block `from`, by lookup, remembered as
    /// `from`'s newest link.
    #[inline(never)]
    fn link_new(&mut self, from: u32, bus: &mut Bus, pc: u16, stamp: u64) -> Option<u32> {
        let id = self.block_at(bus, pc)?;
        if self.notes_link(from) {
            self.note_link(from, pc, id);
        }
        self.net_link(from, pc, id);
        let block = &mut self.blocks[from as usize];
        if block.links[1].count > 0 {
            // Counted in a truth burst, pushed out after it.
            Self::spill_link(block, &mut self.spilled);
        }
        let links = &mut block.links;
        links[1] = links[0];
        links[0] = Link {
            pc,
            id,
            stamp,
            code: NO_CODE,
            count: 0,
        };
        Some(id)
    }
}
