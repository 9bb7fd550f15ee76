//! Instruction dispatch and the per-cycle bus sequences of every addressing
//! mode (NESdev wiki "CPU addressing modes", 6502 cycle tables in "6502_cpu.txt").

use super::opcodes::Mode::{self, *};
use super::{Cpu, B, C, D, I, N, U, V, Z};
use crate::bus::Bus;

impl Cpu {
    /// Executes the instruction whose opcode was just fetched.
    #[inline(always)]
    pub(super) fn execute(&mut self, bus: &mut Bus, opcode: u8) {
        match opcode {
            0x00 => self.brk(bus),
            0x01 => {
                let v = self.operand(bus, IndirectX);
                self.ora(v)
            }
            0x02 => self.jam(bus, opcode),
            0x03 => self.rmw(bus, IndirectX, Cpu::slo),
            0x04 => {
                let v = self.operand(bus, ZeroPage);
                self.nop(v)
            }
            0x05 => {
                let v = self.operand(bus, ZeroPage);
                self.ora(v)
            }
            0x06 => self.rmw(bus, ZeroPage, Cpu::asl),
            0x07 => self.rmw(bus, ZeroPage, Cpu::slo),
            0x08 => self.php(bus),
            0x09 => {
                let v = self.operand(bus, Immediate);
                self.ora(v)
            }
            0x0A => {
                self.implied(bus);
                self.a = self.asl(self.a)
            }
            0x0B => {
                let v = self.operand(bus, Immediate);
                self.anc(v)
            }
            0x0C => {
                let v = self.operand(bus, Absolute);
                self.nop(v)
            }
            0x0D => {
                let v = self.operand(bus, Absolute);
                self.ora(v)
            }
            0x0E => self.rmw(bus, Absolute, Cpu::asl),
            0x0F => self.rmw(bus, Absolute, Cpu::slo),
            0x10 => self.branch(bus, self.p & N == 0),
            0x11 => {
                let v = self.operand(bus, IndirectY);
                self.ora(v)
            }
            0x12 => self.jam(bus, opcode),
            0x13 => self.rmw(bus, IndirectY, Cpu::slo),
            0x14 => {
                let v = self.operand(bus, ZeroPageX);
                self.nop(v)
            }
            0x15 => {
                let v = self.operand(bus, ZeroPageX);
                self.ora(v)
            }
            0x16 => self.rmw(bus, ZeroPageX, Cpu::asl),
            0x17 => self.rmw(bus, ZeroPageX, Cpu::slo),
            0x18 => self.clc(bus),
            0x19 => {
                let v = self.operand(bus, AbsoluteY);
                self.ora(v)
            }
            0x1A => self.implied(bus),
            0x1B => self.rmw(bus, AbsoluteY, Cpu::slo),
            0x1C => {
                let v = self.operand(bus, AbsoluteX);
                self.nop(v)
            }
            0x1D => {
                let v = self.operand(bus, AbsoluteX);
                self.ora(v)
            }
            0x1E => self.rmw(bus, AbsoluteX, Cpu::asl),
            0x1F => self.rmw(bus, AbsoluteX, Cpu::slo),
            0x20 => self.jsr(bus),
            0x21 => {
                let v = self.operand(bus, IndirectX);
                self.and(v)
            }
            0x22 => self.jam(bus, opcode),
            0x23 => self.rmw(bus, IndirectX, Cpu::rla),
            0x24 => {
                let v = self.operand(bus, ZeroPage);
                self.bit(v)
            }
            0x25 => {
                let v = self.operand(bus, ZeroPage);
                self.and(v)
            }
            0x26 => self.rmw(bus, ZeroPage, Cpu::rol),
            0x27 => self.rmw(bus, ZeroPage, Cpu::rla),
            0x28 => self.plp(bus),
            0x29 => {
                let v = self.operand(bus, Immediate);
                self.and(v)
            }
            0x2A => {
                self.implied(bus);
                self.a = self.rol(self.a)
            }
            0x2B => {
                let v = self.operand(bus, Immediate);
                self.anc(v)
            }
            0x2C => {
                let v = self.operand(bus, Absolute);
                self.bit(v)
            }
            0x2D => {
                let v = self.operand(bus, Absolute);
                self.and(v)
            }
            0x2E => self.rmw(bus, Absolute, Cpu::rol),
            0x2F => self.rmw(bus, Absolute, Cpu::rla),
            0x30 => self.branch(bus, self.p & N != 0),
            0x31 => {
                let v = self.operand(bus, IndirectY);
                self.and(v)
            }
            0x32 => self.jam(bus, opcode),
            0x33 => self.rmw(bus, IndirectY, Cpu::rla),
            0x34 => {
                let v = self.operand(bus, ZeroPageX);
                self.nop(v)
            }
            0x35 => {
                let v = self.operand(bus, ZeroPageX);
                self.and(v)
            }
            0x36 => self.rmw(bus, ZeroPageX, Cpu::rol),
            0x37 => self.rmw(bus, ZeroPageX, Cpu::rla),
            0x38 => self.sec(bus),
            0x39 => {
                let v = self.operand(bus, AbsoluteY);
                self.and(v)
            }
            0x3A => self.implied(bus),
            0x3B => self.rmw(bus, AbsoluteY, Cpu::rla),
            0x3C => {
                let v = self.operand(bus, AbsoluteX);
                self.nop(v)
            }
            0x3D => {
                let v = self.operand(bus, AbsoluteX);
                self.and(v)
            }
            0x3E => self.rmw(bus, AbsoluteX, Cpu::rol),
            0x3F => self.rmw(bus, AbsoluteX, Cpu::rla),
            0x40 => self.rti(bus),
            0x41 => {
                let v = self.operand(bus, IndirectX);
                self.eor(v)
            }
            0x42 => self.jam(bus, opcode),
            0x43 => self.rmw(bus, IndirectX, Cpu::sre),
            0x44 => {
                let v = self.operand(bus, ZeroPage);
                self.nop(v)
            }
            0x45 => {
                let v = self.operand(bus, ZeroPage);
                self.eor(v)
            }
            0x46 => self.rmw(bus, ZeroPage, Cpu::lsr),
            0x47 => self.rmw(bus, ZeroPage, Cpu::sre),
            0x48 => self.pha(bus),
            0x49 => {
                let v = self.operand(bus, Immediate);
                self.eor(v)
            }
            0x4A => {
                self.implied(bus);
                self.a = self.lsr(self.a)
            }
            0x4B => {
                let v = self.operand(bus, Immediate);
                self.alr(v)
            }
            0x4C => self.jmp_abs(bus),
            0x4D => {
                let v = self.operand(bus, Absolute);
                self.eor(v)
            }
            0x4E => self.rmw(bus, Absolute, Cpu::lsr),
            0x4F => self.rmw(bus, Absolute, Cpu::sre),
            0x50 => self.branch(bus, self.p & V == 0),
            0x51 => {
                let v = self.operand(bus, IndirectY);
                self.eor(v)
            }
            0x52 => self.jam(bus, opcode),
            0x53 => self.rmw(bus, IndirectY, Cpu::sre),
            0x54 => {
                let v = self.operand(bus, ZeroPageX);
                self.nop(v)
            }
            0x55 => {
                let v = self.operand(bus, ZeroPageX);
                self.eor(v)
            }
            0x56 => self.rmw(bus, ZeroPageX, Cpu::lsr),
            0x57 => self.rmw(bus, ZeroPageX, Cpu::sre),
            0x58 => self.cli(bus),
            0x59 => {
                let v = self.operand(bus, AbsoluteY);
                self.eor(v)
            }
            0x5A => self.implied(bus),
            0x5B => self.rmw(bus, AbsoluteY, Cpu::sre),
            0x5C => {
                let v = self.operand(bus, AbsoluteX);
                self.nop(v)
            }
            0x5D => {
                let v = self.operand(bus, AbsoluteX);
                self.eor(v)
            }
            0x5E => self.rmw(bus, AbsoluteX, Cpu::lsr),
            0x5F => self.rmw(bus, AbsoluteX, Cpu::sre),
            0x60 => self.rts(bus),
            0x61 => {
                let v = self.operand(bus, IndirectX);
                self.adc(v)
            }
            0x62 => self.jam(bus, opcode),
            0x63 => self.rmw(bus, IndirectX, Cpu::rra),
            0x64 => {
                let v = self.operand(bus, ZeroPage);
                self.nop(v)
            }
            0x65 => {
                let v = self.operand(bus, ZeroPage);
                self.adc(v)
            }
            0x66 => self.rmw(bus, ZeroPage, Cpu::ror),
            0x67 => self.rmw(bus, ZeroPage, Cpu::rra),
            0x68 => self.pla(bus),
            0x69 => {
                let v = self.operand(bus, Immediate);
                self.adc(v)
            }
            0x6A => {
                self.implied(bus);
                self.a = self.ror(self.a)
            }
            0x6B => {
                let v = self.operand(bus, Immediate);
                self.arr(v)
            }
            0x6C => self.jmp_ind(bus),
            0x6D => {
                let v = self.operand(bus, Absolute);
                self.adc(v)
            }
            0x6E => self.rmw(bus, Absolute, Cpu::ror),
            0x6F => self.rmw(bus, Absolute, Cpu::rra),
            0x70 => self.branch(bus, self.p & V != 0),
            0x71 => {
                let v = self.operand(bus, IndirectY);
                self.adc(v)
            }
            0x72 => self.jam(bus, opcode),
            0x73 => self.rmw(bus, IndirectY, Cpu::rra),
            0x74 => {
                let v = self.operand(bus, ZeroPageX);
                self.nop(v)
            }
            0x75 => {
                let v = self.operand(bus, ZeroPageX);
                self.adc(v)
            }
            0x76 => self.rmw(bus, ZeroPageX, Cpu::ror),
            0x77 => self.rmw(bus, ZeroPageX, Cpu::rra),
            0x78 => self.sei(bus),
            0x79 => {
                let v = self.operand(bus, AbsoluteY);
                self.adc(v)
            }
            0x7A => self.implied(bus),
            0x7B => self.rmw(bus, AbsoluteY, Cpu::rra),
            0x7C => {
                let v = self.operand(bus, AbsoluteX);
                self.nop(v)
            }
            0x7D => {
                let v = self.operand(bus, AbsoluteX);
                self.adc(v)
            }
            0x7E => self.rmw(bus, AbsoluteX, Cpu::ror),
            0x7F => self.rmw(bus, AbsoluteX, Cpu::rra),
            0x80 => {
                let v = self.operand(bus, Immediate);
                self.nop(v)
            }
            0x81 => {
                let addr = self.store_address(bus, IndirectX);
                self.write(bus, addr, self.a)
            }
            0x82 => {
                let v = self.operand(bus, Immediate);
                self.nop(v)
            }
            0x83 => {
                let addr = self.store_address(bus, IndirectX);
                self.write(bus, addr, self.a & self.x)
            }
            0x84 => {
                let addr = self.store_address(bus, ZeroPage);
                self.write(bus, addr, self.y)
            }
            0x85 => {
                let addr = self.store_address(bus, ZeroPage);
                self.write(bus, addr, self.a)
            }
            0x86 => {
                let addr = self.store_address(bus, ZeroPage);
                self.write(bus, addr, self.x)
            }
            0x87 => {
                let addr = self.store_address(bus, ZeroPage);
                self.write(bus, addr, self.a & self.x)
            }
            0x88 => self.dey(bus),
            0x89 => {
                let v = self.operand(bus, Immediate);
                self.nop(v)
            }
            0x8A => self.txa(bus),
            0x8B => {
                let v = self.operand(bus, Immediate);
                self.xaa(v)
            }
            0x8C => {
                let addr = self.store_address(bus, Absolute);
                self.write(bus, addr, self.y)
            }
            0x8D => {
                let addr = self.store_address(bus, Absolute);
                self.write(bus, addr, self.a)
            }
            0x8E => {
                let addr = self.store_address(bus, Absolute);
                self.write(bus, addr, self.x)
            }
            0x8F => {
                let addr = self.store_address(bus, Absolute);
                self.write(bus, addr, self.a & self.x)
            }
            0x90 => self.branch(bus, self.p & C == 0),
            0x91 => {
                let addr = self.store_address(bus, IndirectY);
                self.write(bus, addr, self.a)
            }
            0x92 => self.jam(bus, opcode),
            0x93 => self.sha(bus, IndirectY),
            0x94 => {
                let addr = self.store_address(bus, ZeroPageX);
                self.write(bus, addr, self.y)
            }
            0x95 => {
                let addr = self.store_address(bus, ZeroPageX);
                self.write(bus, addr, self.a)
            }
            0x96 => {
                let addr = self.store_address(bus, ZeroPageY);
                self.write(bus, addr, self.x)
            }
            0x97 => {
                let addr = self.store_address(bus, ZeroPageY);
                self.write(bus, addr, self.a & self.x)
            }
            0x98 => self.tya(bus),
            0x99 => {
                let addr = self.store_address(bus, AbsoluteY);
                self.write(bus, addr, self.a)
            }
            0x9A => self.txs(bus),
            0x9B => self.tas(bus, AbsoluteY),
            0x9C => self.shy(bus, AbsoluteX),
            0x9D => {
                let addr = self.store_address(bus, AbsoluteX);
                self.write(bus, addr, self.a)
            }
            0x9E => self.shx(bus, AbsoluteY),
            0x9F => self.sha(bus, AbsoluteY),
            0xA0 => {
                let v = self.operand(bus, Immediate);
                self.ldy(v)
            }
            0xA1 => {
                let v = self.operand(bus, IndirectX);
                self.lda(v)
            }
            0xA2 => {
                let v = self.operand(bus, Immediate);
                self.ldx(v)
            }
            0xA3 => {
                let v = self.operand(bus, IndirectX);
                self.lax(v)
            }
            0xA4 => {
                let v = self.operand(bus, ZeroPage);
                self.ldy(v)
            }
            0xA5 => {
                let v = self.operand(bus, ZeroPage);
                self.lda(v)
            }
            0xA6 => {
                let v = self.operand(bus, ZeroPage);
                self.ldx(v)
            }
            0xA7 => {
                let v = self.operand(bus, ZeroPage);
                self.lax(v)
            }
            0xA8 => self.tay(bus),
            0xA9 => {
                let v = self.operand(bus, Immediate);
                self.lda(v)
            }
            0xAA => self.tax(bus),
            0xAB => {
                let v = self.operand(bus, Immediate);
                self.lxa(v)
            }
            0xAC => {
                let v = self.operand(bus, Absolute);
                self.ldy(v)
            }
            0xAD => {
                let v = self.operand(bus, Absolute);
                self.lda(v)
            }
            0xAE => {
                let v = self.operand(bus, Absolute);
                self.ldx(v)
            }
            0xAF => {
                let v = self.operand(bus, Absolute);
                self.lax(v)
            }
            0xB0 => self.branch(bus, self.p & C != 0),
            0xB1 => {
                let v = self.operand(bus, IndirectY);
                self.lda(v)
            }
            0xB2 => self.jam(bus, opcode),
            0xB3 => {
                let v = self.operand(bus, IndirectY);
                self.lax(v)
            }
            0xB4 => {
                let v = self.operand(bus, ZeroPageX);
                self.ldy(v)
            }
            0xB5 => {
                let v = self.operand(bus, ZeroPageX);
                self.lda(v)
            }
            0xB6 => {
                let v = self.operand(bus, ZeroPageY);
                self.ldx(v)
            }
            0xB7 => {
                let v = self.operand(bus, ZeroPageY);
                self.lax(v)
            }
            0xB8 => self.clv(bus),
            0xB9 => {
                let v = self.operand(bus, AbsoluteY);
                self.lda(v)
            }
            0xBA => self.tsx(bus),
            0xBB => {
                let v = self.operand(bus, AbsoluteY);
                self.las(v)
            }
            0xBC => {
                let v = self.operand(bus, AbsoluteX);
                self.ldy(v)
            }
            0xBD => {
                let v = self.operand(bus, AbsoluteX);
                self.lda(v)
            }
            0xBE => {
                let v = self.operand(bus, AbsoluteY);
                self.ldx(v)
            }
            0xBF => {
                let v = self.operand(bus, AbsoluteY);
                self.lax(v)
            }
            0xC0 => {
                let v = self.operand(bus, Immediate);
                self.cpy(v)
            }
            0xC1 => {
                let v = self.operand(bus, IndirectX);
                self.cmp(v)
            }
            0xC2 => {
                let v = self.operand(bus, Immediate);
                self.nop(v)
            }
            0xC3 => self.rmw(bus, IndirectX, Cpu::dcp),
            0xC4 => {
                let v = self.operand(bus, ZeroPage);
                self.cpy(v)
            }
            0xC5 => {
                let v = self.operand(bus, ZeroPage);
                self.cmp(v)
            }
            0xC6 => self.rmw(bus, ZeroPage, Cpu::dec),
            0xC7 => self.rmw(bus, ZeroPage, Cpu::dcp),
            0xC8 => self.iny(bus),
            0xC9 => {
                let v = self.operand(bus, Immediate);
                self.cmp(v)
            }
            0xCA => self.dex(bus),
            0xCB => {
                let v = self.operand(bus, Immediate);
                self.axs(v)
            }
            0xCC => {
                let v = self.operand(bus, Absolute);
                self.cpy(v)
            }
            0xCD => {
                let v = self.operand(bus, Absolute);
                self.cmp(v)
            }
            0xCE => self.rmw(bus, Absolute, Cpu::dec),
            0xCF => self.rmw(bus, Absolute, Cpu::dcp),
            0xD0 => self.branch(bus, self.p & Z == 0),
            0xD1 => {
                let v = self.operand(bus, IndirectY);
                self.cmp(v)
            }
            0xD2 => self.jam(bus, opcode),
            0xD3 => self.rmw(bus, IndirectY, Cpu::dcp),
            0xD4 => {
                let v = self.operand(bus, ZeroPageX);
                self.nop(v)
            }
            0xD5 => {
                let v = self.operand(bus, ZeroPageX);
                self.cmp(v)
            }
            0xD6 => self.rmw(bus, ZeroPageX, Cpu::dec),
            0xD7 => self.rmw(bus, ZeroPageX, Cpu::dcp),
            0xD8 => self.cld(bus),
            0xD9 => {
                let v = self.operand(bus, AbsoluteY);
                self.cmp(v)
            }
            0xDA => self.implied(bus),
            0xDB => self.rmw(bus, AbsoluteY, Cpu::dcp),
            0xDC => {
                let v = self.operand(bus, AbsoluteX);
                self.nop(v)
            }
            0xDD => {
                let v = self.operand(bus, AbsoluteX);
                self.cmp(v)
            }
            0xDE => self.rmw(bus, AbsoluteX, Cpu::dec),
            0xDF => self.rmw(bus, AbsoluteX, Cpu::dcp),
            0xE0 => {
                let v = self.operand(bus, Immediate);
                self.cpx(v)
            }
            0xE1 => {
                let v = self.operand(bus, IndirectX);
                self.sbc(v)
            }
            0xE2 => {
                let v = self.operand(bus, Immediate);
                self.nop(v)
            }
            0xE3 => self.rmw(bus, IndirectX, Cpu::isb),
            0xE4 => {
                let v = self.operand(bus, ZeroPage);
                self.cpx(v)
            }
            0xE5 => {
                let v = self.operand(bus, ZeroPage);
                self.sbc(v)
            }
            0xE6 => self.rmw(bus, ZeroPage, Cpu::inc),
            0xE7 => self.rmw(bus, ZeroPage, Cpu::isb),
            0xE8 => self.inx(bus),
            0xE9 => {
                let v = self.operand(bus, Immediate);
                self.sbc(v)
            }
            0xEA => self.implied(bus),
            0xEB => {
                let v = self.operand(bus, Immediate);
                self.sbc(v)
            }
            0xEC => {
                let v = self.operand(bus, Absolute);
                self.cpx(v)
            }
            0xED => {
                let v = self.operand(bus, Absolute);
                self.sbc(v)
            }
            0xEE => self.rmw(bus, Absolute, Cpu::inc),
            0xEF => self.rmw(bus, Absolute, Cpu::isb),
            0xF0 => self.branch(bus, self.p & Z != 0),
            0xF1 => {
                let v = self.operand(bus, IndirectY);
                self.sbc(v)
            }
            0xF2 => self.jam(bus, opcode),
            0xF3 => self.rmw(bus, IndirectY, Cpu::isb),
            0xF4 => {
                let v = self.operand(bus, ZeroPageX);
                self.nop(v)
            }
            0xF5 => {
                let v = self.operand(bus, ZeroPageX);
                self.sbc(v)
            }
            0xF6 => self.rmw(bus, ZeroPageX, Cpu::inc),
            0xF7 => self.rmw(bus, ZeroPageX, Cpu::isb),
            0xF8 => self.sed(bus),
            0xF9 => {
                let v = self.operand(bus, AbsoluteY);
                self.sbc(v)
            }
            0xFA => self.implied(bus),
            0xFB => self.rmw(bus, AbsoluteY, Cpu::isb),
            0xFC => {
                let v = self.operand(bus, AbsoluteX);
                self.nop(v)
            }
            0xFD => {
                let v = self.operand(bus, AbsoluteX);
                self.sbc(v)
            }
            0xFE => self.rmw(bus, AbsoluteX, Cpu::inc),
            0xFF => self.rmw(bus, AbsoluteX, Cpu::isb),
        }
    }

