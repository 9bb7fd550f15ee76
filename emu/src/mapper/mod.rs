//! Cartridge boards. Each mapper lives in its own file named by iNES number and
//! board (`m000_nrom.rs`, ...) and joins the emulator through one line in
//! [`create`]. A mapper never touches memory itself: it edits [`Banks`], the
//! plain-data table through which the bus and PPU read PRG, CHR and nametables.
//! This keeps the hot read path free of virtual calls and gives the translator
//! a cheap key (`Banks::prg_generation`) for the current PRG mapping.

pub mod banks;
pub mod board;
mod m000_nrom;
mod m001_sxrom;
mod m002_uxrom;
mod m003_cnrom;
mod m004_txrom;
mod m007_axrom;

pub use banks::{Banks, RamHalves, CHR_PAGE, NAMETABLE_PAGE, PRG_PAGE};
pub use board::{BoardSizes, Mapper};

use crate::error::RomProblem;
use crate::rom::RomImage;

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
        4 => Box::new(m004_txrom::Txrom::new(
            sizes,
            rom.header.mirroring,
            m004_txrom::Revision::of_submapper(submapper),
        )),
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
