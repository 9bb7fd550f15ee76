//! Mapper 1, MMC1 boards SxROM (NESdev wiki "MMC1"): a 5-bit serial port at
//! $8000-$FFFF loads four internal registers (control, CHR bank 0/1, PRG bank).
//! Also covers SUROM (512 KiB PRG: CHR register bit 4 picks the 256 KiB half)
//! and SOROM/SXROM (16/32 KiB PRG RAM: CHR register bits 2-3 pick the 8 KiB
//! RAM page). Writes on consecutive CPU cycles (the dummy write of a
//! read-modify-write instruction) are ignored after the first, as on hardware.
//! On SNROM the CHR register's bit 4 drives the PRG RAM's second enable; in
//! 4 KiB CHR mode the register in use is the one PPU A12 selects, so when
//! the two registers' bit 4 differ the RAM turns on and off with the PPU's
//! fetches (a scanline detector, Bregalad's `mmc1_a12` test): the mapper
//! then watches the PPU bus. Known simplification: SUROM's outer bank
//! follows CHR bank 0 even in 4 KiB CHR mode.

use super::banks::{Banks, PRG_PAGE};
use super::board::{BoardSizes, Mapper};
use crate::rom::Mirroring;

const PRG_BANK_16K: usize = 16 * 1024;
const OUTER_PRG_256K: usize = 256 * 1024;

pub struct Sxrom {
    sizes: BoardSizes,
    shift: u8,
    shift_count: u8,
    control: u8,
    chr0: u8,
    chr1: u8,
    prg: u8,
    last_write_cycle: Option<u64>,
    /// PPU A12 as last reported (only tracked while the RAM follows it).
    a12_high: bool,
}

impl Sxrom {
    pub fn new(sizes: BoardSizes) -> Sxrom {
        Sxrom {
            sizes,
            shift: 0,
            shift_count: 0,
            control: 0x0C,
            chr0: 0,
            chr1: 0,
            prg: 0,
            last_write_cycle: None,
            a12_high: false,
        }
    }

    fn apply(&self, banks: &mut Banks) {
        banks.set_mirroring(match self.control & 3 {
            0 => Mirroring::SingleScreenLow,
            1 => Mirroring::SingleScreenHigh,
            2 => Mirroring::Vertical,
            _ => Mirroring::Horizontal,
        });

        // 512 KiB boards: CHR bank bit 4 selects the 256 KiB half of PRG.
        let outer = if self.sizes.prg_rom > OUTER_PRG_256K {
            (self.chr0 as usize >> 4 & 1) * (OUTER_PRG_256K / PRG_BANK_16K)
        } else {
            0
        };
        let banks_in_half = (self.sizes.prg_rom.min(OUTER_PRG_256K) / PRG_BANK_16K).max(1);
        let bank = (self.prg as usize & 0x0F) % banks_in_half;
        let last = banks_in_half - 1;
        let prg_len = self.sizes.prg_rom;
        match (self.control >> 2) & 3 {
            0 | 1 => banks.set_prg_32k((outer + (bank & !1)) / 2, prg_len),
            2 => {
                banks.set_prg_16k(0, outer, prg_len);
                banks.set_prg_16k(1, outer + bank, prg_len);
            }
            _ => {
                banks.set_prg_16k(0, outer + bank, prg_len);
                banks.set_prg_16k(1, outer + last, prg_len);
            }
        }

        let chr_len = self.sizes.chr;
        if self.control & 0x10 == 0 {
            banks.set_chr_8k(self.chr0 as usize >> 1, chr_len);
        } else {
            banks.set_chr_4k(0, self.chr0 as usize, chr_len);
            banks.set_chr_4k(1, self.chr1 as usize, chr_len);
        }

        // Bit 4 of the PRG register disables PRG RAM (MMC1B and later). On
        // SNROM (8 KiB CHR, at most 256 KiB PRG) the otherwise unused bit 4 of
        // the CHR register drives the RAM's second enable as well.
        let ram_pages = (self.sizes.prg_ram / PRG_PAGE).max(1);
        let ram_page = if ram_pages > 1 {
            (self.chr0 as usize >> 2 & 3) % ram_pages
        } else {
            0
        };
        // While the RAM follows PPU A12 the CHR half of the enable is asked
        // at each access (`prg_ram_closed_by_ppu`).
        let chr_closes = !self.ram_follows_a12() && self.is_snrom() && self.chr0 & 0x10 != 0;
        let enabled = self.prg & 0x10 == 0 && !chr_closes;
        banks.set_prg_ram(enabled.then_some(ram_page * PRG_PAGE), enabled);
    }

    /// SNROM: 8 KiB of CHR and at most 256 KiB of PRG, where bit 4 of the
    /// CHR register is free to enable the RAM.
    fn is_snrom(&self) -> bool {
        self.sizes.chr <= 8 * 1024 && self.sizes.prg_rom <= OUTER_PRG_256K
    }

    fn ram_follows_a12(&self) -> bool {
        self.is_snrom() && self.control & 0x10 != 0 && (self.chr0 ^ self.chr1) & 0x10 != 0
    }
}

impl Mapper for Sxrom {
    fn watches_ppu_bus(&self) -> bool {
        self.ram_follows_a12()
    }

    fn prg_ram_follows_ppu(&self) -> bool {
        self.ram_follows_a12()
    }

    fn ppu_bus(&mut self, addr: u16, _dot: u64) {
        self.a12_high = addr & 0x1000 != 0;
    }

    /// In 4 KiB CHR mode the register in use, and so the enable, is the
    /// one PPU A12 selects.
    fn prg_ram_closed_by_ppu(&self) -> bool {
        let chr = if self.a12_high { self.chr1 } else { self.chr0 };
        chr & 0x10 != 0
    }

    fn power_on(&mut self, banks: &mut Banks) {
        *self = Sxrom::new(self.sizes);
        self.apply(banks);
    }

    fn cpu_write(&mut self, addr: u16, value: u8, banks: &mut Banks, cycle: u64) {
        if addr < 0x8000 {
            return;
        }
        let consecutive = self.last_write_cycle == Some(cycle.wrapping_sub(1));
        self.last_write_cycle = Some(cycle);
        if consecutive {
            return;
        }
        if value & 0x80 != 0 {
            self.shift = 0;
            self.shift_count = 0;
            self.control |= 0x0C;
            self.apply(banks);
            return;
        }
        self.shift |= (value & 1) << self.shift_count;
        self.shift_count += 1;
        if self.shift_count < 5 {
            return;
        }
        let data = self.shift;
        self.shift = 0;
        self.shift_count = 0;
        match (addr >> 13) & 3 {
            0 => self.control = data,
            1 => self.chr0 = data,
            2 => self.chr1 = data,
            _ => self.prg = data,
        }
        self.apply(banks);
    }
}
