//! The memory-dependence recorder: which instruction reads and writes each
//! byte of console RAM ($0000-$07FF, mirrors folded) and PRG RAM
//! ($6000-$7FFF, by CPU address), and which writer each read took its value
//! from (read-after-write dependences, as Embla and depsim count them).
//!
//! What counts as an access: the data reads and writes an instruction asks
//! for — operands of loads, ALU ops, compares and BIT; stores; the read and
//! the final write of a read-modify-write (not its dummy write); the
//! zero-page pointer bytes of `(zp,X)` / `(zp),Y` and the pointer of
//! `JMP (ind)`. Not counted: dummy reads, instruction fetches, DMA reads
//! (but the pages OAM DMA copied from are noted, [`MemoryProfile::oam_dma_source`]:
//! a sprite page is written by the program and read only by the DMA),
//! and the stack traffic of pushes and pulls (JSR/RTS/RTI/BRK/interrupts
//! and PHA/PHP/PLA/PLP): return addresses are control flow, and a
//! PHA/PLA pair saves a register within one routine. A push does end the
//! byte's last write, so a later read of a stack-page byte through an
//! ordinary addressing mode is not blamed on a store the push overwrote.
//!
//! Each dependence is attributed to the nearest common ancestor of the
//! writer's and the reader's call-stack contexts (`call_stacks.rs`, kept by
//! the flow recorder) and marked when writer and reader ran in different
//! interrupt contexts (NMI or IRQ against main code: the shared variables
//! behind race bugs). An optional lifetime in instructions drops reads
//! further than that from their write (depsim's idea: far-apart pairs are
//! seldom what one looks for).
//!
//! Bursts (VMAD's idea: instrument sampled stretches only): between them
//! the recorder counts nothing but still follows each byte's last writer
//! (`nes::MemoryState`; the front half keeps that table between bursts
//! and sends the profile what changed, [`MemoryProfile::set_writer`]), so
//! a burst counts exactly what a full recording counts in its frames. Set
//! aside instead (before a burst's warm-up), it keeps the bytes' values
//! and, back, the last writers of the bytes that still hold them
//! (`memory_log::MemoryRecorder::unpark`).
//!
//! This is the recorder's back half: the engines call
//! `memory_log::MemoryRecorder`, which logs their calls for a worker
//! thread to replay here (the lookups below are most of the cost, and run
//! on another core). The engines run other monomorphisations of the
//! instruction code (`cpu::Recorded`: every access, or writes only) only
//! while the recorder is attached, so the plain engines pay nothing; the
//! translator's blocks point the ops that report accesses at other
//! handlers as they run (`translate::op::handler`). While recording, the
//! translator keeps its idle window and its idle-loop skipping (the skipped
//! iterations' reads are counted in bulk, `MemoryProfile::repeat_reads`).
//! An access finds its (instruction, byte) cell through a direct-mapped
//! table and a dense per-instruction range, and a read whose writer and
//! call-stack nodes are one of the cell's last two pairs counts there,
//! without a lookup.

use crate::int_hash::IntMap;

/// Internal RAM bytes recorded (mirrors folded).
pub const RAM_BYTES: usize = 0x800;
/// PRG RAM bytes recorded ($6000-$7FFF).
pub const WRAM_BYTES: usize = 0x2000;
pub(crate) const SLOTS: usize = RAM_BYTES + WRAM_BYTES;

/// The recorded byte (its index in the recorder's tables) a CPU address
/// is, if any: internal RAM with its mirrors folded, and PRG RAM on a
/// board (`wram`) that has some.
#[inline(always)]
pub(crate) fn slot(addr: u16, wram: bool) -> Option<usize> {
    match addr {
        0x0000..=0x1FFF => Some((addr & 0x7FF) as usize),
        0x6000..=0x7FFF if wram => Some(RAM_BYTES + (addr - 0x6000) as usize),
        _ => None,
    }
}

/// The CPU address of a recorded byte (see [`slot`]).
pub(crate) fn slot_addr(slot: usize) -> u16 {
    if slot < RAM_BYTES {
        slot as u16
    } else {
        0x6000 + (slot - RAM_BYTES) as u16
    }
}
const NONE: u32 = u32::MAX;

/// The interrupt context code runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Context {
    Main,
    Nmi,
    /// An IRQ (or a hardware interrupt not said to be an NMI).
    Irq,
}

