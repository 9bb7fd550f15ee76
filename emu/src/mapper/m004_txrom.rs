//! Mapper 4, MMC3 boards TxROM (NESdev wiki "MMC3"): 8 KiB PRG and 1/2 KiB
//! CHR banking through eight bank registers, switchable mirroring, PRG RAM
//! protect, and the scanline counter clocked by rising edges of PPU A12.
//!
//! A12 edges are filtered as on the chip: a rise counts only after A12 has
//! been low for a while (the MMC3 needs several M2 falling edges), so the
//! eight sprite fetches of a line, with their short low gaps, clock it once.
//! The IRQ follows the newer (Sharp MMC3B/C) behaviour by default: it fires
//! whenever the counter is 0 after a clock, including a natural reload to 0.
//! The older revision A (NEC), NES 2.0 submapper 4, fires only when the
//! counter becomes 0 from a nonzero value or from a reload that a $C001
//! write requested: a latch of 0 then gives one IRQ, not one per line
//! (NESdev wiki "MMC3", "IRQ Specifics").
//!
//! The MMC6 (HKROM boards, NES 2.0 submapper 1) is an MMC3 with the older
//! IRQ behaviour and 1 KiB of RAM inside the chip at $7000-$7FFF in two
//! 512-byte halves (NESdev wiki "MMC6"): bit 5 of $8000 enables the RAM,
//! and then $A001's bits 7/6 and 5/4 enable reading/writing the upper and
//! lower half; $6000-$6FFF is open bus.

use super::banks::{Banks, RamHalves};
use super::board::{BoardSizes, Mapper};
use crate::rom::Mirroring;

/// PPU dots A12 must stay low before a rise clocks the counter (about three
/// CPU cycles).
const A12_LOW_DOTS: u64 = 10;

/// Which chip's IRQ behaviour (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Revision {
    /// Sharp MMC3B/MMC3C, what most games were made on.
    Sharp,
    /// NEC MMC3A.
    A,
    /// MMC6: the MMC3A's IRQ, its own RAM.
    Mmc6,
}

impl Revision {
    /// The revision a NES 2.0 submapper names (1: MMC6, 4: MMC3A; the
    /// rest behave as the later chips).
    pub fn of_submapper(submapper: u8) -> Revision {
        match submapper {
            1 => Revision::Mmc6,
            4 => Revision::A,
            _ => Revision::Sharp,
        }
    }
}

pub struct Txrom {
    sizes: BoardSizes,
    revision: Revision,
    four_screen: bool,
    bank_select: u8,
    registers: [u8; 8],
    irq_latch: u8,
    irq_counter: u8,
    irq_reload: bool,
    irq_enabled: bool,
    irq_pending: bool,
    a12_high: bool,
    a12_low_since: u64,
    /// MMC6: the RAM's enables (see [`Mapper::prg_ram_halves`]).
    ram_halves: RamHalves,
}

impl Txrom {
    pub fn new(sizes: BoardSizes, mirroring: Mirroring, revision: Revision) -> Txrom {
        Txrom {
            sizes,
            revision,
            four_screen: mirroring == Mirroring::FourScreen,
            bank_select: 0,
            registers: [0, 2, 4, 5, 6, 7, 0, 1],
            irq_latch: 0,
            irq_counter: 0,
            irq_reload: false,
            irq_enabled: false,
            irq_pending: false,
            a12_high: false,
            a12_low_since: 0,
            ram_halves: RamHalves::default(),
        }
    }

    fn apply_banks(&self, banks: &mut Banks) {
        let prg_len = self.sizes.prg_rom;
        let second_last = prg_len / 0x2000 - 2;
        let r6 = self.registers[6] as usize & 0x3F;
        let r7 = self.registers[7] as usize & 0x3F;
        if self.bank_select & 0x40 == 0 {
            banks.set_prg_8k(0, r6, prg_len);
            banks.set_prg_8k(2, second_last, prg_len);
        } else {
            banks.set_prg_8k(0, second_last, prg_len);
            banks.set_prg_8k(2, r6, prg_len);
        }
        banks.set_prg_8k(1, r7, prg_len);
        banks.set_prg_8k(3, second_last + 1, prg_len);

        let chr_len = self.sizes.chr;
        // With CHR A12 inversion the 2 KiB banks move to $1000.
        let flip = if self.bank_select & 0x80 != 0 { 4 } else { 0 };
        let r = &self.registers;
        banks.set_chr_1k(flip, r[0] as usize & 0xFE, chr_len);
        banks.set_chr_1k(flip + 1, r[0] as usize | 1, chr_len);
        banks.set_chr_1k(flip + 2, r[1] as usize & 0xFE, chr_len);
        banks.set_chr_1k(flip + 3, r[1] as usize | 1, chr_len);
        for i in 0..4 {
            banks.set_chr_1k((4 - flip) + i, r[2 + i] as usize, chr_len);
        }
    }

