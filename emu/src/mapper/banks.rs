//! The banking table every board edits (NESdev wiki "Mapper"): which 8 KiB
//! of PRG ROM, 1 KiB of CHR and of nametable RAM each CPU and PPU window
//! points at. Plain data, read by the bus and the PPU on every access.

use crate::rom::Mirroring;

pub const PRG_PAGE: usize = 8 * 1024;
pub const CHR_PAGE: usize = 1024;
pub const NAMETABLE_PAGE: usize = 1024;

/// Where each CPU and PPU window currently points. Offsets are byte offsets into
/// the cartridge's PRG ROM, CHR memory, PRG RAM and nametable RAM.
#[derive(Debug, Clone)]
pub struct Banks {
    /// $8000, $A000, $C000, $E000: 8 KiB pages of PRG ROM.
    pub prg: [usize; 4],
    /// $0000-$1FFF of PPU space in 1 KiB pages of CHR ROM/RAM.
    pub chr: [usize; 8],
    /// $2000, $2400, $2800, $2C00: 1 KiB pages of nametable RAM.
    pub nametables: [usize; 4],
    /// $6000-$7FFF: offset into PRG RAM, or `None` when disabled (open bus).
    pub prg_ram: Option<usize>,
    pub prg_ram_writable: bool,
    /// Bumped whenever `prg` or `prg_ram` changes; code caches key on it.
    pub prg_generation: u32,
}

/// The MMC6's RAM enables (NESdev wiki "MMC6", $A001): index 0 is
/// $7000-$71FF, 1 is $7200-$73FF.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RamHalves {
    pub read: [bool; 2],
    pub write: [bool; 2],
}

impl RamHalves {
    /// A CPU read of `addr` ($6000-$7FFF) given the 1 KiB RAM: $6000-$6FFF
    /// and a RAM with neither half readable are open bus (`None`); a half
    /// that is not readable reads 0 while the other one is.
    pub fn read(&self, addr: u16, ram: &[u8]) -> Option<u8> {
        if addr < 0x7000 || !(self.read[0] || self.read[1]) {
            return None;
        }
        let half = (addr as usize >> 9) & 1;
        Some(if self.read[half] {
            ram[addr as usize & 0x3FF]
        } else {
            0
        })
    }

    /// A CPU write: it lands only in a half enabled for both reading and
    /// writing.
    pub fn write(&self, addr: u16, value: u8, ram: &mut [u8]) {
        let half = (addr as usize >> 9) & 1;
        if addr >= 0x7000 && self.read[half] && self.write[half] {
            ram[addr as usize & 0x3FF] = value;
        }
    }
}

impl Banks {
    pub fn new() -> Banks {
        Banks {
            prg: [0, PRG_PAGE, 2 * PRG_PAGE, 3 * PRG_PAGE],
            chr: [0, 1024, 2048, 3072, 4096, 5120, 6144, 7168],
            nametables: [0, 0, 1024, 1024],
            prg_ram: Some(0),
            prg_ram_writable: true,
            prg_generation: 0,
        }
    }

    /// Maps 8 KiB PRG page `slot` (0 = $8000) to `bank` of a `prg_len`-byte ROM;
    /// bank numbers wrap as on boards with fewer address lines than bits.
    pub fn set_prg_8k(&mut self, slot: usize, bank: usize, prg_len: usize) {
        let pages = (prg_len / PRG_PAGE).max(1);
        let offset = (bank % pages) * PRG_PAGE;
        if self.prg[slot] != offset {
            self.prg[slot] = offset;
            self.prg_generation = self.prg_generation.wrapping_add(1);
        }
    }

    pub fn set_prg_16k(&mut self, slot16: usize, bank: usize, prg_len: usize) {
        self.set_prg_8k(slot16 * 2, bank * 2, prg_len);
        self.set_prg_8k(slot16 * 2 + 1, bank * 2 + 1, prg_len);
    }

    pub fn set_prg_32k(&mut self, bank: usize, prg_len: usize) {
        for i in 0..4 {
            self.set_prg_8k(i, bank * 4 + i, prg_len);
        }
    }

