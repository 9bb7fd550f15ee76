//! The per-cycle bus sequences of the addressing modes (NESdev wiki "CPU
//! addressing modes", 6502 cycle tables in "6502_cpu.txt"): operand reads,
//! effective addresses with their dummy reads, read-modify-write with its
//! dummy write, and the unofficial SH* stores' high-byte behaviour.

use super::opcodes::Mode::{self, *};
use super::{Cpu, Cycles};
use crate::access_log::{DATA, INDIRECT_DATA};
use crate::bus::Bus;

impl Cpu {
    /// The second cycle of a one-byte instruction: reads the next byte and
    /// discards it.
    #[inline(always)]
    pub(super) fn implied<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) {
        src.read_pc(self, bus);
    }

    /// Read instructions: the cycles that produce the operand value.
    #[inline(always)]
    pub(super) fn operand<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S, mode: Mode) -> u8 {
        match mode {
            Immediate => src.fetch(self, bus),
            _ => {
                let addr = self.read_address(bus, src, mode);
                let value = self.load_data(bus, src, addr);
                // The operand is data the program asked for (the code/data
                // log's data side, `access_log.rs`); both engines run this.
                let flags = match mode {
                    IndirectX | IndirectY => DATA | INDIRECT_DATA,
                    _ => DATA,
                };
                bus.cart.log_prg(addr, flags);
                value
            }
        }
    }

    /// Effective address for a read instruction; indexed modes spend a dummy
    /// read at the uncorrected address only when the index crosses a page.
    #[inline(always)]
    pub(super) fn read_address<S: Cycles>(
        &mut self,
        bus: &mut Bus,
        src: &mut S,
        mode: Mode,
    ) -> u16 {
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
    pub(super) fn store_address<S: Cycles>(
        &mut self,
        bus: &mut Bus,
        src: &mut S,
        mode: Mode,
    ) -> u16 {
        match mode {
            AbsoluteX => self.indexed_absolute(bus, src, self.x, true),
            AbsoluteY => self.indexed_absolute(bus, src, self.y, true),
            IndirectY => self.indirect_indexed(bus, src, true),
            _ => self.common_address(bus, src, mode),
        }
    }

    /// Modes whose cycles do not depend on the access kind.
    #[inline(always)]
    pub(super) fn common_address<S: Cycles>(
        &mut self,
        bus: &mut Bus,
        src: &mut S,
        mode: Mode,
    ) -> u16 {
        match mode {
            ZeroPage => src.fetch(self, bus) as u16,
            ZeroPageX | ZeroPageY => {
                let base = src.fetch(self, bus);
                self.load(bus, src, base as u16);
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
                self.load(bus, src, ptr as u16);
                let ptr = ptr.wrapping_add(self.x);
                let lo = self.load_data(bus, src, ptr as u16);
                let hi = self.load_data(bus, src, ptr.wrapping_add(1) as u16);
                u16::from_le_bytes([lo, hi])
            }
            _ => unreachable!("addressing mode {mode:?} has no memory operand"),
        }
    }

    #[inline(always)]
    pub(super) fn indexed_absolute<S: Cycles>(
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
            self.load(bus, src, (base & 0xFF00) | (addr & 0x00FF));
        }
        addr
    }

    #[inline(always)]
    pub(super) fn indirect_indexed<S: Cycles>(
        &mut self,
        bus: &mut Bus,
        src: &mut S,
        always_dummy: bool,
    ) -> u16 {
        let ptr = src.fetch(self, bus);
        let lo = self.load_data(bus, src, ptr as u16);
        let hi = self.load_data(bus, src, ptr.wrapping_add(1) as u16);
        let base = u16::from_le_bytes([lo, hi]);
        let addr = base.wrapping_add(self.y as u16);
        if always_dummy || (base ^ addr) & 0xFF00 != 0 {
            self.load(bus, src, (base & 0xFF00) | (addr & 0x00FF));
        }
        addr
    }

    /// Read-modify-write: read, write the old value back (the dummy write),
    /// then write the result.
    #[inline(always)]
    pub(super) fn rmw<S: Cycles>(
        &mut self,
        bus: &mut Bus,
        src: &mut S,
        mode: Mode,
        op: fn(&mut Cpu, u8) -> u8,
    ) {
        let addr = self.store_address(bus, src, mode);
        let old = self.load_data(bus, src, addr);
        self.store(bus, src, addr, old);
        let new = op(self, old);
        self.store_data(bus, src, addr, new);
    }

    /// SHA/SHX/SHY/TAS store `value & (H + 1)`, H being the high byte of the
    /// base address; when indexing crosses a page the same value replaces the
    /// high byte of the target address (NESdev wiki "CPU unofficial opcodes").
    /// A DMA that halts the CPU on the read just before the write takes the
    /// H term away: the store is then a plain one, `value` at the indexed
    /// address (AccuracyCoin "SHA/SHX/SHY/SHS", codes 7-B).
    #[inline(always)]
    pub(super) fn store_high_and<S: Cycles>(
        &mut self,
        bus: &mut Bus,
        src: &mut S,
        mode: Mode,
        value: u8,
    ) {
        let (base, addr) = match mode {
            AbsoluteX | AbsoluteY => {
                let index = if mode == AbsoluteX { self.x } else { self.y };
                let lo = src.fetch(self, bus);
                let hi = src.fetch(self, bus);
                let base = u16::from_le_bytes([lo, hi]);
                let addr = base.wrapping_add(index as u16);
                (base, addr)
            }
            IndirectY => {
                let ptr = src.fetch(self, bus);
                let lo = self.load_data(bus, src, ptr as u16);
                let hi = self.load_data(bus, src, ptr.wrapping_add(1) as u16);
                let base = u16::from_le_bytes([lo, hi]);
                let addr = base.wrapping_add(self.y as u16);
                (base, addr)
            }
            _ => unreachable!("SH* opcodes use indexed modes only"),
        };
        let dma_before = bus.dma_ended_at;
        self.load(bus, src, (base & 0xFF00) | (addr & 0x00FF));
        if bus.dma_ended_at != dma_before {
            self.store_data(bus, src, addr, value);
            return;
        }
        let stored = value & ((base >> 8) as u8).wrapping_add(1);
        let target = if (base ^ addr) & 0xFF00 != 0 {
            ((stored as u16) << 8) | (addr & 0x00FF)
        } else {
            addr
        };
        self.store_data(bus, src, target, stored);
    }

    #[inline(always)]
    pub(super) fn sha<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S, mode: Mode) {
        self.store_high_and(bus, src, mode, self.a & self.x);
    }

    #[inline(always)]
    pub(super) fn shx<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S, mode: Mode) {
        self.store_high_and(bus, src, mode, self.x);
    }

    #[inline(always)]
    pub(super) fn shy<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S, mode: Mode) {
        self.store_high_and(bus, src, mode, self.y);
    }

    #[inline(always)]
    pub(super) fn tas<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S, mode: Mode) {
        self.s = self.a & self.x;
        self.store_high_and(bus, src, mode, self.s);
    }
}
