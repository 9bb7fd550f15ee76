//! Instruction dispatch and the per-cycle bus sequences of every addressing
//! mode (NESdev wiki "CPU addressing modes", 6502 cycle tables in "6502_cpu.txt").

use super::opcodes::Mode::{self, *};
use super::{CodeSource, Cpu, B, C, D, I, N, U, V, Z};
use crate::bus::Bus;

impl Cpu {
    /// Executes the instruction whose opcode was just fetched.
    #[inline(always)]
    pub(crate) fn execute<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S, opcode: u8) {
        match opcode {
            0x00 => self.brk(bus, src),
            0x01 => {
                let v = self.operand(bus, src, IndirectX);
                self.ora(v)
            }
            0x02 => self.jam(bus, src, opcode),
            0x03 => self.rmw(bus, src, IndirectX, Cpu::slo),
            0x04 => {
                let v = self.operand(bus, src, ZeroPage);
                self.nop(v)
            }
            0x05 => {
                let v = self.operand(bus, src, ZeroPage);
                self.ora(v)
            }
            0x06 => self.rmw(bus, src, ZeroPage, Cpu::asl),
            0x07 => self.rmw(bus, src, ZeroPage, Cpu::slo),
            0x08 => self.php(bus, src),
            0x09 => {
                let v = self.operand(bus, src, Immediate);
                self.ora(v)
            }
            0x0A => {
                self.implied(bus, src);
                self.a = self.asl(self.a)
            }
            0x0B => {
                let v = self.operand(bus, src, Immediate);
                self.anc(v)
            }
            0x0C => {
                let v = self.operand(bus, src, Absolute);
                self.nop(v)
            }
            0x0D => {
                let v = self.operand(bus, src, Absolute);
                self.ora(v)
            }
            0x0E => self.rmw(bus, src, Absolute, Cpu::asl),
            0x0F => self.rmw(bus, src, Absolute, Cpu::slo),
            0x10 => self.branch(bus, src, self.p & N == 0),
            0x11 => {
                let v = self.operand(bus, src, IndirectY);
                self.ora(v)
            }
            0x12 => self.jam(bus, src, opcode),
            0x13 => self.rmw(bus, src, IndirectY, Cpu::slo),
            0x14 => {
                let v = self.operand(bus, src, ZeroPageX);
                self.nop(v)
            }
            0x15 => {
                let v = self.operand(bus, src, ZeroPageX);
                self.ora(v)
            }
            0x16 => self.rmw(bus, src, ZeroPageX, Cpu::asl),
            0x17 => self.rmw(bus, src, ZeroPageX, Cpu::slo),
            0x18 => self.clc(bus, src),
            0x19 => {
                let v = self.operand(bus, src, AbsoluteY);
                self.ora(v)
            }
            0x1A => self.implied(bus, src),
            0x1B => self.rmw(bus, src, AbsoluteY, Cpu::slo),
            0x1C => {
                let v = self.operand(bus, src, AbsoluteX);
                self.nop(v)
            }
            0x1D => {
                let v = self.operand(bus, src, AbsoluteX);
                self.ora(v)
            }
            0x1E => self.rmw(bus, src, AbsoluteX, Cpu::asl),
            0x1F => self.rmw(bus, src, AbsoluteX, Cpu::slo),
            0x20 => self.jsr(bus, src),
            0x21 => {
                let v = self.operand(bus, src, IndirectX);
                self.and(v)
            }
            0x22 => self.jam(bus, src, opcode),
            0x23 => self.rmw(bus, src, IndirectX, Cpu::rla),
            0x24 => {
                let v = self.operand(bus, src, ZeroPage);
                self.bit(v)
            }
            0x25 => {
                let v = self.operand(bus, src, ZeroPage);
                self.and(v)
            }
            0x26 => self.rmw(bus, src, ZeroPage, Cpu::rol),
            0x27 => self.rmw(bus, src, ZeroPage, Cpu::rla),
            0x28 => self.plp(bus, src),
            0x29 => {
                let v = self.operand(bus, src, Immediate);
                self.and(v)
            }
            0x2A => {
                self.implied(bus, src);
                self.a = self.rol(self.a)
            }
            0x2B => {
                let v = self.operand(bus, src, Immediate);
                self.anc(v)
            }
            0x2C => {
                let v = self.operand(bus, src, Absolute);
                self.bit(v)
            }
            0x2D => {
                let v = self.operand(bus, src, Absolute);
                self.and(v)
            }
            0x2E => self.rmw(bus, src, Absolute, Cpu::rol),
            0x2F => self.rmw(bus, src, Absolute, Cpu::rla),
            0x30 => self.branch(bus, src, self.p & N != 0),
            0x31 => {
                let v = self.operand(bus, src, IndirectY);
                self.and(v)
            }
            0x32 => self.jam(bus, src, opcode),
            0x33 => self.rmw(bus, src, IndirectY, Cpu::rla),
            0x34 => {
                let v = self.operand(bus, src, ZeroPageX);
                self.nop(v)
            }
            0x35 => {
                let v = self.operand(bus, src, ZeroPageX);
                self.and(v)
            }
            0x36 => self.rmw(bus, src, ZeroPageX, Cpu::rol),
            0x37 => self.rmw(bus, src, ZeroPageX, Cpu::rla),
            0x38 => self.sec(bus, src),
            0x39 => {
                let v = self.operand(bus, src, AbsoluteY);
                self.and(v)
            }
            0x3A => self.implied(bus, src),
            0x3B => self.rmw(bus, src, AbsoluteY, Cpu::rla),
            0x3C => {
                let v = self.operand(bus, src, AbsoluteX);
                self.nop(v)
            }
            0x3D => {
                let v = self.operand(bus, src, AbsoluteX);
                self.and(v)
            }
            0x3E => self.rmw(bus, src, AbsoluteX, Cpu::rol),
            0x3F => self.rmw(bus, src, AbsoluteX, Cpu::rla),
            0x40 => self.rti(bus, src),
            0x41 => {
                let v = self.operand(bus, src, IndirectX);
                self.eor(v)
            }
            0x42 => self.jam(bus, src, opcode),
            0x43 => self.rmw(bus, src, IndirectX, Cpu::sre),
            0x44 => {
                let v = self.operand(bus, src, ZeroPage);
                self.nop(v)
            }
            0x45 => {
                let v = self.operand(bus, src, ZeroPage);
                self.eor(v)
            }
            0x46 => self.rmw(bus, src, ZeroPage, Cpu::lsr),
            0x47 => self.rmw(bus, src, ZeroPage, Cpu::sre),
            0x48 => self.pha(bus, src),
            0x49 => {
                let v = self.operand(bus, src, Immediate);
                self.eor(v)
            }
            0x4A => {
                self.implied(bus, src);
                self.a = self.lsr(self.a)
            }
            0x4B => {
                let v = self.operand(bus, src, Immediate);
                self.alr(v)
            }
            0x4C => self.jmp_abs(bus, src),
            0x4D => {
                let v = self.operand(bus, src, Absolute);
                self.eor(v)
            }
            0x4E => self.rmw(bus, src, Absolute, Cpu::lsr),
            0x4F => self.rmw(bus, src, Absolute, Cpu::sre),
            0x50 => self.branch(bus, src, self.p & V == 0),
            0x51 => {
                let v = self.operand(bus, src, IndirectY);
                self.eor(v)
            }
            0x52 => self.jam(bus, src, opcode),
            0x53 => self.rmw(bus, src, IndirectY, Cpu::sre),
            0x54 => {
                let v = self.operand(bus, src, ZeroPageX);
                self.nop(v)
            }
            0x55 => {
                let v = self.operand(bus, src, ZeroPageX);
                self.eor(v)
            }
            0x56 => self.rmw(bus, src, ZeroPageX, Cpu::lsr),
            0x57 => self.rmw(bus, src, ZeroPageX, Cpu::sre),
            0x58 => self.cli(bus, src),
            0x59 => {
                let v = self.operand(bus, src, AbsoluteY);
                self.eor(v)
            }
            0x5A => self.implied(bus, src),
            0x5B => self.rmw(bus, src, AbsoluteY, Cpu::sre),
            0x5C => {
                let v = self.operand(bus, src, AbsoluteX);
                self.nop(v)
            }
            0x5D => {
                let v = self.operand(bus, src, AbsoluteX);
                self.eor(v)
            }
            0x5E => self.rmw(bus, src, AbsoluteX, Cpu::lsr),
            0x5F => self.rmw(bus, src, AbsoluteX, Cpu::sre),
            0x60 => self.rts(bus, src),
            0x61 => {
                let v = self.operand(bus, src, IndirectX);
                self.adc(v)
            }
            0x62 => self.jam(bus, src, opcode),
            0x63 => self.rmw(bus, src, IndirectX, Cpu::rra),
            0x64 => {
                let v = self.operand(bus, src, ZeroPage);
                self.nop(v)
            }
            0x65 => {
                let v = self.operand(bus, src, ZeroPage);
                self.adc(v)
            }
            0x66 => self.rmw(bus, src, ZeroPage, Cpu::ror),
            0x67 => self.rmw(bus, src, ZeroPage, Cpu::rra),
            0x68 => self.pla(bus, src),
            0x69 => {
                let v = self.operand(bus, src, Immediate);
                self.adc(v)
            }
            0x6A => {
                self.implied(bus, src);
                self.a = self.ror(self.a)
            }
            0x6B => {
                let v = self.operand(bus, src, Immediate);
                self.arr(v)
            }
            0x6C => self.jmp_ind(bus, src),
            0x6D => {
                let v = self.operand(bus, src, Absolute);
                self.adc(v)
            }
            0x6E => self.rmw(bus, src, Absolute, Cpu::ror),
            0x6F => self.rmw(bus, src, Absolute, Cpu::rra),
            0x70 => self.branch(bus, src, self.p & V != 0),
            0x71 => {
                let v = self.operand(bus, src, IndirectY);
                self.adc(v)
            }
            0x72 => self.jam(bus, src, opcode),
            0x73 => self.rmw(bus, src, IndirectY, Cpu::rra),
            0x74 => {
                let v = self.operand(bus, src, ZeroPageX);
                self.nop(v)
            }
            0x75 => {
                let v = self.operand(bus, src, ZeroPageX);
                self.adc(v)
            }
            0x76 => self.rmw(bus, src, ZeroPageX, Cpu::ror),
            0x77 => self.rmw(bus, src, ZeroPageX, Cpu::rra),
            0x78 => self.sei(bus, src),
            0x79 => {
                let v = self.operand(bus, src, AbsoluteY);
                self.adc(v)
            }
            0x7A => self.implied(bus, src),
            0x7B => self.rmw(bus, src, AbsoluteY, Cpu::rra),
            0x7C => {
                let v = self.operand(bus, src, AbsoluteX);
                self.nop(v)
            }
            0x7D => {
                let v = self.operand(bus, src, AbsoluteX);
                self.adc(v)
            }
            0x7E => self.rmw(bus, src, AbsoluteX, Cpu::ror),
            0x7F => self.rmw(bus, src, AbsoluteX, Cpu::rra),
            0x80 => {
                let v = self.operand(bus, src, Immediate);
                self.nop(v)
            }
            0x81 => {
                let addr = self.store_address(bus, src, IndirectX);
                self.write(bus, addr, self.a)
            }
            0x82 => {
                let v = self.operand(bus, src, Immediate);
                self.nop(v)
            }
            0x83 => {
                let addr = self.store_address(bus, src, IndirectX);
                self.write(bus, addr, self.a & self.x)
            }
            0x84 => {
                let addr = self.store_address(bus, src, ZeroPage);
                self.write(bus, addr, self.y)
            }
            0x85 => {
                let addr = self.store_address(bus, src, ZeroPage);
                self.write(bus, addr, self.a)
            }
            0x86 => {
                let addr = self.store_address(bus, src, ZeroPage);
                self.write(bus, addr, self.x)
            }
            0x87 => {
                let addr = self.store_address(bus, src, ZeroPage);
                self.write(bus, addr, self.a & self.x)
            }
            0x88 => self.dey(bus, src),
            0x89 => {
                let v = self.operand(bus, src, Immediate);
                self.nop(v)
            }
            0x8A => self.txa(bus, src),
            0x8B => {
                let v = self.operand(bus, src, Immediate);
                self.xaa(v)
            }
            0x8C => {
                let addr = self.store_address(bus, src, Absolute);
                self.write(bus, addr, self.y)
            }
            0x8D => {
                let addr = self.store_address(bus, src, Absolute);
                self.write(bus, addr, self.a)
            }
            0x8E => {
                let addr = self.store_address(bus, src, Absolute);
                self.write(bus, addr, self.x)
            }
            0x8F => {
                let addr = self.store_address(bus, src, Absolute);
                self.write(bus, addr, self.a & self.x)
            }
            0x90 => self.branch(bus, src, self.p & C == 0),
            0x91 => {
                let addr = self.store_address(bus, src, IndirectY);
                self.write(bus, addr, self.a)
            }
            0x92 => self.jam(bus, src, opcode),
            0x93 => self.sha(bus, src, IndirectY),
            0x94 => {
                let addr = self.store_address(bus, src, ZeroPageX);
                self.write(bus, addr, self.y)
            }
            0x95 => {
                let addr = self.store_address(bus, src, ZeroPageX);
                self.write(bus, addr, self.a)
            }
            0x96 => {
                let addr = self.store_address(bus, src, ZeroPageY);
                self.write(bus, addr, self.x)
            }
            0x97 => {
                let addr = self.store_address(bus, src, ZeroPageY);
                self.write(bus, addr, self.a & self.x)
            }
            0x98 => self.tya(bus, src),
            0x99 => {
                let addr = self.store_address(bus, src, AbsoluteY);
                self.write(bus, addr, self.a)
            }
            0x9A => self.txs(bus, src),
            0x9B => self.tas(bus, src, AbsoluteY),
            0x9C => self.shy(bus, src, AbsoluteX),
            0x9D => {
                let addr = self.store_address(bus, src, AbsoluteX);
                self.write(bus, addr, self.a)
            }
            0x9E => self.shx(bus, src, AbsoluteY),
            0x9F => self.sha(bus, src, AbsoluteY),
            0xA0 => {
                let v = self.operand(bus, src, Immediate);
                self.ldy(v)
            }
            0xA1 => {
                let v = self.operand(bus, src, IndirectX);
                self.lda(v)
            }
            0xA2 => {
                let v = self.operand(bus, src, Immediate);
                self.ldx(v)
            }
            0xA3 => {
                let v = self.operand(bus, src, IndirectX);
                self.lax(v)
            }
            0xA4 => {
                let v = self.operand(bus, src, ZeroPage);
                self.ldy(v)
            }
            0xA5 => {
                let v = self.operand(bus, src, ZeroPage);
                self.lda(v)
            }
            0xA6 => {
                let v = self.operand(bus, src, ZeroPage);
                self.ldx(v)
            }
            0xA7 => {
                let v = self.operand(bus, src, ZeroPage);
                self.lax(v)
            }
            0xA8 => self.tay(bus, src),
            0xA9 => {
                let v = self.operand(bus, src, Immediate);
                self.lda(v)
            }
            0xAA => self.tax(bus, src),
            0xAB => {
                let v = self.operand(bus, src, Immediate);
                self.lxa(v)
            }
            0xAC => {
                let v = self.operand(bus, src, Absolute);
                self.ldy(v)
            }
            0xAD => {
                let v = self.operand(bus, src, Absolute);
                self.lda(v)
            }
            0xAE => {
                let v = self.operand(bus, src, Absolute);
                self.ldx(v)
            }
            0xAF => {
                let v = self.operand(bus, src, Absolute);
                self.lax(v)
            }
            0xB0 => self.branch(bus, src, self.p & C != 0),
            0xB1 => {
                let v = self.operand(bus, src, IndirectY);
                self.lda(v)
            }
            0xB2 => self.jam(bus, src, opcode),
            0xB3 => {
                let v = self.operand(bus, src, IndirectY);
                self.lax(v)
            }
            0xB4 => {
                let v = self.operand(bus, src, ZeroPageX);
                self.ldy(v)
            }
            0xB5 => {
                let v = self.operand(bus, src, ZeroPageX);
                self.lda(v)
            }
            0xB6 => {
                let v = self.operand(bus, src, ZeroPageY);
                self.ldx(v)
            }
            0xB7 => {
                let v = self.operand(bus, src, ZeroPageY);
                self.lax(v)
            }
            0xB8 => self.clv(bus, src),
            0xB9 => {
                let v = self.operand(bus, src, AbsoluteY);
                self.lda(v)
            }
            0xBA => self.tsx(bus, src),
            0xBB => {
                let v = self.operand(bus, src, AbsoluteY);
                self.las(v)
            }
            0xBC => {
                let v = self.operand(bus, src, AbsoluteX);
                self.ldy(v)
            }
            0xBD => {
                let v = self.operand(bus, src, AbsoluteX);
                self.lda(v)
            }
            0xBE => {
                let v = self.operand(bus, src, AbsoluteY);
                self.ldx(v)
            }
            0xBF => {
                let v = self.operand(bus, src, AbsoluteY);
                self.lax(v)
            }
            0xC0 => {
                let v = self.operand(bus, src, Immediate);
                self.cpy(v)
            }
            0xC1 => {
                let v = self.operand(bus, src, IndirectX);
                self.cmp(v)
            }
            0xC2 => {
                let v = self.operand(bus, src, Immediate);
                self.nop(v)
            }
            0xC3 => self.rmw(bus, src, IndirectX, Cpu::dcp),
            0xC4 => {
                let v = self.operand(bus, src, ZeroPage);
                self.cpy(v)
            }
            0xC5 => {
                let v = self.operand(bus, src, ZeroPage);
                self.cmp(v)
            }
            0xC6 => self.rmw(bus, src, ZeroPage, Cpu::dec),
            0xC7 => self.rmw(bus, src, ZeroPage, Cpu::dcp),
            0xC8 => self.iny(bus, src),
            0xC9 => {
                let v = self.operand(bus, src, Immediate);
                self.cmp(v)
            }
            0xCA => self.dex(bus, src),
            0xCB => {
                let v = self.operand(bus, src, Immediate);
                self.axs(v)
            }
            0xCC => {
                let v = self.operand(bus, src, Absolute);
                self.cpy(v)
            }
            0xCD => {
                let v = self.operand(bus, src, Absolute);
                self.cmp(v)
            }
            0xCE => self.rmw(bus, src, Absolute, Cpu::dec),
            0xCF => self.rmw(bus, src, Absolute, Cpu::dcp),
            0xD0 => self.branch(bus, src, self.p & Z == 0),
            0xD1 => {
                let v = self.operand(bus, src, IndirectY);
                self.cmp(v)
            }
            0xD2 => self.jam(bus, src, opcode),
            0xD3 => self.rmw(bus, src, IndirectY, Cpu::dcp),
            0xD4 => {
                let v = self.operand(bus, src, ZeroPageX);
                self.nop(v)
            }
            0xD5 => {
                let v = self.operand(bus, src, ZeroPageX);
                self.cmp(v)
            }
            0xD6 => self.rmw(bus, src, ZeroPageX, Cpu::dec),
            0xD7 => self.rmw(bus, src, ZeroPageX, Cpu::dcp),
            0xD8 => self.cld(bus, src),
            0xD9 => {
                let v = self.operand(bus, src, AbsoluteY);
                self.cmp(v)
            }
            0xDA => self.implied(bus, src),
            0xDB => self.rmw(bus, src, AbsoluteY, Cpu::dcp),
            0xDC => {
                let v = self.operand(bus, src, AbsoluteX);
                self.nop(v)
            }
            0xDD => {
                let v = self.operand(bus, src, AbsoluteX);
                self.cmp(v)
            }
            0xDE => self.rmw(bus, src, AbsoluteX, Cpu::dec),
            0xDF => self.rmw(bus, src, AbsoluteX, Cpu::dcp),
            0xE0 => {
                let v = self.operand(bus, src, Immediate);
                self.cpx(v)
            }
            0xE1 => {
                let v = self.operand(bus, src, IndirectX);
                self.sbc(v)
            }
            0xE2 => {
                let v = self.operand(bus, src, Immediate);
                self.nop(v)
            }
            0xE3 => self.rmw(bus, src, IndirectX, Cpu::isb),
            0xE4 => {
                let v = self.operand(bus, src, ZeroPage);
                self.cpx(v)
            }
            0xE5 => {
                let v = self.operand(bus, src, ZeroPage);
                self.sbc(v)
            }
            0xE6 => self.rmw(bus, src, ZeroPage, Cpu::inc),
            0xE7 => self.rmw(bus, src, ZeroPage, Cpu::isb),
            0xE8 => self.inx(bus, src),
            0xE9 => {
                let v = self.operand(bus, src, Immediate);
                self.sbc(v)
            }
            0xEA => self.implied(bus, src),
            0xEB => {
                let v = self.operand(bus, src, Immediate);
                self.sbc(v)
            }
            0xEC => {
                let v = self.operand(bus, src, Absolute);
                self.cpx(v)
            }
            0xED => {
                let v = self.operand(bus, src, Absolute);
                self.sbc(v)
            }
            0xEE => self.rmw(bus, src, Absolute, Cpu::inc),
            0xEF => self.rmw(bus, src, Absolute, Cpu::isb),
            0xF0 => self.branch(bus, src, self.p & Z != 0),
            0xF1 => {
                let v = self.operand(bus, src, IndirectY);
                self.sbc(v)
            }
            0xF2 => self.jam(bus, src, opcode),
            0xF3 => self.rmw(bus, src, IndirectY, Cpu::isb),
            0xF4 => {
                let v = self.operand(bus, src, ZeroPageX);
                self.nop(v)
            }
            0xF5 => {
                let v = self.operand(bus, src, ZeroPageX);
                self.sbc(v)
            }
            0xF6 => self.rmw(bus, src, ZeroPageX, Cpu::inc),
            0xF7 => self.rmw(bus, src, ZeroPageX, Cpu::isb),
            0xF8 => self.sed(bus, src),
            0xF9 => {
                let v = self.operand(bus, src, AbsoluteY);
                self.sbc(v)
            }
            0xFA => self.implied(bus, src),
            0xFB => self.rmw(bus, src, AbsoluteY, Cpu::isb),
            0xFC => {
                let v = self.operand(bus, src, AbsoluteX);
                self.nop(v)
            }
            0xFD => {
                let v = self.operand(bus, src, AbsoluteX);
                self.sbc(v)
            }
            0xFE => self.rmw(bus, src, AbsoluteX, Cpu::inc),
            0xFF => self.rmw(bus, src, AbsoluteX, Cpu::isb),
        }
    }

    /// The second cycle of a one-byte instruction: reads the next byte and
    /// discards it.
    #[inline(always)]
    pub(super) fn implied<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        src.read_pc(self, bus);
    }

    /// Read instructions: the cycles that produce the operand value.
    #[inline(always)]
    fn operand<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S, mode: Mode) -> u8 {
        match mode {
            Immediate => src.fetch(self, bus),
            _ => {
                let addr = self.read_address(bus, src, mode);
                self.read(bus, addr)
            }
        }
    }

    /// Effective address for a read instruction; indexed modes spend a dummy
    /// read at the uncorrected address only when the index crosses a page.
    #[inline(always)]
    fn read_address<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S, mode: Mode) -> u16 {
        match mode {
            AbsoluteX => self.indexed_absolute(bus, src, self.x, false),
            AbsoluteY => self.indexed_absolute(bus, src, self.y, false),
            IndirectY => self.indirect_indexed(bus, src, false),
            _ => self.common_address(bus, src, mode),
        }
    }

    /// Effective address for writes and read-modify-writes: indexed modes
    /// always spend the dummy read.
    #[inline(always)]
    fn store_address<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S, mode: Mode) -> u16 {
        match mode {
            AbsoluteX => self.indexed_absolute(bus, src, self.x, true),
            AbsoluteY => self.indexed_absolute(bus, src, self.y, true),
            IndirectY => self.indirect_indexed(bus, src, true),
            _ => self.common_address(bus, src, mode),
        }
    }

    /// Modes whose cycles do not depend on the access kind.
    #[inline(always)]
    fn common_address<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S, mode: Mode) -> u16 {
        match mode {
            ZeroPage => src.fetch(self, bus) as u16,
            ZeroPageX | ZeroPageY => {
                let base = src.fetch(self, bus);
                self.read(bus, base as u16);
                let index = if mode == ZeroPageX { self.x } else { self.y };
                base.wrapping_add(index) as u16
            }
            Absolute => {
                let lo = src.fetch(self, bus);
                let hi = src.fetch(self, bus);
                u16::from_le_bytes([lo, hi])
            }
            IndirectX => {
                let ptr = src.fetch(self, bus);
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
    fn indexed_absolute<S: CodeSource>(
        &mut self,
        bus: &mut Bus,
        src: &mut S,
        index: u8,
        always_dummy: bool,
    ) -> u16 {
        let lo = src.fetch(self, bus);
        let hi = src.fetch(self, bus);
        let base = u16::from_le_bytes([lo, hi]);
        let addr = base.wrapping_add(index as u16);
        if always_dummy || (base ^ addr) & 0xFF00 != 0 {
            self.read(bus, (base & 0xFF00) | (addr & 0x00FF));
        }
        addr
    }

    #[inline(always)]
    fn indirect_indexed<S: CodeSource>(
        &mut self,
        bus: &mut Bus,
        src: &mut S,
        always_dummy: bool,
    ) -> u16 {
        let ptr = src.fetch(self, bus);
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
    fn rmw<S: CodeSource>(
        &mut self,
        bus: &mut Bus,
        src: &mut S,
        mode: Mode,
        op: fn(&mut Cpu, u8) -> u8,
    ) {
        let addr = self.store_address(bus, src, mode);
        let old = self.read(bus, addr);
        self.write(bus, addr, old);
        let new = op(self, old);
        self.write(bus, addr, new);
    }

    /// SHA/SHX/SHY/TAS store `value & (H + 1)`, H being the high byte of the
    /// base address; when indexing crosses a page the same value replaces the
    /// high byte of the target address (NESdev wiki "CPU unofficial opcodes").
    #[inline(always)]
    fn store_high_and<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S, mode: Mode, value: u8) {
        let (base, addr) = match mode {
            AbsoluteX | AbsoluteY => {
                let index = if mode == AbsoluteX { self.x } else { self.y };
                let lo = src.fetch(self, bus);
                let hi = src.fetch(self, bus);
                let base = u16::from_le_bytes([lo, hi]);
                let addr = base.wrapping_add(index as u16);
                self.read(bus, (base & 0xFF00) | (addr & 0x00FF));
                (base, addr)
            }
            IndirectY => {
                let ptr = src.fetch(self, bus);
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

    fn sha<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S, mode: Mode) {
        self.store_high_and(bus, src, mode, self.a & self.x);
    }
    fn shx<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S, mode: Mode) {
        self.store_high_and(bus, src, mode, self.x);
    }
    fn shy<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S, mode: Mode) {
        self.store_high_and(bus, src, mode, self.y);
    }
    fn tas<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S, mode: Mode) {
        self.s = self.a & self.x;
        self.store_high_and(bus, src, mode, self.s);
    }

    /// Conditional branch: 2 cycles, +1 if taken, +1 more if the target is on
    /// another page. A taken branch that stays on its page does not poll
    /// interrupts on its last cycle, so an IRQ that became pending there waits
    /// one more instruction.
    #[inline(always)]
    fn branch<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S, taken: bool) {
        let offset = src.fetch(self, bus) as i8;
        if !taken {
            return;
        }
        let skip_irq = self.run_irq && !self.prev_run_irq;
        src.read_pc(self, bus);
        let target = self.pc.wrapping_add(offset as u16);
        if (target ^ self.pc) & 0xFF00 != 0 {
            self.read(bus, (self.pc & 0xFF00) | (target & 0x00FF));
        } else if skip_irq {
            self.prev_run_irq = false;
            self.unsettle_poll();
        }
        self.pc = target;
    }

    fn jam<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S, opcode: u8) {
        // The opcode's second cycle still happens before the CPU locks up.
        src.read_pc(self, bus);
        self.jammed = Some((self.pc.wrapping_sub(1), opcode));
    }

    fn jmp_abs<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        let lo = src.fetch(self, bus);
        let hi = src.fetch(self, bus);
        self.pc = u16::from_le_bytes([lo, hi]);
    }

    /// JMP (ind): the pointer's high byte is read from the same page (the
    /// famous $xxFF bug).
    fn jmp_ind<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        let lo = src.fetch(self, bus);
        let hi = src.fetch(self, bus);
        let ptr = u16::from_le_bytes([lo, hi]);
        let target_lo = self.read(bus, ptr);
        let target_hi = self.read(bus, (ptr & 0xFF00) | (ptr.wrapping_add(1) & 0x00FF));
        self.pc = u16::from_le_bytes([target_lo, target_hi]);
    }

    fn jsr<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        let lo = src.fetch(self, bus);
        self.read(bus, 0x100 | self.s as u16);
        self.push(bus, (self.pc >> 8) as u8);
        self.push(bus, self.pc as u8);
        let hi = src.read_pc(self, bus);
        self.pc = u16::from_le_bytes([lo, hi]);
    }

    fn rts<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.read(bus, 0x100 | self.s as u16);
        let lo = self.pull(bus);
        let hi = self.pull(bus);
        self.pc = u16::from_le_bytes([lo, hi]);
        self.read(bus, self.pc);
        self.pc = self.pc.wrapping_add(1);
    }

    fn rti<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.read(bus, 0x100 | self.s as u16);
        let p = self.pull(bus);
        self.p = (p & !B) | U;
        self.unsettle_poll();
        let lo = self.pull(bus);
        let hi = self.pull(bus);
        self.pc = u16::from_le_bytes([lo, hi]);
    }

    /// BRK: the padding byte after the opcode is fetched and skipped, then
    /// the interrupt sequence pushes PC and P (with B set).
    fn brk<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        src.fetch(self, bus);
        self.interrupt_sequence(bus, true);
    }

    fn pha<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.push(bus, self.a);
    }
    fn php<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.push(bus, self.p | B | U);
    }
    fn pla<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.read(bus, 0x100 | self.s as u16);
        let v = self.pull(bus);
        self.lda(v);
    }
    fn plp<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.read(bus, 0x100 | self.s as u16);
        let p = self.pull(bus);
        self.p = (p & !B) | U;
        self.unsettle_poll();
    }

    fn clc<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.p &= !C;
    }
    fn sec<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.p |= C;
    }
    fn cli<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.p &= !I;
        self.unsettle_poll();
    }
    fn sei<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.p |= I;
        self.unsettle_poll();
    }
    fn clv<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.p &= !V;
    }
    fn cld<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.p &= !D;
    }
    fn sed<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.p |= D;
    }

    fn tax<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.ldx(self.a);
    }
    fn tay<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.ldy(self.a);
    }
    fn txa<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.lda(self.x);
    }
    fn tya<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.lda(self.y);
    }
    fn tsx<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.ldx(self.s);
    }
    fn txs<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.s = self.x;
    }
    fn inx<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.ldx(self.x.wrapping_add(1));
    }
    fn iny<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.ldy(self.y.wrapping_add(1));
    }
    fn dex<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.ldx(self.x.wrapping_sub(1));
    }
    fn dey<S: CodeSource>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.ldy(self.y.wrapping_sub(1));
    }
}
