//! Wait loops: the one rule that says which code is a program waiting
//! rather than working, so that the profile can set its time apart as
//! idle (the frame-time profile, issue 43). Both engines apply it the same
//! way, and the sampled profile applies it to sampled addresses.
//!
//! A wait loop is a short loop that only reads and branches, waiting for a
//! value that something outside it changes — an interrupt handler (a frame
//! counter the NMI increments), the PPU (the vblank or sprite-0 flag of
//! `$2002`), the APU (`$4015`'s flags):
//!
//! ```text
//! :   lda nmi_count     :   bit $2002         :   lda $2002
//!     cmp last_count        bpl :-                and #$40
//!     beq :-                                      beq :-
//! ```
//!
//! Exactly: from its head, at most [`MAX_INSTRUCTIONS`] instructions, each
//! an official load, compare, `BIT`, `AND`, `ORA`, `EOR` or `NOP` reading an
//! immediate or a fixed zero-page or absolute address (no indexing, so every
//! iteration takes the same cycles; no writes, no stack), none reading the
//! controller ports `$4016`/`$4017` (waiting for a button is the program's
//! input, and those reads shift the controller), then a conditional branch
//! or `JMP` absolute back to the head, and nothing else. The translator's
//! idle-loop skipping (`translate::block::Block::is_idle_loop`) uses a
//! narrower rule (RAM reads only, so that skipping iterations is exact);
//! every loop it skips is a wait loop.
//!
//! What counts as a loop's idle time: each iteration that starts at the
//! head and ends with the jump back to it, with no interrupt and no frame
//! end in between (see `frame_events`). The iteration that leaves the loop,
//! and one cut by an interrupt or the frame's end, count as the code
//! around it: a few cycles per exit, so that both engines count alike.

use crate::cpu::opcodes::{Flow, Mode, OPCODES};

/// Longest wait loop, in instructions (the closing branch included). Real
/// waits are 2 to 4; a longer loop of reads is rarely a wait.
pub const MAX_INSTRUCTIONS: usize = 6;

/// Whether the instruction at `address` may be part of a wait loop's
/// body (see the module doc).
fn polls(opcode: u8, operand: u16) -> bool {
    let info = &OPCODES[opcode as usize];
    let reads = matches!(
        info.mnemonic,
        "LDA" | "LDX" | "LDY" | "CMP" | "CPX" | "CPY" | "BIT" | "AND" | "ORA" | "EOR"
    );
    info.official
        && match info.mode {
            Mode::Immediate | Mode::ZeroPage => reads,
            Mode::Absolute => reads && !matches!(operand, 0x4016 | 0x4017),
            Mode::Implied => info.mnemonic == "NOP",
            _ => false,
        }
}

/// The wait loop whose head is `head`, if the code there is one: its
/// length in bytes (the closing branch or jump included; the loop covers
/// `head .. head + len`). `byte(a)` reads the code at CPU address `a` as
/// the CPU would fetch it now.
pub fn at(head: u16, byte: impl Fn(u16) -> u8) -> Option<u16> {
    let mut pc = head;
    for _ in 0..MAX_INSTRUCTIONS {
        let opcode = byte(pc);
        let info = &OPCODES[opcode as usize];
        let len = info.byte_len() as u16;
        let lo = byte(pc.wrapping_add(1));
        let hi = byte(pc.wrapping_add(2));
        let operand = u16::from_le_bytes([lo, if len == 3 { hi } else { 0 }]);
        match (info.flow, info.mode) {
            (Flow::Branch, _) => {
                let target = crate::disasm::branch_target(pc, lo);
                return (info.official && target == head)
                    .then(|| pc.wrapping_add(2).wrapping_sub(head));
            }
            (Flow::Jump, Mode::Absolute) => {
                return (operand == head).then(|| pc.wrapping_add(3).wrapping_sub(head));
            }
            (Flow::None, _) if polls(opcode, operand) => pc = pc.wrapping_add(len),
            _ => return None,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `at` over `code` placed at $8000.
    fn wait(code: &[u8]) -> Option<u16> {
        at(0x8000, |a| {
            code.get(a.wrapping_sub(0x8000) as usize)
                .copied()
                .unwrap_or(0xEA)
        })
    }

    #[test]
    fn the_usual_waits_are_wait_loops() {
        // lda $10 ; cmp $11 ; beq head
        assert_eq!(wait(&[0xA5, 0x10, 0xC5, 0x11, 0xF0, 0xFA]), Some(6));
        // bit $2002 ; bpl head
        assert_eq!(wait(&[0x2C, 0x02, 0x20, 0x10, 0xFB]), Some(5));
        // lda $2002 ; and #$40 ; beq head
        assert_eq!(wait(&[0xAD, 0x02, 0x20, 0x29, 0x40, 0xF0, 0xF9]), Some(7));
        // lda $10 ; beq head (as JMP: lda $10 ; bne out ; jmp head is not one)
        assert_eq!(wait(&[0xA5, 0x10, 0xF0, 0xFC]), Some(4));
        // nop ; jmp head
        assert_eq!(wait(&[0xEA, 0x4C, 0x00, 0x80]), Some(4));
    }

    #[test]
    fn loops_that_work_or_read_input_are_not() {
        // inc $10 ; bne head: writes.
        assert_eq!(wait(&[0xE6, 0x10, 0xD0, 0xFC]), None);
        // lda $4016 ; and #1 ; beq head: the controller.
        assert_eq!(wait(&[0xAD, 0x16, 0x40, 0x29, 0x01, 0xF0, 0xF9]), None);
        // lda $0300,x ; beq head: indexed.
        assert_eq!(wait(&[0xBD, 0x00, 0x03, 0xF0, 0xFB]), None);
        // lda $10 ; beq elsewhere: not back to the head.
        assert_eq!(wait(&[0xA5, 0x10, 0xF0, 0x10]), None);
        // dex ; bne head: a delay loop counts down registers (works).
        assert_eq!(wait(&[0xCA, 0xD0, 0xFD]), None);
        // A loop of seven reads is too long.
        let mut long = Vec::new();
        for _ in 0..6 {
            long.extend([0xA5, 0x10]);
        }
        long.extend([0xF0, 0xF2]);
        assert_eq!(wait(&long), None);
    }

    #[test]
    fn every_translator_idle_loop_shape_is_a_wait_loop() {
        // The translator's narrower rule: RAM reads and NOPs.
        assert!(wait(&[0xAD, 0x00, 0x03, 0xD0, 0xFB]).is_some());
        assert!(wait(&[0xA5, 0x10, 0x25, 0x11, 0x05, 0x12, 0xF0, 0xF8]).is_some());
    }
}
