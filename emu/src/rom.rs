//! ROM images: iNES and NES 2.0 header parsing into the memories a cartridge
//! brings (PRG ROM, CHR ROM, sizes of its RAMs). Reference: NESdev wiki "INES"
//! and "NES 2.0". The live cartridge is in `cartridge.rs`, banking in `mapper/`.

use crate::error::RomProblem;

/// Nametable arrangement as wired on the board (or set by the mapper).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mirroring {
    /// Vertical arrangement, horizontal mirroring: $2000=$2400, $2800=$2C00.
    Horizontal,
    /// Horizontal arrangement, vertical mirroring: $2000=$2800, $2400=$2C00.
    Vertical,
    SingleScreenLow,
    SingleScreenHigh,
    FourScreen,
}

impl Mirroring {
    /// Which 1 KiB of nametable memory each of the four logical nametables uses.
    pub fn nametable_pages(self) -> [usize; 4] {
        match self {
            Mirroring::Horizontal => [0, 0, 1, 1],
            Mirroring::Vertical => [0, 1, 0, 1],
            Mirroring::SingleScreenLow => [0, 0, 0, 0],
            Mirroring::SingleScreenHigh => [1, 1, 1, 1],
            Mirroring::FourScreen => [0, 1, 2, 3],
        }
    }
}

/// Which header flavour a file used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderFormat {
    INes,
    Nes20,
}

/// The parsed 16-byte header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub format: HeaderFormat,
    pub mapper: u16,
    pub submapper: u8,
    pub prg_rom_len: usize,
    pub chr_rom_len: usize,
    /// Volatile PRG RAM in bytes (0 when the header does not say).
    pub prg_ram_len: usize,
    /// Battery-backed PRG RAM in bytes.
    pub prg_nvram_len: usize,
    pub chr_ram_len: usize,
    pub mirroring: Mirroring,
    pub battery: bool,
    pub trainer: bool,
}

/// A loaded ROM image: header plus the raw memories it carries.
#[derive(Debug, Clone)]
pub struct RomImage {
    pub header: Header,
    pub trainer: Option<Vec<u8>>,
    pub prg_rom: Vec<u8>,
    pub chr_rom: Vec<u8>,
}

const MAGIC: &[u8; 4] = b"NES\x1A";
const HEADER_LEN: usize = 16;
const TRAINER_LEN: usize = 512;

/// The largest ROM file read: NES 2.0's largest PRG ROM (0xFFF units of
/// 16 KiB) and CHR ROM (0xFFF units of 8 KiB) in the plain size notation,
/// plus the header and a trainer. Sizes beyond it can only be written in the
/// exponent notation, which no real board needs; such a file is refused
/// before it is read rather than read whole.
pub const MAX_FILE: crate::input_file::SizeLimit = crate::input_file::SizeLimit {
    bytes: (HEADER_LEN + TRAINER_LEN + 0xFFF * 16 * 1024 + 0xFFF * 8 * 1024) as u64,
    what: "ROM images (NES 2.0's largest PRG + CHR ROM in plain notation, plus header and trainer)",
};

fn nes20_rom_size(lsb: u8, msb_nibble: u8, unit: usize) -> Result<usize, RomProblem> {
    if msb_nibble == 0xF {
        // Exponent-multiplier notation: 2^E * (MM*2+1).
        let exponent = (lsb >> 2) as u32;
        let multiplier = (lsb & 3) as usize * 2 + 1;
        if exponent > 30 {
            return Err(RomProblem::Invalid(format!(
                "NES 2.0 ROM size exponent {exponent} is absurdly large"
            )));
        }
        Ok((1usize << exponent) * multiplier)
    } else {
        Ok((((msb_nibble as usize) << 8) | lsb as usize) * unit)
    }
}

fn nes20_ram_size(shift: u8) -> usize {
    if shift == 0 {
        0
    } else {
        64 << shift
    }
}

