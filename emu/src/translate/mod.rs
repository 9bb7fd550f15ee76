//! The dynamic translator: basic blocks translated into cached sequences of
//! pre-decoded instructions, executed without fetching or decoding them from
//! memory again (NESdev wiki facts aside, this is our design; DESIGN.md's
//! "Dynamic translator").
//!
//! Bus behaviour is the interpreter's, cycle for cycle: each instruction runs
//! the same generic per-cycle code as the interpreter (`cpu/execute.rs`),
//! given its bytes by [`DecodedCode`] instead of a bus read; the fetch cycles
//! still happen (clocking the PPU and APU, letting DMA halt the CPU, updating
//! open bus), they just skip the address decode. Interrupts are taken between
//! instructions exactly as the interpreter takes them (the block is left and
//! the CPU's own interrupt sequence runs).
//!
//! Only code in RAM and PRG ROM/RAM is translated; code running from I/O
//! space (test ROMs do this) is interpreted. Blocks are keyed by physical
//! location ([`block::CodeKey`]): a bank switch changes which block a PC
//! finds, never what a block contains. Writes into RAM that holds translated
//! code invalidate the blocks covering it (the bus flags them), and the block
//! being executed is left right after such a write. RAM locations rewritten
//! over and over (a routine that patches its own operand every call) stop
//! being translated and are interpreted instead.

pub mod block;

use block::{Block, CodeKey, Op, MAX_BLOCK_OPS};

use crate::bus::Bus;
use crate::cpu::opcodes::{Flow, OPCODES};
use crate::cpu::{CodeSource, Cpu};
use crate::flow_counts::FlowCounts;

/// Invalidations after which a RAM entry point is left to the interpreter.
const VOLATILE_AFTER: u16 = 8;

/// Instruction bytes supplied from a translated op. `prepaid` of its reads
/// were already counted by a fast-forward and cost nothing here.
pub(crate) struct DecodedCode<'a> {
    op: &'a Op,
    prepaid: u8,
}

impl DecodedCode<'_> {
    #[inline(always)]
    fn read(&mut self, cpu: &mut Cpu, bus: &mut Bus) -> u8 {
        let value = self.op.bytes[cpu.pc.wrapping_sub(self.op.pc) as usize & 3];
        if self.prepaid > 0 {
            self.prepaid -= 1;
        } else {
            cpu.read_known(bus, cpu.pc, value);
        }
        value
    }
}

impl CodeSource for DecodedCode<'_> {
    #[inline(always)]
    fn fetch(&mut self, cpu: &mut Cpu, bus: &mut Bus) -> u8 {
        let value = self.read(cpu, bus);
        cpu.pc = cpu.pc.wrapping_add(1);
        value
    }

    #[inline(always)]
    fn read_pc(&mut self, cpu: &mut Cpu, bus: &mut Bus) -> u8 {
        self.read(cpu, bus)
    }
}

/// Why a block run stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Every op ran.
    Completed,
    /// Stopped after `ops` ops because something outside the block needs
    /// attention (interrupt, frame end, code write, bank switch, sampling).
    After(usize),
}

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
    /// Blocks with pending counts not yet added to the flow counts.
    dirty: Vec<u32>,
    /// PRG mapping generation at the last flush of pending counts.
    flushed_generation: u32,
    pub stats: TranslatorStats,
}

#[derive(Debug, Default, Clone, Copy)]
pub struct TranslatorStats {
    pub translated: u64,
    pub invalidated: u64,
    pub block_runs: u64,
}

impl Translator {
    pub fn new(bus: &Bus) -> Translator {
        Translator {
            ram_index: vec![0; 0x800],
            prg_ram_index: vec![0; bus.cart.prg_ram.len()],
            prg_rom_index: vec![0; bus.cart.prg_rom.len()],
            ram_churn: vec![0; 0x800],
            ..Translator::default()
        }
    }

