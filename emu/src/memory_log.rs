//! The memory-dependence recorder's front half: what the engines call as
//! instructions run ([`MemoryRecorder`]), written as a log that a worker
//! thread replays into the [`MemoryProfile`] (`memory_profile.rs`, the back
//! half: the tables, the pairing of reads with writes, the call-tree
//! attribution).
//!
//! Why two halves: looking up an access's (instruction, byte) cell, its
//! last writer and their common ancestor is most of what recording memory
//! costs, and on the emulating thread every nanosecond of it is a
//! nanosecond of emulation lost. Appending eight bytes to a buffer is
//! cheap and its stores stream through the cache; the lookups run on
//! another core. The log replays the calls the engines made, in their
//! order, so the profile is the one the recorder would have built in
//! place (the engines-identical and burst tests compare exact counts).
//! The emulating thread waits only when the worker falls a few buffers
//! behind, and whenever the profile is read ([`MemoryRecorder::profile`]
//! first replays everything logged).
//!
//! An entry is one `u64`: an access is `pc << 32 | retired << 17 | kind <<
//! 14 | slot` (the instruction's code address, the instructions begun
//! since the previous entry — with a lifetime; without one they go in
//! the next control entry —, what happened, the byte), and so is a call or
//! a return ([`STEP_IN`], [`STEP_OUT`]); the rarer events (other moves of
//! the call stacks, a burst began, an idle loop was skipped) are a
//! [`CONTROL`] entry whose slot field says which, followed by their words.
//!
//! Between bursts nothing is logged: the writes only update the last
//! writers, which this half keeps too, and the profile is sent those that
//! changed when the next burst begins.

use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender};
use parking_lot::{Mutex, MutexGuard};

use crate::call_stacks::{CallStacks, FrameKind};
use crate::memory_profile::{Context, MemoryProfile};

/// Entry kinds (bits 14-16).
const READ: u64 = 0;
const WRITE: u64 = 1;
/// A push overwrote a stack byte (see `memory_profile.rs`).
const PUSH: u64 = 2;
const CONTROL: u64 = 3;
/// The call stacks moved by one call or interrupt entry (`STEP_IN`) or by
/// returns only (`STEP_OUT`): the commonest moves, in one entry whose pc
/// field is the new node and slot field the open frames kept (a general
/// move is a [`MOVED`] control entry).
const STEP_IN: u64 = 4;
const STEP_OUT: u64 = 5;

/// Control entries (in the slot field).
/// Payload: the instructions begun since the last entry.
const RETIRED: u64 = 0;
/// Payload: `parent << 8 | context` of the next call-stack node (context
/// 0: its parent's, 1: NMI, 2: IRQ).
const NODE: u64 = 1;
/// Payload: `node << 32 | keep`, pushes, then serials to append.
const MOVED: u64 = 2;
/// Payload: node, pushes (activations left stale).
const MOVED_STALE: u64 = 3;
/// Payload: `node << 32 | depth`, pushes, then every activation serial.
const RESYNC: u64 = 4;
/// Payload: 1 while recording, 0 while only following writers.
const SET_RECORDING: u64 = 5;
/// Payload: iterations, a count of ops, then each op as `pc << 32 |
/// has_addr << 16 | addr`.
const REPEAT: u64 = 6;
/// Payload: a count of words, then last writers, each as its slot,
/// `pc << 32 | node`, serial (and the instruction count of the write, with
/// a lifetime).
const WRITERS: u64 = 7;
/// Payload: a count of words, then a bitmap of the slots (bit `slot % 64`
/// of word `slot / 64`) whose last writer is forgotten.
const FORGET: u64 = 8;

const SLOT_BITS: u32 = 14;
const KIND_SHIFT: u32 = 14;
const RETIRED_SHIFT: u32 = 17;
/// Instructions an access entry can carry; more take a [`RETIRED`] entry.
const RETIRED_MAX: u64 = (1 << (32 - RETIRED_SHIFT)) - 1;

const NO_WRITER: (u32, u32, u64) = (u32::MAX, 0, 0);

/// Entries per buffer handed to the worker: large enough that the hand-over
/// is rare, small enough to stay in the cache the worker reads it from.
const CHUNK: usize = 1 << 14;
/// Buffers the worker may be behind before the emulating thread waits.
/// The worker needs a tenth to a fifth of the emulation's time but shares
/// its core with the hot-CFG builder, and a frame logs one or two buffers: with
/// 8 in flight the emulating thread waited for it often enough to lose a
/// tenth of its speed (fff, 3600 frames), with 64 (8 MiB, some 40 frames)
/// it did not wait.
const IN_FLIGHT: usize = 64;

/// The most the log's buffers take, however long the run: those in flight
/// and the one being filled. They are all allocated, and written once,
/// when recording starts (`Worker::start`): how many a run would otherwise
/// touch depends on how far the worker ever fell behind, which depends on
/// the load on the machine, so a long run's resident memory crept up to
/// this much above a short one's (tracker on a loaded machine: 14 MB after
/// one emulated minute, 21 MB after sixty). A profiler left on for hours
/// should take its memory at once, not creep.
pub const MAX_LOG_BYTES: usize = (IN_FLIGHT + 1) * CHUNK * std::mem::size_of::<u64>();