    /// The second cycle of a one-byte instruction: reads the next byte and
    /// discards it.
    #[inline(always)]
    pub(super) fn implied(&mut self, bus: &mut Bus) {
        self.read(bus, self.pc);
    }

    /// Read instructions: the cycles that produce the operand value.
    #[inline(always)]
    fn operand(&mut self, bus: &mut Bus, mode: Mode) -> u8 {
        match mode {
            Immediate => self.fetch(bus),
            _ => {
                let addr = self.read_address(bus, mode);
                self.read(bus, addr)
            }
        }
    }

    /// Effective address for a read instruction; indexed modes spend a dummy
    /// read at the uncorrected address only when the index crosses a page.
    #[inline(always)]
    fn read_address(&mut self, bus: &mut Bus, mode: Mode) -> u16 {
        match mode {
            AbsoluteX => self.indexed_absolute(bus, self.x, false),
            AbsoluteY => self.indexed_absolute(bus, self.y, false),
            IndirectY => self.indirect_indexed(bus, false),
            _ => self.common_address(bus, mode),
        }
    }

    /// Effective address for writes and read-modify-writes: indexed modes
    /// always spend the dummy read.
    #[inline(always)]
    fn store_address(&mut self, bus: &mut Bus, mode: Mode) -> u16 {
        match mode {
            AbsoluteX => self.indexed_absolute(bus, self.x, true),
            AbsoluteY => self.indexed_absolute(bus, self.y, true),
            IndirectY => self.indirect_indexed(bus, true),
            _ => self.common_address(bus, mode),
        }
    }

