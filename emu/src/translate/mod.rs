//! The dynamic translator: basic blocks translated into cached sequences of
//! pre-decoded instructions, executed without fetching or decoding them from
//! memory again (NESdev wiki facts aside, this is our design; DESIGN.md's
//! "Dynamic translator").
//!
//! Bus behaviour is the interpreter's, cycle for cycle: each instruction runs
//! the same generic per-cycle code as the interpreter (`cpu/dispatch.rs`),
//! through a handler chosen for its opcode when it was decoded, with its
//! bytes supplied by the op instead of bus reads (`op::Translated`).
//! Interrupts are taken between instructions exactly as the interpreter
//! takes them (the block is left and the CPU's own interrupt sequence runs).
//!
//! Only code in RAM and PRG ROM/RAM is translated; code running from I/O
//! space (test ROMs do this) is interpreted. Blocks are keyed by physical
//! location ([`crate::code_watch::CodeKey`]): a bank switch changes which block a PC
//! finds, never what a block contains. Writes into RAM that holds translated
//! code invalidate the blocks covering it (the bus flags them), and the block
//! being executed is left right after such a write. A RAM routine whose
//! blocks are invalidated over and over (one that patches its own operands
//! every call) gets blocks with live operands, read from RAM as they run
//! (see [`block::Block::live`]).
//!
//! Where the speed comes from. The idle window (`op::Translated`): while
//! nothing can happen on its own (no interrupt poll can change, no DMA,
//! APU event or PPU catch-up is due), reads of RAM and ROM and writes of
//! RAM are counted, not clocked, and added to the machine in one step; a
//! block that fits the window runs its ops back to back with no stop test
//! between them, and a block that loops to itself, or a chain of blocks,
//! stays in the window from run to run (`execution::run_ops_repeating`).
//! The interpreter, the reference, spends every cycle on the bus. An op
//! whose data accesses are all found plain before it runs (RAM, ROM:
//! `op::accesses_plain`) runs in the window with no way back to the bus
//! compiled in, so its handler calls nothing and saves no registers. Blocks
//! are chained (each links to its recent successors, so runs of short
//! blocks stay inside [`Translator::run_chain`]), and idle loops — games
//! spin in "wait for NMI" loops for most of each frame — are counted in
//! whole iterations up to the next cycle at which anything can happen (see
//! [`block::Block::is_idle_loop`] and [`block::Block::is_vblank_poll`];
//! `run --no-idle-skip` turns that off to
//! show what the rest is worth). The results stay bit-identical: the
//! lockstep, frame-hash and fuzzing tests compare both engines.
//!
//! One concern per file: `block` (the block type), `op` (an op and how it
//! runs: handlers, the idle window), `translation` (lookup and decoding),
//! `execution` (running a block's ops), `chaining` (block to block), `idle`
//! (idle-loop skipping), `invalidation` (code writes), `flow` (the truth
//! recorder's bulk counts), `dynamic_transfers` (the counts of returns and
//! indirect jumps on their way there), `sampling` (the sampler inside
//! blocks), `region` (runs of blocks along hot paths, run as one),
//! `regions` (forming and running them) and `hot_paths` (a hot CFG as
//! the regions' guide).

pub mod block;
mod chaining;
mod dynamic_transfers;
mod execution;
mod flow;
pub mod hot_paths;
mod idle;
mod invalidation;
mod op;
pub mod region;
mod regions;
mod sampling;
mod translation;

use block::Block;

use crate::bus::Bus;
use crate::code_watch::CodeKey;
use crate::int_hash::IntMap;

/// Invalidations after which a RAM entry point is translated into a block
/// with live operands (see [`block::Block::live`]).
const VOLATILE_AFTER: u16 = 8;

/// Why a block run stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Every op ran.
    Completed,
    /// Every op ran, and the last op's transfer is left to the link the
    /// chain takes next (see `flow`).
    CompletedUncounted,
    /// Stopped after `ops` ops because something outside the block needs
    /// attention (interrupt, frame end, code write, bank switch, single-stepping).
    After(usize),
}

/// Most transfers counted on links since pushed out
/// (`Translator::spilled`, 24 bytes each) held before they are added to
/// the flow counts at the next chain run. Between truth bursts the links
/// counted in a burst are pushed out a few at a time, and nothing else
/// need flush for hours (the counts are read at the end): the list grew
/// without bound, by 16 K to 32 K entries in 72000 frames of tracker with
/// `--truth-bursts 1/30` (1-2 MB an emulated hour). When the counts are
/// added changes none of them (they are flushed at every read, and at
/// bank switches, already).
pub const MAX_SPILLED: usize = 4096;