/// Reads and writes of one byte by one instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    /// CPU address: $0000-$07FF or $6000-$7FFF.
    pub addr: u16,
    /// The instruction's code address (`crate::code_addr`).
    pub pc: u32,
    pub reads: u64,
    pub writes: u64,
}

/// A read-after-write dependence: `count` reads by the instruction at
/// `reader` of the byte at `addr` last written by the instruction at
/// `writer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Dependence {
    pub writer: u32,
    pub reader: u32,
    pub addr: u16,
    pub count: u64,
    /// The nearest common ancestor of the writer's and the reader's
    /// call-stack nodes (`CallStacks` node ids).
    pub nca: u32,
    /// Writer and reader ran in different interrupt contexts.
    pub crosses_interrupt: bool,
}

/// The last write of a byte.
#[derive(Debug, Clone, Copy)]
struct Writer {
    pc: u32,
    node: u32,
    /// Frames entered before the write (`CallStacks::pushes`): an open
    /// frame with a later serial began after the write.
    serial: u64,
}

const NO_WRITER: Writer = Writer {
    pc: NONE,
    node: 0,
    serial: 0,
};

/// A reader instruction's last dependence on one byte: the writer and
/// the two call-stack nodes it was found for, their static and dynamic
/// common ancestors, and its counter. While writer and nodes stay the same,
/// only the dynamic ancestor can change (a new activation of a frame on the
/// way), and checking that is a compare or two (see
/// [`MemoryProfile::raise`]). Its reads are counted here and added to the
/// dependence's counter when the pair is replaced or the profile is read:
/// the counters are scattered, the cell is at hand.
#[derive(Debug, Clone, Copy)]
struct PairCache {
    writer: u32,
    writer_node: u32,
    reader_node: u32,
    static_nca: u32,
    nca: u32,
    index: u32,
    pending: u64,
}

const NO_PAIR: PairCache = PairCache {
    writer: NONE,
    writer_node: 0,
    reader_node: 0,
    static_nca: 0,
    nca: 0,
    index: 0,
    pending: 0,
};

/// One instruction's counts for one byte, and its last two dependences
/// there, the latest first: a byte written by two instructions in turn, or
/// read by a routine called from two places, finds its pair without a
/// lookup.
#[derive(Debug, Clone, Copy)]
struct Cell {
    reads: u64,
    writes: u64,
    pairs: [PairCache; 2],
}

const EMPTY_CELL: Cell = Cell {
    reads: 0,
    writes: 0,
    pairs: [NO_PAIR; 2],
};

/// An instruction's cells for the bytes `first..first + cells.len()`: an
/// instruction reaches one byte, or the up to 256 of an indexed mode, or
/// the bytes its pointers aimed at, so a dense range is small and needs no
/// hashing (a per-(byte, instruction) hash map, with a one-entry cache per
/// byte, cost a lookup on 40 % of accesses: a byte that several
/// instructions take turns at misses every time).
#[derive(Debug)]
struct Instruction {
    pc: u32,
    first: u32,
    cells: Vec<Cell>,
}

impl Clone for Instruction {
    fn clone(&self) -> Self {
        Instruction {
            pc: self.pc,
            first: self.first,
            cells: self.cells.clone(),
        }
    }

    /// Reuses `self`'s cells ([`MemoryProfile::copy_from`]).
    fn clone_from(&mut self, source: &Self) {
        self.pc = source.pc;
        self.first = source.first;
        self.cells.clone_from(&source.cells);
    }
}

/// Key of a dependence counter: (writer, reader, addr, nca, crosses).
type DepKey = (u32, u32, u16, u32, bool);

type FastMap<K, V> = IntMap<K, V>;

/// A dependence key as two words for [`IntMap`]'s hasher.
fn packed(k: &DepKey) -> (u64, u64) {
    (
        (k.0 as u64) << 32 | k.1 as u64,
        (k.2 as u64) << 40 | (k.3 as u64) << 1 | k.4 as u64,
    )
}

/// Entries of the direct-mapped instruction table, by the low 16 bits of
/// the code address (the CPU address).
const DIRECT: usize = 0x10000;

