//! The 6502 opcode matrix as data: mnemonic, addressing mode, access kind and
//! control-flow class for all 256 opcodes. The interpreter's dispatch, the
//! disassembler, the translator and the profiler all read this one table.
//! Reference: NESdev wiki "CPU unofficial opcodes" (names follow nestest.log,
//! e.g. ISB rather than ISC, so traces compare cleanly).

/// Addressing modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Implied,
    Accumulator,
    Immediate,
    ZeroPage,
    ZeroPageX,
    ZeroPageY,
    Absolute,
    AbsoluteX,
    AbsoluteY,
    Indirect,
    IndirectX,
    IndirectY,
    Relative,
}

impl Mode {
    /// Instruction length in bytes, opcode included.
    pub const fn byte_len(self) -> u8 {
        match self {
            Mode::Implied | Mode::Accumulator => 1,
            Mode::Immediate
            | Mode::ZeroPage
            | Mode::ZeroPageX
            | Mode::ZeroPageY
            | Mode::IndirectX
            | Mode::IndirectY
            | Mode::Relative => 2,
            Mode::Absolute | Mode::AbsoluteX | Mode::AbsoluteY | Mode::Indirect => 3,
        }
    }
}

/// How an instruction changes the flow of control; what the profiler records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Flow {
    /// Falls through to the next instruction.
    None,
    /// Conditional relative branch.
    Branch,
    /// JMP absolute or indirect.
    Jump,
    /// JSR.
    Call,
    /// RTS.
    Return,
    /// RTI.
    ReturnInterrupt,
    /// BRK (software interrupt).
    Break,
    /// A JAM opcode: the CPU stops.
    Jam,
}

impl Flow {
    /// Ends a basic block (any control transfer, taken or not).
    pub const fn ends_block(self) -> bool {
        !matches!(self, Flow::None)
    }
}

#[derive(Debug, Clone, Copy)]
pub struct OpInfo {
    pub mnemonic: &'static str,
    pub mode: Mode,
    pub official: bool,
    pub flow: Flow,
}

impl OpInfo {
    pub const fn byte_len(&self) -> u8 {
        self.mode.byte_len()
    }
}

use Mode::*;

const fn op(mnemonic: &'static str, mode: Mode, official: bool) -> OpInfo {
    let flow = match mnemonic.as_bytes() {
        b"JMP" => Flow::Jump,
        b"JSR" => Flow::Call,
        b"RTS" => Flow::Return,
        b"RTI" => Flow::ReturnInterrupt,
        b"BRK" => Flow::Break,
        b"JAM" => Flow::Jam,
        _ => {
            if matches!(mode, Relative) {
                Flow::Branch
            } else {
                Flow::None
            }
        }
    };
    OpInfo {
        mnemonic,
        mode,
        official,
        flow,
    }
}

const fn o(m: &'static str, mode: Mode) -> OpInfo {
    op(m, mode, true)
}

const fn u(m: &'static str, mode: Mode) -> OpInfo {
    op(m, mode, false)
}

