//! Translated blocks: a run of pre-decoded instructions from one entry PC to
//! the first control-flow instruction (or a region boundary), with the code
//! location it was decoded from so lookups and invalidation can find it.

use crate::cpu::opcodes::{Flow, OPCODES};

/// Longest straight run translated into one block.
pub const MAX_BLOCK_OPS: usize = 64;

/// Where code bytes live. Blocks are keyed by physical location, so bank
/// switching needs no invalidation: the same CPU address under another
/// mapping is simply another key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CodeKey {
    /// Console RAM, mirrors folded ($0000-$07FF).
    Ram(u16),
    /// Cartridge PRG RAM, by offset.
    PrgRam(u32),
    /// Cartridge PRG ROM, by offset.
    PrgRom(u32),
}

/// One pre-decoded instruction.
#[derive(Debug, Clone, Copy)]
pub struct Op {
    pub pc: u16,
    /// How many of the instruction's first cycles read its own bytes back to
    /// back (opcode fetch, operand fetches, a 1-byte instruction's dummy read
    /// of the next byte): the cycles the translator may count in one step.
    pub leading_code_reads: u8,
    /// The three bytes at `pc` (opcode, operands, and whatever follows a
    /// shorter instruction: 1-byte instructions and taken branches dummy-read
    /// the byte after them), padded to 4 so an index masked with 3 needs no
    /// bounds check.
    pub bytes: [u8; 4],
}

impl Op {
    pub fn new(pc: u16, bytes: [u8; 4]) -> Op {
        let info = &OPCODES[bytes[0] as usize];
        let leading_code_reads = match (info.byte_len(), info.flow) {
            // JSR pushes PC between its two operand fetches.
            (_, Flow::Call) => 2,
            // 1-byte instructions fetch the next byte and discard it.
            (1, _) => 2,
            (len, _) => len,
        };
        Op {
            pc,
            leading_code_reads,
            bytes,
        }
    }

    pub fn opcode(&self) -> u8 {
        self.bytes[0]
    }

    pub fn flow(&self) -> Flow {
        OPCODES[self.bytes[0] as usize].flow
    }
}

#[derive(Debug, Clone)]
pub struct Block {
    pub key: CodeKey,
    pub ops: Vec<Op>,
    /// Cleared when self-modifying code overwrote its bytes.
    pub valid: bool,
    /// Complete executions of the block not yet added to the flow counts
    /// (each covers every op but the last, which is counted as it retires).
    pub pending_body_runs: u64,
    /// The blocks most recently run after this one (a branch has two
    /// successors), so a chain of blocks skips the lookup by PC.
    pub links: [Link; 2],
}

/// A cached successor: block `id` runs next when the PC is `pc`, valid while
/// `stamp` (PRG mapping generation and the translator's invalidation epoch)
/// is unchanged.
#[derive(Debug, Clone, Copy, Default)]
pub struct Link {
    pub pc: u16,
    pub id: u32,
    pub stamp: u64,
}

impl Block {
    /// First and one-past-last byte the block decoded, as a RAM-relative
    /// range (only meaningful for RAM keys).
    pub fn byte_span(&self) -> (u16, u16) {
        let first = self.ops.first().map(|o| o.pc).unwrap_or(0);
        let last = self.ops.last().map(|o| o.pc).unwrap_or(0);
        (first, last.wrapping_add(3))
    }
}