/// Every instruction that accessed a byte, by code address: a
/// direct-mapped table by CPU address (tagged with the code address) in
/// front of a map, for the banks that share a CPU address.
#[derive(Debug, Clone)]
struct Instructions {
    /// In the order first seen.
    list: Vec<Instruction>,
    direct: Vec<(u32, u32)>,
    index: FastMap<u32, u32>,
}

impl Instructions {
    fn new() -> Instructions {
        Instructions {
            list: Vec::new(),
            direct: vec![(NONE, 0); DIRECT],
            index: FastMap::default(),
        }
    }

    /// The cell of the instruction at code address `pc` for `slot`.
    #[inline(always)]
    fn cell(&mut self, pc: u32, slot: usize) -> &mut Cell {
        let (tag, index) = self.direct[(pc & 0xFFFF) as usize];
        let index = if tag == pc { index } else { self.find(pc) };
        let i = &mut self.list[index as usize];
        let at = (slot as u32).wrapping_sub(i.first) as usize;
        if at >= i.cells.len() {
            return Self::widen(i, slot);
        }
        &mut i.cells[at]
    }

    /// The index of the instruction at `pc`, found or added, and put in
    /// the direct-mapped table.
    #[cold]
    fn find(&mut self, pc: u32) -> u32 {
        let next = self.list.len() as u32;
        let index = *self.index.entry(pc).or_insert(next);
        if index == next {
            self.list.push(Instruction {
                pc,
                first: 0,
                cells: Vec::new(),
            });
        }
        self.direct[(pc & 0xFFFF) as usize] = (pc, index);
        index
    }

    /// Extends `i`'s cells to cover `slot`.
    #[cold]
    fn widen(i: &mut Instruction, slot: usize) -> &mut Cell {
        let slot = slot as u32;
        if i.cells.is_empty() {
            i.first = slot;
            i.cells.push(EMPTY_CELL);
        } else if slot < i.first {
            let grow = (i.first - slot) as usize;
            i.cells.splice(0..0, std::iter::repeat_n(EMPTY_CELL, grow));
            i.first = slot;
        } else {
            i.cells.resize((slot - i.first) as usize + 1, EMPTY_CELL);
        }
        &mut i.cells[(slot - i.first) as usize]
    }
}

/// The recorder's copy of the call-stack trie (parent links, depths, each
/// node's interrupt context), extended as nodes appear.
#[derive(Debug, Clone)]
struct Tree {
    parents: Vec<u32>,
    depths: Vec<u32>,
    contexts: Vec<Context>,
}

impl Tree {
    /// The nearest common ancestor in the dynamic call tree (Embla's
    /// attribution) of a write made when the call stacks had entered
    /// `serial` frames and of a read by code whose open frames began at
    /// `activations`, given `n`, the common ancestor of their nodes in
    /// the trie: `n`, or above it while the reader's activation of it
    /// began after the write — two NMIs, or two calls of one routine, are
    /// two frames whose common ancestor is their caller's. Activations
    /// deepen in time, so the usual answer (the write happened inside the
    /// reader's activation of `n`) costs one compare.
    #[inline(always)]
    fn raise(&self, activations: &[u64], mut n: u32, serial: u64) -> u32 {
        loop {
            let depth = self.depths[n as usize] as usize;
            if depth == 0 {
                return n;
            }
            match activations.get(depth - 1) {
                Some(&start) if start > serial => n = self.parents[n as usize],
                _ => return n,
            }
        }
    }

    /// The nearest common ancestor of two nodes.
    fn nca(&self, mut a: u32, mut b: u32) -> u32 {
        let depth = |n: u32| self.depths[n as usize];
        while depth(a) > depth(b) {
            a = self.parents[a as usize];
        }
        while depth(b) > depth(a) {
            b = self.parents[b as usize];
        }
        while a != b {
            a = self.parents[a as usize];
            b = self.parents[b as usize];
        }
        a
    }
}