impl Header {
    pub fn parse(bytes: &[u8]) -> Result<Header, RomProblem> {
        if bytes.len() < 4 || &bytes[0..4] != MAGIC {
            if bytes.len() < HEADER_LEN && bytes.len() >= 4 && &bytes[0..4] == MAGIC {
                return Err(RomProblem::TooShortForHeader { len: bytes.len() });
            }
            return Err(RomProblem::BadMagic);
        }
        if bytes.len() < HEADER_LEN {
            return Err(RomProblem::TooShortForHeader { len: bytes.len() });
        }
        let h = &bytes[..HEADER_LEN];
        let flags6 = h[6];
        let flags7 = h[7];
        let mirroring = if flags6 & 0x08 != 0 {
            Mirroring::FourScreen
        } else if flags6 & 0x01 != 0 {
            Mirroring::Vertical
        } else {
            Mirroring::Horizontal
        };
        let battery = flags6 & 0x02 != 0;
        let trainer = flags6 & 0x04 != 0;
        let is_nes20 = flags7 & 0x0C == 0x08;
        if is_nes20 {
            let mapper =
                (flags6 >> 4) as u16 | (flags7 & 0xF0) as u16 | ((h[8] & 0x0F) as u16) << 8;
            let submapper = h[8] >> 4;
            let prg_rom_len = nes20_rom_size(h[4], h[9] & 0x0F, 16 * 1024)?;
            let chr_rom_len = nes20_rom_size(h[5], h[9] >> 4, 8 * 1024)?;
            Ok(Header {
                format: HeaderFormat::Nes20,
                mapper,
                submapper,
                prg_rom_len,
                chr_rom_len,
                prg_ram_len: nes20_ram_size(h[10] & 0x0F),
                prg_nvram_len: nes20_ram_size(h[10] >> 4),
                chr_ram_len: nes20_ram_size(h[11] & 0x0F) + nes20_ram_size(h[11] >> 4),
                mirroring,
                battery,
                trainer,
            })
        } else {
            // Archaic iNES: bytes 7-15 may hold garbage ("DiskDude!"); if bytes
            // 12-15 are not zero, ignore the upper mapper nibble as most emulators do.
            let garbage_tail = h[12..16].iter().any(|&b| b != 0);
            let upper = if garbage_tail { 0 } else { flags7 & 0xF0 };
            let mapper = ((flags6 >> 4) | upper) as u16;
            let prg_ram_units = h[8] as usize;
            let prg_ram = if prg_ram_units == 0 {
                8 * 1024
            } else {
                prg_ram_units * 8 * 1024
            };
            Ok(Header {
                format: HeaderFormat::INes,
                mapper,
                submapper: 0,
                prg_rom_len: h[4] as usize * 16 * 1024,
                chr_rom_len: h[5] as usize * 8 * 1024,
                prg_ram_len: if battery { 0 } else { prg_ram },
                prg_nvram_len: if battery { prg_ram } else { 0 },
                chr_ram_len: if h[5] == 0 { 8 * 1024 } else { 0 },
                mirroring,
                battery,
                trainer,
            })
        }
    }
}

impl RomImage {
    /// Parses a complete .nes file. Never panics on any input.
    pub fn parse(bytes: &[u8]) -> Result<RomImage, RomProblem> {
        let header = Header::parse(bytes)?;
        if header.prg_rom_len == 0 {
            return Err(RomProblem::NoPrgRom);
        }
        let mut offset = HEADER_LEN;
        let mut take = |what: &'static str, len: usize| -> Result<Vec<u8>, RomProblem> {
            let available = bytes.len().saturating_sub(offset);
            if available < len {
                return Err(RomProblem::Truncated {
                    what,
                    expected: len,
                    available,
                });
            }
            let out = bytes[offset..offset + len].to_vec();
            offset += len;
            Ok(out)
        };
        let trainer = if header.trainer {
            Some(take("trainer", TRAINER_LEN)?)
        } else {
            None
        };
        let prg_rom = take("PRG ROM", header.prg_rom_len)?;
        let chr_rom = take("CHR ROM", header.chr_rom_len)?;
        Ok(RomImage {
            header,
            trainer,
            prg_rom,
            chr_rom,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ines(prg_banks: u8, chr_banks: u8, flags6: u8, flags7: u8) -> Vec<u8> {
        let mut v = vec![b'N', b'E', b'S', 0x1A, prg_banks, chr_banks, flags6, flags7];
        v.resize(16, 0);
        v.resize(
            16 + prg_banks as usize * 16384 + chr_banks as usize * 8192,
            0xEA,
        );
        v
    }

    #[test]
    fn parses_nrom_128() {
        let rom = RomImage::parse(&ines(1, 1, 0x01, 0)).unwrap();
        assert_eq!(rom.header.mapper, 0);
        assert_eq!(rom.header.mirroring, Mirroring::Vertical);
        assert_eq!(rom.prg_rom.len(), 16384);
        assert_eq!(rom.chr_rom.len(), 8192);
        assert_eq!(rom.header.chr_ram_len, 0);
    }

    #[test]
    fn chr_ram_when_no_chr_rom() {
        let rom = RomImage::parse(&ines(2, 0, 0, 0)).unwrap();
        assert_eq!(rom.header.chr_ram_len, 8192);
    }

    #[test]
    fn mapper_number_from_both_nibbles() {
        let rom = RomImage::parse(&ines(2, 1, 0x40, 0x00)).unwrap();
        assert_eq!(rom.header.mapper, 4);
        let h = Header::parse(&ines(2, 1, 0x10, 0x40)).unwrap();
        assert_eq!(h.mapper, 0x41);
    }

    #[test]
    fn nes20_header() {
        let mut v = ines(2, 1, 0x00, 0x08);
        v[10] = 0x70; // 8 KiB NVRAM
        let h = Header::parse(&v).unwrap();
        assert_eq!(h.format, HeaderFormat::Nes20);
        assert_eq!(h.prg_nvram_len, 8192);
    }

    #[test]
    fn rejects_bad_input() {
        assert_eq!(RomImage::parse(b"hello").unwrap_err(), RomProblem::BadMagic);
        assert_eq!(
            RomImage::parse(b"NES\x1A\x01").unwrap_err(),
            RomProblem::TooShortForHeader { len: 5 }
        );
        let mut v = ines(2, 1, 0, 0);
        v.truncate(16 + 20000);
        assert!(matches!(
            RomImage::parse(&v).unwrap_err(),
            RomProblem::Truncated {
                what: "PRG ROM",
                ..
            }
        ));
    }
}