    fn clock_counter(&mut self) {
        let (before, requested) = (self.irq_counter, self.irq_reload);
        if self.irq_counter == 0 || self.irq_reload {
            self.irq_counter = self.irq_latch;
            self.irq_reload = false;
        } else {
            self.irq_counter -= 1;
        }
        let fires = match self.revision {
            Revision::Sharp => self.irq_counter == 0,
            Revision::A | Revision::Mmc6 => self.irq_counter == 0 && (before != 0 || requested),
        };
        if fires && self.irq_enabled {
            self.irq_pending = true;
        }
    }
}

impl Mapper for Txrom {
    fn power_on(&mut self, banks: &mut Banks) {
        self.apply_banks(banks);
        if self.revision == Revision::Mmc6 {
            banks.set_prg_ram(None, false);
            self.ram_halves = RamHalves::default();
        } else {
            banks.set_prg_ram(Some(0), true);
        }
    }

    fn cpu_write(&mut self, addr: u16, value: u8, banks: &mut Banks, _cycle: u64) {
        if addr < 0x8000 {
            return;
        }
        let even = addr & 1 == 0;
        match (addr & 0xE000, even) {
            (0x8000, true) => {
                self.bank_select = value;
                self.apply_banks(banks);
                if self.revision == Revision::Mmc6 && value & 0x20 == 0 {
                    // RAM disabled: both halves closed until $A001 opens them.
                    self.ram_halves = RamHalves::default();
                }
            }
            (0x8000, false) => {
                self.registers[(self.bank_select & 7) as usize] = value;
                self.apply_banks(banks);
            }
            (0xA000, true) => {
                if !self.four_screen {
                    banks.set_mirroring(if value & 1 == 0 {
                        Mirroring::Vertical
                    } else {
                        Mirroring::Horizontal
                    });
                }
            }
            (0xA000, false) if self.revision == Revision::Mmc6 => {
                // Ignored while $8000 bit 5 keeps the RAM disabled.
                if self.bank_select & 0x20 != 0 {
                    self.ram_halves = RamHalves {
                        read: [value & 0x20 != 0, value & 0x80 != 0],
                        write: [value & 0x10 != 0, value & 0x40 != 0],
                    };
                }
            }
            (0xA000, false) => {
                let enabled = value & 0x80 != 0;
                let writable = value & 0x40 == 0;
                banks.set_prg_ram(enabled.then_some(0), enabled && writable);
            }
            (0xC000, true) => self.irq_latch = value,
            (0xC000, false) => {
                self.irq_counter = 0;
                self.irq_reload = true;
            }
            (0xE000, true) => {
                self.irq_enabled = false;
                self.irq_pending = false;
            }
            _ => self.irq_enabled = true,
        }
    }

    fn watches_ppu_bus(&self) -> bool {
        true
    }

    fn prg_ram_halves(&self) -> Option<RamHalves> {
        (self.revision == Revision::Mmc6).then_some(self.ram_halves)
    }

    fn ppu_bus(&mut self, addr: u16, dot: u64) {
        let high = addr & 0x1000 != 0;
        if high && !self.a12_high {
            if dot.saturating_sub(self.a12_low_since) >= A12_LOW_DOTS {
                self.clock_counter();
            }
        } else if !high && self.a12_high {
            self.a12_low_since = dot;
        }
        self.a12_high = high;
    }

    fn a12_rise_filter_dots(&self) -> u64 {
        A12_LOW_DOTS
    }

    fn irq(&self) -> bool {
        self.irq_pending
    }

    /// Disabled, the IRQ never rises; pending, it stays up until the CPU
    /// acknowledges it. Otherwise it rises on the clock that takes the
    /// counter to 0, `irq_counter` clocks away; counted A12 rises are at
    /// least `A12_LOW_DOTS + 1` dots apart (a rise, then that long low).
    /// A reload (requested, or the counter at 0) sets the counter to the
    /// latch on the first rise, which fires at once only with a latch of 0;
    /// otherwise each rise decrements and the one reaching 0 fires.
    fn a12_rises_before_irq(&self) -> Option<u32> {
        Some(if !self.irq_enabled || self.irq_pending {
            u32::MAX
        } else if self.irq_reload || self.irq_counter == 0 {
            1 + self.irq_latch as u32
        } else {
            self.irq_counter as u32
        })
    }