/// The engines' side of the memory recorder (see the module doc).
pub struct MemoryRecorder {
    log: Vec<u64>,
    worker: Worker,
    wram: bool,
    lifetime: Option<u64>,
    /// Counting accesses now (else only following each byte's last writer).
    recording: bool,
    /// The high bits of the code addresses of the translated block (or the
    /// bank) running: an access's instruction is these and its op's CPU
    /// address.
    block_high: u32,
    /// Each instruction's beginning is counted as it begins (recording with
    /// a lifetime, which measures the distance from write to read in
    /// instructions); else the translator counts a block's ops after it.
    counts_each_op: bool,
    /// Instructions begun and not yet in an entry, and those in entries.
    retired: u64,
    logged: u64,
    /// Each byte's last write (`pc`, call-stack node, `pushes`) between
    /// bursts: the writes go only here, not into the log (a store where
    /// logging costs a store and the worker's replay), and the profile gets
    /// those that changed when a burst begins. Only the bytes listed in
    /// `unsent` are current: while recording the profile has the writers
    /// from the log, and this table is not kept (160 KiB with PRG RAM, which
    /// each write touched at a burst's start, cold).
    writers: Vec<(u32, u32, u64)>,
    /// Whether each byte's last write was a store (else a push, or none
    /// known: its last writer is [`NO_WRITER`]), kept always: a push over
    /// a store is a change of writer to tell.
    stored: Vec<bool>,
    /// The instruction count at each byte's last write, with a lifetime.
    written_at: Vec<u64>,
    /// The slots whose last writer the profile has not been sent (writes
    /// tracked here only), each once:
    /// `unsent_mark` says which are listed.
    unsent: Vec<u32>,
    unsent_mark: Vec<bool>,
    /// The call stacks' node and `pushes` at the last follow, and what the
    /// profile knows of them: how many nodes it has learnt, how many open
    /// frames' activations it holds and whether they are stale (not
    /// followed between bursts, see `MemoryProfile`'s `activations`).
    node: u32,
    pushes: u64,
    known_nodes: usize,
    activations: usize,
    activations_stale: bool,
    /// The recorded bytes' values when set aside ([`MemoryRecorder::park`]).
    parked_values: Vec<u8>,
    /// CPU pages OAM DMA copied from, a bit each
    /// ([`MemoryProfile::set_oam_dma_pages`]).
    oam_dma_pages: [u64; 4],
}

impl MemoryRecorder {
    /// A recorder for a board with PRG RAM if `wram`, dropping reads further
    /// than `lifetime` instructions from their write, with its worker
    /// thread started.
    pub fn new(wram: bool, lifetime: Option<u64>) -> MemoryRecorder {
        let mut profile = MemoryProfile::new(wram);
        profile.set_lifetime(lifetime);
        MemoryRecorder {
            log: Vec::with_capacity(CHUNK),
            worker: Worker::start(profile),
            wram,
            lifetime,
            recording: true,
            block_high: 0,
            counts_each_op: lifetime.is_some(),
            retired: 0,
            logged: 0,
            writers: vec![NO_WRITER; crate::memory_profile::SLOTS],
            stored: vec![false; crate::memory_profile::SLOTS],
            written_at: if lifetime.is_some() {
                vec![0; crate::memory_profile::SLOTS]
            } else {
                Vec::new()
            },
            unsent: Vec::new(),
            unsent_mark: vec![false; crate::memory_profile::SLOTS],
            node: 0,
            pushes: 0,
            known_nodes: 1,
            activations: 0,
            activations_stale: false,
            parked_values: Vec::new(),
            oam_dma_pages: [0; 4],
        }
    }

    /// Entries logged and not yet handed to the worker.
    #[cfg(test)]
    pub(crate) fn entries_in_buffer(&self) -> usize {
        self.log.len()
    }

    /// The lifetime given to [`MemoryRecorder::new`].
    pub fn lifetime(&self) -> Option<u64> {
        self.lifetime
    }

    /// Whether accesses are counted now (else only the last writers are
    /// followed; see [`MemoryRecorder::set_recording`]).
    #[inline(always)]
    pub fn recording(&self) -> bool {
        self.recording
    }

    /// Bursts: between them (`false`) the engines report only writes, and
    /// the profile keeps only each byte's last writer, so that a read in
    /// the next burst is paired with the write it really took its value
    /// from, however long before. Nothing is counted between bursts.
    pub fn set_recording(&mut self, on: bool) {
        if on && !self.unsent.is_empty() {
            self.send_writers();
        }
        self.recording = on;
        self.counts_each_op = on && self.lifetime.is_some();
        self.control(SET_RECORDING, &[on as u64]);
    }

