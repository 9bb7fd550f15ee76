//! Forming the translator's hot regions and running them (see `region`
//! for what a region is and why).

use super::block::Block;
use super::execution::{run, OpsRun};
use super::hot_paths::HotPaths;
use super::op::{window_for, Op, Window, CLOSED, LONGEST_INSTRUCTION, PLAIN};
use super::region::{
    check, live_op, Region, RegionChoice, RegionSlot, RegionStats, Segment, GIVE_UP_AFTER,
    GUIDED_COUNTDOWN, MAX_REGION_BLOCKS, MAX_REGION_OPS, RETRY_AFTER, SIDE_EXIT, STOPPED,
};
use super::Translator;
use crate::bus::Bus;
use crate::cpu::opcodes::Flow;
use crate::cpu::Cpu;
use crate::wait_loop::JMP_ABSOLUTE;

/// Where a region's run ended.
pub(super) enum RegionEnd {
    /// In block `.0`, which ran as `run_ops_repeating` would say (the
    /// run's ops are the region's, from its head).
    In(u32, OpsRun),
    /// In block `.0`, which ran to its end and left the hot path there
    /// (a side exit), as `In`.
    Exit(u32, OpsRun),
    /// At block `.0`'s entry, with `.1` ops retired and `.2` window cycles
    /// owed: the window could not hold that block, which the chain runs
    /// on its own.
    At(u32, u64, u32),
}

impl Translator {
    /// Chooses how regions are formed from now on; the regions formed so
    /// far are dropped.
    pub fn set_regions(&mut self, choice: RegionChoice) {
        self.region_slots.clear();
        self.free_region_slots.clear();
        for block in &mut self.blocks {
            block.region = 0;
            block.region_failed = false;
        }
        self.region_choice = choice;
        // The blocks translated and linked already that a hot CFG names
        // heads (a link's making names the others).
        if let RegionChoice::Guided(paths) = &self.region_choice {
            let paths = paths.clone();
            for id in 0..self.blocks.len() as u32 {
                let block = &self.blocks[id as usize];
                if block.valid && !block.ops.is_empty() && paths.is_head(self.entry_code(id)) {
                    self.add_head(id, GUIDED_COUNTDOWN);
                }
            }
        }
    }

    pub fn region_stats(&self) -> RegionStats {
        self.region_stats
    }

    /// A link from `from` to block `to` at `pc` was made: NET makes `to`
    /// a head with a counter if the link goes backward, a hot CFG if it
    /// names `to` a head.
    #[inline]
    pub(super) fn net_link(&mut self, from: u32, pc: u16, to: u32) {
        if self.blocks[to as usize].region != 0 {
            return;
        }
        match &self.region_choice {
            RegionChoice::Off => {}
            RegionChoice::Net { threshold } => {
                let from = &self.blocks[from as usize];
                if pc <= from.ops[from.ops.len() - 1].pc {
                    self.add_head(to, *threshold);
                }
            }
            RegionChoice::Guided(paths) => {
                if paths.is_head(self.entry_code(to)) {
                    self.add_head(to, GUIDED_COUNTDOWN);
                }
            }
        }
    }

    /// A region left its hot path after block `from`, at `pc`: the block
    /// there, once linked, is a head with a counter (Dynamo's trace exits
    /// start traces of their own; guided, only where the hot CFG says the
    /// code there is hot).
    fn net_exit(&mut self, from: u32, pc: u16, stamp: u64) {
        let link = self.blocks[from as usize]
            .links
            .iter()
            .find(|l| l.pc == pc && l.stamp == stamp)
            .map(|l| l.id);
        let Some(to) = link else {
            return;
        };
        if self.blocks[to as usize].region != 0 {
            return;
        }
        match &self.region_choice {
            RegionChoice::Off => {}
            RegionChoice::Net { threshold } => self.add_head(to, *threshold),
            RegionChoice::Guided(paths) => {
                if paths.is_hot(self.entry_code(to)) {
                    self.add_head(to, GUIDED_COUNTDOWN);
                }
            }
        }
    }

    fn add_head(&mut self, id: u32, countdown: u16) {
        let block = &self.blocks[id as usize];
        if block.region != 0 || block.region_failed || !Self::joins_region(block) {
            return;
        }
        let slot = RegionSlot {
            head: id,
            countdown,
            failures: 0,
            region: None,
        };
        let index = match self.free_region_slots.pop() {
            Some(i) => {
                self.region_slots[i as usize] = slot;
                i
            }
            None => {
                self.region_slots.push(slot);
                (self.region_slots.len() - 1) as u32
            }
        };
        self.blocks[id as usize].region = index + 1;
    }

