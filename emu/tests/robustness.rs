//! Property tests: no input, however malformed, makes the emulator panic.

use emu::{Cartridge, Nes};
use proptest::prelude::*;

/// An iNES header for `mapper` with the given bank counts and flags.
fn header(prg_banks: u8, chr_banks: u8, mapper: u8, flags6_low: u8) -> Vec<u8> {
    let mut h = vec![b'N', b'E', b'S', 0x1A, prg_banks, chr_banks];
    h.push((mapper << 4) | (flags6_low & 0x0B));
    h.push(mapper & 0xF0);
    h.resize(16, 0);
    h
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Arbitrary bytes are rejected with an error or accepted; never a panic.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..40_000)) {
        let _ = Cartridge::from_bytes(&bytes);
    }

    /// Valid magic but arbitrary header fields and body length.
    #[test]
    fn arbitrary_headers_never_panic(
        fields in proptest::array::uniform12(any::<u8>()),
        body_len in 0usize..70_000,
    ) {
        let mut bytes = b"NES\x1A".to_vec();
        bytes.extend_from_slice(&fields);
        bytes.resize(16 + body_len, 0xEA);
        if let Ok(cart) = Cartridge::from_bytes(&bytes) {
            let mut nes = Nes::new(cart);
            for _ in 0..2_000 {
                nes.step();
            }
        }
    }

    /// NES 2.0 headers specifically (byte 7 bits 2-3 = 10), whose size fields
    /// include the exponent-multiplier notation.
    #[test]
    fn arbitrary_nes20_headers_never_panic(
        mut fields in proptest::array::uniform12(any::<u8>()),
        body_len in 0usize..70_000,
    ) {
        fields[3] = (fields[3] & 0xF3) | 0x08;
        let mut bytes = b"NES\x1A".to_vec();
        bytes.extend_from_slice(&fields);
        bytes.resize(16 + body_len, 0xEA);
        if let Ok(cart) = Cartridge::from_bytes(&bytes) {
            let mut nes = Nes::new(cart);
            for _ in 0..2_000 {
                nes.step();
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Arbitrary program and RAM contents on every supported board run 100k
    /// CPU cycles without a panic (JAMs, I/O pokes, DMA and bank switching
    /// included).
    #[test]
    fn arbitrary_memory_runs_100k_cycles(
        prg in proptest::collection::vec(any::<u8>(), 32 * 1024),
        ram in proptest::collection::vec(any::<u8>(), 2048),
        mapper in prop::sample::select(vec![0u8, 1, 2, 3, 7]),
        chr_banks in 0u8..2,
        flags in any::<u8>(),
    ) {
        let mut bytes = header(2, chr_banks, mapper, flags & !0x04);
        bytes.extend_from_slice(&prg);
        bytes.resize(bytes.len() + chr_banks as usize * 8192, 0x55);
        let cart = Cartridge::from_bytes(&bytes).expect("well-formed image loads");
        let mut nes = Nes::new(cart);
        nes.ram_mut().copy_from_slice(&ram);
        while nes.cycles() < 100_000 {
            nes.step();
        }
        prop_assert!(nes.cycles() >= 100_000);
    }
}

/// NES 2.0's exponent-multiplier notation can describe ROMs that are not whole
/// banks (here 3 bytes of PRG and of CHR); they must load and run.
#[test]
fn odd_sized_nes20_roms_run() {
    let mut bytes = vec![b'N', b'E', b'S', 0x1A, 0x01, 0x01, 0x00, 0x08, 0x00, 0xFF];
    bytes.resize(16, 0);
    bytes.extend_from_slice(&[0xEA, 0xEA, 0xEA, 0x4C, 0x00, 0x80]);
    let cart = Cartridge::from_bytes(&bytes).expect("loads");
    let mut nes = Nes::new(cart);
    for _ in 0..3 {
        nes.run_frame();
    }
}
