//! The memory-dependence recorder: which instruction reads and writes each
//! byte of console RAM ($0000-$07FF, mirrors folded) and PRG RAM
//! ($6000-$7FFF, by CPU address), and which writer each read took its value
//! from (read-after-write dependences, as Embla and depsim count them).
//!
//! What counts as an access: the data reads and writes an instruction asks
//! for — operands of loads, ALU ops, compares and BIT; stores; the read and
//! the final write of a read-modify-write (not its dummy write); the
//! zero-page pointer bytes of `(zp,X)` / `(zp),Y` and the pointer of
//! `JMP (ind)`. Not counted: dummy reads, instruction fetches, DMA reads,
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
//! Cost: the engines run a second monomorphisation of the instruction code
//! (`cpu::Recorded`) only while this recorder is attached, so the plain
//! engines pay nothing. While recording, a repeated (writer, reader) pair
//! of a byte costs a compare and an increment: each byte caches its last
//! pair's counter index, and only a new pair costs a hash lookup.

use crate::int_hash::IntMap;

use crate::call_stacks::{CallStacks, FrameKind};

/// Internal RAM bytes recorded (mirrors folded).
pub const RAM_BYTES: usize = 0x800;
/// PRG RAM bytes recorded ($6000-$7FFF).
pub const WRAM_BYTES: usize = 0x2000;
const SLOTS: usize = RAM_BYTES + WRAM_BYTES;
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
    context: Context,
    /// The recorder's instruction count at the write.
    at: u64,
    /// Frames entered before the write (`CallStacks::pushes`): an open
    /// frame with a later serial began after the write.
    serial: u64,
}

const NO_WRITER: Writer = Writer {
    pc: NONE,
    node: 0,
    context: Context::Main,
    at: 0,
    serial: 0,
};

/// A byte's last (writer, reader) pair and its counter.
#[derive(Debug, Clone, Copy)]
struct PairCache {
    writer: u32,
    writer_node: u32,
    /// The write's frame serial and the reader's own frame's: with both
    /// the same, so are the activations compared for the common ancestor.
    writer_serial: u64,
    reader_frame: u64,
    reader: u32,
    reader_node: u32,
    index: u32,
}

const NO_PAIR: PairCache = PairCache {
    writer: NONE,
    writer_node: 0,
    writer_serial: 0,
    reader_frame: 0,
    reader: NONE,
    reader_node: 0,
    index: 0,
};

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

/// The recorder (see the module doc).
#[derive(Debug, Clone)]
pub struct MemoryProfile {
    reads: Vec<u64>,
    writes: Vec<u64>,
    /// Per byte, the last (pc, access counter index).
    last_access: Vec<(u32, u32)>,
    /// (slot << 32 | pc) → index in `access_counts`.
    access_index: FastMap<u64, u32>,
    access_counts: Vec<Access>,
    writer: Vec<Writer>,
    last_pair: Vec<PairCache>,
    dep_index: FastMap<(u64, u64), u32>,
    dep_counts: Vec<(DepKey, u64)>,
    /// Reads further than this many instructions from their write are not
    /// dependences.
    lifetime: Option<u64>,
    /// Whether the cartridge has PRG RAM at all.
    wram: bool,
    // The instruction running now (set by the engines).
    pc: u32,
    node: u32,
    context: Context,
    /// Instructions (and interrupt entries) begun while recording.
    retired: u64,
    /// The high bits of the code addresses of the translated block running
    /// (`translate::block::Block::code_high`).
    block_high: u32,
    /// Copies of the call-stack trie's parent links and each node's
    /// interrupt context, extended as nodes appear.
    parents: Vec<u32>,
    depths: Vec<u32>,
    contexts: Vec<Context>,
    /// The call stacks' `pushes` and open frames' activation serials, as of
    /// the last [`MemoryProfile::follow`].
    pushes: u64,
    activations: Vec<u64>,
}