    /// Modes whose cycles do not depend on the access kind.
    #[inline(always)]
    fn common_address(&mut self, bus: &mut Bus, mode: Mode) -> u16 {
        match mode {
            ZeroPage => self.fetch(bus) as u16,
            ZeroPageX | ZeroPageY => {
                let base = self.fetch(bus);
                self.read(bus, base as u16);
                let index = if mode == ZeroPageX { self.x } else { self.y };
                base.wrapping_add(index) as u16
            }
            Absolute => {
                let lo = self.fetch(bus);
                let hi = self.fetch(bus);
                u16::from_le_bytes([lo, hi])
            }
            IndirectX => {
                let ptr = self.fetch(bus);
                self.read(bus, ptr as u16);
                let ptr = ptr.wrapping_add(self.x);
                let lo = self.read(bus, ptr as u16);
                let hi = self.read(bus, ptr.wrapping_add(1) as u16);
                u16::from_le_bytes([lo, hi])
            }
            _ => unreachable!("addressing mode {mode:?} has no memory operand"),
        }
    }

    #[inline(always)]
    fn indexed_absolute(&mut self, bus: &mut Bus, index: u8, always_dummy: bool) -> u16 {
        let lo = self.fetch(bus);
        let hi = self.fetch(bus);
        let base = u16::from_le_bytes([lo, hi]);
        let addr = base.wrapping_add(index as u16);
        if always_dummy || (base ^ addr) & 0xFF00 != 0 {
            self.read(bus, (base & 0xFF00) | (addr & 0x00FF));
        }
        addr
    }

