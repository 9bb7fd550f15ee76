//! Instruction dispatch: one arm per opcode, naming the operation and its
//! addressing mode. The modes repeat what `opcodes.rs` lists as data on
//! purpose: written as constants in each arm, they let the compiler fold
//! the per-mode bus sequences (`addressing.rs`) into straight-line code per
//! opcode, which is what the interpreter's speed rests on. The
//! `dispatch_agrees_with_the_opcode_table` test checks the two agree.

use super::opcodes::Mode::*;
use super::{Cpu, Cycles, C, N, V, Z};
use crate::bus::Bus;

impl Cpu {
    /// Executes the instruction whose opcode was just fetched.
    #[inline(always)]
    pub(crate) fn execute<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S, opcode: u8) {
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
                self.store_data(bus, src, addr, self.a)
            }
            0x82 => {
                let v = self.operand(bus, src, Immediate);
                self.nop(v)
            }
            0x83 => {
                let addr = self.store_address(bus, src, IndirectX);
                self.store_data(bus, src, addr, self.a & self.x)
            }
            0x84 => {
                let addr = self.store_address(bus, src, ZeroPage);
                self.store_data(bus, src, addr, self.y)
            }
            0x85 => {
                let addr = self.store_address(bus, src, ZeroPage);
                self.store_data(bus, src, addr, self.a)
            }
            0x86 => {
                let addr = self.store_address(bus, src, ZeroPage);
                self.store_data(bus, src, addr, self.x)
            }
            0x87 => {
                let addr = self.store_address(bus, src, ZeroPage);
                self.store_data(bus, src, addr, self.a & self.x)
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
                self.store_data(bus, src, addr, self.y)
            }
            0x8D => {
                let addr = self.store_address(bus, src, Absolute);
                self.store_data(bus, src, addr, self.a)
            }
            0x8E => {
                let addr = self.store_address(bus, src, Absolute);
                self.store_data(bus, src, addr, self.x)
            }
            0x8F => {
                let addr = self.store_address(bus, src, Absolute);
                self.store_data(bus, src, addr, self.a & self.x)
            }
            0x90 => self.branch(bus, src, self.p & C == 0),
            0x91 => {
                let addr = self.store_address(bus, src, IndirectY);
                self.store_data(bus, src, addr, self.a)
            }
            0x92 => self.jam(bus, src, opcode),
            0x93 => self.sha(bus, src, IndirectY),
            0x94 => {
                let addr = self.store_address(bus, src, ZeroPageX);
                self.store_data(bus, src, addr, self.y)
            }
            0x95 => {
                let addr = self.store_address(bus, src, ZeroPageX);
                self.store_data(bus, src, addr, self.a)
            }
            0x96 => {
                let addr = self.store_address(bus, src, ZeroPageY);
                self.store_data(bus, src, addr, self.x)
            }
            0x97 => {
                let addr = self.store_address(bus, src, ZeroPageY);
                self.store_data(bus, src, addr, self.a & self.x)
            }
            0x98 => self.tya(bus, src),
            0x99 => {
                let addr = self.store_address(bus, src, AbsoluteY);
                self.store_data(bus, src, addr, self.a)
            }
            0x9A => self.txs(bus, src),
            0x9B => self.tas(bus, src, AbsoluteY),
            0x9C => self.shy(bus, src, AbsoluteX),
            0x9D => {
                let addr = self.store_address(bus, src, AbsoluteX);
                self.store_data(bus, src, addr, self.a)
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
}

#[cfg(test)]
mod tests {
    use crate::cartridge::Cartridge;
    use crate::cpu::opcodes::{Flow, OPCODES};
    use crate::nes::{Engine, Nes};

    /// Every arm consumes as many operand bytes as the table's mode says:
    /// each straight-line opcode (and each branch, with offset 0) run from
    /// RAM leaves the PC just past its bytes. (That each arm's mode is the
    /// right one, cycle by cycle, is what nestest and instr_test-v5 check.)
    #[test]
    fn dispatch_agrees_with_the_opcode_table() {
        let mut image = vec![b'N', b'E', b'S', 0x1A, 1, 1, 0, 0];
        image.resize(16, 0);
        image.resize(16 + 0x4000 + 0x2000, 0xEA);
        for (opcode, info) in OPCODES.iter().enumerate() {
            if !matches!(info.flow, Flow::None | Flow::Branch) {
                continue;
            }
            let mut nes = Nes::new(Cartridge::from_bytes(&image).unwrap());
            nes.set_engine(Engine::Interpreter);
            nes.ram_mut()[0x300..0x303].copy_from_slice(&[opcode as u8, 0, 0]);
            nes.set_pc(0x0300);
            nes.step();
            assert_eq!(
                nes.pc(),
                0x0300 + info.byte_len() as u16,
                "opcode {opcode:02X} ({} {:?})",
                info.mnemonic,
                info.mode
            );
        }
    }
}
