//! Mapper 7, AxROM (NESdev wiki "AxROM"): a 32 KiB PRG bank and the one-screen
//! nametable page selected by writes to $8000-$FFFF; CHR RAM.

use super::banks::Banks;
use super::board::{BoardSizes, Mapper};
use crate::rom::Mirroring;

pub struct Axrom {
    sizes: BoardSizes,
    bus_conflicts: bool,
}

impl Axrom {
    pub fn new(sizes: BoardSizes, submapper: u8) -> Axrom {
        Axrom {
            sizes,
            bus_conflicts: submapper == 2,
        }
    }
}

impl Mapper for Axrom {
    fn power_on(&mut self, banks: &mut Banks) {
        banks.set_prg_32k(0, self.sizes.prg_rom);
        banks.set_chr_8k(0, self.sizes.chr);
        banks.set_mirroring(Mirroring::SingleScreenLow);
    }

    fn cpu_write(&mut self, addr: u16, value: u8, banks: &mut Banks, _cycle: u64) {
        if addr < 0x8000 {
            return;
        }
        banks.set_prg_32k(value as usize & 0x07, self.sizes.prg_rom);
        banks.set_mirroring(if value & 0x10 != 0 {
            Mirroring::SingleScreenHigh
        } else {
            Mirroring::SingleScreenLow
        });
    }

    fn bus_conflicts(&self) -> bool {
        self.bus_conflicts
    }
}