/// The recorder (see the module doc).
#[derive(Debug, Clone)]
pub struct MemoryProfile {
    instructions: Instructions,
    writer: Vec<Writer>,
    /// The recorder's instruction count at each byte's last write, kept
    /// only with a lifetime (16-byte writers are a quarter of a cache line).
    written_at: Vec<u64>,
    dep_index: FastMap<(u64, u64), u32>,
    dep_counts: Vec<(DepKey, u64)>,
    /// Reads further than this many instructions from their write are not
    /// dependences.
    lifetime: Option<u64>,
    /// Whether the cartridge has PRG RAM at all.
    wram: bool,
    /// Counting accesses (in a burst, or always); else only following
    /// each byte's last writer (see [`MemoryProfile::set_recording`]).
    recording: bool,
    // The instruction running now (`memory_log.rs` replays the engines'
    // calls).
    pc: u32,
    node: u32,
    context: Context,
    /// Instructions (and interrupt entries) begun while recording.
    retired: u64,
    tree: Tree,
    /// The call stacks' `pushes` and open frames' activation serials, as of
    /// the last move (`MemoryProfile::moved_to`).
    pushes: u64,
    activations: Vec<u64>,
    /// `activations` was not kept up to date (between bursts).
    activations_stale: bool,
    /// Bit `p` (of word `p / 64`): an OAM DMA copied CPU page `p` ($4014
    /// written with `p`) while the recorder was attached.
    oam_dma_pages: [u64; 4],
}

impl MemoryProfile {
    /// A recorder for a board with PRG RAM if `wram`.
    pub fn new(wram: bool) -> MemoryProfile {
        MemoryProfile {
            instructions: Instructions::new(),
            writer: vec![NO_WRITER; SLOTS],
            written_at: vec![0; SLOTS],
            dep_index: FastMap::default(),
            dep_counts: Vec::new(),
            lifetime: None,
            wram,
            recording: true,
            pc: 0,
            node: 0,
            context: Context::Main,
            retired: 0,
            tree: Tree {
                parents: vec![0],
                depths: vec![0],
                contexts: vec![Context::Main],
            },
            pushes: 0,
            activations: Vec::new(),
            activations_stale: false,
            oam_dma_pages: [0; 4],
        }
    }

    /// Makes `self` a copy of `other`, reusing `self`'s buffers (the live
    /// overlay copies the profile about once a second, and a fresh
    /// allocation of several megabytes each time cost a frame's budget).
    pub fn copy_from(&mut self, other: &MemoryProfile) {
        // Every field named, so that a new one cannot be forgotten here.
        let MemoryProfile {
            instructions,
            writer,
            written_at,
            dep_index,
            dep_counts,
            lifetime,
            wram,
            recording,
            pc,
            node,
            context,
            retired,
            tree,
            pushes,
            activations,
            activations_stale,
            oam_dma_pages,
        } = self;
        instructions.list.clone_from(&other.instructions.list);
        instructions.direct.clone_from(&other.instructions.direct);
        instructions.index.clone_from(&other.instructions.index);
        writer.clone_from(&other.writer);
        written_at.clone_from(&other.written_at);
        dep_index.clone_from(&other.dep_index);
        dep_counts.clone_from(&other.dep_counts);
        tree.parents.clone_from(&other.tree.parents);
        tree.depths.clone_from(&other.tree.depths);
        tree.contexts.clone_from(&other.tree.contexts);
        activations.clone_from(&other.activations);
        *lifetime = other.lifetime;
        *wram = other.wram;
        *recording = other.recording;
        *pc = other.pc;
        *node = other.node;
        *context = other.context;
        *retired = other.retired;
        *pushes = other.pushes;
        *activations_stale = other.activations_stale;
        *oam_dma_pages = other.oam_dma_pages;
    }

    /// Drops reads more than `instructions` after their write from the
    /// dependences (`None`: keep all). Set it before recording: write
    /// times are kept only while a lifetime is set.
    pub fn set_lifetime(&mut self, instructions: Option<u64>) {
        self.lifetime = instructions;
    }

    /// The lifetime set by [`MemoryProfile::set_lifetime`].
    pub fn lifetime(&self) -> Option<u64> {
        self.lifetime
    }

    /// The next access is by the instruction at code address `pc`,
    /// `retired` instructions after the previous one (the log's access
    /// entries, `memory_log.rs`).
    #[inline(always)]
    pub(crate) fn advance(&mut self, pc: u32, retired: u64) {
        self.pc = pc;
        self.retired += retired;
    }

    /// `n` more instructions begun.
    pub(crate) fn advance_retired(&mut self, n: u64) {
        self.retired += n;
    }

    /// The call-stack context is now `node`, after `pushes` frame entries,
    /// the open frames' activations those of the first `keep` as before and
    /// then `entered`.
    pub(crate) fn moved_to(&mut self, node: u32, pushes: u64, keep: usize, entered: &[u64]) {
        self.activations.truncate(keep);
        self.activations.extend_from_slice(entered);
        self.moved_stale(node, pushes);
        self.activations_stale = false;
    }