    /// Block `id` (one a region was formed through) is dropped: so are
    /// the regions through it.
    pub(super) fn drop_regions_through(&mut self, id: u32) {
        for slot in &mut self.region_slots {
            if slot
                .region
                .as_ref()
                .is_some_and(|r| r.segments.iter().any(|s| s.block == id))
            {
                slot.region = None;
            }
        }
    }

    /// Block `id` is dropped: its region slot is free.
    pub(super) fn release_region(&mut self, id: u32) {
        let slot = std::mem::take(&mut self.blocks[id as usize].region);
        if slot != 0 {
            self.region_slots[slot as usize - 1].region = None;
            self.free_region_slots.push(slot - 1);
        }
    }

    /// Whether `block` may be part of a region (see the module doc).
    fn joins_region(block: &Block) -> bool {
        let last = block.ops.last();
        block.valid
            && !block.idle_loop
            && block.handlers == PLAIN
            && block.exit_flow != Flow::Jam
            && last.is_some_and(|op| block.live || op.branch_target() != Some(block.entry))
    }

    /// At head block `id`'s visit (region slot `slot`), from the plain
    /// chain with `owed` window cycles: runs its region if it is current
    /// and fits the window, else counts the visit towards forming it.
    /// Returns where the run ended ([`RegionEnd`]), or `None` with
    /// nothing run (`owed` may have been added to the machine).
    #[inline(never)]
    pub(super) fn region_turn(
        &mut self,
        slot: u32,
        stamp: u64,
        cpu: &mut Cpu,
        bus: &mut Bus,
        stop_at_cycle: u64,
        owed: &mut u32,
    ) -> Option<RegionEnd> {
        let s = &mut self.region_slots[slot as usize];
        if s.region.as_ref().is_none_or(|r| r.mapping != stamp >> 16) {
            if s.countdown > 0 {
                s.countdown -= 1;
                return None;
            }
            s.countdown = RETRY_AFTER;
            s.failures += 1;
            let head = s.head;
            let region = self.form_region(head, stamp);
            match region {
                Some(_) => {
                    self.region_stats.formed += 1;
                    self.region_slots[slot as usize].failures = 0;
                }
                None if self.region_slots[slot as usize].failures >= GIVE_UP_AFTER => {
                    // No path from it: it stops being a head (until it is
                    // translated again), and stops costing its visits.
                    self.release_region(head);
                    self.blocks[head as usize].region_failed = true;
                    return None;
                }
                None => {}
            }
            self.region_slots[slot as usize].region = region;
            self.region_slots[slot as usize].region.as_ref()?;
        }
        let ran = self.run_region(slot, cpu, bus, stop_at_cycle, owed);
        match &ran {
            Some(
                RegionEnd::In(_, OpsRun { retired, .. })
                | RegionEnd::Exit(_, OpsRun { retired, .. })
                | RegionEnd::At(_, retired, _),
            ) => {
                self.region_stats.runs += 1;
                self.region_stats.ops += retired;
            }
            None => self.region_stats.missed += 1,
        }
        if let Some(RegionEnd::Exit(from, _)) = ran {
            self.region_stats.exits += 1;
            self.net_exit(from, cpu.pc, stamp);
        }
        ran
    }