    #[inline(always)]
    fn indirect_indexed(&mut self, bus: &mut Bus, always_dummy: bool) -> u16 {
        let ptr = self.fetch(bus);
        let lo = self.read(bus, ptr as u16);
        let hi = self.read(bus, ptr.wrapping_add(1) as u16);
        let base = u16::from_le_bytes([lo, hi]);
        let addr = base.wrapping_add(self.y as u16);
        if always_dummy || (base ^ addr) & 0xFF00 != 0 {
            self.read(bus, (base & 0xFF00) | (addr & 0x00FF));
        }
        addr
    }

    /// Read-modify-write: read, write the old value back (the dummy write),
    /// then write the result.
    #[inline(always)]
    fn rmw(&mut self, bus: &mut Bus, mode: Mode, op: fn(&mut Cpu, u8) -> u8) {
        let addr = self.store_address(bus, mode);
        let old = self.read(bus, addr);
        self.write(bus, addr, old);
        let new = op(self, old);
        self.write(bus, addr, new);
    }

    /// SHA/SHX/SHY/TAS store `value & (H + 1)`, H being the high byte of the
    /// base address; when indexing crosses a page the same value replaces the
    /// high byte of the target address (NESdev wiki "CPU unofficial opcodes").
    #[inline(always)]
    fn store_high_and(&mut self, bus: &mut Bus, mode: Mode, value: u8) {
        let (base, addr) = match mode {
            AbsoluteX | AbsoluteY => {
                let index = if mode == AbsoluteX { self.x } else { self.y };
                let lo = self.fetch(bus);
                let hi = self.fetch(bus);
                let base = u16::from_le_bytes([lo, hi]);
                let addr = base.wrapping_add(index as u16);
                self.read(bus, (base & 0xFF00) | (addr & 0x00FF));
                (base, addr)
            }
            IndirectY => {
                let ptr = self.fetch(bus);
                let lo = self.read(bus, ptr as u16);
                let hi = self.read(bus, ptr.wrapping_add(1) as u16);
                let base = u16::from_le_bytes([lo, hi]);
                let addr = base.wrapping_add(self.y as u16);
                self.read(bus, (base & 0xFF00) | (addr & 0x00FF));
                (base, addr)
            }
            _ => unreachable!("SH* opcodes use indexed modes only"),
        };
        let stored = value & ((base >> 8) as u8).wrapping_add(1);
        let target = if (base ^ addr) & 0xFF00 != 0 {
            ((stored as u16) << 8) | (addr & 0x00FF)
        } else {
            addr
        };
        self.write(bus, target, stored);
    }