impl MemoryProfile {
    /// A recorder for a board with PRG RAM if `wram`.
    pub fn new(wram: bool) -> MemoryProfile {
        MemoryProfile {
            reads: vec![0; SLOTS],
            writes: vec![0; SLOTS],
            last_access: vec![(NONE, 0); SLOTS],
            access_index: FastMap::default(),
            access_counts: Vec::new(),
            writer: vec![NO_WRITER; SLOTS],
            last_pair: vec![NO_PAIR; SLOTS],
            dep_index: FastMap::default(),
            dep_counts: Vec::new(),
            lifetime: None,
            wram,
            pc: 0,
            node: 0,
            context: Context::Main,
            retired: 0,
            block_high: 0,
            parents: vec![0],
            depths: vec![0],
            contexts: vec![Context::Main],
            pushes: 0,
            activations: Vec::new(),
        }
    }

    /// Drops reads more than `instructions` after their write from the
    /// dependences (`None`: keep all).
    pub fn set_lifetime(&mut self, instructions: Option<u64>) {
        self.lifetime = instructions;
    }

    /// The lifetime set by [`MemoryProfile::set_lifetime`].
    pub fn lifetime(&self) -> Option<u64> {
        self.lifetime
    }

    /// An instruction (or interrupt entry) at code address `code` begins
    /// (the interpreter's step has it already, from the probes' code map).
    #[inline]
    pub fn begin(&mut self, code: u32) {
        self.pc = code;
        self.retired += 1;
    }

    /// A translated block whose code addresses have the high bits
    /// `code_high` starts running (its ops' addresses need no bank lookup).
    #[inline]
    pub(crate) fn enter_block(&mut self, code_high: u32) {
        self.block_high = code_high;
    }

    /// An op of the block entered last, at CPU address `pc`, begins.
    #[inline(always)]
    pub(crate) fn begin_op(&mut self, pc: u16) {
        self.pc = self.block_high | pc as u32;
        self.retired += 1;
    }

    /// The call-stack context is now `stacks`' current one.
    #[inline]
    pub fn follow(&mut self, stacks: &CallStacks) {
        let node = stacks.current_node();
        if node as usize >= self.parents.len() {
            self.learn_nodes(stacks);
        }
        if node != self.node || stacks.pushes() != self.pushes {
            self.pushes = stacks.pushes();
            self.activations.clear();
            self.activations.extend(stacks.activations());
        }
        self.node = node;
        self.context = self.contexts[node as usize];
    }

    /// Forgets every byte's last writer (bursty recording resumes: writes
    /// made while paused were not seen).
    pub fn forget_writers(&mut self) {
        self.writer.fill(NO_WRITER);
        self.last_pair.fill(NO_PAIR);
    }

    /// The reader's own frame's activation serial (0 in the root).
    #[inline(always)]
    fn reader_frame(&self) -> u64 {
        self.activations.last().copied().unwrap_or(0)
    }

    #[cold]
    fn learn_nodes(&mut self, stacks: &CallStacks) {
        for node in self.parents.len() as u32..stacks.node_count() as u32 {
            let parent = stacks.parent(node);
            let context = match stacks.frame(node).kind {
                FrameKind::Nmi => Context::Nmi,
                FrameKind::Irq | FrameKind::Interrupt => Context::Irq,
                FrameKind::Call | FrameKind::Brk => self.contexts[parent as usize],
            };
            self.parents.push(parent);
            self.depths.push(self.depths[parent as usize] + 1);
            self.contexts.push(context);
        }
    }

    #[inline(always)]
    fn slot(&self, addr: u16) -> Option<usize> {
        match addr {
            0x0000..=0x1FFF => Some((addr & 0x7FF) as usize),
            0x6000..=0x7FFF if self.wram => Some(RAM_BYTES + (addr - 0x6000) as usize),
            _ => None,
        }
    }

    fn slot_addr(slot: usize) -> u16 {
        if slot < RAM_BYTES {
            slot as u16
        } else {
            0x6000 + (slot - RAM_BYTES) as u16
        }
    }

    #[inline]
    fn count_access(&mut self, slot: usize, write: bool) {
        let (pc, index) = self.last_access[slot];
        let index = if pc == self.pc {
            index
        } else {
            let key = (slot as u64) << 32 | self.pc as u64;
            let next = self.access_counts.len() as u32;
            let index = *self.access_index.entry(key).or_insert(next);
            if index == next {
                self.access_counts.push(Access {
                    addr: Self::slot_addr(slot),
                    pc: self.pc,
                    reads: 0,
                    writes: 0,
                });
            }
            self.last_access[slot] = (self.pc, index);
            index
        };
        let access = &mut self.access_counts[index as usize];
        if write {
            access.writes += 1;
        } else {
            access.reads += 1;
        }
    }

