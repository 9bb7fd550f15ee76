//! Hot regions (issue 47, first part): runs of blocks along the hot paths,
//! run by the plain chain as one unit (`run --regions net`; off by
//! default).
//!
//! A region is a head block and the blocks that followed it along its hot
//! path, their ops copied back to back with a check after each block
//! ([`check`]): the PC must be where the hot path goes, and the window
//! (`op::Translated`) must hold the next block. The ops and checks run as
//! one block's ops do, so the chain's work between two blocks (its tests
//! for a stop, a repeat and an idle loop, and the successor's lookup
//! through the links: about 120 host instructions a block on hello_mmc3,
//! against about 20 an op) shrinks to one check. Where a check fails (a
//! side exit), the window cannot hold the next block, or an op closes the
//! window, the chain goes on from the block the run was in exactly as if
//! it had run each block on its own: in the open window nothing happens
//! between two blocks that the machine could see, which is what makes the
//! window itself invisible. (Measured in BENCHMARKS.md, "Hot regions".)
//!
//! Who chooses the paths ([`RegionChoice`]): NET, the classic
//! instrumentation baseline (Dynamo's "next executing tail"). A block
//! reached by a backward transfer, or where a region was left, gets a
//! counter when the link to it is made; after [`NET_THRESHOLD`] visits its
//! region is the path the blocks' most recent links take from it (the path
//! the program took last), up to a block already in it (a loop kept
//! whole), a dispatching `RTS` or `JMP` indirect, or a block that cannot
//! join. Guided by a hot CFG (`run --regions sampled|exact`): the heads
//! are the targets of its hot backward edges and the hot blocks where a
//! region was left, formed after [`GUIDED_COUNTDOWN`] visits, and a region
//! follows the block's current link that the hot CFG chose, ending where
//! it chose none (a dispatch) or no link is hot ([`super::hot_paths`]).
//!
//! A region runs only under the PRG mapping it was formed under, and is
//! dropped with any block it runs through. Its blocks are never an idle
//! loop (skipped in whole iterations), a branch to its own entry (already
//! run in place), or a `JAM`; blocks with live operands join with their
//! ops read again as they run ([`live_op`]). With taken branch targets
//! being noted, a branch not yet noted ends a region (its link must be
//! made to note it).

use std::sync::Arc;

use super::hot_paths::HotPaths;
use super::op::{Op, CLOSED, OP_HANDLERS};
use crate::bus::Bus;
use crate::cpu::Cpu;

/// Visits of a NET head before its region is formed (Dynamo used 50).
pub const NET_THRESHOLD: u16 = 50;

/// Visits of a guided head before its region is formed: the hot CFG has
/// already said it is hot, but a region follows the blocks' links, which
/// the path's first runs make.
pub(super) const GUIDED_COUNTDOWN: u16 = 2;

/// Visits of a head whose region could not be formed, or went stale,
/// before it is tried again.
pub(super) const RETRY_AFTER: u16 = 16;

/// Tries in a row that formed nothing after which a head is given up.
pub(super) const GIVE_UP_AFTER: u16 = 4;

/// Most ops in a region (each block is checked against the window on its
/// own, so a long region costs nothing where the window is short).
pub const MAX_REGION_OPS: usize = 256;

/// Most blocks in a region.
pub(super) const MAX_REGION_BLOCKS: usize = 64;

/// What a region's op returns in place of the window cycles owed when it
/// stops the region: [`CLOSED`] (it closed the window), [`SIDE_EXIT`] (a
/// check found the PC off the hot path) or [`NO_ROOM`] (a check found
/// that the window may not hold the next block); a check leaves the
/// cycles owed in `Cpu::region_owed`. Any return at or above [`STOPPED`]
/// stops the run: one comparison, as a block's loop makes for `CLOSED`.
pub(super) const SIDE_EXIT: u32 = CLOSED - 1;
pub(super) const NO_ROOM: u32 = CLOSED - 2;
pub(super) const STOPPED: u32 = NO_ROOM;