    fn sha(&mut self, bus: &mut Bus, mode: Mode) {
        self.store_high_and(bus, mode, self.a & self.x);
    }
    fn shx(&mut self, bus: &mut Bus, mode: Mode) {
        self.store_high_and(bus, mode, self.x);
    }
    fn shy(&mut self, bus: &mut Bus, mode: Mode) {
        self.store_high_and(bus, mode, self.y);
    }
    fn tas(&mut self, bus: &mut Bus, mode: Mode) {
        self.s = self.a & self.x;
        self.store_high_and(bus, mode, self.s);
    }

    /// Conditional branch: 2 cycles, +1 if taken, +1 more if the target is on
    /// another page. A taken branch that stays on its page does not poll
    /// interrupts on its last cycle, so an IRQ that became pending there waits
    /// one more instruction.
    #[inline(always)]
    fn branch(&mut self, bus: &mut Bus, taken: bool) {
        let offset = self.fetch(bus) as i8;
        if !taken {
            return;
        }
        let skip_irq = self.run_irq && !self.prev_run_irq;
        self.read(bus, self.pc);
        let target = self.pc.wrapping_add(offset as u16);
        if (target ^ self.pc) & 0xFF00 != 0 {
            self.read(bus, (self.pc & 0xFF00) | (target & 0x00FF));
        } else if skip_irq {
            self.prev_run_irq = false;
        }
        self.pc = target;
    }

