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
//! or `JMP` absolute back to the head, and nothing else; all of it inside
//! the head's 8 KiB window of the CPU's address space (see [`at`]). The translator's
//! idle-loop skipping (`translate::block::Block::is_idle_loop`) uses a
//! narrower rule (RAM reads only, so that skipping iterations is exact,
//! and `Block::is_vblank_poll`'s one `$2002` shape);
//! every loop it skips that is at most [`MAX_INSTRUCTIONS`] long is a wait
//! loop.
//!
//! What counts as a loop's idle time: each iteration that starts at the
//! head and ends with the jump back to it, with no interrupt and no frame
//! end in between (see `frame_events`). The iteration that leaves the loop,
//! and one cut by an interrupt or the frame's end, count as the code
//! around it: a few cycles per exit, so that both engines count alike.

use std::sync::LazyLock;

use crate::cpu::opcodes::{Flow, Mode, OPCODES};

/// The opcode of `JMP` absolute.
pub(crate) const JMP_ABSOLUTE: u8 = 0x4C;

/// Longest wait loop, in instructions (the closing branch included). Real
/// waits are 2 to 4; a longer loop of reads is rarely a wait.
pub const MAX_INSTRUCTIONS: usize = 6;

/// What an instruction with a given opcode can be in a wait loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// Nothing: no loop goes through it.
    Stop,
    /// Part of its body: an official load, compare, `BIT`, `AND`, `ORA`,
    /// `EOR` of an immediate or a zero-page address, or `NOP`.
    Poll,
    /// The same reading an absolute address: part of its body unless the
    /// address is a controller port.
    PollAbsolute,
    /// A conditional branch: closes the loop if it goes to the head.
    Branch,
    /// `JMP` absolute: closes the loop if it goes to the head.
    JumpAbsolute,
}

/// [`Step`] and length in bytes by opcode, worked out once from the
/// opcode table (the rule runs for every instruction the translator
/// decodes, and for every instruction in RAM the interpreter runs while
/// the event log is on).
static STEPS: LazyLock<[(Step, u8); 256]> = LazyLock::new(|| {
    std::array::from_fn(|opcode| {
        let info = &OPCODES[opcode];
        let reads = matches!(
            info.mnemonic,
            "LDA" | "LDX" | "LDY" | "CMP" | "CPX" | "CPY" | "BIT" | "AND" | "ORA" | "EOR"
        );
        let step = match (info.flow, info.mode) {
            _ if !info.official => Step::Stop,
            (Flow::Branch, _) => Step::Branch,
            (Flow::Jump, Mode::Absolute) => Step::JumpAbsolute,
            (Flow::None, Mode::Immediate | Mode::ZeroPage) if reads => Step::Poll,
            (Flow::None, Mode::Absolute) if reads => Step::PollAbsolute,
            (Flow::None, Mode::Implied) if info.mnemonic == "NOP" => Step::Poll,
            _ => Step::Stop,
        };
        (step, info.byte_len())
    })
});

/// Whether an instruction with `opcode` could begin a wait loop (it could
/// be part of one): when it cannot, [`at`] reads nothing but the opcode.
#[inline]
pub fn may_begin(opcode: u8) -> bool {
    STEPS[opcode as usize].0 != Step::Stop
}

/// The wait loop whose head is `head`, if the code there is one: its
/// length in bytes (the closing branch or jump included; the loop covers
/// `head .. head + len`). `byte(a)` reads the code at CPU address `a` as
/// the CPU would fetch it now.
///
/// A loop lies inside the 8 KiB window of its head ($0000, $2000, ...
/// $E000): a loop that would run on into the next window is not one. What
/// a window holds is switched as a whole (a PRG bank), and the engines
/// remember what they found at a head by where its window's bytes come
/// from (the interpreter by code address, the translator in a block keyed
/// by its physical location), which they could not if the loop reached
/// into a window switched independently. The bytes are read only as far
/// as the answer needs them (an operand only where it matters: a branch's
/// offset, a jump's target, an absolute address), so that the translator
/// can watch exactly the bytes an answer depends on in RAM.
pub fn at(head: u16, byte: impl Fn(u16) -> u8) -> Option<u16> {
    scan(head, byte, Unknown::Nothing)
}

/// What [`scan`] does not read, and takes as what would make a loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unknown {
    /// Reads every byte that matters: [`at`].
    Nothing,
    /// Absolute addresses: none is a controller port.
    Addresses,
    /// Every operand: every branch and jump goes back to the head.
    Operands,
}