#[derive(Debug, Default)]
pub struct Translator {
    blocks: Vec<Block>,
    free: Vec<u32>,
    /// Block id + 1 per code location (0 = none).
    ram_index: Vec<u32>,
    prg_ram_index: Vec<u32>,
    prg_rom_index: Vec<u32>,
    /// Invalidations per RAM entry point.
    ram_churn: Vec<u16>,
    /// Valid blocks decoded from RAM or PRG RAM: the only ones a write can
    /// invalidate, so the only ones a code write has to look at.
    writable_blocks: Vec<u32>,
    /// Per RAM / PRG RAM byte, how many valid blocks cover it. The bus mark
    /// is cleared when it drops to 0, so writes to bytes that no longer hold
    /// translated code (data next to code, code that was replaced) stop
    /// costing anything.
    ram_cover: Vec<u16>,
    prg_ram_cover: Vec<u16>,
    /// Scratch lists of `invalidate_written` (kept for their buffers).
    written: Vec<CodeKey>,
    candidates: Vec<u32>,
    /// Blocks with pending counts not yet added to the flow counts.
    dirty: Vec<u32>,
    /// Transfers counted on links that were since pushed out (source code
    /// address, its opcode, destination, count), not yet added.
    spilled: Vec<(u32, u8, u32, u64)>,
    /// How many `spilled` may hold before a flush ([`MAX_SPILLED`];
    /// fewer in tests, to see that when they are flushed changes nothing).
    spill_limit: usize,
    /// Transfers of returns and indirect jumps pushed out of links, by
    /// (source, target) pair, not yet added.
    dynamic_transfers: dynamic_transfers::DynamicTransfers,
    /// PRG mapping generation, and PRG RAM bank, at the last check for a
    /// flush of pending counts (`Translator::flush_if_due`).
    flushed_generation: u32,
    flushed_prg_ram: Option<usize>,
    /// Bumped by every invalidation: block ids may be reused after one, so
    /// successor links made before it are stale.
    link_epoch: u32,
    /// Idle-loop skipping switched off (for measuring what the translation
    /// alone buys; see [`crate::Nes::set_idle_skip`]).
    pub no_idle_skip: bool,
    /// The event log's watched code addresses
    /// (`frame_events::EventLog::watch`): each starts a block, and a block
    /// that can fall or branch forward into one logs it.
    pub watched: IntMap<u32, ()>,
    /// Where taken branches went (`taken_targets`): marked when a link to
    /// a branch's target is made.
    pub taken: Option<std::sync::Arc<crate::taken_targets::TakenTargets>>,
    pub stats: TranslatorStats,
    /// How hot regions are chosen (`region`), the heads' slots (a head
    /// block's [`Block::region`] is its index + 1), the free ones, and what
    /// the regions did.
    region_choice: region::RegionChoice,
    region_slots: Vec<region::RegionSlot>,
    free_region_slots: Vec<u32>,
    region_stats: region::RegionStats,
    /// The start cycle of each op of the block just run for the sampler
    /// (`run_block_sampled`), kept here rather than on the stack, where it
    /// was cleared at every run; boxed, to leave the translator's layout
    /// as it was (the plain chain's code moves with less).
    sample_starts: Box<block::OpStarts>,
}

#[derive(Debug, Default, Clone, Copy)]
pub struct TranslatorStats {
    pub translated: u64,
    pub invalidated: u64,
    pub block_runs: u64,
    /// Idle-loop iterations counted without running them.
    pub skipped_iterations: u64,
}
impl Translator {
    pub fn new(bus: &Bus) -> Translator {
        Translator {
            ram_index: vec![0; 0x800],
            prg_ram_index: vec![0; bus.cart.prg_ram.len()],
            prg_rom_index: vec![0; bus.cart.prg_rom.len()],
            link_epoch: 1,
            spill_limit: MAX_SPILLED,
            ram_churn: vec![0; 0x800],
            ram_cover: vec![0; 0x800],
            prg_ram_cover: vec![0; bus.cart.prg_ram.len()],
            ..Translator::default()
        }
    }