    fn jam(&mut self, bus: &mut Bus, opcode: u8) {
        // The opcode's second cycle still happens before the CPU locks up.
        self.read(bus, self.pc);
        self.jammed = Some((self.pc.wrapping_sub(1), opcode));
    }

    fn jmp_abs(&mut self, bus: &mut Bus) {
        let lo = self.fetch(bus);
        let hi = self.fetch(bus);
        self.pc = u16::from_le_bytes([lo, hi]);
    }

    /// JMP (ind): the pointer's high byte is read from the same page (the
    /// famous $xxFF bug).
    fn jmp_ind(&mut self, bus: &mut Bus) {
        let lo = self.fetch(bus);
        let hi = self.fetch(bus);
        let ptr = u16::from_le_bytes([lo, hi]);
        let target_lo = self.read(bus, ptr);
        let target_hi = self.read(bus, (ptr & 0xFF00) | (ptr.wrapping_add(1) & 0x00FF));
        self.pc = u16::from_le_bytes([target_lo, target_hi]);
    }

    fn jsr(&mut self, bus: &mut Bus) {
        let lo = self.fetch(bus);
        self.read(bus, 0x100 | self.s as u16);
        self.push(bus, (self.pc >> 8) as u8);
        self.push(bus, self.pc as u8);
        let hi = self.read(bus, self.pc);
        self.pc = u16::from_le_bytes([lo, hi]);
    }