    fn ppu_dots_before_irq(&self) -> u32 {
        if !self.irq_enabled || self.irq_pending {
            u32::MAX
        } else if self.irq_reload || self.irq_counter <= 1 {
            0
        } else {
            (self.irq_counter as u32 - 1) * (A12_LOW_DOTS as u32 + 1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(revision: Revision) -> (Txrom, Banks) {
        let sizes = BoardSizes {
            prg_rom: 0x20000,
            chr: 0x20000,
            prg_ram: 0x2000,
        };
        let mut t = Txrom::new(sizes, Mirroring::Vertical, revision);
        let mut banks = Banks::new();
        t.power_on(&mut banks);
        (t, banks)
    }

    /// IRQs over `clocks` counter clocks with a latch of 0, after a $C001
    /// reload request, acknowledging each.
    fn irqs_with_latch_0(revision: Revision, clocks: usize) -> usize {
        let (mut t, mut banks) = board(revision);
        t.cpu_write(0xC000, 0, &mut banks, 0); // latch 0
        t.cpu_write(0xC001, 0, &mut banks, 0); // reload
        t.cpu_write(0xE001, 0, &mut banks, 0); // enable
        let mut irqs = 0;
        for _ in 0..clocks {
            t.clock_counter();
            if t.irq() {
                irqs += 1;
                t.cpu_write(0xE000, 0, &mut banks, 0); // acknowledge
                t.cpu_write(0xE001, 0, &mut banks, 0);
            }
        }
        irqs
    }

    /// A latch of 0: the Sharp chips fire on every clock, the MMC3A once.
    #[test]
    fn revisions_differ_on_a_latch_of_zero() {
        assert_eq!(irqs_with_latch_0(Revision::Sharp, 5), 5);
        assert_eq!(irqs_with_latch_0(Revision::A, 5), 1);
        assert_eq!(Revision::of_submapper(4), Revision::A);
        assert_eq!(Revision::of_submapper(0), Revision::Sharp);
    }

    /// The MMC6's IRQ is the MMC3A's.
    #[test]
    fn mmc6_fires_like_revision_a() {
        assert_eq!(Revision::of_submapper(1), Revision::Mmc6);
        assert_eq!(irqs_with_latch_0(Revision::Mmc6, 5), 1);
    }

    /// The MMC6's RAM: closed at power-on, opened per half by $A001 only
    /// while $8000 bit 5 is set, a closed half reading 0 beside an open one,
    /// writes landing only where reading is on too, mirrored every 1 KiB.
    #[test]
    fn mmc6_ram_halves() {
        let (mut t, mut banks) = board(Revision::Mmc6);
        let mut ram = vec![0u8; 1024];
        let halves = |t: &Txrom| t.prg_ram_halves().expect("MMC6 RAM");
        assert_eq!(banks.prg_ram, None, "no plain PRG RAM window");
        assert_eq!(halves(&t).read(0x7000, &ram), None);

        t.cpu_write(0xA001, 0xF0, &mut banks, 0);
        assert_eq!(halves(&t).read(0x7000, &ram), None, "$A001 needs $8000.5");

        t.cpu_write(0x8000, 0x20, &mut banks, 0);
        t.cpu_write(0xA001, 0xF0, &mut banks, 0);
        halves(&t).write(0x7001, 0x12, &mut ram);
        halves(&t).write(0x7201, 0x34, &mut ram);
        assert_eq!(halves(&t).read(0x7401, &ram), Some(0x12));
        assert_eq!(halves(&t).read(0x7E01, &ram), Some(0x34));
        assert_eq!(halves(&t).read(0x6001, &ram), None, "$6000-$6FFF open bus");

        // Lower half readable only: the upper reads 0.
        t.cpu_write(0xA001, 0x30, &mut banks, 0);
        assert_eq!(halves(&t).read(0x7201, &ram), Some(0));
        assert_eq!(halves(&t).read(0x7001, &ram), Some(0x12));

        // Readable, not writable: writes are dropped.
        t.cpu_write(0xA001, 0xA0, &mut banks, 0);
        halves(&t).write(0x7001, 0x99, &mut ram);
        assert_eq!(halves(&t).read(0x7001, &ram), Some(0x12));

        // Clearing $8000 bit 5 closes the RAM.
        t.cpu_write(0x8000, 0x00, &mut banks, 0);
        assert_eq!(halves(&t).read(0x7001, &ram), None);
    }
}
