//! One-byte instructions that work on registers: the stack pushes and
//! pulls, the flag instructions, the transfers and the register
//! increments/decrements.

use super::{Cpu, Cycles, B, C, D, I, U, V};
use crate::bus::Bus;

impl Cpu {
    #[inline(always)]
    pub(super) fn pha<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.push(bus, src, self.a);
    }

    #[inline(always)]
    pub(super) fn php<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.push(bus, src, self.p | B | U);
    }

    #[inline(always)]
    pub(super) fn pla<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.load(bus, src, 0x100 | self.s as u16);
        let v = self.pull(bus, src);
        self.lda(v);
    }

    #[inline(always)]
    pub(super) fn plp<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.load(bus, src, 0x100 | self.s as u16);
        let p = self.pull(bus, src);
        self.p = (p & !B) | U;
        self.unsettle_poll();
    }

    #[inline(always)]
    pub(super) fn clc<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.p &= !C;
    }

    #[inline(always)]
    pub(super) fn sec<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.p |= C;
    }

    #[inline(always)]
    pub(super) fn cli<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.p &= !I;
        self.unsettle_poll();
    }

    #[inline(always)]
    pub(super) fn sei<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.p |= I;
        self.unsettle_poll();
    }

    #[inline(always)]
    pub(super) fn clv<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.p &= !V;
    }

    #[inline(always)]
    pub(super) fn cld<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.p &= !D;
    }

    #[inline(always)]
    pub(super) fn sed<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.p |= D;
    }

    #[inline(always)]
    pub(super) fn tax<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.ldx(self.a);
    }

    #[inline(always)]
    pub(super) fn tay<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.ldy(self.a);
    }

    #[inline(always)]
    pub(super) fn txa<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.lda(self.x);
    }

    #[inline(always)]
    pub(super) fn tya<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.lda(self.y);
    }

    #[inline(always)]
    pub(super) fn tsx<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.ldx(self.s);
    }

    #[inline(always)]
    pub(super) fn txs<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.s = self.x;
    }

    #[inline(always)]
    pub(super) fn inx<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.ldx(self.x.wrapping_add(1));
    }

    #[inline(always)]
    pub(super) fn iny<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.ldy(self.y.wrapping_add(1));
    }

    #[inline(always)]
    pub(super) fn dex<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.ldx(self.x.wrapping_sub(1));
    }

    #[inline(always)]
    pub(super) fn dey<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.ldy(self.y.wrapping_sub(1));
    }
}
