//! Cartridge boards. Each mapper lives in its own file named by iNES number and
//! board (`m000_nrom.rs`, ...) and joins the emulator through one line in
//! [`create`]. A mapper never touches memory itself: it edits [`Banks`], the
//! plain-data table through which the bus and PPU read PRG, CHR and nametables.
//! This keeps the hot read path free of virtual calls and gives the translator
//! a cheap key (`Banks::prg_generation`) for the current PRG mapping.

mod m000_nrom;
mod m001_sxrom;
mod m002_uxrom;
mod m003_cnrom;
mod m004_txrom;
mod m007_axrom;

use crate::error::RomProblem;
use crate::rom::{Mirroring, RomImage};

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

/// Sizes a mapper needs to compute bank offsets.
#[derive(Debug, Clone, Copy)]
pub struct BoardSizes {
    pub prg_rom: usize,
    pub chr: usize,
    pub prg_ram: usize,
}

/// A cartridge board's banking and IRQ logic.
pub trait Mapper: Send {
    /// Sets the banks as at power-on.
    fn power_on(&mut self, banks: &mut Banks);
    /// The console's reset button: most boards keep their registers.
    fn reset(&mut self, _banks: &mut Banks) {}
    /// A CPU write to $4020-$FFFF. `cycle` is the CPU cycle count (MMC1 ignores
    /// writes on consecutive cycles). PRG RAM writes are handled by the cartridge
    /// before this is called.
    fn cpu_write(&mut self, addr: u16, value: u8, banks: &mut Banks, cycle: u64);
    /// Whether a CPU write to ROM space sees the ROM's byte ANDed in (boards
    /// without a write-enable on the ROM).
    fn bus_conflicts(&self) -> bool {
        false
    }
    /// Whether the PPU must report its address bus (for A12-clocked IRQs).
    fn watches_ppu_bus(&self) -> bool {
        false
    }
    /// The PPU put `addr` on its address bus at PPU dot count `dot`.
    fn ppu_bus(&mut self, _addr: u16, _dot: u64) {}
    /// Level of the mapper's IRQ output.
    fn irq(&self) -> bool {
        false
    }
    /// For boards that watch the PPU bus: a lower bound on the PPU dots
    /// before the IRQ output can rise by itself (0: it may on any dot; CPU
    /// writes that change it are seen at once). Lets the bus run the PPU
    /// lazily until then instead of catching it up every cycle.
    fn ppu_dots_before_irq(&self) -> u32 {
        0
    }
    /// Mirroring is fixed by the board unless the mapper overrides it.
    fn board_mirroring(&self) -> Option<Mirroring> {
        None
    }
}

/// Common names, for error messages about mappers we lack.
fn mapper_name(number: u16) -> &'static str {
    match number {
        0 => "NROM",
        1 => "MMC1",
        2 => "UxROM",
        3 => "CNROM",
        4 => "MMC3",
        5 => "MMC5",
        7 => "AxROM",
        9 => "MMC2",
        10 => "MMC4",
        11 => "Color Dreams",
        19 => "Namco 163",
        23 | 25 => "VRC2/VRC4",
        24 | 26 => "VRC6",
        66 => "GxROM",
        69 => "Sunsoft FME-7",
        71 => "Camerica",
        85 => "VRC7",
        _ => "unknown board",
    }
}

/// Builds the mapper for a ROM image: the one table from iNES number to board.
pub fn create(rom: &RomImage, sizes: BoardSizes) -> Result<Box<dyn Mapper>, RomProblem> {
    let number = rom.header.mapper;
    let submapper = rom.header.submapper;
    let mapper: Box<dyn Mapper> = match number {
        0 => Box::new(m000_nrom::Nrom::new(sizes)),
        1 => Box::new(m001_sxrom::Sxrom::new(sizes)),
        2 => Box::new(m002_uxrom::Uxrom::new(sizes, submapper)),
        3 => Box::new(m003_cnrom::Cnrom::new(sizes, submapper)),
        4 => Box::new(m004_txrom::Txrom::new(sizes, rom.header.mirroring)),
        7 => Box::new(m007_axrom::Axrom::new(sizes, submapper)),
        _ => {
            return Err(RomProblem::UnsupportedMapper {
                number,
                name: mapper_name(number),
            })
        }
    };
    Ok(mapper)
}