#[rustfmt::skip]
pub static OPCODES: [OpInfo; 256] = [
    // 0x00
    o("BRK", Implied), o("ORA", IndirectX), u("JAM", Implied), u("SLO", IndirectX),
    u("NOP", ZeroPage), o("ORA", ZeroPage), o("ASL", ZeroPage), u("SLO", ZeroPage),
    o("PHP", Implied), o("ORA", Immediate), o("ASL", Accumulator), u("ANC", Immediate),
    u("NOP", Absolute), o("ORA", Absolute), o("ASL", Absolute), u("SLO", Absolute),
    // 0x10
    o("BPL", Relative), o("ORA", IndirectY), u("JAM", Implied), u("SLO", IndirectY),
    u("NOP", ZeroPageX), o("ORA", ZeroPageX), o("ASL", ZeroPageX), u("SLO", ZeroPageX),
    o("CLC", Implied), o("ORA", AbsoluteY), u("NOP", Implied), u("SLO", AbsoluteY),
    u("NOP", AbsoluteX), o("ORA", AbsoluteX), o("ASL", AbsoluteX), u("SLO", AbsoluteX),
    // 0x20
    o("JSR", Absolute), o("AND", IndirectX), u("JAM", Implied), u("RLA", IndirectX),
    o("BIT", ZeroPage), o("AND", ZeroPage), o("ROL", ZeroPage), u("RLA", ZeroPage),
    o("PLP", Implied), o("AND", Immediate), o("ROL", Accumulator), u("ANC", Immediate),
    o("BIT", Absolute), o("AND", Absolute), o("ROL", Absolute), u("RLA", Absolute),
    // 0x30
    o("BMI", Relative), o("AND", IndirectY), u("JAM", Implied), u("RLA", IndirectY),
    u("NOP", ZeroPageX), o("AND", ZeroPageX), o("ROL", ZeroPageX), u("RLA", ZeroPageX),
    o("SEC", Implied), o("AND", AbsoluteY), u("NOP", Implied), u("RLA", AbsoluteY),
    u("NOP", AbsoluteX), o("AND", AbsoluteX), o("ROL", AbsoluteX), u("RLA", AbsoluteX),
    // 0x40
    o("RTI", Implied), o("EOR", IndirectX), u("JAM", Implied), u("SRE", IndirectX),
    u("NOP", ZeroPage), o("EOR", ZeroPage), o("LSR", ZeroPage), u("SRE", ZeroPage),
    o("PHA", Implied), o("EOR", Immediate), o("LSR", Accumulator), u("ALR", Immediate),
    o("JMP", Absolute), o("EOR", Absolute), o("LSR", Absolute), u("SRE", Absolute),
    // 0x50
    o("BVC", Relative), o("EOR", IndirectY), u("JAM", Implied), u("SRE", IndirectY),
    u("NOP", ZeroPageX), o("EOR", ZeroPageX), o("LSR", ZeroPageX), u("SRE", ZeroPageX),
    o("CLI", Implied), o("EOR", AbsoluteY), u("NOP", Implied), u("SRE", AbsoluteY),
    u("NOP", AbsoluteX), o("EOR", AbsoluteX), o("LSR", AbsoluteX), u("SRE", AbsoluteX),
    // 0x60
    o("RTS", Implied), o("ADC", IndirectX), u("JAM", Implied), u("RRA", IndirectX),
    u("NOP", ZeroPage), o("ADC", ZeroPage), o("ROR", ZeroPage), u("RRA", ZeroPage),
    o("PLA", Implied), o("ADC", Immediate), o("ROR", Accumulator), u("ARR", Immediate),
    o("JMP", Indirect), o("ADC", Absolute), o("ROR", Absolute), u("RRA", Absolute),
    // 0x70
    o("BVS", Relative), o("ADC", IndirectY), u("JAM", Implied), u("RRA", IndirectY),
    u("NOP", ZeroPageX), o("ADC", ZeroPageX), o("ROR", ZeroPageX), u("RRA", ZeroPageX),
    o("SEI", Implied), o("ADC", AbsoluteY), u("NOP", Implied), u("RRA", AbsoluteY),
    u("NOP", AbsoluteX), o("ADC", AbsoluteX), o("ROR", AbsoluteX), u("RRA", AbsoluteX),
    // 0x80
    u("NOP", Immediate), o("STA", IndirectX), u("NOP", Immediate), u("SAX", IndirectX),
    o("STY", ZeroPage), o("STA", ZeroPage), o("STX", ZeroPage), u("SAX", ZeroPage),
    o("DEY", Implied), u("NOP", Immediate), o("TXA", Implied), u("XAA", Immediate),
    o("STY", Absolute), o("STA", Absolute), o("STX", Absolute), u("SAX", Absolute),
    // 0x90
    o("BCC", Relative), o("STA", IndirectY), u("JAM", Implied), u("SHA", IndirectY),
    o("STY", ZeroPageX), o("STA", ZeroPageX), o("STX", ZeroPageY), u("SAX", ZeroPageY),
    o("TYA", Implied), o("STA", AbsoluteY), o("TXS", Implied), u("TAS", AbsoluteY),
    u("SHY", AbsoluteX), o("STA", AbsoluteX), u("SHX", AbsoluteY), u("SHA", AbsoluteY),
    // 0xA0
    o("LDY", Immediate), o("LDA", IndirectX), o("LDX", Immediate), u("LAX", IndirectX),
    o("LDY", ZeroPage), o("LDA", ZeroPage), o("LDX", ZeroPage), u("LAX", ZeroPage),
    o("TAY", Implied), o("LDA", Immediate), o("TAX", Implied), u("LXA", Immediate),
    o("LDY", Absolute), o("LDA", Absolute), o("LDX", Absolute), u("LAX", Absolute),
    // 0xB0
    o("BCS", Relative), o("LDA", IndirectY), u("JAM", Implied), u("LAX", IndirectY),
    o("LDY", ZeroPageX), o("LDA", ZeroPageX), o("LDX", ZeroPageY), u("LAX", ZeroPageY),
    o("CLV", Implied), o("LDA", AbsoluteY), o("TSX", Implied), u("LAS", AbsoluteY),
    o("LDY", AbsoluteX), o("LDA", AbsoluteX), o("LDX", AbsoluteY), u("LAX", AbsoluteY),
    // 0xC0
    o("CPY", Immediate), o("CMP", IndirectX), u("NOP", Immediate), u("DCP", IndirectX),
    o("CPY", ZeroPage), o("CMP", ZeroPage), o("DEC", ZeroPage), u("DCP", ZeroPage),
    o("INY", Implied), o("CMP", Immediate), o("DEX", Implied), u("AXS", Immediate),
    o("CPY", Absolute), o("CMP", Absolute), o("DEC", Absolute), u("DCP", Absolute),
    // 0xD0
    o("BNE", Relative), o("CMP", IndirectY), u("JAM", Implied), u("DCP", IndirectY),
    u("NOP", ZeroPageX), o("CMP", ZeroPageX), o("DEC", ZeroPageX), u("DCP", ZeroPageX),
    o("CLD", Implied), o("CMP", AbsoluteY), u("NOP", Implied), u("DCP", AbsoluteY),
    u("NOP", AbsoluteX), o("CMP", AbsoluteX), o("DEC", AbsoluteX), u("DCP", AbsoluteX),
    // 0xE0
    o("CPX", Immediate), o("SBC", IndirectX), u("NOP", Immediate), u("ISB", IndirectX),
    o("CPX", ZeroPage), o("SBC", ZeroPage), o("INC", ZeroPage), u("ISB", ZeroPage),
    o("INX", Implied), o("SBC", Immediate), o("NOP", Implied), u("SBC", Immediate),
    o("CPX", Absolute), o("SBC", Absolute), o("INC", Absolute), u("ISB", Absolute),
    // 0xF0
    o("BEQ", Relative), o("SBC", IndirectY), u("JAM", Implied), u("ISB", IndirectY),
    u("NOP", ZeroPageX), o("SBC", ZeroPageX), o("INC", ZeroPageX), u("ISB", ZeroPageX),
    o("SED", Implied), o("SBC", AbsoluteY), u("NOP", Implied), u("ISB", AbsoluteY),
    u("NOP", AbsoluteX), o("SBC", AbsoluteX), o("INC", AbsoluteX), u("ISB", AbsoluteX),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_shape() {
        let official = OPCODES.iter().filter(|o| o.official).count();
        assert_eq!(official, 151);
        let jams = OPCODES.iter().filter(|o| o.flow == Flow::Jam).count();
        assert_eq!(jams, 12);
        assert_eq!(OPCODES[0x20].flow, Flow::Call);
        assert_eq!(OPCODES[0x6C].mode, Mode::Indirect);
        assert_eq!(OPCODES[0xD0].flow, Flow::Branch);
    }
}
