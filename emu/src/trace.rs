//! Execution traces in the format of nestest.log:
//! `C000  4C F5 C5  JMP $C5F5                       A:00 X:00 Y:00 P:24 SP:FD PPU:  0, 21 CYC:7`

use crate::cpu::opcodes::OPCODES;
use crate::disasm;
use crate::nes::Nes;

/// The trace line for the instruction about to execute.
pub fn nestest_line(nes: &mut Nes) -> String {
    nes.sync();
    let nes = &*nes;
    let regs = nes.cpu_state();
    let pc = regs.pc;
    let opcode = nes.peek(pc);
    let info = &OPCODES[opcode as usize];
    let len = info.byte_len() as u16;
    let bytes: Vec<u8> = (0..len).map(|i| nes.peek(pc.wrapping_add(i))).collect();
    let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02X}")).collect();
    // Registers with read side effects are shown as FF, as nestest.log does.
    let peek = |a: u16| {
        if (0x2000..0x4020).contains(&a) {
            0xFF
        } else {
            nes.peek(a)
        }
    };
    let text = disasm::annotated(pc, &bytes, &regs, peek);
    let ppu = &nes.bus.ppu;
    format!(
        "{pc:04X}  {:<8} {}{:<32}A:{:02X} X:{:02X} Y:{:02X} P:{:02X} SP:{:02X} PPU:{:>3},{:>3} CYC:{}",
        hex.join(" "),
        if info.official { ' ' } else { '*' },
        text,
        regs.a,
        regs.x,
        regs.y,
        regs.p,
        regs.s,
        ppu.scanline,
        ppu.dot,
        nes.cycles()
    )
}
