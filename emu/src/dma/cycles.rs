//! The 2A03's DMA unit as seen from the CPU (NESdev wiki "DMA"). A pending DMA
//! halts the CPU on its next read cycle; that halted read happens (with its
//! side effects) and repeats once the DMA finishes. Then the DMA alternates
//! "get" (read) and "put" (write) cycles:
//!
//! * OAM DMA: an alignment cycle if needed, then 256 get/put pairs to $2004
//!   (513 or 514 cycles).
//! * DMC fetch: halt, dummy, an alignment cycle if needed, then one get (3 or
//!   4 cycles). Its get has priority over an OAM get; during an OAM DMA the
//!   OAM cycles serve as its halt and dummy cycles (see `mod.rs`), so it adds
//!   only 1-2 cycles there.
//!
//! While halted the CPU keeps its read address on the bus: each dummy or
//! alignment cycle re-reads it, so a $2007 read interrupted by a DMC fetch
//! advances the VRAM address several times. The joypad ports are different:
//! their output-enable stays asserted across consecutive reads of the same
//! port, so the halted cycles clock the controller once, and the CPU's real
//! read after the DMC get clocks it again (one bit lost; `dma_4016_read`).

use crate::access_log::{DATA, PCM};
use crate::bus::Bus;
use crate::cpu::Cpu;

impl Cpu {
    /// Runs every DMA cycle that is due before the CPU's read of `addr`.
    #[cold]
    pub(crate) fn run_dma(&mut self, bus: &mut Bus, addr: u16) {
        bus.bus_before_dma = bus.open_bus;
        // Halt cycle: the CPU's own read, value discarded.
        bus.dma.begin_cycle();
        bus.read(addr);
        self.poll_interrupts(bus);
        let mut oam_latch: Option<u8> = None;
        while bus.dma.active() {
            let get = bus.is_get_cycle();
            let dmc_ready = bus.dma.dmc_ready_to_fetch();
            bus.dma.begin_cycle();
            if get && dmc_ready {
                let src = bus.dma.dmc_address;
                let value = bus.dmc_dma_read(src, addr);
                bus.cart.log_prg(src, PCM | DATA);
                self.poll_interrupts(bus);
                bus.dmc_dma_complete(value);
            } else if let (true, None, Some(src)) = (get, oam_latch, bus.dma.oam_source()) {
                oam_latch = Some(bus.oam_dma_read(src, addr));
                bus.cart.log_prg(src, DATA);
                self.poll_interrupts(bus);
            } else if let (false, Some(value)) = (get, oam_latch) {
                oam_latch = None;
                bus.write(0x2004, value);
                self.poll_interrupts(bus);
                bus.dma.oam_advance();
            } else {
                // Dummy or alignment cycle.
                bus.dma_halted_read(addr);
                self.poll_interrupts(bus);
            }
        }
        bus.dma_ended_at = bus.cycles;
    }
}