    /// The call stacks moved to `node` by returns only, the first `keep`
    /// open frames staying, and then, if `entered`, by one frame entry
    /// (`memory_log`'s one-entry moves).
    pub(crate) fn stepped(&mut self, node: u32, keep: usize, entered: bool) {
        self.activations.truncate(keep);
        let pushes = self.pushes + entered as u64;
        if entered {
            self.activations.push(pushes);
        }
        self.moved_stale(node, pushes);
        self.activations_stale = false;
    }

    /// [`MemoryProfile::moved_to`] between bursts: the activations are not
    /// followed (needed only by reads), and sent whole when recording
    /// resumes ([`MemoryProfile::resync_to`]).
    pub(crate) fn moved_stale(&mut self, node: u32, pushes: u64) {
        self.activations_stale = true;
        self.pushes = pushes;
        self.node = node;
        self.context = self.tree.contexts[node as usize];
    }

    /// The call-stack context is `node` with every open frame's activation
    /// in `activations` (attaching, and when recording resumes).
    pub(crate) fn resync_to(&mut self, node: u32, pushes: u64, activations: &[u64]) {
        self.activations.clear();
        self.activations.extend_from_slice(activations);
        self.moved_stale(node, pushes);
        self.activations_stale = false;
    }

    /// `slot`'s last write was by the instruction at `pc` (`NONE`: none),
    /// in call-stack node `node` after `serial` frame entries, at
    /// instruction count `written_at` (kept with a lifetime): writes the
    /// recorder's front half tracked between bursts (`memory_log.rs`).
    pub(crate) fn set_writer(
        &mut self,
        slot: usize,
        pc: u32,
        node: u32,
        serial: u64,
        written_at: Option<u64>,
    ) {
        self.writer[slot] = Writer { pc, node, serial };
        if let Some(at) = written_at {
            self.written_at[slot] = at;
        }
    }

    /// Forgets `slot`'s last writer (a push overwrote it, or it changed
    /// while the recorder was set aside).
    #[inline]
    pub(crate) fn forget_writer(&mut self, slot: usize) {
        self.writer[slot] = NO_WRITER;
    }

    /// Whether accesses are counted now (else only the last writers are
    /// followed).
    #[inline(always)]
    pub fn recording(&self) -> bool {
        self.recording
    }

    /// Bursts: between them (`false`) the engines report only writes, and
    /// the recorder keeps only each byte's last writer, so that a read in
    /// the next burst is paired with the write it really took its value
    /// from, however long before. Nothing is counted between bursts.
    pub fn set_recording(&mut self, on: bool) {
        self.recording = on;
    }

    /// The next call-stack node (ids are given in order) has `parent`,
    /// and runs in `context` (`None`: its parent's; JSR and BRK do not
    /// leave the interrupt context they were in).
    pub(crate) fn learn_node(&mut self, parent: u32, context: Option<Context>) {
        let tree = &mut self.tree;
        let context = context.unwrap_or(tree.contexts[parent as usize]);
        tree.parents.push(parent);
        tree.depths.push(tree.depths[parent as usize] + 1);
        tree.contexts.push(context);
    }

    #[inline(always)]
    fn slot(&self, addr: u16) -> Option<usize> {
        slot(addr, self.wram)
    }

    /// The running instruction read the byte in `slot`.
    #[inline]
    pub(crate) fn read_slot(&mut self, slot: usize) {
        let w = self.writer[slot];
        let dependent = w.pc != NONE
            && self
                .lifetime
                .is_none_or(|l| self.retired - self.written_at[slot] <= l);
        self.read_times(slot, w, 1, dependent as u64);
    }

    /// Counts `times` reads of `slot` by the running instruction, `dependent`
    /// of them as dependences on its last writer `w`.
    #[inline(always)]
    fn read_times(&mut self, slot: usize, w: Writer, times: u64, dependent: u64) {
        let cell = self.instructions.cell(self.pc, slot);
        cell.reads += times;
        if dependent == 0 {
            return;
        }
        // Same writer and nodes: the same key unless the dynamic ancestor
        // moved.
        let tree = &self.tree;
        let activations = &self.activations[..];
        let node = self.node;
        let same = |p: &PairCache| {
            p.writer == w.pc
                && p.writer_node == w.node
                && p.reader_node == node
                && tree.raise(activations, p.static_nca, w.serial) == p.nca
        };
        if same(&cell.pairs[0]) {
            cell.pairs[0].pending += dependent;
        } else if same(&cell.pairs[1]) {
            cell.pairs.swap(0, 1);
            cell.pairs[0].pending += dependent;
        } else {
            self.new_pair(slot, w, dependent);
        }
    }

