//! Mapper 3, CNROM (NESdev wiki "INES Mapper 003"): fixed 16/32 KiB PRG, an
//! 8 KiB CHR bank selected by writes to $8000-$FFFF. Bus conflicts when the
//! NES 2.0 submapper is 2.

use super::banks::Banks;
use super::board::{BoardSizes, Mapper};

pub struct Cnrom {
    sizes: BoardSizes,
    bus_conflicts: bool,
}

impl Cnrom {
    pub fn new(sizes: BoardSizes, submapper: u8) -> Cnrom {
        Cnrom {
            sizes,
            bus_conflicts: submapper == 2,
        }
    }
}

impl Mapper for Cnrom {
    fn power_on(&mut self, banks: &mut Banks) {
        banks.set_prg_32k(0, self.sizes.prg_rom);
        banks.set_chr_8k(0, self.sizes.chr);
    }

    fn cpu_write(&mut self, addr: u16, value: u8, banks: &mut Banks, _cycle: u64) {
        if addr >= 0x8000 {
            banks.set_chr_8k(value as usize, self.sizes.chr);
        }
    }

    fn bus_conflicts(&self) -> bool {
        self.bus_conflicts
    }
}