    /// Where the code at `pc` lives under the current mapping, if it is in
    /// translatable memory and its 3-byte window stays in the same region.
    #[inline]
    fn key_for(bus: &Bus, pc: u16) -> Option<CodeKey> {
        match pc {
            0x0000..=0x1FFF => {
                let a = pc & 0x7FF;
                (a <= 0x7FD).then_some(CodeKey::Ram(a))
            }
            0x6000..=0x7FFF => {
                let base = bus.cart.banks.prg_ram?;
                let off = (pc & 0x1FFF) as usize;
                (off <= 0x1FFD)
                    .then(|| CodeKey::PrgRam(((base + off) % bus.cart.prg_ram.len()) as u32))
            }
            0x8000..=0xFFFF => {
                let off = (pc & 0x1FFF) as usize;
                (off <= 0x1FFD).then(|| {
                    CodeKey::PrgRom((bus.cart.banks.prg[(pc as usize >> 13) & 3] + off) as u32)
                })
            }
            _ => None,
        }
    }

    fn index_slot(&mut self, key: CodeKey) -> &mut u32 {
        match key {
            CodeKey::Ram(a) => &mut self.ram_index[a as usize],
            CodeKey::PrgRam(o) => &mut self.prg_ram_index[o as usize],
            CodeKey::PrgRom(o) => &mut self.prg_rom_index[o as usize],
        }
    }

    /// The block for `pc`, translating it if needed; `None` if the code must
    /// be interpreted.
    pub fn block_at(&mut self, bus: &mut Bus, pc: u16) -> Option<u32> {
        let key = Self::key_for(bus, pc)?;
        let slot = *self.index_slot(key);
        if slot != 0 {
            return Some(slot - 1);
        }
        if let CodeKey::Ram(a) = key {
            if self.ram_churn[a as usize] >= VOLATILE_AFTER {
                return None;
            }
        }
        let id = self.translate(bus, pc, key)?;
        *self.index_slot(key) = id + 1;
        Some(id)
    }

    /// Decodes a block at `pc` from side-effect-free reads.
    fn translate(&mut self, bus: &mut Bus, pc: u16, key: CodeKey) -> Option<u32> {
        let mut ops = Vec::new();
        let mut at = pc;
        loop {
            let here = Self::key_for(bus, at)?;
            // Stay inside one region (and, for ROM, one bank window).
            if std::mem::discriminant(&here) != std::mem::discriminant(&key)
                || (at ^ pc) & 0xE000 != 0
            {
                break;
            }
            let bytes = [
                bus.peek(at),
                bus.peek(at.wrapping_add(1)),
                bus.peek(at.wrapping_add(2)),
                0,
            ];
            let info = &OPCODES[bytes[0] as usize];
            ops.push(Op::new(at, bytes));
            if info.flow != Flow::None || ops.len() == MAX_BLOCK_OPS {
                break;
            }
            at = at.wrapping_add(info.byte_len() as u16);
        }
        if ops.is_empty() {
            return None;
        }
        if let CodeKey::Ram(_) | CodeKey::PrgRam(_) = key {
            for op in &ops {
                for i in 0..3 {
                    bus.mark_code(op.pc.wrapping_add(i));
                }
            }
        }
        let block = Block {
            key,
            ops,
            valid: true,
            pending_body_runs: 0,
        };
        self.stats.translated += 1;
        Some(match self.free.pop() {
            Some(id) => {
                self.blocks[id as usize] = block;
                id
            }
            None => {
                self.blocks.push(block);
                (self.blocks.len() - 1) as u32
            }
        })
    }

    /// Drops every block whose bytes cover a written code address the bus
    /// reported, adding their pending counts to `counts` first.
    pub fn invalidate_written(&mut self, bus: &mut Bus, mut counts: Option<&mut FlowCounts>) {
        let written = bus.take_code_writes();
        for addr in written {
            let ram = addr & 0x7FF;
            for id in 0..self.blocks.len() {
                let block = &self.blocks[id];
                if !block.valid || !matches!(block.key, CodeKey::Ram(_) | CodeKey::PrgRam(_)) {
                    continue;
                }
                let hit = block.ops.iter().any(|op| {
                    let start = if let CodeKey::Ram(_) = block.key {
                        op.pc & 0x7FF
                    } else {
                        op.pc
                    };
                    let target = if let CodeKey::Ram(_) = block.key {
                        ram
                    } else {
                        addr
                    };
                    target.wrapping_sub(start) < 3
                });
                if hit {
                    if let Some(c) = counts.as_deref_mut() {
                        Self::flush_block(&mut self.blocks[id], c);
                    }
                    let key = self.blocks[id].key;
                    if let CodeKey::Ram(a) = key {
                        self.ram_churn[a as usize] = self.ram_churn[a as usize].saturating_add(1);
                    }
                    *self.index_slot(key) = 0;
                    self.blocks[id].valid = false;
                    self.blocks[id].ops.clear();
                    self.free.push(id as u32);
                    self.stats.invalidated += 1;
                }
            }
        }
    }