    /// The region from head block `head` under `stamp`, along the links
    /// current now: `None` if it would hold one block only.
    fn form_region(&mut self, head: u32, stamp: u64) -> Option<Region> {
        let mut path: Vec<(u32, Option<u16>)> = Vec::new();
        let mut len = 0;
        let mut loops = false;
        let mut id = head;
        loop {
            len += self.blocks[id as usize].ops.len();
            let next = self.region_successor(id, stamp).filter(|&(_, to)| {
                let b = &self.blocks[to as usize];
                to == head
                    || (Self::joins_region(b)
                        && !path.iter().any(|&(s, _)| s == to)
                        && len + b.ops.len() <= MAX_REGION_OPS
                        && path.len() + 2 <= MAX_REGION_BLOCKS)
            });
            path.push((id, next.map(|(pc, _)| pc)));
            match next {
                Some((_, to)) if to == head => {
                    loops = true;
                    break;
                }
                Some((_, to)) => id = to,
                None => break,
            }
        }
        if path.len() < 2 {
            return None;
        }
        let mut ops = Vec::with_capacity(len + path.len());
        let mut segments = Vec::with_capacity(path.len());
        let mut before = 0;
        for (k, &(id, next)) in path.iter().enumerate() {
            let following = path.get(k + 1).map_or(head, |&(n, _)| n);
            let next_bound = self.blocks[following as usize].ops.len() as u32 * LONGEST_INSTRUCTION;
            let block = &mut self.blocks[id as usize];
            block.in_region = true;
            let start = ops.len() as u16;
            let live = block.live;
            ops.extend(block.ops.iter().map(
                |&op| {
                    if live {
                        Op { run: live_op, ..op }
                    } else {
                        op
                    }
                },
            ));
            segments.push(Segment {
                start,
                check: ops.len() as u16,
                before,
                bound: block.ops.len() as u32 * LONGEST_INSTRUCTION,
                block: id,
                live,
            });
            before += block.ops.len() as u32;
            // A check after every block but the last of a region that
            // does not loop.
            if let (Some(pc), true) = (next, k + 1 < path.len() || loops) {
                let [lo, hi] = (next_bound as u16).to_le_bytes();
                ops.push(Op {
                    pc,
                    run: check,
                    bytes: [0, lo, hi, 0],
                    reports: false,
                });
            }
        }
        Some(Region {
            ops,
            len: len as u32,
            mapping: stamp >> 16,
            segments,
            loops,
        })
    }

    /// Where the hot path goes after block `id`: one of its current links
    /// (the program's most recent successors), the hottest under the hot
    /// CFG given or the newest for NET.
    fn region_successor(&self, id: u32, stamp: u64) -> Option<(u16, u32)> {
        let block = &self.blocks[id as usize];
        if self.taken.is_some() && block.exit_flow == Flow::Branch && !block.branch_noted {
            // Its taken branch is noted when the link is made.
            return None;
        }
        match &self.region_choice {
            RegionChoice::Off => None,
            RegionChoice::Net { .. } => {
                // An `RTS` or `JMP` indirect that went to two places
                // lately (dispatching) ends the region: a check there
                // would leave the hot path more often than not.
                let [a, b] = &block.links;
                let dynamic = matches!(block.exit_flow, Flow::Return | Flow::Jump)
                    && block.ops[block.ops.len() - 1].opcode() != JMP_ABSOLUTE;
                if dynamic && a.stamp == stamp && b.stamp == stamp && a.id != b.id {
                    return None;
                }
                block
                    .links
                    .iter()
                    .find(|l| l.stamp == stamp)
                    .map(|l| (l.pc, l.id))
            }
            RegionChoice::Guided(paths) => self.guided_successor(id, stamp, paths),
        }
    }

    /// Where a hot CFG says the hot path goes after block `id`: the
    /// current link to the successor it chose ([`HotPaths::next`]); after
    /// a block that ends inside one of the CFG's blocks (a branch never
    /// taken there), the current link that goes on in hot code, the
    /// fall-through first.
    fn guided_successor(&self, id: u32, stamp: u64, paths: &HotPaths) -> Option<(u16, u32)> {
        let block = &self.blocks[id as usize];
        let last = &block.ops[block.ops.len() - 1];
        let mut current = block.links.iter().filter(|l| l.stamp == stamp);
        match paths.next(last.code(block.code_high)) {
            Some(to) => {
                let to = to?;
                current
                    .find(|l| self.entry_code(l.id) == to)
                    .map(|l| (l.pc, l.id))
            }
            None => {
                let through = last.pc.wrapping_add(last.len());
                let hot: Vec<_> = current
                    .filter(|l| paths.is_hot(self.entry_code(l.id)))
                    .collect();
                hot.iter()
                    .find(|l| l.pc == through)
                    .or(hot.first())
                    .map(|l| (l.pc, l.id))
            }
        }
    }

