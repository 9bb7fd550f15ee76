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

/// Pairs an OAM DMA runs one at a time after a try at copying in bulk
/// that copied nothing, before it tries again.
const BULK_RETRY_PAIRS: u64 = 8;

impl Cpu {
    /// Runs every DMA cycle that is due before the CPU's read of `addr`,
    /// counting them to OAM or DMC DMA (`Bus::oam_dma_cycles`,
    /// `Bus::dmc_dma_cycles`): a cycle of an OAM DMA in progress is OAM's,
    /// but for a DMC fetch's get and the realignment cycle after it; any
    /// other is the DMC's.
    #[cold]
    pub(crate) fn run_dma(&mut self, bus: &mut Bus, addr: u16) {
        let start = bus.cycles;
        // The halted reads of $4016/$4017 (and an OAM DMA's reads of the
        // registers) are not the CPU's reads: its own comes after.
        let controller_reads = bus.controller_reads;
        let mut dmc_cycles = bus.dma.oam_page.is_none() as u64;
        // The cycle count after the last DMC get.
        let mut dmc_got_at = 0;
        bus.bus_before_dma = bus.open_bus;
        // Halt cycle: the CPU's own read, value discarded.
        bus.dma.begin_cycle();
        bus.read(addr);
        self.poll_interrupts(bus);
        let mut oam_latch: Option<u8> = None;
        // From which cycle to try copying OAM bytes in bulk
        // (`Bus::oam_dma_bulk`): at once after a bulk copy (something due
        // cut it short: often an APU event a few cycles away), some pairs
        // later after a try that copied nothing.
        let mut try_bulk_at = if (0x4000..=0x401F).contains(&addr) {
            u64::MAX
        } else {
            0
        };
        while bus.dma.active() {
            let get = bus.is_get_cycle();
            let dmc_ready = bus.dma.dmc_ready_to_fetch();
            if bus.cycles >= try_bulk_at && get && !dmc_ready && oam_latch.is_none() {
                // All pairs but the last, whose put refreshes the PPU's
                // open-bus latch as every put before it would have.
                let pairs = bus.dma.oam_pairs_left().saturating_sub(1);
                let copied = match bus.dma.oam_source() {
                    Some(src) if pairs > 0 => bus.oam_dma_bulk(src, pairs),
                    _ => 0,
                };
                if copied == 0 {
                    try_bulk_at = bus.cycles + 2 * BULK_RETRY_PAIRS;
                } else {
                    bus.dma.oam_advance_by(copied);
                    self.poll_interrupts(bus);
                    continue;
                }
            }
            bus.dma.begin_cycle();
            if get && dmc_ready {
                let src = bus.dma.dmc_address;
                let value = bus.dmc_dma_read(src, addr);
                bus.cart.log_prg(src, PCM | DATA);
                self.poll_interrupts(bus);
                bus.dmc_dma_complete(value);
                dmc_cycles += 1;
                dmc_got_at = bus.cycles;
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
                // Dummy or alignment cycle: the DMC's unless an OAM DMA
                // is in progress and did not just lose a get to it.
                dmc_cycles += (bus.dma.oam_page.is_none() || dmc_got_at == bus.cycles) as u64;
                bus.dma_halted_read(addr);
                self.poll_interrupts(bus);
            }
        }
        bus.dma_ended_at = bus.cycles;
        bus.dmc_dma_cycles += dmc_cycles;
        bus.oam_dma_cycles += bus.cycles - start - dmc_cycles;
        bus.controller_reads = controller_reads;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cartridge::Cartridge;

    fn machine() -> (Cpu, Bus) {
        let mut image = vec![b'N', b'E', b'S', 0x1A, 2, 1, 0, 0];
        image.resize(16 + 0x8000 + 0x2000, 0xEA);
        let mut bus = Bus::new(Cartridge::from_bytes(&image).expect("valid NROM image"));
        let mut cpu = Cpu::new();
        cpu.power_on(&mut bus);
        (cpu, bus)
    }

    /// Cycles of an OAM DMA halting a read of $8000, begun at a cycle of
    /// parity `odd`, with a DMC fetch requested with it (`dmc`): the
    /// machine's cycles, and its OAM and DMC counts.
    fn oam_dma(odd: bool, dmc: bool) -> (u64, u64, u64) {
        let (mut cpu, mut bus) = machine();
        if (bus.cycles % 2 == 1) != odd {
            bus.read(0);
        }
        bus.dma.start_oam(0x02);
        if dmc {
            bus.dma.request_dmc(0xC000);
        }
        let start = bus.cycles;
        cpu.run_dma(&mut bus, 0x8000);
        (bus.cycles - start, bus.oam_dma_cycles, bus.dmc_dma_cycles)
    }

    /// An OAM DMA alone counts all its 513 or 514 cycles (halt, alignment,
    /// 256 gets and puts) as OAM's; a DMC fetch riding on it counts what it
    /// adds (its get and the realignment after it), and only that, as the
    /// DMC's.
    #[test]
    fn a_dmc_fetch_riding_on_an_oam_dma_counts_its_own_cycles() {
        for odd in [false, true] {
            let (alone, oam, dmc) = oam_dma(odd, false);
            assert!(alone == 513 || alone == 514, "{alone}");
            assert_eq!((oam, dmc), (alone, 0));
            let (both, oam, dmc) = oam_dma(odd, true);
            assert_eq!(oam, alone, "odd {odd}");
            assert_eq!(dmc, both - alone, "odd {odd}");
            assert_eq!(dmc, 2, "odd {odd}");
        }
    }

    /// An OAM DMA copied in bulk (`Bus::oam_dma_bulk`) leaves what one get
    /// and one put at a time leave: OAM (attribute bytes masked), OAMADDR
    /// (where a later `$2004` write lands), the cycle count, the data bus
    /// and the PPU's open-bus latch (read back through `$2000`).
    #[test]
    fn a_bulk_oam_dma_is_its_pairs_one_at_a_time() {
        for (odd, oam_addr) in [(false, 0), (true, 0), (false, 5), (true, 0xFF)] {
            let run = |bulk: bool| {
                let (mut cpu, mut bus) = machine();
                for (i, byte) in bus.ram[0x200..0x300].iter_mut().enumerate() {
                    *byte = (i * 7 + 3) as u8;
                }
                bus.write(0x2003, oam_addr);
                if (bus.cycles % 2 == 1) != odd {
                    bus.read(0);
                }
                if bulk {
                    bus.dma.start_oam(0x02);
                    cpu.run_dma(&mut bus, 0x8000);
                } else {
                    // The halt, an alignment cycle to reach a get, the pairs.
                    bus.read(0x8000);
                    if !bus.is_get_cycle() {
                        bus.read(0x8000);
                    }
                    for src in 0x200..0x300 {
                        let value = bus.read(src);
                        bus.write(0x2004, value);
                    }
                }
                let end = (bus.cycles, bus.open_bus);
                bus.write(0x2004, 0x5A);
                (bus.ppu.oam, end, bus.read(0x2000))
            };
            assert_eq!(run(true), run(false), "odd {odd}, OAMADDR {oam_addr:02X}");
        }
        // And the bulk copy does happen there (rendering is off).
        let (_, mut bus) = machine();
        assert!(bus.oam_dma_bulk(0x0200, 255) > 0);
    }

    /// With the DMC fetching at its fastest rate and the frame counter's
    /// events (which cut bulk copies short) going on, OAM DMAs copied in
    /// bulk where they can be leave the machine as pairs one at a time do,
    /// through the DMAs and a while after them.
    #[test]
    fn bulk_oam_dmas_under_dmc_fetches_are_their_pairs_one_at_a_time() {
        for (odd, dmc) in [(false, true), (true, true), (false, false), (true, false)] {
            let run = |bulk: bool| {
                let (mut cpu, mut bus) = machine();
                bus.no_bulk_dma = !bulk;
                for (i, byte) in bus.ram[0x300..0x400].iter_mut().enumerate() {
                    *byte = (i * 11 + 1) as u8;
                }
                if dmc {
                    for (reg, value) in
                        [(0x4010, 0x4F), (0x4012, 0), (0x4013, 0xFF), (0x4015, 0x10)]
                    {
                        bus.write(reg, value);
                    }
                }
                if (bus.cycles % 2 == 1) != odd {
                    bus.read(0);
                }
                let mut seen = Vec::new();
                for round in 0..40 {
                    bus.dma.start_oam(0x03);
                    cpu.run_dma(&mut bus, 0x8000);
                    for _ in 0..round * 37 {
                        bus.read(0x8000);
                    }
                    seen.push((
                        bus.cycles,
                        bus.oam_dma_cycles,
                        bus.dmc_dma_cycles,
                        bus.open_bus,
                        bus.ppu.oam,
                    ));
                }
                (seen, bus.read(0x2000), bus.read(0x4015))
            };
            assert_eq!(run(true), run(false), "odd {odd}, DMC {dmc}");
        }
    }

    /// A DMC fetch alone: halt, dummy, an alignment cycle if needed, get.
    #[test]
    fn a_dmc_fetch_alone() {
        for parity in 0..2 {
            let (mut cpu, mut bus) = machine();
            if bus.cycles % 2 != parity {
                bus.read(0);
            }
            bus.dma.request_dmc(0xC000);
            let start = bus.cycles;
            cpu.run_dma(&mut bus, 0x8000);
            let cycles = bus.cycles - start;
            assert!(cycles == 3 || cycles == 4, "{cycles}");
            assert_eq!((bus.oam_dma_cycles, bus.dmc_dma_cycles), (0, cycles));
        }
    }

    /// A read of $4016 halted by a DMA is one read of the controller port
    /// by the CPU, however many cycles the DMA holds it there, and an OAM
    /// DMA from page $40 reading the ports meanwhile (the CPU's address is
    /// on the registers, so they answer) adds none.
    #[test]
    fn a_halted_controller_read_is_one_read() {
        for page in [0x02, 0x40] {
            let (mut cpu, mut bus) = machine();
            bus.dma.start_oam(page);
            cpu.read(&mut bus, 0x4016);
            assert_eq!(bus.controller_reads, 1, "page {page:02X}");
            cpu.read(&mut bus, 0x4017);
            assert_eq!(bus.controller_reads, 2, "page {page:02X}");
        }
    }
}