    fn flush_block(block: &mut Block, counts: &mut FlowCounts) {
        if block.pending_body_runs > 0 {
            let body = &block.ops[..block.ops.len() - 1];
            counts.add_body_executions(
                body.iter().map(|op| (op.pc, op.opcode())),
                block.pending_body_runs,
            );
            block.pending_body_runs = 0;
        }
    }

    /// Adds every block's pending counts to `counts` (before reading them).
    pub fn flush_counts(&mut self, counts: &mut FlowCounts) {
        for id in std::mem::take(&mut self.dirty) {
            let block = &mut self.blocks[id as usize];
            if block.valid {
                Self::flush_block(block, counts);
            }
        }
    }

    /// Flushes pending counts if the PRG mapping changed since the last
    /// flush. The flow counts remember the last opcode executed at each CPU
    /// address, and under another bank the same address holds other code:
    /// flushing at every mapping change keeps "last" in execution order, as
    /// the interpreter records it.
    #[inline]
    pub fn flush_on_bank_switch(&mut self, generation: u32, counts: &mut FlowCounts) {
        if generation != self.flushed_generation {
            self.flush_counts(counts);
            self.flushed_generation = generation;
        }
    }

    /// Runs block `id` from its entry (the CPU's PC). Between instructions it
    /// stops early when an interrupt is pending, the bus raised `attention`
    /// (code written, bank switched, frame ended), or the cycle count reached
    /// `stop_at_cycle` (a sampling batch is due; 0 stops after every
    /// instruction). A JAM always ends its block, so it needs no check.
    #[inline]
    pub fn run_block(
        &mut self,
        id: u32,
        cpu: &mut Cpu,
        bus: &mut Bus,
        counts: Option<&mut FlowCounts>,
        stop_at_cycle: u64,
    ) -> Exit {
        self.stats.block_runs += 1;
        bus.attention = false;
        let block = &mut self.blocks[id as usize];
        let n = block.ops.len();
        let mut executed = 0;
        for op in &block.ops {
            let opcode = op.bytes[0];
            // The opcode fetch and the reads of the instruction's own bytes
            // that follow it, in one step when nothing can happen in them.
            let leading = op.leading_code_reads as u32;
            let prepaid = if cpu.poll_is_settled(bus)
                && bus.try_fast_forward(leading, op.bytes[(leading as usize - 1) & 3])
            {
                leading as u8 - 1
            } else {
                cpu.read_known(bus, op.pc, opcode);
                0
            };
            cpu.pc = op.pc.wrapping_add(1);
            cpu.execute(bus, &mut DecodedCode { op, prepaid }, opcode);
            executed += 1;
            if Self::must_stop(cpu, bus, stop_at_cycle) {
                break;
            }
        }
        if let Some(c) = counts {
            if executed == n {
                // The last op is the block's control transfer: counted as it
                // retires; the rest are counted per run in bulk.
                let last = &block.ops[n - 1];
                c.instruction(last.pc, last.bytes[0], cpu.pc, cpu.s);
                if block.pending_body_runs == 0 {
                    self.dirty.push(id);
                }
                block.pending_body_runs += 1;
            } else {
                // A partial run: the ops that retired are all straight-line.
                for done in &block.ops[..executed] {
                    let next = done
                        .pc
                        .wrapping_add(OPCODES[done.bytes[0] as usize].byte_len() as u16);
                    c.instruction(done.pc, done.bytes[0], next, cpu.s);
                }
            }
        }
        if executed == n && !Self::must_stop(cpu, bus, stop_at_cycle) {
            Exit::Completed
        } else {
            Exit::After(executed)
        }
    }

    /// Non-short-circuit ORs: one straight-line test between instructions.
    #[inline(always)]
    fn must_stop(cpu: &Cpu, bus: &Bus, stop_at_cycle: u64) -> bool {
        bus.attention | cpu.interrupt_signalled() | (bus.cycles >= stop_at_cycle)
    }

    pub fn block_len(&self, id: u32) -> usize {
        self.blocks[id as usize].ops.len()
    }
}
