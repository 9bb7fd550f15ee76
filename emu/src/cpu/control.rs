//! Control-flow instructions, cycle by cycle: branches, jumps, JSR/RTS,
//! RTI, BRK, and the JAM opcodes that halt the CPU.

use super::{Cpu, Cycles, B, U};
use crate::access_log::DATA;
use crate::bus::Bus;

impl Cpu {
    /// Conditional branch: 2 cycles, +1 if taken, +1 more if the target is on
    /// another page. It polls interrupts before cycle 2 and, crossing a page,
    /// before cycle 4, but not before cycle 3: a taken branch that stays on
    /// its page decides on the poll before cycle 2, and an IRQ that rises
    /// later waits one more instruction. An IRQ seen by the poll before
    /// cycle 2 is taken even if its line drops before the poll before cycle 4
    /// (AccuracyCoin "Interrupt flag latency", codes 9, A and E).
    #[inline(always)]
    pub(super) fn branch<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S, taken: bool) {
        let offset = src.fetch(self, bus) as i8;
        if !taken {
            return;
        }
        // The poll at the end of cycle 1 (before cycle 2).
        let first_poll = self.prev_run_irq;
        src.read_pc(self, bus);
        let target = self.pc.wrapping_add(offset as u16);
        if (target ^ self.pc) & 0xFF00 != 0 {
            self.load(bus, src, (self.pc & 0xFF00) | (target & 0x00FF));
            // An IRQ seen by the first poll stays seen.
            if first_poll && !self.prev_run_irq {
                self.prev_run_irq = true;
                self.unsettle_poll();
            }
        } else if self.prev_run_irq != first_poll {
            self.prev_run_irq = first_poll;
            self.unsettle_poll();
        }
        self.pc = target;
    }

    #[inline(always)]
    pub(super) fn jam<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S, opcode: u8) {
        // The opcode's second cycle still happens before the CPU locks up.
        src.read_pc(self, bus);
        self.jammed = Some((self.pc.wrapping_sub(1), opcode));
    }

    #[inline(always)]
    pub(super) fn jmp_abs<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        let lo = src.fetch(self, bus);
        let hi = src.fetch(self, bus);
        self.pc = u16::from_le_bytes([lo, hi]);
    }

    /// JMP (ind): the pointer's high byte is read from the same page (the
    /// famous $xxFF bug).
    #[inline(always)]
    pub(super) fn jmp_ind<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        let lo = src.fetch(self, bus);
        let hi = src.fetch(self, bus);
        let ptr = u16::from_le_bytes([lo, hi]);
        let hi_addr = (ptr & 0xFF00) | (ptr.wrapping_add(1) & 0x00FF);
        let target_lo = self.load_data(bus, src, ptr);
        let target_hi = self.load_data(bus, src, hi_addr);
        // The pointer is data (the code/data log, `access_log.rs`).
        bus.cart.log_prg(ptr, DATA);
        bus.cart.log_prg(hi_addr, DATA);
        self.pc = u16::from_le_bytes([target_lo, target_hi]);
    }

    #[inline(always)]
    pub(super) fn jsr<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        let lo = src.fetch(self, bus);
        self.load(bus, src, 0x100 | self.s as u16);
        self.push(bus, src, (self.pc >> 8) as u8);
        self.push(bus, src, self.pc as u8);
        let hi = src.read_pc(self, bus);
        self.pc = u16::from_le_bytes([lo, hi]);
    }

    #[inline(always)]
    pub(super) fn rts<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.load(bus, src, 0x100 | self.s as u16);
        let lo = self.pull(bus, src);
        let hi = self.pull(bus, src);
        self.pc = u16::from_le_bytes([lo, hi]);
        self.load(bus, src, self.pc);
        self.pc = self.pc.wrapping_add(1);
    }

    #[inline(always)]
    pub(super) fn rti<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        self.implied(bus, src);
        self.load(bus, src, 0x100 | self.s as u16);
        let p = self.pull(bus, src);
        self.p = (p & !B) | U;
        self.unsettle_poll();
        let lo = self.pull(bus, src);
        let hi = self.pull(bus, src);
        self.pc = u16::from_le_bytes([lo, hi]);
    }

    /// BRK: the padding byte after the opcode is fetched and skipped, then
    /// the interrupt sequence pushes PC and P (with B set).
    #[inline(always)]
    pub(super) fn brk<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        src.fetch(self, bus);
        self.interrupt_sequence(bus, src, true);
    }
}