    /// The block for `pc`, translating it if needed; `None` if the code must
    /// be interpreted.
    #[inline]
    pub fn block_at(&mut self, bus: &mut Bus, pc: u16) -> Option<u32> {
        let key = Self::key_for(bus, pc)?;
        let slot = *self.index_slot(key);
        if slot != 0 {
            // One code location can sit at two CPU addresses (RAM mirrors,
            // NROM-128's two copies, a PRG page mapped in two windows); the
            // block's ops carry the address it was decoded at, and the
            // index holds one block per location. The other address runs
            // on the interpreter.
            if self.blocks[(slot - 1) as usize].entry != pc {
                return None;
            }
            return Some(slot - 1);
        }
        self.translate_new(bus, pc, key)
    }

    /// [`Translator::block_at`] for code with no block yet: out of line,
    /// so that a lookup that finds one (a dispatching `RTS` or `JMP`
    /// missing its links, hundreds of times a frame) does not pay for
    /// the translator's frame.
    #[cold]
    #[inline(never)]
    fn translate_new(&mut self, bus: &mut Bus, pc: u16, key: CodeKey) -> Option<u32> {
        let live = matches!(key, CodeKey::Ram(a) if self.ram_churn[a as usize] >= VOLATILE_AFTER);
        let id = self.translate(bus, pc, key, live)?;
        *self.index_slot(key) = id + 1;
        Some(id)
    }

    pub fn block_len(&self, id: u32) -> usize {
        self.blocks[id as usize].ops.len()
    }

