//! Mapper 2, UxROM (NESdev wiki "UxROM"): a 16 KiB bank switched at $8000,
//! the last 16 KiB fixed at $C000, CHR RAM. Bus conflicts only when the NES 2.0
//! submapper says so (2): iNES-era dumps mostly come from boards or
//! emulators that tolerate either.

use super::banks::Banks;
use super::board::{BoardSizes, Mapper};

pub struct Uxrom {
    sizes: BoardSizes,
    bus_conflicts: bool,
}

impl Uxrom {
    pub fn new(sizes: BoardSizes, submapper: u8) -> Uxrom {
        Uxrom {
            sizes,
            bus_conflicts: submapper == 2,
        }
    }
}

impl Mapper for Uxrom {
    fn power_on(&mut self, banks: &mut Banks) {
        let last = self.sizes.prg_rom / (16 * 1024) - 1;
        banks.set_prg_16k(0, 0, self.sizes.prg_rom);
        banks.set_prg_16k(1, last, self.sizes.prg_rom);
        banks.set_chr_8k(0, self.sizes.chr);
    }

    fn cpu_write(&mut self, addr: u16, value: u8, banks: &mut Banks, _cycle: u64) {
        if addr >= 0x8000 {
            banks.set_prg_16k(0, value as usize, self.sizes.prg_rom);
        }
    }

    fn bus_conflicts(&self) -> bool {
        self.bus_conflicts
    }

    /// The bank register selects PRG ROM only: CHR RAM and the mirroring
    /// are fixed.
    fn writes_reach_ppu(&self) -> bool {
        false
    }
}
