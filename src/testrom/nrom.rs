//! Tiny ROM images for our own tests and benchmarks: a program placed at
//! the start of an NROM cartridge.

/// An NROM image (32 KB PRG filled with NOPs, 8 KB CHR of zeros) whose reset
/// vector points at `code`, placed at $8000.
pub fn nrom_with_code(code: &[u8]) -> Vec<u8> {
    let mut image = vec![b'N', b'E', b'S', 0x1A, 2, 1, 0, 0];
    image.resize(16, 0);
    let mut prg = vec![0xEA; 32 * 1024];
    prg[..code.len()].copy_from_slice(code);
    prg[0x7FFC] = 0x00;
    prg[0x7FFD] = 0x80;
    image.extend_from_slice(&prg);
    image.resize(image.len() + 8192, 0);
    image
}