    /// The PRG mapping itself as a number, equal for equal mappings (unlike
    /// [`Banks::prg_generation`], which counts changes): each window's
    /// 8 KiB page in 10 bits and the PRG RAM page in 6 (present,
    /// writable), so a mapping a game switches back to, as most do every
    /// frame, finds what was made under it still current. Below 2^47.
    /// Beyond 8 MiB of PRG ROM or 31 pages of PRG RAM, where a page does not
    /// fit its bits, or for an offset that is no whole page (no board maps
    /// one today), the generation stands in (bit 46 set), which is never
    /// equal after a change.
    #[inline]
    pub fn prg_key(&self) -> u64 {
        let mut key = 0u64;
        let mut fits = true;
        for (i, &offset) in self.prg.iter().enumerate() {
            let page = (offset / PRG_PAGE) as u64;
            fits &= page < 1 << 10 && offset % PRG_PAGE == 0;
            key |= (page & 0x3FF) << (10 * i);
        }
        let ram = match self.prg_ram {
            None => 0,
            Some(offset) => {
                let page = (offset / PRG_PAGE) as u64 + 1;
                fits &= page < 1 << 5 && offset % PRG_PAGE == 0;
                (page & 0x1F) << 1 | self.prg_ram_writable as u64
            }
        };
        if fits {
            key | ram << 40
        } else {
            1 << 46 | self.prg_generation as u64
        }
    }

    pub fn set_chr_1k(&mut self, slot: usize, bank: usize, chr_len: usize) {
        let pages = (chr_len / CHR_PAGE).max(1);
        self.chr[slot] = (bank % pages) * CHR_PAGE;
    }

    pub fn set_chr_4k(&mut self, slot4: usize, bank: usize, chr_len: usize) {
        for i in 0..4 {
            self.set_chr_1k(slot4 * 4 + i, bank * 4 + i, chr_len);
        }
    }

    pub fn set_chr_8k(&mut self, bank: usize, chr_len: usize) {
        for i in 0..8 {
            self.set_chr_1k(i, bank * 8 + i, chr_len);
        }
    }

    pub fn set_mirroring(&mut self, m: Mirroring) {
        self.nametables = m.nametable_pages().map(|page| page * NAMETABLE_PAGE);
    }

    pub fn set_prg_ram(&mut self, offset: Option<usize>, writable: bool) {
        if self.prg_ram != offset || self.prg_ram_writable != writable {
            self.prg_ram = offset;
            self.prg_ram_writable = writable;
            self.prg_generation = self.prg_generation.wrapping_add(1);
        }
    }
}

impl Default for Banks {
    fn default() -> Self {
        Banks::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Equal mappings have equal keys, whatever happened in between; any
    /// change of a window's page or of PRG RAM changes the key.
    #[test]
    fn the_prg_key_is_the_mapping() {
        let len = 512 * 1024;
        let mut banks = Banks::new();
        let start = banks.prg_key();
        banks.set_prg_16k(0, 5, len);
        let switched = banks.prg_key();
        assert_ne!(switched, start);
        banks.set_prg_16k(0, 0, len);
        assert_eq!(banks.prg_key(), start, "switched back");
        assert_ne!(banks.prg_generation, 0, "the generation still counts");
        for slot in 0..4 {
            let mut other = Banks::new();
            other.set_prg_8k(slot, 63, len);
            assert_ne!(other.prg_key(), start, "window {slot}");
        }
        let mut ram = Banks::new();
        ram.set_prg_ram(Some(PRG_PAGE), true);
        assert_ne!(ram.prg_key(), start);
        ram.set_prg_ram(Some(PRG_PAGE), false);
        let read_only = ram.prg_key();
        ram.set_prg_ram(None, false);
        assert_ne!(ram.prg_key(), read_only);
        assert_ne!(ram.prg_key(), start);
        assert!(start < 1 << 46);
    }

    /// A page beyond the key's bits (PRG ROM over 8 MiB) falls back to the
    /// generation: a change is never mistaken for the mapping before it.
    #[test]
    fn a_page_beyond_the_keys_bits_falls_back_to_the_generation() {
        let len = 16 * 1024 * 1024;
        let mut banks = Banks::new();
        banks.set_prg_8k(0, 1024, len);
        let first = banks.prg_key();
        assert_ne!(first & 1 << 46, 0);
        banks.set_prg_8k(0, 2047, len);
        banks.set_prg_8k(0, 1024, len);
        assert_ne!(banks.prg_key(), first, "a counted change is a change");
    }
}