    /// Runs the region of slot `slot` (formed and current) as far as the
    /// window holds its blocks, as [`Translator::region_turn`] says: its
    /// ops and checks back to back, as one block's.
    fn run_region(
        &self,
        slot: u32,
        cpu: &mut Cpu,
        bus: &mut Bus,
        stop_at_cycle: u64,
        owed: &mut u32,
    ) -> Option<RegionEnd> {
        let region = self.region_slots[slot as usize].region.as_ref()?;
        let mut o = *owed;
        // The head's window: as `run_ops_repeating` opens it for a block,
        // or the chain runs the head on its own.
        if !window_holds(region.segments[0].bound, &mut o, cpu, bus, stop_at_cycle) {
            *owed = o;
            return None;
        }
        bus.attention = false;
        cpu.region_stop = stop_at_cycle;
        let mut retired = 0u64;
        let mut i = 0;
        loop {
            let (done, code) = Self::run_span(&region.ops[i..], cpu, bus, o);
            i += done;
            if code < STOPPED {
                // To the end (a loop's: through its last check, which
                // found the window holding the head).
                retired += region.len as u64;
                o = code;
                if region.loops {
                    i = 0;
                    continue;
                }
                let last = region.segments[region.segments.len() - 1].block;
                let run = OpsRun {
                    retired,
                    completed: true,
                    left: false,
                    owed: o,
                };
                // Off the end of one that does not loop: where it goes
                // next is a trace exit too.
                return Some(RegionEnd::Exit(last, run));
            }
            // Stopped by op `i - 1`: a check, or an op closing the window.
            let k = region
                .segments
                .iter()
                .position(|s| i - 1 <= s.check as usize)
                .expect("every op is in a segment");
            let segment = &region.segments[k];
            let before = retired + segment.before as u64;
            let whole = before + (segment.check - segment.start) as u64;
            match code {
                CLOSED => {
                    // The rest of this block as `run_ops_repeating` runs it
                    // once an op has closed the window.
                    let ops = &self.blocks[segment.block as usize].ops;
                    let mut executed = i - segment.start as usize;
                    if executed < ops.len() && !Self::must_stop(cpu, bus, stop_at_cycle) {
                        let rest = &ops[executed..];
                        executed += if segment.live {
                            Self::run_ops_one_by_one::<true>(rest, cpu, bus, stop_at_cycle)
                        } else {
                            Self::run_ops_one_by_one::<false>(rest, cpu, bus, stop_at_cycle)
                        };
                    }
                    let run = OpsRun {
                        retired: before + executed as u64,
                        completed: executed == ops.len(),
                        left: false,
                        owed: 0,
                    };
                    return Some(RegionEnd::In(segment.block, run));
                }
                SIDE_EXIT => {
                    let run = OpsRun {
                        retired: whole,
                        completed: true,
                        left: false,
                        owed: cpu.region_owed,
                    };
                    return Some(RegionEnd::Exit(segment.block, run));
                }
                _ => {
                    // The window may not hold the next block: opened again
                    // (as the chain would before it), or the chain runs it.
                    o = cpu.region_owed;
                    let (next, bound, at) = match region.segments.get(k + 1) {
                        Some(n) => (n.block, n.bound, i),
                        None => {
                            // Back to the head of a loop.
                            retired = whole;
                            (region.segments[0].block, region.segments[0].bound, 0)
                        }
                    };
                    if !window_holds(bound, &mut o, cpu, bus, stop_at_cycle) {
                        return Some(RegionEnd::At(next, whole, o));
                    }
                    bus.attention = false;
                    i = at;
                }
            }
        }
    }

    /// Runs `ops` back to back in the open window from `owed` owed, until
    /// one stops them: how many ran, and the cycles then owed or what
    /// stopped them ([`CLOSED`], [`SIDE_EXIT`], `NO_ROOM`).
    #[inline(always)]
    fn run_span(ops: &[Op], cpu: &mut Cpu, bus: &mut Bus, mut owed: u32) -> (usize, u32) {
        let mut left = ops.iter();
        while let Some(op) = left.next() {
            owed = run::<false>(op, cpu, bus, owed);
            if owed >= STOPPED {
                return (ops.len() - left.len(), owed);
            }
        }
        (ops.len(), owed)
    }
}

/// Whether the idle window holds the next `bound` cycles with `owed`
/// owed (opened again from the machine if need be, `owed` then settled),
/// as a block's run tests at its entry: false where the block must run on
/// its own, which the chain then does.
#[inline(always)]
fn window_holds(
    bound: u32,
    owed: &mut u32,
    cpu: &mut Cpu,
    bus: &mut Bus,
    stop_at_cycle: u64,
) -> bool {
    window_for(bound, owed, cpu, bus, stop_at_cycle) == Window::Holds
}