    /// Points every block back at the plain handlers (the memory recorder
    /// was detached: blocks switch to another level only when they run
    /// with one attached, and the chain without probes does not look).
    pub fn plain_handlers(&mut self) {
        for block in &mut self.blocks {
            if block.handlers != op::PLAIN {
                block.set_handlers(op::PLAIN);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::op::Op;
    use super::*;
    use crate::cartridge::Cartridge;

    fn nrom_bus() -> Bus {
        let mut image = vec![b'N', b'E', b'S', 0x1A, 1, 1, 0, 0];
        image.resize(16, 0);
        image.resize(16 + 0x4000 + 0x2000, 0xEA);
        Bus::new(Cartridge::from_bytes(&image).expect("valid NROM image"))
    }

    /// A block in RAM marks its bytes; a write to one drops the block and
    /// clears the marks, so later writes to the same bytes (now plain data)
    /// are no longer reported: the cost that made games storing data where
    /// code once ran crawl.
    #[test]
    fn invalidation_clears_code_marks() {
        let mut bus = nrom_bus();
        // $0300: LDA #$01 ; STA $10 ; RTS
        for (i, b) in [0xA9, 0x01, 0x85, 0x10, 0x60].into_iter().enumerate() {
            bus.write(0x0300 + i as u16, b);
        }
        let mut t = Translator::new(&bus);
        let id = t
            .block_at(&mut bus, 0x0300)
            .expect("RAM code is translated");
        assert_eq!(t.block_len(id), 3);
        assert!(!bus.code.written());

        bus.write(0x0301, 0x01);
        bus.write(0x0B00, 0xA9); // a mirror of $0300
        assert!(
            !bus.code.written(),
            "storing the value a code byte holds changes no code"
        );

        bus.write(0x0301, 0x02);
        assert!(
            bus.code.written(),
            "a write into translated code is reported"
        );
        t.invalidate_written(&mut bus, None);
        assert_eq!(t.stats.invalidated, 1);

        bus.write(0x0301, 0x03);
        bus.write(0x0B04, 0x00); // a mirror of $0304
        assert!(!bus.code.written(), "no block covers these bytes any more");

        let again = t.block_at(&mut bus, 0x0300).expect("retranslated");
        assert_eq!(t.block_len(again), 3);
        bus.write(0x0B04, 0x60);
        assert!(bus.code.written(), "marks come back with the new block");
    }

    /// A RAM routine whose operand is rewritten before every call: after
    /// [`VOLATILE_AFTER`] invalidations its block has live operands, and
    /// then writes to the operand are no longer code writes (no stop, no
    /// invalidation) while its ops read the new value; a write to an
    /// opcode still drops it.
    #[test]
    fn patched_operands_become_live() {
        let mut bus = nrom_bus();
        // $0300: LDA #$01 ; STA $10 ; RTS
        for (i, b) in [0xA9, 0x01, 0x85, 0x10, 0x60].into_iter().enumerate() {
            bus.write(0x0300 + i as u16, b);
        }
        let mut t = Translator::new(&bus);
        for patch in 0..VOLATILE_AFTER {
            let id = t.block_at(&mut bus, 0x0300).expect("translated");
            assert!(
                !t.blocks[id as usize].live,
                "not live after {patch} patches"
            );
            bus.write(0x0301, patch as u8);
            assert!(bus.code.written());
            t.invalidate_written(&mut bus, None);
        }
        let id = t.block_at(&mut bus, 0x0300).expect("translated");
        assert!(t.blocks[id as usize].live);
        bus.write(0x0301, 0x42);
        assert!(!bus.code.written(), "an operand write is not a code write");
        let op = t.blocks[id as usize].ops[0];
        assert_eq!(op.reread(&bus.ram).bytes[1], 0x42);
        bus.write(0x0302, 0x86); // STA $10 becomes STX $10
        assert!(bus.code.written(), "an opcode write is");
        let before = t.stats.invalidated;
        t.invalidate_written(&mut bus, None);
        assert_eq!(t.stats.invalidated, before + 1);
    }

    fn ops(at: u16, code: &[&[u8]]) -> Vec<Op> {
        let mut pc = at;
        code.iter()
            .map(|bytes| {
                let mut b = [0; 4];
                b[..bytes.len()].copy_from_slice(bytes);
                let op = Op::new(pc, b);
                pc += bytes.len() as u16;
                op
            })
            .collect()
    }

    #[test]
    fn idle_loop_shapes() {
        use block::Block;
        // wait: LDA $10 ; BNE wait
        assert!(Block::is_idle_loop(&ops(
            0x8000,
            &[&[0xA5, 0x10], &[0xD0, 0xFC]]
        )));
        // forever: JMP forever
        assert!(Block::is_idle_loop(&ops(0x8000, &[&[0x4C, 0x00, 0x80]])));
        // wait: LDA $0300 ; AND #$80 ; BEQ wait
        assert!(Block::is_idle_loop(&ops(
            0x8000,
            &[&[0xAD, 0x00, 0x03], &[0x29, 0x80], &[0xF0, 0xF9]]
        )));
        // Polling a PPU register has side effects: not idle by the RAM
        // rule; waiting for vblank is its own shape.
        assert!(!Block::is_idle_loop(&ops(
            0x8000,
            &[&[0x2C, 0x02, 0x20], &[0x10, 0xFB]]
        )));
        // wait: BIT $2002 ; BPL wait, and LDA of a mirror ($3FFA).
        assert!(Block::is_vblank_poll(&ops(
            0x8000,
            &[&[0x2C, 0x02, 0x20], &[0x10, 0xFB]]
        )));
        assert!(Block::is_vblank_poll(&ops(
            0x8000,
            &[&[0xAD, 0xFA, 0x3F], &[0x10, 0xFB]]
        )));
        // Waiting on sprite 0 (BVC), on another register, with a BMI, or
        // branching elsewhere: not a vblank poll.
        for bytes in [
            [&[0x2C, 0x02, 0x20][..], &[0x50, 0xFB]],
            [&[0x2C, 0x07, 0x20], &[0x10, 0xFB]],
            [&[0x2C, 0x02, 0x20], &[0x30, 0xFB]],
            [&[0x2C, 0x02, 0x20], &[0x10, 0xFC]],
            [&[0x2C, 0x02, 0x40], &[0x10, 0xFB]],
        ] {
            assert!(!Block::is_vblank_poll(&ops(0x8000, &bytes)), "{bytes:02X?}");
        }
        // EOR is not idempotent, STA writes, indexing may move: not idle.
        assert!(!Block::is_idle_loop(&ops(
            0x8000,
            &[&[0x45, 0x10], &[0xD0, 0xFC]]
        )));
        assert!(!Block::is_idle_loop(&ops(
            0x8000,
            &[&[0x85, 0x10], &[0xD0, 0xFC]]
        )));
        assert!(!Block::is_idle_loop(&ops(
            0x8000,
            &[&[0xB5, 0x10], &[0xD0, 0xFC]]
        )));
        // A branch elsewhere is not a loop.
        assert!(!Block::is_idle_loop(&ops(
            0x8000,
            &[&[0xA5, 0x10], &[0xD0, 0x10]]
        )));
    }
}