    /// Gives the profile the last writers it was not sent (a burst begins
    /// after writes it did not see).
    fn send_writers(&mut self) {
        let unsent = std::mem::take(&mut self.unsent);
        let words = if self.lifetime.is_some() { 4 } else { 3 };
        self.control(WRITERS, &[(unsent.len() * words) as u64]);
        for &slot in &unsent {
            let slot = slot as usize;
            let (pc, node, serial) = self.writers[slot];
            self.push_entry(slot as u64);
            self.push_entry((pc as u64) << 32 | node as u64);
            self.push_entry(serial);
            if self.lifetime.is_some() {
                self.push_entry(self.written_at[slot]);
            }
            self.unsent_mark[slot] = false;
        }
        self.unsent = unsent;
        self.unsent.clear();
    }

    /// `slot`'s last writer changed without the profile being told.
    #[inline(always)]
    fn unsent(&mut self, slot: usize) {
        if !self.unsent_mark[slot] {
            self.unsent_mark[slot] = true;
            self.unsent.push(slot as u32);
        }
    }

    /// Instructions begun so far.
    #[inline(always)]
    fn instructions(&self) -> u64 {
        self.logged + self.retired
    }

    /// This instruction's last write of `slot`, between bursts.
    #[inline(always)]
    fn note_writer(&mut self, slot: usize, pc: u32) {
        self.stored[slot] = true;
        self.writers[slot] = (pc, self.node, self.pushes);
        if self.lifetime.is_some() {
            self.written_at[slot] = self.instructions();
        }
    }

    /// An OAM DMA from CPU page `page` begins ($4014 written): its bytes
    /// are read by the DMA, which the accesses do not count.
    #[cold]
    pub fn oam_dma(&mut self, page: u8) {
        self.oam_dma_pages[page as usize / 64] |= 1 << (page % 64);
    }