    /// The running instruction read the byte at `addr`.
    #[inline]
    pub fn read(&mut self, addr: u16) {
        let Some(slot) = self.slot(addr) else {
            return;
        };
        self.reads[slot] += 1;
        self.count_access(slot, false);
        let w = self.writer[slot];
        if w.pc == NONE || self.lifetime.is_some_and(|l| self.retired - w.at > l) {
            return;
        }
        let p = self.last_pair[slot];
        let index = if p.writer == w.pc
            && p.writer_node == w.node
            && p.reader == self.pc
            && p.reader_node == self.node
            && p.writer_serial == w.serial
            && p.reader_frame == self.reader_frame()
        {
            p.index
        } else {
            self.new_pair(slot, w)
        };
        self.dep_counts[index as usize].1 += 1;
    }

    fn new_pair(&mut self, slot: usize, w: Writer) -> u32 {
        let nca = self.dynamic_nca(w);
        let key = (
            w.pc,
            self.pc,
            Self::slot_addr(slot),
            nca,
            w.context != self.context,
        );
        let next = self.dep_counts.len() as u32;
        let index = *self.dep_index.entry(packed(&key)).or_insert(next);
        if index == next {
            self.dep_counts.push((key, 0));
        }
        self.last_pair[slot] = PairCache {
            writer: w.pc,
            writer_node: w.node,
            writer_serial: w.serial,
            reader_frame: self.reader_frame(),
            reader: self.pc,
            reader_node: self.node,
            index,
        };
        index
    }

    /// The nearest common ancestor of the write's frame and the reader's in
    /// the dynamic call tree (Embla's attribution): the contexts' common
    /// ancestor in the trie, or above it while the reader's activation of
    /// it began after the write — two NMIs, or two calls of one routine,
    /// are two frames whose common ancestor is their caller's.
    fn dynamic_nca(&self, w: Writer) -> u32 {
        let mut n = self.nca(w.node, self.node);
        loop {
            let depth = self.depths[n as usize] as usize;
            if depth == 0 {
                return n;
            }
            match self.activations.get(depth - 1) {
                Some(&start) if start > w.serial => n = self.parents[n as usize],
                _ => return n,
            }
        }
    }

    /// The nearest common ancestor of two call-stack nodes.
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

    /// The running instruction wrote the byte at `addr`.
    #[inline]
    pub fn write(&mut self, addr: u16) {
        let Some(slot) = self.slot(addr) else {
            return;
        };
        self.writes[slot] += 1;
        self.count_access(slot, true);
        self.writer[slot] = Writer {
            pc: self.pc,
            node: self.node,
            context: self.context,
            at: self.retired,
            serial: self.pushes,
        };
    }

    /// A push wrote the stack byte at `addr`: not an access (see the module
    /// doc), but the value there is no longer the last store's.
    #[inline]
    pub fn push(&mut self, addr: u16) {
        if let Some(slot) = self.slot(addr) {
            self.writer[slot] = NO_WRITER;
        }
    }

    /// Instructions (and interrupt entries) begun while recording.
    pub fn instructions(&self) -> u64 {
        self.retired
    }

    /// Every byte read or written: (CPU address, reads, writes), in address
    /// order.
    pub fn byte_counts(&self) -> impl Iterator<Item = (u16, u64, u64)> + '_ {
        (0..SLOTS)
            .filter(|&s| self.reads[s] + self.writes[s] > 0)
            .map(|s| (Self::slot_addr(s), self.reads[s], self.writes[s]))
    }

    /// Reads and writes per (byte, instruction), in the order first seen.
    pub fn accesses(&self) -> impl Iterator<Item = Access> + '_ {
        self.access_counts.iter().copied()
    }

    /// Every read-after-write dependence, sorted by address, writer, reader.
    pub fn dependences(&self) -> Vec<Dependence> {
        let mut out: Vec<Dependence> = self
            .dep_counts
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(
                |&((writer, reader, addr, nca, crosses), count)| Dependence {
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
        self.contexts.get(node as usize).copied()
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
