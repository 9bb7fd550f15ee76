//! The 2A03's DMA unit as seen from the CPU (NESdev wiki "DMA"). A pending DMA
//! halts the CPU on its next read cycle; that halted read happens (and repeats
//! after the DMA), then the DMA alternates "get" (read) and "put" (write)
//! cycles. OAM DMA copies 256 bytes to $2004 (513 or 514 cycles with the halt
//! and an alignment cycle); a DMC sample fetch takes a get cycle after a halt
//! and a dummy cycle, and has priority over OAM DMA on get cycles.

use super::Cpu;
use crate::bus::Bus;

impl Cpu {
    /// Runs every DMA cycle that is due before the CPU's read of `addr`.
    #[cold]
    pub(super) fn run_dma(&mut self, bus: &mut Bus, addr: u16) {
        // Halt cycle: the CPU's own read, value discarded.
        self.dma_dummy_read(bus, addr);
        bus.dma.dmc_halted();
        let mut oam_latch: Option<u8> = None;
        while bus.dma.active() {
            if bus.is_get_cycle() {
                if bus.dma.dmc_ready_to_fetch() {
                    let value = bus.read(bus.dma.dmc_address);
                    self.poll_interrupts(bus);
                    bus.dmc_dma_complete(value);
                } else if let Some(page) = bus.dma.oam_page {
                    if oam_latch.is_none() {
                        let src = (page as u16) << 8 | bus.dma.oam_index as u16;
                        oam_latch = Some(bus.read(src));
                        self.poll_interrupts(bus);
                    } else {
                        self.dma_dummy_read(bus, addr);
                    }
                } else {
                    self.dma_dummy_read(bus, addr);
                }
            } else if let Some(value) = oam_latch.take() {
                bus.write(0x2004, value);
                self.poll_interrupts(bus);
                bus.dma.oam_advance();
            } else {
                self.dma_dummy_read(bus, addr);
            }
            bus.dma.dmc_dummy_done();
        }
    }

    /// A cycle in which the halted CPU keeps its read address on the bus.
    fn dma_dummy_read(&mut self, bus: &mut Bus, addr: u16) {
        bus.dma_halted_read(addr);
        self.poll_interrupts(bus);
    }
}
