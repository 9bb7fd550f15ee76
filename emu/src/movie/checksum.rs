//! The ROM fingerprint an FM2 movie names: `romChecksum` is the MD5 of the
//! PRG ROM followed by the CHR ROM as FCEUX hashes an iNES file (the 16-byte
//! header and any trainer excluded; a CHR RAM board hashes only its PRG ROM),
//! written as `base64:` and the base64 of the 16 digest bytes.

use base64::Engine;
use md5::{Digest, Md5};

use crate::error::RomProblem;
use crate::rom::RomImage;

const PREFIX: &str = "base64:";

/// MD5 of the PRG and CHR ROM of an iNES/NES 2.0 file's bytes.
pub fn rom_checksum(file_bytes: &[u8]) -> Result<[u8; 16], RomProblem> {
    let image = RomImage::parse(file_bytes)?;
    let mut md5 = Md5::new();
    md5.update(&image.prg_rom);
    md5.update(&image.chr_rom);
    Ok(md5.finalize().into())
}

/// `base64:...`, as FCEUX writes it.
pub fn format_checksum(sum: &[u8; 16]) -> String {
    format!(
        "{PREFIX}{}",
        base64::engine::general_purpose::STANDARD.encode(sum)
    )
}

/// Reads `base64:...` or, as FCEUX also accepts, 32 hex digits (optionally
/// prefixed `0x`). `None` if it is neither or not 16 bytes.
pub fn parse_checksum(text: &str) -> Option<[u8; 16]> {
    let text = text.trim();
    let bytes = if let Some(b64) = text.strip_prefix(PREFIX) {
        base64::engine::general_purpose::STANDARD
            .decode(b64.trim())
            .ok()?
    } else {
        let hex = text.strip_prefix("0x").unwrap_or(text);
        if hex.len() != 32 || !hex.is_ascii() {
            return None;
        }
        (0..16)
            .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
            .collect::<Option<Vec<u8>>>()?
    };
    bytes.try_into().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_parses() {
        let sum: [u8; 16] = core::array::from_fn(|i| i as u8 * 17);
        let text = format_checksum(&sum);
        assert!(text.starts_with("base64:"));
        assert_eq!(parse_checksum(&text), Some(sum));
        assert_eq!(
            parse_checksum("00112233445566778899aabbccddeeff"),
            Some(sum)
        );
        assert_eq!(parse_checksum("base64:AAAA"), None);
        assert_eq!(parse_checksum("zz"), None);
    }

    #[test]
    fn md5_of_prg_and_chr_only() {
        // 16 KiB PRG of 0xEA, 8 KiB CHR of 0x00, header bytes must not count.
        let mut rom = vec![0u8; 16 + 16384 + 8192];
        rom[..4].copy_from_slice(b"NES\x1a");
        rom[4] = 1;
        rom[5] = 1;
        rom[16..16 + 16384].fill(0xEA);
        let a = rom_checksum(&rom).unwrap();
        rom[6] = 1; // mirroring bit: header only
        assert_eq!(rom_checksum(&rom).unwrap(), a);
        let mut md5 = Md5::new();
        md5.update(&rom[16..]);
        let expected: [u8; 16] = md5.finalize().into();
        assert_eq!(a, expected);
    }
}