    /// Counts `dependent` reads of `slot` under a pair not in its cell.
    #[cold]
    fn new_pair(&mut self, slot: usize, w: Writer, dependent: u64) {
        let static_nca = self.tree.nca(w.node, self.node);
        let nca = self.tree.raise(&self.activations, static_nca, w.serial);
        let key = (
            w.pc,
            self.pc,
            slot_addr(slot),
            nca,
            self.tree.contexts[w.node as usize] != self.context,
        );
        let next = self.dep_counts.len() as u32;
        let index = *self.dep_index.entry(packed(&key)).or_insert(next);
        if index == next {
            self.dep_counts.push((key, 0));
        }
        let node = self.node;
        let cell = self.instructions.cell(self.pc, slot);
        let old = cell.pairs[1];
        cell.pairs[1] = cell.pairs[0];
        cell.pairs[0] = PairCache {
            writer: w.pc,
            writer_node: w.node,
            reader_node: node,
            static_nca,
            nca,
            index,
            pending: dependent,
        };
        if old.pending > 0 {
            self.dep_counts[old.index as usize].1 += old.pending;
        }
    }

    /// The running instruction wrote the byte at `addr`.
    #[inline]
    pub(crate) fn write_slot(&mut self, slot: usize) {
        self.instructions.cell(self.pc, slot).writes += 1;
        self.writer[slot] = Writer {
            pc: self.pc,
            node: self.node,
            serial: self.pushes,
        };
        if self.lifetime.is_some() {
            self.written_at[slot] = self.retired;
        }
    }

    /// An idle loop's `iterations` further runs, counted without running
    /// them (`translate::idle`): `ops` are its instructions' code addresses
    /// and the byte each reads (none writes), in order. The loop writes
    /// nothing, so each read has the same last writer every time; with a
    /// lifetime, only the iterations still within it of that write count
    /// as dependences.
    pub(crate) fn repeat_reads(
        &mut self,
        ops: impl ExactSizeIterator<Item = (u32, Option<u16>)>,
        iterations: u64,
    ) {
        let len = ops.len() as u64;
        let base = self.retired;
        if !self.recording {
            self.retired = base + iterations * len;
            return;
        }
        for (offset, (pc, addr)) in (1..).zip(ops) {
            let Some(slot) = addr.and_then(|a| self.slot(a)) else {
                continue;
            };
            self.pc = pc;
            let w = self.writer[slot];
            let dependent = if w.pc == NONE {
                0
            } else {
                match self.lifetime {
                    None => iterations,
                    // Iteration i (from 0) reads at base + i·len + offset.
                    Some(l) => {
                        let first = base + offset - self.written_at[slot];
                        if first > l {
                            0
                        } else {
                            ((l - first) / len + 1).min(iterations)
                        }
                    }
                }
            };
            self.read_times(slot, w, iterations, dependent);
        }
        self.retired = base + iterations * len;
    }

    /// Instructions (and interrupt entries) begun while recording.
    pub fn instructions(&self) -> u64 {
        self.retired
    }

    /// The pages OAM DMA copied from (a bitmap of CPU pages, as
    /// `MemoryRecorder` noted them).
    pub fn set_oam_dma_pages(&mut self, pages: [u64; 4]) {
        self.oam_dma_pages = pages;
    }

    /// Whether OAM DMA read the recorded byte at `addr` (a CPU address as
    /// [`MemoryProfile::byte_counts`] gives them: RAM folded into
    /// $0000-$07FF): its page, or a mirror of it, was a DMA's source.
    pub fn oam_dma_source(&self, addr: u16) -> bool {
        let copied = |page: u16| self.oam_dma_pages[page as usize / 64] >> (page % 64) & 1 != 0;
        let page = addr >> 8;
        match addr {
            // RAM: any of its four mirrors.
            0x0000..=0x07FF => (0..4).any(|m| copied(page + 8 * m)),
            _ => copied(page),
        }
    }

