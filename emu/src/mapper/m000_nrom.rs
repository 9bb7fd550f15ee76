//! Mapper 0, NROM (NESdev wiki "NROM"): 16 or 32 KiB PRG fixed at $8000 (16 KiB
//! mirrored), 8 KiB CHR ROM or RAM, no registers. Test ROMs expect 8 KiB of RAM
//! at $6000 (as on Family BASIC boards), so it is always present.

use super::banks::Banks;
use super::board::{BoardSizes, Mapper};

pub struct Nrom {
    sizes: BoardSizes,
}

impl Nrom {
    pub fn new(sizes: BoardSizes) -> Nrom {
        Nrom { sizes }
    }
}

impl Mapper for Nrom {
    fn power_on(&mut self, banks: &mut Banks) {
        banks.set_prg_32k(0, self.sizes.prg_rom);
        banks.set_chr_8k(0, self.sizes.chr);
        banks.set_prg_ram(Some(0), true);
    }

    fn cpu_write(&mut self, _addr: u16, _value: u8, _banks: &mut Banks, _cycle: u64) {}

    fn writes_reach_ppu(&self) -> bool {
        false
    }
}