/// [`at`], with the bytes `unknown` says left unread and taken as making
/// a loop.
#[inline]
fn scan(head: u16, byte: impl Fn(u16) -> u8, unknown: Unknown) -> Option<u16> {
    let steps = &*STEPS;
    let mut pc = head;
    for _ in 0..MAX_INSTRUCTIONS {
        let (step, len) = steps[byte(pc) as usize];
        if step == Step::Stop {
            return None;
        }
        let last = pc.wrapping_add(len as u16 - 1);
        if last < pc || (last ^ head) & 0xE000 != 0 {
            return None;
        }
        let operand = || u16::from_le_bytes([byte(pc.wrapping_add(1)), byte(pc.wrapping_add(2))]);
        let closes = match (step, unknown) {
            (Step::Branch | Step::JumpAbsolute, Unknown::Operands) => true,
            (Step::Branch, _) => crate::disasm::branch_target(pc, byte(pc.wrapping_add(1))) == head,
            (Step::JumpAbsolute, _) => operand() == head,
            (Step::PollAbsolute, Unknown::Nothing) if matches!(operand(), 0x4016 | 0x4017) => {
                return None
            }
            _ => {
                pc = last.wrapping_add(1);
                continue;
            }
        };
        return closes.then(|| last.wrapping_add(1).wrapping_sub(head));
    }
    None
}

/// Whether the code at `head` could be a wait loop's head whatever the
/// absolute addresses it reads: [`at`] without reading them, as if none
/// were a controller port (it reads the opcodes, and the branch offset or
/// jump target that would close the loop). Where [`at`] finds a loop,
/// this does too. For code whose operands change without the translator
/// looking again (`translate::block::Block::live`), where such addresses
/// are what changes most.
pub fn may_be_at(head: u16, byte: impl Fn(u16) -> u8) -> bool {
    scan(head, byte, Unknown::Addresses).is_some()
}

/// Whether the code at `head` could be a wait loop's head whatever its
/// operands: [`at`] reading only the opcodes, as if every branch and jump
/// went back to the head and no address were a controller port. Where
/// [`at`] or [`may_be_at`] finds a loop, this does too.
pub fn may_be_at_any_operands(head: u16, opcode: impl Fn(u16) -> u8) -> bool {
    scan(head, opcode, Unknown::Operands).is_some()
}

