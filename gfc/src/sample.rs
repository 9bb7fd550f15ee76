//! One sampled instruction (`Sample`), its control-flow class (`Flow`) and the
//! batch type: the input of GFCGaussiano. Architecture-neutral: an address is a
//! plain `u32`, a flow class is what any ISA's retire hook can report.

use serde::{Deserialize, Serialize};

/// A code address. Wide enough for any bank-mapped or 32-bit address space; the
/// algorithms only compare, subtract and average addresses.
pub type Addr = u32;

/// A *batch* (thesis: "lote"): N consecutive executed instructions, in order.
pub type Batch = Vec<Sample>;

/// How an instruction (or event) changes the flow of control.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Flow {
    /// Straight-line instruction: the next instruction is at `pc + len`.
    None,
    /// Conditional branch, taken or not (`Sample::taken` tells which).
    Branch,
    /// Unconditional jump, direct or indirect.
    Jump,
    /// Subroutine call.
    Call,
    /// Return from subroutine.
    Return,
    /// Return from an interrupt or BRK handler (6502 RTI).
    ReturnInterrupt,
    /// Software interrupt (6502 BRK): a synchronous call into a handler.
    Break,
    /// A hardware interrupt (NMI/IRQ) was taken. Not an instruction: a marker
    /// entry whose `pc` and `next_pc` are the handler entry and `len` is 0.
    Interrupt,
}

impl Flow {
    /// Whether an instruction of this class ends a basic block — the thesis'
    /// `isBranchOrCall`.
    ///
    /// The thesis defines transitions as "instruções de salto, desvios
    /// condicionais, chamadas ao sistema operacional e sinais" (jumps,
    /// conditional branches, system calls and signals), so `Jump`, `Branch`,
    /// `Call` and `Break` qualify. Decision: returns (`Return`,
    /// `ReturnInterrupt`) end blocks too, because they transfer control to an
    /// address that is not `pc + len` and the ground truth makes their targets
    /// leaders; treating them as straight-line would glue the caller's
    /// continuation onto the callee's last block. A `Branch` ends its block
    /// whether taken or not: the fall-through is a leader in the ground truth.
    /// `Interrupt` is a marker, not an instruction, and never part of a block.
    pub const fn ends_block(self) -> bool {
        !matches!(self, Flow::None | Flow::Interrupt)
    }
}

/// One retired instruction as seen by the sampler.
///
/// `next_pc` is the address of the next instruction of the same flow: the
/// branch target or fall-through, the call/jump/return target. GFCGaussiano
/// prefers the `pc` of the following sample of the same flow when there is
/// one (so either reading of `next_pc` around an interrupt works) and uses
/// `next_pc` only for the last instruction of a flow segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Sample {
    /// Address of the instruction (for `Flow::Interrupt`: the handler entry).
    pub pc: Addr,
    /// Instruction length in bytes (0 for `Flow::Interrupt`).
    pub len: u8,
    /// Control-flow class.
    pub flow: Flow,
    /// For `Flow::Branch`: whether the branch was taken. Informational for the
    /// algorithm, which follows `next_pc` / the next sample instead.
    pub taken: bool,
    /// Address actually executed next in this flow.
    pub next_pc: Addr,
    /// For `Flow::Branch`: where it goes when taken, read from its operand,
    /// so known whether or not this execution took it (its fall-through when
    /// the recorder did not say). For other classes, `next_pc`.
    pub target: Addr,
    /// CPU cycle at which the instruction started.
    pub cycle: u64,
}

impl Sample {
    /// A straight-line instruction at `pc` of `len` bytes.
    pub const fn plain(pc: Addr, len: u8) -> Self {
        Sample {
            pc,
            len,
            flow: Flow::None,
            taken: false,
            next_pc: pc.wrapping_add(len as Addr),
            target: pc.wrapping_add(len as Addr),
            cycle: 0,
        }
    }

    /// A control-flow instruction at `pc` whose real successor is `next_pc`.
    /// `taken` is derived for branches as "successor is not the fall-through".
    pub const fn control(pc: Addr, len: u8, flow: Flow, next_pc: Addr) -> Self {
        Sample {
            pc,
            len,
            flow,
            taken: !matches!(flow, Flow::Branch) || next_pc != pc.wrapping_add(len as Addr),
            next_pc,
            target: next_pc,
            cycle: 0,
        }
    }

    /// The marker for a hardware interrupt dispatched to `handler`.
    pub const fn interrupt(handler: Addr) -> Self {
        Sample {
            pc: handler,
            len: 0,
            flow: Flow::Interrupt,
            taken: true,
            next_pc: handler,
            target: handler,
            cycle: 0,
        }
    }

    /// The same sample with a branch's taken target (see [`Sample::target`]).
    pub const fn with_target(mut self, target: Addr) -> Self {
        self.target = target;
        self
    }

    /// The byte address just past this instruction.
    pub const fn end(&self) -> Addr {
        self.pc.wrapping_add(self.len as Addr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_ending_classes() {
        assert!(!Flow::None.ends_block());
        assert!(!Flow::Interrupt.ends_block());
        for f in [
            Flow::Branch,
            Flow::Jump,
            Flow::Call,
            Flow::Return,
            Flow::ReturnInterrupt,
            Flow::Break,
        ] {
            assert!(f.ends_block(), "{f:?}");
        }
    }

    #[test]
    fn constructors() {
        let s = Sample::plain(0x8000, 2);
        assert_eq!(s.next_pc, 0x8002);
        assert_eq!(s.end(), 0x8002);
        let b = Sample::control(0x8003, 2, Flow::Branch, 0x8005);
        assert!(!b.taken);
        let b = Sample::control(0x8003, 2, Flow::Branch, 0x8002);
        assert!(b.taken);
        let i = Sample::interrupt(0xC000);
        assert_eq!((i.pc, i.next_pc, i.len), (0xC000, 0xC000, 0));
    }
}