    /// Every byte read or written: (CPU address, reads, writes), in address
    /// order.
    pub fn byte_counts(&self) -> impl Iterator<Item = (u16, u64, u64)> + '_ {
        let mut totals = vec![(0u64, 0u64); SLOTS];
        for i in &self.instructions.list {
            for (slot, c) in (i.first as usize..).zip(&i.cells) {
                totals[slot].0 += c.reads;
                totals[slot].1 += c.writes;
            }
        }
        totals
            .into_iter()
            .enumerate()
            .filter(|(_, (r, w))| r + w > 0)
            .map(|(s, (r, w))| (slot_addr(s), r, w))
    }

    /// Reads and writes per (byte, instruction): by instruction in the
    /// order first seen, each by address.
    pub fn accesses(&self) -> impl Iterator<Item = Access> + '_ {
        self.instructions.list.iter().flat_map(|i| {
            (i.first as usize..)
                .zip(&i.cells)
                .filter(|(_, c)| c.reads + c.writes > 0)
                .map(|(slot, c)| Access {
                    addr: slot_addr(slot),
                    pc: i.pc,
                    reads: c.reads,
                    writes: c.writes,
                })
        })
    }

    /// Every read-after-write dependence, sorted by address, writer, reader.
    pub fn dependences(&self) -> Vec<Dependence> {
        let mut counts: Vec<u64> = self.dep_counts.iter().map(|&(_, n)| n).collect();
        for i in &self.instructions.list {
            for p in i.cells.iter().flat_map(|c| &c.pairs) {
                if p.pending > 0 {
                    counts[p.index as usize] += p.pending;
                }
            }
        }
        let mut out: Vec<Dependence> = self
            .dep_counts
            .iter()
            .zip(counts)
            .filter(|&(_, n)| n > 0)
            .map(
                |(&((writer, reader, addr, nca, crosses), _), count)| Dependence {
                    writer,
                    reader,
                    addr,
                    count,
                    nca,
                    crosses_interrupt: crosses,
                },
            )
            .collect();
        out.sort_unstable_by_key(|d| (d.addr, d.writer, d.reader, d.nca, d.crosses_interrupt));
        out
    }

    /// The interrupt context of a call-stack node seen while recording.
    pub fn context_of(&self, node: u32) -> Option<Context> {
        self.tree.contexts.get(node as usize).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nes::Engine;
    use crate::{Cartridge, Nes};

    /// An NROM-128 image with `main` at $8000, `nmi` at $9000 and the
    /// vectors pointing there.
    fn nrom(main: &[u8], nmi: &[u8]) -> Cartridge {
        let mut image = vec![b'N', b'E', b'S', 0x1A, 1, 1, 0, 0];
        image.resize(16, 0);
        let mut prg = vec![0xEA; 0x4000];
        prg[..main.len()].copy_from_slice(main);
        prg[0x1000..0x1000 + nmi.len()].copy_from_slice(nmi);
        prg[0x3FFA..].copy_from_slice(&[0x00, 0x90, 0x00, 0x80, 0x00, 0x90]);
        image.extend(prg);
        image.resize(16 + 0x4000 + 0x2000, 0);
        Cartridge::from_bytes(&image).expect("valid NROM image")
    }

    fn record(engine: Engine, cart: Cartridge, frames: usize) -> Box<MemoryProfile> {
        let mut nes = Nes::new(cart);
        nes.set_engine(engine);
        nes.record_memory(None);
        for _ in 0..frames {
            nes.run_frame();
        }
        nes.take_memory_profile().expect("recording")
    }

    /// Main: enable NMI, then loop reading a counter and storing it where
    /// nothing reads it. NMI: INC the counter, RTI.
    fn counter_program() -> Cartridge {
        let main = [
            0xA9, 0x80, // 8000 LDA #$80
            0x8D, 0x00, 0x20, // 8002 STA $2000
            0xA5, 0x10, // 8005 LDA $10
            0x8D, 0x00, 0x03, // 8007 STA $0300
            0x4C, 0x05, 0x80, // 800A JMP $8005
        ];
        let nmi = [0xE6, 0x10, 0x40]; // 9000 INC $10 ; RTI
        nrom(&main, &nmi)
    }

    #[test]
    fn nmi_counter_read_by_main_crosses_an_interrupt() {
        for engine in [Engine::Interpreter, Engine::Translator] {
            let p = record(engine, counter_program(), 10);
            let deps = p.dependences();
            let crossing: Vec<_> = deps.iter().filter(|d| d.crosses_interrupt).collect();
            assert_eq!(crossing.len(), 1, "{engine}: {deps:?}");
            let d = crossing[0];
            assert_eq!(
                (d.writer, d.reader, d.addr, d.nca),
                (0x9000, 0x8005, 0x10, 0)
            );
            assert!(d.count > 1000, "main reads the counter often: {}", d.count);
            // The NMI's INC reads what the previous NMI's INC wrote.
            let own: Vec<_> = deps.iter().filter(|d| !d.crosses_interrupt).collect();
            assert_eq!(own.len(), 1, "{engine}: {deps:?}");
            assert_eq!(
                (own[0].writer, own[0].reader, own[0].addr),
                (0x9000, 0x9000, 0x10)
            );
            // The NMI ran once a frame (about), INC reading after the first.
            let nmis = p
                .byte_counts()
                .find(|&(a, _, _)| a == 0x10)
                .map(|(_, _, w)| w)
                .expect("counted");
            assert_eq!(own[0].count, nmis - 1);
        }
    }

    #[test]
    fn copy_from_copies_everything() {
        let p = record(Engine::Translator, counter_program(), 6);
        let mut copy = record(Engine::Interpreter, counter_program(), 2);
        copy.copy_from(&p);
        assert_eq!(copy.dependences(), p.dependences());
        assert!(copy.accesses().eq(p.accesses()));
        assert!(copy.byte_counts().eq(p.byte_counts()));
        assert_eq!(copy.instructions(), p.instructions());
    }

    #[test]
    fn a_store_never_read_is_no_dependence() {
        let p = record(Engine::Interpreter, counter_program(), 4);
        let (_, reads, writes) = p
            .byte_counts()
            .find(|&(a, _, _)| a == 0x300)
            .expect("$0300 written");
        assert_eq!(reads, 0);
        assert!(writes > 100);
        assert!(p.dependences().iter().all(|d| d.addr != 0x300));
        let store = p.accesses().find(|a| a.addr == 0x300).expect("access");
        assert_eq!((store.pc, store.reads, store.writes), (0x8007, 0, writes));
    }

    #[test]
    fn lifetime_drops_far_reads() {
        let mut nes = Nes::new(counter_program());
        nes.record_memory(Some(10));
        for _ in 0..4 {
            nes.run_frame();
        }
        let p = nes.take_memory_profile().expect("recording");
        // Main's reads right after an NMI are within 10 instructions of its
        // INC; the next NMI's INC is a frame later.
        let deps = p.dependences();
        assert!(deps.iter().all(|d| d.reader != 0x9000), "{deps:?}");
        let crossing = deps
            .iter()
            .find(|d| d.crosses_interrupt)
            .expect("near reads");
        assert!(crossing.count <= 4 * 4, "{}", crossing.count);
    }

    /// Main calls a routine that fills a byte and another that reads it:
    /// the dependence is attributed to main (their nearest common
    /// ancestor), not crossing.
    #[test]
    fn nca_of_sibling_calls_is_the_caller() {
        let main = [
            0x20, 0x20, 0x80, // 8000 JSR $8020
            0x20, 0x30, 0x80, // 8003 JSR $8030
            0x4C, 0x00, 0x80, // 8006 JMP $8000
        ];
        let mut prg = main.to_vec();
        prg.resize(0x20, 0xEA);
        prg.extend([0x8E, 0x00, 0x04, 0xE8, 0x60]); // 8020 STX $0400 ; INX ; RTS
        prg.resize(0x30, 0xEA);
        prg.extend([0xAD, 0x00, 0x04, 0x60]); // 8030 LDA $0400 ; RTS
        for engine in [Engine::Interpreter, Engine::Translator] {
            let p = record(engine, nrom(&prg, &[0x40]), 2);
            let deps = p.dependences();
            assert_eq!(deps.len(), 1, "{deps:?}");
            let d = deps[0];
            assert_eq!(
                (d.writer, d.reader, d.addr, d.nca),
                (0x8020, 0x8030, 0x400, 0)
            );
            assert!(!d.crosses_interrupt);
        }
    }
}
