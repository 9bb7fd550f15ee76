//! 6502 disassembly. `plain` gives the usual text (`LDA ($80),Y`); `annotated`
//! adds effective addresses and memory values in nestest.log's notation
//! (`LDA ($89),Y = 0300 @ 0300 = 89`), which needs registers and a side-effect
//! free memory reader.

use crate::cpu::opcodes::{Flow, Mode, OPCODES};
use crate::cpu::CpuState;

/// Text of the instruction at `pc` whose bytes are `bytes` (opcode first).
pub fn plain(pc: u16, bytes: &[u8]) -> String {
    let info = &OPCODES[bytes[0] as usize];
    let b1 = bytes.get(1).copied().unwrap_or(0);
    let b2 = bytes.get(2).copied().unwrap_or(0);
    let word = u16::from_le_bytes([b1, b2]);
    let m = info.mnemonic;
    match info.mode {
        Mode::Implied => m.to_string(),
        Mode::Accumulator => format!("{m} A"),
        Mode::Immediate => format!("{m} #${b1:02X}"),
        Mode::ZeroPage => format!("{m} ${b1:02X}"),
        Mode::ZeroPageX => format!("{m} ${b1:02X},X"),
        Mode::ZeroPageY => format!("{m} ${b1:02X},Y"),
        Mode::Absolute => format!("{m} ${word:04X}"),
        Mode::AbsoluteX => format!("{m} ${word:04X},X"),
        Mode::AbsoluteY => format!("{m} ${word:04X},Y"),
        Mode::Indirect => format!("{m} (${word:04X})"),
        Mode::IndirectX => format!("{m} (${b1:02X},X)"),
        Mode::IndirectY => format!("{m} (${b1:02X}),Y"),
        Mode::Relative => format!("{m} ${:04X}", branch_target(pc, b1)),
    }
}

pub fn branch_target(pc: u16, offset: u8) -> u16 {
    pc.wrapping_add(2).wrapping_add(offset as i8 as u16)
}

/// nestest.log-style text, with effective addresses and the values there
/// before the instruction runs.
pub fn annotated(pc: u16, bytes: &[u8], regs: &CpuState, peek: impl Fn(u16) -> u8) -> String {
    let info = &OPCODES[bytes[0] as usize];
    let base = plain(pc, bytes);
    let b1 = bytes.get(1).copied().unwrap_or(0);
    let b2 = bytes.get(2).copied().unwrap_or(0);
    let word = u16::from_le_bytes([b1, b2]);
    let read16_zp = |zp: u8| u16::from_le_bytes([peek(zp as u16), peek(zp.wrapping_add(1) as u16)]);
    match info.mode {
        Mode::ZeroPage => format!("{base} = {:02X}", peek(b1 as u16)),
        Mode::ZeroPageX | Mode::ZeroPageY => {
            let index = if info.mode == Mode::ZeroPageX {
                regs.x
            } else {
                regs.y
            };
            let addr = b1.wrapping_add(index);
            format!("{base} @ {addr:02X} = {:02X}", peek(addr as u16))
        }
        Mode::Absolute if !matches!(info.flow, Flow::Jump | Flow::Call) => {
            format!("{base} = {:02X}", peek(word))
        }
        Mode::AbsoluteX | Mode::AbsoluteY => {
            let index = if info.mode == Mode::AbsoluteX {
                regs.x
            } else {
                regs.y
            };
            let addr = word.wrapping_add(index as u16);
            format!("{base} @ {addr:04X} = {:02X}", peek(addr))
        }
        Mode::Indirect => {
            let lo = peek(word);
            let hi = peek((word & 0xFF00) | (word.wrapping_add(1) & 0x00FF));
            format!("{base} = {:04X}", u16::from_le_bytes([lo, hi]))
        }
        Mode::IndirectX => {
            let ptr = b1.wrapping_add(regs.x);
            let addr = read16_zp(ptr);
            format!("{base} @ {ptr:02X} = {addr:04X} = {:02X}", peek(addr))
        }
        Mode::IndirectY => {
            let base_addr = read16_zp(b1);
            let addr = base_addr.wrapping_add(regs.y as u16);
            format!("{base} = {base_addr:04X} @ {addr:04X} = {:02X}", peek(addr))
        }
        _ => base,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_forms() {
        assert_eq!(plain(0xC000, &[0x4C, 0xF5, 0xC5]), "JMP $C5F5");
        assert_eq!(plain(0xC7B2, &[0x10, 0x04]), "BPL $C7B8");
        assert_eq!(plain(0x0, &[0xB1, 0x89]), "LDA ($89),Y");
        assert_eq!(plain(0x0, &[0x4A]), "LSR A");
        assert_eq!(plain(0x0, &[0xE3, 0x45]), "ISB ($45,X)");
    }

    #[test]
    fn annotated_forms() {
        let mut mem = [0u8; 0x10000];
        mem[0x89] = 0x00;
        mem[0x8A] = 0x03;
        mem[0x0300] = 0x89;
        let regs = CpuState {
            a: 0,
            x: 0x65,
            y: 0,
            s: 0xFB,
            p: 0x27,
            pc: 0xD922,
        };
        let s = annotated(0xD922, &[0xB1, 0x89], &regs, |a| mem[a as usize]);
        assert_eq!(s, "LDA ($89),Y = 0300 @ 0300 = 89");
    }
}