/// Whether a `JMP` absolute at `jump` to `head` goes back to the head of
/// the wait loop it lies in (`head <= jump < head + len`): the jump that
/// closes a wait loop, which the frame-event log leaves out (see
/// `frame_events::EventKind::Jump`). `byte` as for [`at`].
pub fn jumps_back(jump: u16, head: u16, byte: impl Fn(u16) -> u8) -> bool {
    jump >= head && at(head, byte).is_some_and(|len| jump - head < len)
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

    /// `at` over `code` placed at `base`, NOPs around it; also returns
    /// the addresses it read.
    fn wait_at(base: u16, code: &[u8]) -> (Option<u16>, Vec<u16>) {
        let reads = std::cell::RefCell::new(Vec::new());
        let found = at(base, |a| {
            reads.borrow_mut().push(a);
            code.get(a.wrapping_sub(base) as usize)
                .copied()
                .unwrap_or(0xEA)
        });
        (found, reads.into_inner())
    }

    #[test]
    fn a_loop_stays_in_its_heads_window() {
        // bit $2002 ; bpl head: fits below $A000 when the BPL ends at $9FFF.
        assert_eq!(wait_at(0x9FFB, &[0x2C, 0x02, 0x20, 0x10, 0xFB]).0, Some(5));
        // One byte later the BPL's offset lies in the next window.
        assert_eq!(wait_at(0x9FFC, &[0x2C, 0x02, 0x20, 0x10, 0xFB]).0, None);
        // And so does an instruction whose operand crosses.
        assert_eq!(wait_at(0x9FFE, &[0xAD, 0x02, 0x20, 0x10, 0xFB]).0, None);
        // Past $FFFF is not a window either.
        assert_eq!(wait_at(0xFFFE, &[0xEA, 0x10, 0xFD]).0, None);
        // A branch to itself at the very end of the address space is one.
        assert_eq!(wait_at(0xFFFE, &[0x10, 0xFE]).0, Some(2));
    }

    #[test]
    fn only_the_bytes_that_matter_are_read() {
        // lda #$10 ; nop ; lda $10 ; bne head: the immediate and zero-page
        // operands do not matter; the branch offset does.
        let (found, reads) = wait_at(0x8000, &[0xA9, 0x10, 0xEA, 0xA5, 0x10, 0xD0, 0xF9]);
        assert_eq!(found, Some(7));
        assert_eq!(reads, vec![0x8000, 0x8002, 0x8003, 0x8005, 0x8006]);
        // lda $4016: the absolute operand decides.
        let (found, reads) = wait_at(0x8000, &[0xAD, 0x16, 0x40, 0xF0, 0xFB]);
        assert_eq!(found, None);
        assert_eq!(reads, vec![0x8000, 0x8001, 0x8002]);
        // A store ends it at its opcode.
        assert_eq!(wait_at(0x8000, &[0x85, 0x10]).1, vec![0x8000]);
    }

    #[test]
    fn a_jump_back_from_inside_closes_the_loop() {
        // $8000: nop ; jmp $8000
        let code = [0xEA, 0x4C, 0x00, 0x80];
        let byte = |a: u16| {
            code.get(a.wrapping_sub(0x8000) as usize)
                .copied()
                .unwrap_or(0xEA)
        };
        assert!(jumps_back(0x8001, 0x8000, byte));
        // From before the head, or to a head it is not in: not the loop's.
        assert!(!jumps_back(0x7FF0, 0x8000, byte));
        assert!(!jumps_back(0x8004, 0x8000, byte));
        // To code that is no wait loop.
        assert!(!jumps_back(0x8010, 0x8005, byte));
    }

    /// Wherever `at` finds a loop `may_be_at_any_operands` does too,
    /// whatever the operands, and it reads no operand; `may_be_at` reads
    /// no absolute address.
    #[test]
    fn may_be_at_covers_every_loop_and_reads_opcodes_only() {
        // Each loop with the offsets of its opcodes.
        let loops: [(&[u8], &[u16]); 5] = [
            (&[0xA5, 0x10, 0xC5, 0x11, 0xF0, 0xFA], &[0, 2, 4]),
            (&[0x2C, 0x02, 0x20, 0x10, 0xFB], &[0, 3]),
            (&[0xAD, 0x02, 0x20, 0x29, 0x40, 0xF0, 0xF9], &[0, 3, 5]),
            (&[0xEA, 0x4C, 0x00, 0x80], &[0, 1]),
            (&[0xD0, 0xFE], &[0]),
        ];
        for (code, opcodes) in loops {
            let code_at = |a: u16| code.get(a as usize - 0x8000).copied().unwrap_or(0xEA);
            let reads = std::cell::RefCell::new(Vec::new());
            let byte = |a: u16| {
                reads.borrow_mut().push(a - 0x8000);
                code.get(a as usize - 0x8000).copied().unwrap_or(0xEA)
            };
            assert!(wait(code).is_some());
            assert!(may_be_at(0x8000, code_at), "{code:02X?}");
            assert!(may_be_at_any_operands(0x8000, byte), "{code:02X?}");
            assert_eq!(&reads.into_inner(), opcodes);
            // Any operands: the same opcodes with random operands.
            for seed in 0..64u16 {
                let mut other = code.to_vec();
                for (i, b) in other.iter_mut().enumerate() {
                    if !opcodes.contains(&(i as u16)) {
                        *b = (seed.wrapping_mul(97) as u8).wrapping_add(i as u8 * 31);
                    }
                }
                assert!(may_be_at_any_operands(0x8000, |a| other
                    .get(a as usize - 0x8000)
                    .copied()
                    .unwrap_or(0xEA)));
            }
        }
        // A store or an indexed read can never be.
        for code in [[0x85, 0x10, 0xD0, 0xFC], [0xB5, 0x10, 0xD0, 0xFC]] {
            assert!(!may_be_at_any_operands(0x8000, |a| code[a as usize - 0x8000]));
        }
        // `lda $4016 ; beq head` may be one whatever the address, not
        // whatever the branch offset.
        let port = [0xAD, 0x16, 0x40, 0xF0, 0xFB];
        let reads = std::cell::RefCell::new(Vec::new());
        assert!(wait(&port).is_none());
        assert!(may_be_at(0x8000, |a| {
            reads.borrow_mut().push(a - 0x8000);
            port[a as usize - 0x8000]
        }));
        assert_eq!(reads.into_inner(), vec![0, 3, 4]);
        let elsewhere = [0xAD, 0x16, 0x40, 0xF0, 0x10];
        assert!(!may_be_at(0x8000, |a| elsewhere[a as usize - 0x8000]));
    }

    #[test]
    fn every_translator_idle_loop_shape_is_a_wait_loop() {
        // The translator's narrower rule: RAM reads and NOPs.
        assert!(wait(&[0xAD, 0x00, 0x03, 0xD0, 0xFB]).is_some());
        assert!(wait(&[0xA5, 0x10, 0x25, 0x11, 0x05, 0x12, 0xF0, 0xF8]).is_some());
    }
}