    fn rts(&mut self, bus: &mut Bus) {
        self.implied(bus);
        self.read(bus, 0x100 | self.s as u16);
        let lo = self.pull(bus);
        let hi = self.pull(bus);
        self.pc = u16::from_le_bytes([lo, hi]);
        self.read(bus, self.pc);
        self.pc = self.pc.wrapping_add(1);
    }

    fn rti(&mut self, bus: &mut Bus) {
        self.implied(bus);
        self.read(bus, 0x100 | self.s as u16);
        let p = self.pull(bus);
        self.p = (p & !B) | U;
        let lo = self.pull(bus);
        let hi = self.pull(bus);
        self.pc = u16::from_le_bytes([lo, hi]);
    }

    fn brk(&mut self, bus: &mut Bus) {
        self.interrupt_sequence(bus, true);
    }

    fn pha(&mut self, bus: &mut Bus) {
        self.implied(bus);
        self.push(bus, self.a);
    }
    fn php(&mut self, bus: &mut Bus) {
        self.implied(bus);
        self.push(bus, self.p | B | U);
    }
    fn pla(&mut self, bus: &mut Bus) {
        self.implied(bus);
        self.read(bus, 0x100 | self.s as u16);
        let v = self.pull(bus);
        self.lda(v);
    }
    fn plp(&mut self, bus: &mut Bus) {
        self.implied(bus);
        self.read(bus, 0x100 | self.s as u16);
        let p = self.pull(bus);
        self.p = (p & !B) | U;
    }