    /// Everything logged so far replayed, the profile recorded until now.
    pub fn profile(&mut self) -> MutexGuard<'_, MemoryProfile> {
        self.flush();
        self.worker.wait();
        let mut profile = self.worker.profile.lock();
        profile.set_oam_dma_pages(self.oam_dma_pages);
        profile
    }

    /// Stops the worker and hands the profile over.
    pub fn finish(mut self) -> MemoryProfile {
        self.flush();
        self.worker.wait();
        let pages = self.oam_dma_pages;
        let profile = Arc::clone(&self.worker.profile);
        drop(self);
        let mut profile = Arc::try_unwrap(profile)
            .map(Mutex::into_inner)
            .unwrap_or_else(|shared| shared.lock().clone());
        profile.set_oam_dma_pages(pages);
        profile
    }

    /// Hands the worker what is logged, with the instructions begun since
    /// the last entry.
    fn flush(&mut self) {
        if self.retired > 0 {
            let n = self.take_retired();
            self.control(RETIRED, &[n]);
        }
        if !self.log.is_empty() {
            self.hand_over();
        }
    }

    #[cold]
    #[inline(never)]
    fn hand_over(&mut self) {
        let fresh = self.worker.empty_buffer();
        let full = std::mem::replace(&mut self.log, fresh);
        self.worker.send(full);
    }

    #[inline(always)]
    fn push_entry(&mut self, entry: u64) {
        if self.log.len() == self.log.capacity() {
            self.hand_over();
        }
        // Never reallocates: the buffer had room or was replaced by one
        // of `CHUNK` entries.
        self.log.push(entry);
    }

    /// An access entry for `slot` by the running instruction.
    #[inline(always)]
    fn access(&mut self, kind: u64, pc: u32, slot: usize) {
        // Only a lifetime needs the instruction count at each access;
        // without one the count goes with the next control entry (or a
        // `RETIRED` entry when it would no longer fit an access entry:
        // `add_retired`), which saves the emulating thread an update of
        // two counters per access.
        let retired = if self.lifetime.is_some() {
            self.take_retired()
        } else {
            0
        };
        let entry = (pc as u64) << 32 | retired << RETIRED_SHIFT | kind << KIND_SHIFT | slot as u64;
        self.push_entry(entry);
    }

    /// A control entry `what` with its payload (the instructions begun
    /// since the last entry go first).
    fn control(&mut self, what: u64, payload: &[u64]) {
        if what != RETIRED && self.retired > 0 {
            let n = self.take_retired();
            self.control(RETIRED, &[n]);
        }
        self.push_entry(CONTROL << KIND_SHIFT | what);
        for &word in payload {
            self.push_entry(word);
        }
    }

    /// The instructions begun since the last entry, now in one.
    #[inline(always)]
    fn take_retired(&mut self) -> u64 {
        let n = std::mem::take(&mut self.retired);
        self.logged += n;
        n
    }

    #[inline(always)]
    fn slot(&self, addr: u16) -> Option<usize> {
        crate::memory_profile::slot(addr, self.wram)
    }

    /// An instruction (or interrupt entry) at code address `code` begins
    /// (the interpreter's step has it already, from the probes' code map).
    #[inline]
    pub fn begin(&mut self, code: u32) {
        self.block_high = code & !0xFFFF;
        self.add_retired(1);
    }

    /// `n` more instructions begun. More than an access entry can carry
    /// go into a [`RETIRED`] entry now, so that the accesses need not
    /// check (they are many, and the instruction counts grow only here).
    #[inline(always)]
    fn add_retired(&mut self, n: u64) {
        self.retired += n;
        if self.retired > RETIRED_MAX {
            self.spill_retired();
        }
    }

    #[cold]
    #[inline(never)]
    fn spill_retired(&mut self) {
        let n = self.take_retired();
        self.control(RETIRED, &[n]);
    }

    /// A translated block whose code addresses have the high bits
    /// `code_high` starts running (its ops' addresses need no bank lookup).
    #[inline]
    pub(crate) fn enter_block(&mut self, code_high: u32) {
        self.block_high = code_high;
    }

    /// Whether the translator's ops report their beginnings
    /// ([`MemoryRecorder::begin_op`]); if not, it reports a block's ops
    /// after it ([`MemoryRecorder::retire`]). Only a lifetime needs the
    /// instruction count at each access: counting per op was a tenth of
    /// what recording cost the emulating thread.
    #[inline(always)]
    pub(crate) fn counts_each_op(&self) -> bool {
        self.counts_each_op
    }

    /// `n` ops of the block entered last retired, not reported one by one.
    #[inline]
    pub(crate) fn retire(&mut self, n: u64) {
        self.add_retired(n);
    }

    /// An op of the block entered last begins.
    #[inline(always)]
    pub(crate) fn begin_op(&mut self) {
        self.add_retired(1);
    }

    /// The instruction at CPU address `op_pc` (in the block or bank entered
    /// last) read the byte at `addr`.
    #[inline]
    pub fn read(&mut self, addr: u16, op_pc: u16) {
        if let Some(slot) = self.slot(addr) {
            self.access(READ, self.block_high | op_pc as u32, slot);
        }
    }

    /// The instruction at CPU address `op_pc` wrote the byte at `addr`.
    #[inline(always)]
    pub fn write(&mut self, addr: u16, op_pc: u16) {
        if let Some(slot) = self.slot(addr) {
            self.stored[slot] = true;
            self.access(WRITE, self.block_high | op_pc as u32, slot);
        }
    }

    /// The instruction at CPU address `op_pc` (in the block or bank
    /// entered last) wrote the byte at `addr` between bursts: it becomes
    /// the byte's last writer, nothing is counted. Its instruction count is
    /// the one the engine reported last (the translator reports whole
    /// blocks between bursts, see [`MemoryRecorder::retire`]), so a
    /// lifetime measured from it may be short by up to a block's length.
    #[inline(always)]
    pub(crate) fn track_write(&mut self, addr: u16, op_pc: u16) {
        if let Some(slot) = self.slot(addr) {
            self.note_writer(slot, self.block_high | op_pc as u32);
            self.unsent(slot);
        }
    }

    /// A push wrote the stack byte at `addr`: not an access, but the value
    /// there is no longer the last store's.
    #[inline(always)]
    pub fn push(&mut self, addr: u16) {
        if let Some(slot) = self.slot(addr) {
            // Mostly the byte's last write was a push too: nothing to tell.
            if self.stored[slot] {
                self.push_over_write(slot);
            }
        }
    }

    /// [`MemoryRecorder::push`] over a byte whose last write was a store.
    #[inline(never)]
    fn push_over_write(&mut self, slot: usize) {
        self.stored[slot] = false;
        if self.recording {
            self.access(PUSH, self.block_high, slot);
        } else {
            self.writers[slot] = NO_WRITER;
            self.unsent(slot);
        }
    }

    /// The call-stack context is now `stacks`' current one (the engines
    /// call this after every instruction or block that can move it). The
    /// commonest moves while recording, one call into a known context or
    /// returns out of some, take one entry here; the rest go to
    /// [`MemoryRecorder::moved`].
    #[inline(always)]
    pub fn follow(&mut self, stacks: &CallStacks) {
        let node = stacks.current_node();
        let pushes = stacks.pushes();
        if node == self.node && pushes == self.pushes {
            return;
        }
        if self.recording && !self.activations_stale && self.known_nodes == stacks.node_count() {
            // As `moved` works them out: returns only keep every open
            // frame's activation; one entry keeps those below it, and its
            // own activation serial is `pushes` just after it.
            let depth = stacks.depth();
            let step = if pushes == self.pushes {
                (depth <= self.activations).then_some((STEP_OUT, depth))
            } else if pushes == self.pushes + 1
                && depth >= 1
                && depth - 1 <= self.activations
                && stacks.activations().next_back() == Some(pushes)
            {
                Some((STEP_IN, depth - 1))
            } else {
                None
            };
            if let Some((kind, keep)) = step {
                self.access(kind, node, keep);
                self.activations = depth;
                self.pushes = pushes;
                self.node = node;
                return;
            }
        }
        self.moved(stacks, node);
    }

    /// [`MemoryRecorder::follow`] not inlined: for the interpreter's step,
    /// whose plain path (no recorder) grew by an instruction a step (0.3 %)
    /// with it inlined.
    #[inline(never)]
    pub fn follow_out_of_line(&mut self, stacks: &CallStacks) {
        self.follow(stacks);
    }

    /// [`MemoryRecorder::follow`] after a call, return or interrupt. The
    /// open frames' activation serials are needed only by reads (the
    /// common ancestors), so between bursts they are left stale and sent
    /// whole when recording resumes ([`MemoryRecorder::resync`]); while
    /// recording only the frames entered since the last time are sent:
    /// each entry adds to `pushes`, so at most that many frames on top are
    /// new.
    #[cold]
    #[inline(never)]
    fn moved(&mut self, stacks: &CallStacks, node: u32) {
        self.learn_nodes(stacks);
        if self.recording && !self.activations_stale {
            let depth = stacks.depth();
            let pushes = stacks.pushes() - self.pushes;
            let entered = pushes.min(depth as u64) as usize;
            let keep = (depth - entered).min(self.activations);
            // A frame's activation serial is `pushes` just after its entry.
            let top = stacks.activations().next_back();
            let step = match (pushes, depth - keep) {
                (0, 0) => Some(STEP_OUT),
                (1, 1) if top == Some(stacks.pushes()) => Some(STEP_IN),
                _ => None,
            };
            if let Some(kind) = step {
                self.access(kind, node, keep);
                self.activations = depth;
                self.pushes = stacks.pushes();
                self.node = node;
                return;
            }
            self.control(MOVED, &[(node as u64) << 32 | keep as u64, stacks.pushes()]);
            for serial in stacks.activations().skip(keep) {
                self.push_entry(serial);
            }
            // The end of the serials: no serial is `u64::MAX`.
            self.push_entry(u64::MAX);
            self.activations = depth;
        } else {
            self.activations_stale = true;
            // Between bursts the profile needs no context (the writes are
            // tracked here): it gets it again when recording resumes.
            if self.recording {
                self.control(MOVED_STALE, &[node as u64, stacks.pushes()]);
            }
        }
        self.pushes = stacks.pushes();
        self.node = node;
    }

    /// Takes `stacks`' current context and every open frame's activation
    /// afresh (attaching, and when recording resumes).
    pub fn resync(&mut self, stacks: &CallStacks) {
        self.learn_nodes(stacks);
        let node = stacks.current_node();
        let depth = stacks.depth();
        self.control(
            RESYNC,
            &[(node as u64) << 32 | depth as u64, stacks.pushes()],
        );
        for serial in stacks.activations() {
            self.push_entry(serial);
        }
        self.activations = depth;
        self.activations_stale = false;
        self.pushes = stacks.pushes();
        self.node = node;
    }

    /// Sends the nodes `stacks` has that the profile has not learnt.
    fn learn_nodes(&mut self, stacks: &CallStacks) {
        while self.known_nodes < stacks.node_count() {
            let node = self.known_nodes as u32;
            let context = match stacks.frame(node).kind {
                FrameKind::Call | FrameKind::Brk => 0,
                FrameKind::Nmi => 1,
                FrameKind::Irq | FrameKind::Interrupt => 2,
            };
            self.control(NODE, &[(stacks.parent(node) as u64) << 8 | context]);
            self.known_nodes += 1;
        }
    }

    /// An idle loop's `iterations` further runs, counted without running
    /// them (`translate::idle`): `ops` are its instructions' code addresses
    /// and the byte each reads (none writes), in order
    /// (`MemoryProfile::repeat_reads`).
    pub(crate) fn repeat_reads(
        &mut self,
        ops: impl ExactSizeIterator<Item = (u32, Option<u16>)>,
        iterations: u64,
    ) {
        self.control(REPEAT, &[iterations, ops.len() as u64]);
        for (pc, addr) in ops {
            let addr = addr.map_or(0, |a| 1 << 16 | a as u64);
            self.push_entry((pc as u64) << 32 | addr);
        }
    }

    /// The recorder is set aside (`nes::MemoryState::Paused`): the
    /// engines run their plain code and no write is seen until
    /// [`MemoryRecorder::unpark`]. `values` are what the CPU reads now at
    /// the recorded bytes (RAM, and $6000-$7FFF with PRG RAM; in slot
    /// order, `memory_profile::slot`), kept to compare then.
    pub(crate) fn park(&mut self, values: &[u8]) {
        self.parked_values.clear();
        self.parked_values
            .extend_from_slice(&values[..self.slots()]);
    }

    /// The recorder is back after [`MemoryRecorder::park`]. A byte whose
    /// value changed meanwhile was written by code not seen, so its last
    /// writer is forgotten (a read of it before the next write seen is not
    /// a dependence). A byte with its old value keeps its last writer:
    /// it was not written, or written with the value it held — most often
    /// by the same instruction, which is what makes this worth it: a
    /// variable set once per level, or a flag stored every frame, is read
    /// in the next burst with its real writer, where forgetting every
    /// writer lost the far writes of every burst. The cost of the guess: a
    /// byte rewritten with its own value by another instruction is blamed
    /// on the earlier writer. With a lifetime every writer is forgotten
    /// (the instructions run while parked were not counted, so how far
    /// back a kept write lies is unknown). The profile is told now which
    /// writers it forgets ([`FORGET`]).
    pub(crate) fn unpark(&mut self, values: &[u8]) {
        let slots = self.slots();
        let forget_all = self.lifetime.is_some() || self.parked_values.len() != slots;
        let parked = std::mem::take(&mut self.parked_values);
        // Eight bytes at a time, as one word: most of memory is as it was
        // (this runs at each burst's start, in its first frame). The
        // profile is told which writers to forget in one bitmap rather
        // than a `WRITERS` entry of three words each.
        let mut forgotten = vec![0u64; slots.div_ceil(64)];
        let mut forget = |slot: usize| {
            forgotten[slot / 64] |= 1 << (slot % 64);
            self.stored[slot] = false;
            if self.unsent_mark[slot] {
                // Tracked here and not yet sent: sent as forgotten.
                self.writers[slot] = NO_WRITER;
            }
        };
        if forget_all {
            (0..slots).for_each(&mut forget);
        } else {
            // (`slots` is a multiple of 8, and `parked` as long.)
            let word = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("eight bytes"));
            let pairs = values[..slots].chunks_exact(8).zip(parked.chunks_exact(8));
            for (i, (a, b)) in pairs.enumerate() {
                let mut changed = word(a) ^ word(b);
                while changed != 0 {
                    let byte = changed.trailing_zeros() as usize / 8;
                    forget(i * 8 + byte);
                    changed &= !(0xFF << (byte * 8));
                }
            }
        }
        if forgotten.iter().any(|&w| w != 0) {
            self.control(FORGET, &[forgotten.len() as u64]);
            for w in forgotten {
                self.push_entry(w);
            }
        }
        self.parked_values = parked;
    }

    /// How many bytes are recorded (PRG RAM only where there is some).
    fn slots(&self) -> usize {
        if self.wram {
            crate::memory_profile::SLOTS
        } else {
            crate::memory_profile::RAM_BYTES
        }
    }
}