/// A region's check between two blocks: the PC must be `op.pc`, where the
/// hot path goes, and the window must hold the next block (its bound in
/// `op.bytes[1..3]`) before the chain's stop (`Cpu::region_stop`), as the
/// chain tests before it runs a block.
pub(super) fn check(op: &Op, cpu: &mut Cpu, bus: &mut Bus, owed: u32) -> u32 {
    if cpu.pc != op.pc {
        cpu.region_owed = owed;
        return SIDE_EXIT;
    }
    let end = owed + u16::from_le_bytes([op.bytes[1], op.bytes[2]]) as u32;
    if end > cpu.idle_budget || bus.cycles + end as u64 >= cpu.region_stop {
        cpu.region_owed = owed;
        return NO_ROOM;
    }
    owed
}

/// An op of a block with live operands, in a region: its bytes read again
/// from RAM, then its opcode's handler (as `execution::run` runs it).
pub(super) fn live_op(op: &Op, cpu: &mut Cpu, bus: &mut Bus, owed: u32) -> u32 {
    let fresh = op.reread(&bus.ram);
    (OP_HANDLERS[fresh.bytes[0] as usize])(&fresh, cpu, bus, owed)
}

/// How regions are chosen (see the module doc).
#[derive(Debug, Clone, Default)]
pub enum RegionChoice {
    /// No regions: every block runs on its own (the default).
    #[default]
    Off,
    /// Counters on the targets of backward transfers and region exits,
    /// a region formed after `threshold` visits ([`NET_THRESHOLD`] by
    /// default; the fuzzer forms them at once).
    Net { threshold: u16 },
    /// Heads and paths from a hot CFG (the busy code's, sampled or exact:
    /// `profiler::region_guide`).
    Guided(Arc<HotPaths>),
}

impl RegionChoice {
    /// NET at its default threshold.
    pub const NET: RegionChoice = RegionChoice::Net {
        threshold: NET_THRESHOLD,
    };
}

/// One block of a region.
#[derive(Debug, Clone, Copy)]
pub(super) struct Segment {
    /// Where its ops start in [`Region::ops`], and where its check (the op
    /// after its last, [`check`]) is: its ops are `start..check`.
    pub(super) start: u16,
    pub(super) check: u16,
    /// The ops of the blocks before it.
    pub(super) before: u32,
    /// The cycles its ops may take at most.
    pub(super) bound: u32,
    pub(super) block: u32,
    /// Whether its operands are live (`Block::live`).
    pub(super) live: bool,
}

#[derive(Debug, Clone)]
pub(super) struct Region {
    /// Its blocks' ops back to back, each block's followed by a check
    /// ([`check`]) of the PC against where the hot path goes (but the last
    /// block of a region that does not loop), ops with live operands
    /// pointed at [`live_op`].
    pub(super) ops: Vec<Op>,
    /// The ops of its blocks (not counting the checks).
    pub(super) len: u32,
    /// The PRG mapping it was formed under (`Banks::prg_key`): it runs
    /// only under that one. (A block dropped drops the regions through it,
    /// so the invalidation epoch that makes links stale does not concern
    /// it: a game that rewrites RAM code every frame keeps its other
    /// regions.)
    pub(super) mapping: u64,
    pub(super) segments: Vec<Segment>,
    /// Whether its last block goes back to its head.
    pub(super) loops: bool,
}

/// A head block's region, formed or waiting to be.
#[derive(Debug, Clone)]
pub(super) struct RegionSlot {
    pub(super) head: u32,
    /// Visits left before it is formed (again).
    pub(super) countdown: u16,
    /// Tries in a row that formed nothing.
    pub(super) failures: u16,
    pub(super) region: Option<Region>,
}

/// What regions did (`run --regions`, and the experiment's coverage).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct RegionStats {
    /// Regions formed (again after going stale, too).
    pub formed: u64,
    /// Runs of a region that went to its end, or to a side exit.
    pub runs: u64,
    /// Ops retired inside regions.
    pub ops: u64,
    /// Runs that left the hot path (or went off a region's end).
    pub exits: u64,
    /// Visits to a formed, current region whose head did not fit the
    /// window.
    pub missed: u64,
    /// Instructions of idle loops, run or skipped, that the plain chain
    /// ran (counted with regions on only). The busy instructions, which
    /// regions are to cover, are the rest; idle iterations run an op at a
    /// time (around an interrupt or the frame's end) are missed, so the
    /// busy share covered is understated, never overstated.
    pub idle: u64,
}
