//! Register and flag semantics of each operation, separated from the bus cycles
//! that fetch their operands (`dispatch.rs`, `addressing.rs`). The 2A03 has no decimal mode: D is
//! stored and pushed but ADC/SBC ignore it.

use super::{Cpu, C, N, V, Z};

impl Cpu {
    #[inline(always)]
    pub(super) fn set_zn(&mut self, v: u8) {
        self.p = (self.p & !(Z | N)) | (v & N) | if v == 0 { Z } else { 0 };
    }

    #[inline(always)]
    fn set_flag(&mut self, flag: u8, on: bool) {
        if on {
            self.p |= flag;
        } else {
            self.p &= !flag;
        }
    }

    pub(super) fn lda(&mut self, v: u8) {
        self.a = v;
        self.set_zn(v);
    }
    pub(super) fn ldx(&mut self, v: u8) {
        self.x = v;
        self.set_zn(v);
    }
    pub(super) fn ldy(&mut self, v: u8) {
        self.y = v;
        self.set_zn(v);
    }
    pub(super) fn lax(&mut self, v: u8) {
        self.a = v;
        self.x = v;
        self.set_zn(v);
    }
    pub(super) fn ora(&mut self, v: u8) {
        self.a |= v;
        self.set_zn(self.a);
    }
    pub(super) fn and(&mut self, v: u8) {
        self.a &= v;
        self.set_zn(self.a);
    }
    pub(super) fn eor(&mut self, v: u8) {
        self.a ^= v;
        self.set_zn(self.a);
    }
    pub(super) fn nop(&mut self, _v: u8) {}

    pub(super) fn adc(&mut self, v: u8) {
        let sum = self.a as u16 + v as u16 + (self.p & C) as u16;
        let result = sum as u8;
        self.set_flag(C, sum > 0xFF);
        self.set_flag(V, (!(self.a ^ v) & (self.a ^ result) & 0x80) != 0);
        self.a = result;
        self.set_zn(result);
    }
    pub(super) fn sbc(&mut self, v: u8) {
        self.adc(!v);
    }

    fn compare(&mut self, reg: u8, v: u8) {
        let diff = reg.wrapping_sub(v);
        self.set_flag(C, reg >= v);
        self.set_zn(diff);
    }
    pub(super) fn cmp(&mut self, v: u8) {
        self.compare(self.a, v);
    }
    pub(super) fn cpx(&mut self, v: u8) {
        self.compare(self.x, v);
    }
    pub(super) fn cpy(&mut self, v: u8) {
        self.compare(self.y, v);
    }
    pub(super) fn bit(&mut self, v: u8) {
        self.p = (self.p & !(Z | V | N)) | (v & (V | N)) | if self.a & v == 0 { Z } else { 0 };
    }

    // Read-modify-write operations return the value written back.
    pub(super) fn asl(&mut self, v: u8) -> u8 {
        self.set_flag(C, v & 0x80 != 0);
        let r = v << 1;
        self.set_zn(r);
        r
    }
    pub(super) fn lsr(&mut self, v: u8) -> u8 {
        self.set_flag(C, v & 1 != 0);
        let r = v >> 1;
        self.set_zn(r);
        r
    }
    pub(super) fn rol(&mut self, v: u8) -> u8 {
        let r = (v << 1) | (self.p & C);
        self.set_flag(C, v & 0x80 != 0);
        self.set_zn(r);
        r
    }
    pub(super) fn ror(&mut self, v: u8) -> u8 {
        let r = (v >> 1) | ((self.p & C) << 7);
        self.set_flag(C, v & 1 != 0);
        self.set_zn(r);
        r
    }
    pub(super) fn inc(&mut self, v: u8) -> u8 {
        let r = v.wrapping_add(1);
        self.set_zn(r);
        r
    }
    pub(super) fn dec(&mut self, v: u8) -> u8 {
        let r = v.wrapping_sub(1);
        self.set_zn(r);
        r
    }
    pub(super) fn slo(&mut self, v: u8) -> u8 {
        let r = self.asl(v);
        self.ora(r);
        r
    }
    pub(super) fn sre(&mut self, v: u8) -> u8 {
        let r = self.lsr(v);
        self.eor(r);
        r
    }
    pub(super) fn rla(&mut self, v: u8) -> u8 {
        let r = self.rol(v);
        self.and(r);
        r
    }
    pub(super) fn rra(&mut self, v: u8) -> u8 {
        let r = self.ror(v);
        self.adc(r);
        r
    }
    pub(super) fn isb(&mut self, v: u8) -> u8 {
        let r = v.wrapping_add(1);
        self.sbc(r);
        r
    }
    pub(super) fn dcp(&mut self, v: u8) -> u8 {
        let r = v.wrapping_sub(1);
        self.compare(self.a, r);
        r
    }

    // Unofficial immediate-mode combinations.
    pub(super) fn anc(&mut self, v: u8) {
        self.and(v);
        self.set_flag(C, self.a & 0x80 != 0);
    }
    pub(super) fn alr(&mut self, v: u8) {
        self.and(v);
        self.a = self.lsr(self.a);
    }
    pub(super) fn arr(&mut self, v: u8) {
        self.a &= v;
        self.a = (self.a >> 1) | ((self.p & C) << 7);
        self.set_zn(self.a);
        self.set_flag(C, self.a & 0x40 != 0);
        self.set_flag(V, ((self.a >> 6) ^ (self.a >> 5)) & 1 != 0);
    }
    /// XAA/ANE is unstable on real chips; this uses the common model with the
    /// "magic" constant $FF (A = X & imm), matching most emulators.
    pub(super) fn xaa(&mut self, v: u8) {
        self.a = self.x & v;
        self.set_zn(self.a);
    }
    /// LXA/ATX: A = X = (A | magic) & imm with magic $FF, the value blargg's
    /// instr_test expects.
    pub(super) fn lxa(&mut self, v: u8) {
        self.lax(v);
    }
    pub(super) fn axs(&mut self, v: u8) {
        let ax = self.a & self.x;
        self.set_flag(C, ax >= v);
        self.x = ax.wrapping_sub(v);
        self.set_zn(self.x);
    }
    pub(super) fn las(&mut self, v: u8) {
        let r = v & self.s;
        self.a = r;
        self.x = r;
        self.s = r;
        self.set_zn(r);
    }
}