impl std::fmt::Debug for MemoryRecorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryRecorder")
            .field("logged", &self.log.len())
            .field("recording", &self.recording)
            .finish_non_exhaustive()
    }
}

/// The thread replaying the log into the profile.
struct Worker {
    profile: Arc<Mutex<MemoryProfile>>,
    to_worker: Option<Sender<Vec<u64>>>,
    /// Replayed buffers coming back, emptied, for reuse.
    back: Receiver<Vec<u64>>,
    /// Buffers sent and not yet back.
    in_flight: usize,
    spare: Vec<Vec<u64>>,
    thread: Option<JoinHandle<()>>,
}

impl Worker {
    fn start(profile: MemoryProfile) -> Worker {
        let profile = Arc::new(Mutex::new(profile));
        let (to_worker, from_recorder) = crossbeam_channel::bounded::<Vec<u64>>(IN_FLIGHT);
        let (to_recorder, back) = crossbeam_channel::unbounded();
        let shared = Arc::clone(&profile);
        let thread = std::thread::Builder::new()
            .name("memory-profile".into())
            .spawn(move || {
                let mut replay = Replay::default();
                for mut buffer in from_recorder {
                    replay.apply(&mut shared.lock(), &buffer);
                    buffer.clear();
                    if to_recorder.send(buffer).is_err() {
                        return;
                    }
                }
            })
            .expect("spawning the memory-profile thread");
        // Every buffer the log can use, resident from the start (see
        // MAX_LOG_BYTES); `clear` keeps the capacity and the pages.
        let spare = (0..IN_FLIGHT)
            .map(|_| {
                // Written, not only allocated: zeroed allocations are
                // mapped lazily and would become resident later anyway.
                let mut buffer = Vec::with_capacity(CHUNK);
                buffer.resize(CHUNK, u64::MAX);
                std::hint::black_box(&mut buffer);
                buffer.clear();
                buffer
            })
            .collect();
        Worker {
            profile,
            to_worker: Some(to_worker),
            back,
            in_flight: 0,
            spare,
            thread: Some(thread),
        }
    }