    fn clc(&mut self, bus: &mut Bus) {
        self.implied(bus);
        self.p &= !C;
    }
    fn sec(&mut self, bus: &mut Bus) {
        self.implied(bus);
        self.p |= C;
    }
    fn cli(&mut self, bus: &mut Bus) {
        self.implied(bus);
        self.p &= !I;
    }
    fn sei(&mut self, bus: &mut Bus) {
        self.implied(bus);
        self.p |= I;
    }
    fn clv(&mut self, bus: &mut Bus) {
        self.implied(bus);
        self.p &= !V;
    }
    fn cld(&mut self, bus: &mut Bus) {
        self.implied(bus);
        self.p &= !D;
    }
    fn sed(&mut self, bus: &mut Bus) {
        self.implied(bus);
        self.p |= D;
    }

    fn tax(&mut self, bus: &mut Bus) {
        self.implied(bus);
        self.ldx(self.a);
    }
    fn tay(&mut self, bus: &mut Bus) {
        self.implied(bus);
        self.ldy(self.a);
    }
    fn txa(&mut self, bus: &mut Bus) {
        self.implied(bus);
        self.lda(self.x);
    }
    fn tya(&mut self, bus: &mut Bus) {
        self.implied(bus);
        self.lda(self.y);
    }
    fn tsx(&mut self, bus: &mut Bus) {
        self.implied(bus);
        self.ldx(self.s);
    }
    fn txs(&mut self, bus: &mut Bus) {
        self.implied(bus);
        self.s = self.x;
    }
    fn inx(&mut self, bus: &mut Bus) {
        self.implied(bus);
        self.ldx(self.x.wrapping_add(1));
    }
    fn iny(&mut self, bus: &mut Bus) {
        self.implied(bus);
        self.ldy(self.y.wrapping_add(1));
    }
    fn dex(&mut self, bus: &mut Bus) {
        self.implied(bus);
        self.ldx(self.x.wrapping_sub(1));
    }
    fn dey(&mut self, bus: &mut Bus) {
        self.implied(bus);
        self.ldy(self.y.wrapping_sub(1));
    }
}