    fn send(&mut self, buffer: Vec<u64>) {
        self.in_flight += 1;
        let sent = self.to_worker.as_ref().map(|t| t.send(buffer));
        if !matches!(sent, Some(Ok(()))) {
            self.died();
        }
    }

    /// An empty buffer of [`CHUNK`] entries: one the worker gave back, or
    /// a new one while fewer than [`IN_FLIGHT`] are out.
    fn empty_buffer(&mut self) -> Vec<u64> {
        while let Ok(buffer) = self.back.try_recv() {
            self.in_flight -= 1;
            self.spare.push(buffer);
        }
        if let Some(buffer) = self.spare.pop() {
            return buffer;
        }
        if self.in_flight < IN_FLIGHT {
            return Vec::with_capacity(CHUNK);
        }
        self.take_back()
    }

    /// Waits for a buffer to come back.
    fn take_back(&mut self) -> Vec<u64> {
        match self.back.recv() {
            Ok(buffer) => {
                self.in_flight -= 1;
                buffer
            }
            Err(_) => self.died(),
        }
    }

    /// Waits until every buffer sent has been replayed.
    fn wait(&mut self) {
        while self.in_flight > 0 {
            let buffer = self.take_back();
            self.spare.push(buffer);
        }
    }

    /// The worker stopped: only a panic in the replay does that, a bug
    /// (its message was printed); the recording cannot go on.
    fn died(&mut self) -> ! {
        if let Some(thread) = self.thread.take() {
            if let Err(panic) = thread.join() {
                std::panic::resume_unwind(panic);
            }
        }
        panic!("the memory-profile thread stopped");
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Closing the channel ends the thread's loop.
        self.to_worker = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The worker's state between buffers: a control entry's payload may run
/// into the next buffer, so the replay is a small state machine.
#[derive(Default)]
struct Replay {
    /// The control entry being read, and the words of it read so far.
    pending: Option<u64>,
    words: Vec<u64>,
}

impl Replay {
    fn apply(&mut self, p: &mut MemoryProfile, log: &[u64]) {
        for &entry in log {
            if let Some(what) = self.pending {
                self.words.push(entry);
                if self.complete(what) {
                    self.pending = None;
                    Self::control(p, what, &self.words);
                    self.words.clear();
                }
                continue;
            }
            let kind = entry >> KIND_SHIFT & 7;
            let slot = (entry & ((1 << SLOT_BITS) - 1)) as usize;
            if kind == CONTROL {
                self.pending = Some(slot as u64);
                if self.complete(slot as u64) {
                    self.pending = None;
                    Self::control(p, slot as u64, &[]);
                }
                continue;
            }
            let retired = entry >> RETIRED_SHIFT & RETIRED_MAX;
            let pc = (entry >> 32) as u32;
            if kind >= STEP_IN {
                p.advance_retired(retired);
                p.stepped(pc, slot, kind == STEP_IN);
                continue;
            }
            p.advance(pc, retired);
            match kind {
                READ => p.read_slot(slot),
                WRITE => p.write_slot(slot),
                _ => p.forget_writer(slot),
            }
        }
    }

    /// Whether `self.words` holds control entry `what`'s whole payload.
    fn complete(&self, what: u64) -> bool {
        let w = &self.words;
        match what {
            RETIRED | NODE | SET_RECORDING => w.len() == 1,
            MOVED_STALE => w.len() == 2,
            MOVED => w.len() > 2 && w[w.len() - 1] == u64::MAX,
            RESYNC => w.len() >= 2 && w.len() == 2 + (w[0] & 0xFFFF_FFFF) as usize,
            REPEAT => w.len() >= 2 && w.len() == 2 + w[1] as usize,
            WRITERS | FORGET => !w.is_empty() && w.len() == 1 + w[0] as usize,
            _ => unreachable!("unknown memory-log control {what}"),
        }
    }

    fn control(p: &mut MemoryProfile, what: u64, w: &[u64]) {
        match what {
            RETIRED => p.advance_retired(w[0]),
            NODE => {
                let context = match w[0] & 0xFF {
                    0 => None,
                    1 => Some(Context::Nmi),
                    _ => Some(Context::Irq),
                };
                p.learn_node((w[0] >> 8) as u32, context)
            }
            MOVED => p.moved_to(
                (w[0] >> 32) as u32,
                w[1],
                (w[0] & 0xFFFF_FFFF) as usize,
                &w[2..w.len() - 1],
            ),
            MOVED_STALE => p.moved_stale(w[0] as u32, w[1]),
            RESYNC => p.resync_to((w[0] >> 32) as u32, w[1], &w[2..]),
            SET_RECORDING => p.set_recording(w[0] != 0),
            REPEAT => {
                let ops = w[2..].iter().map(|&op| {
                    let addr = (op >> 16 & 1 == 1).then_some(op as u16);
                    ((op >> 32) as u32, addr)
                });
                p.repeat_reads(ops, w[0]);
            }
            FORGET => {
                for (i, &bits) in w[1..].iter().enumerate() {
                    let mut bits = bits;
                    while bits != 0 {
                        p.forget_writer(i * 64 + bits.trailing_zeros() as usize);
                        bits &= bits - 1;
                    }
                }
            }
            WRITERS => {
                let per_slot = if p.lifetime().is_some() { 4 } else { 3 };
                for writer in w[1..].chunks_exact(per_slot) {
                    let (pc, node) = ((writer[1] >> 32) as u32, writer[1] as u32);
                    let written_at = writer.get(3).copied();
                    p.set_writer(writer[0] as usize, pc, node, writer[2], written_at);
                }
            }
            _ => unreachable!("unknown memory-log control {what}"),
        }
    }
}

#[cfg(test)]
impl MemoryRecorder {
    /// [`MemoryRecorder::follow`] without its direct path: every move
    /// through [`MemoryRecorder::moved`].
    fn follow_by_moved(&mut self, stacks: &CallStacks) {
        let node = stacks.current_node();
        if node != self.node || stacks.pushes() != self.pushes {
            self.moved(stacks, node);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// `follow`'s direct path for single calls and returns builds the
        /// profile that `moved` builds: the same dependences with the same
        /// common ancestors, over any calls, interrupts, returns and
        /// accesses, followed after each move or after several.
        #[test]
        fn following_moves_directly_builds_the_same_profile(
            actions in proptest::collection::vec((0u8..7, 0u16..48, any::<bool>()), 1..300)
        ) {
            let mut stacks = CallStacks::new();
            let mut direct = MemoryRecorder::new(false, None);
            let mut by_moved = MemoryRecorder::new(false, None);
            direct.enter_block(0);
            by_moved.enter_block(0);
            let mut s: u8 = 0xFD;
            for (action, arg, follow) in actions {
                match action {
                    0 if s >= 0x10 => {
                        s -= 2;
                        stacks.call(0x8000 + (arg % 6) as u32, s);
                    }
                    1 if s <= 0xFB => {
                        s += 2;
                        stacks.ret(s);
                    }
                    2 if s >= 0x10 => {
                        s -= 3;
                        stacks.interrupt(0xC000 + (arg % 2) as u32, FrameKind::Nmi, s);
                    }
                    3 if s <= 0xFA => {
                        s += 3;
                        stacks.ret(s);
                    }
                    4 => {
                        direct.write(arg, 0x9000 + arg);
                        by_moved.write(arg, 0x9000 + arg);
                    }
                    _ => {
                        direct.read(arg, 0xA000 + arg);
                        by_moved.read(arg, 0xA000 + arg);
                    }
                }
                if follow {
                    direct.follow(&stacks);
                    by_moved.follow_by_moved(&stacks);
                }
            }
            let (a, b) = (direct.finish(), by_moved.finish());
            prop_assert_eq!(a.dependences(), b.dependences());
            prop_assert_eq!(a.accesses().count(), b.accesses().count());
        }
    }

    /// Set aside and back: a byte whose value changed meanwhile lost its
    /// last writer, one that kept its value kept it; with a lifetime every
    /// writer is forgotten.
    #[test]
    fn resuming_keeps_the_writers_of_unchanged_bytes() {
        for lifetime in [None, Some(1000)] {
            let mut r = MemoryRecorder::new(false, lifetime);
            let mut ram = [0u8; 0x800];
            r.enter_block(0);
            r.begin_op();
            for (addr, value) in [(0x10, 1), (0x11, 2)] {
                r.write(addr, 0x8000);
                ram[addr as usize] = value;
            }
            r.park(&ram);
            ram[0x11] = 3; // by code the recorder did not see
            r.unpark(&ram);
            r.set_recording(true);
            r.begin_op();
            r.read(0x10, 0x8100);
            r.read(0x11, 0x8100);
            let p = r.finish();
            let found: Vec<_> = p
                .dependences()
                .iter()
                .map(|d| (d.writer, d.reader, d.addr, d.count))
                .collect();
            let expected = match lifetime {
                None => vec![(0x8000, 0x8100, 0x10, 1)],
                Some(_) => vec![],
            };
            assert_eq!(found, expected, "lifetime {lifetime:?}");
            assert_eq!(p.accesses().count(), 4, "the reads still count");
            assert_eq!(p.instructions(), 2);
        }
    }

    /// More entries than a buffer holds, control entries split across
    /// buffers, and instruction counts too large for an access entry:
    /// the profile counts every access and every instruction.
    #[test]
    fn long_logs_replay_whole() {
        let mut r = MemoryRecorder::new(false, None);
        r.enter_block(0);
        let rounds = 3 * CHUNK as u64;
        for i in 0..rounds {
            r.begin_op();
            r.write(0x20, 0x8000);
            r.begin_op();
            r.read(0x20, 0x8003);
            if i % 1000 == 0 {
                // An idle loop skipped: its payload may straddle buffers.
                r.repeat_reads([(0x8010, Some(0x20)), (0x8012, None)].into_iter(), 5);
                r.retire(RETIRED_MAX + 7);
            }
        }
        let p = r.finish();
        let skips = rounds.div_ceil(1000);
        let reads: u64 = p
            .accesses()
            .filter(|a| a.pc == 0x8003)
            .map(|a| a.reads)
            .sum();
        assert_eq!(reads, rounds);
        let deps = p.dependences();
        let count = |reader| {
            deps.iter()
                .filter(|d| d.reader == reader)
                .map(|d| d.count)
                .sum::<u64>()
        };
        assert_eq!((count(0x8003), count(0x8010)), (rounds, 5 * skips));
        assert_eq!(
            p.instructions(),
            2 * rounds + skips * (2 * 5 + RETIRED_MAX + 7)
        );
    }
}
