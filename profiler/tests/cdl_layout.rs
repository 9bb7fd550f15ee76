//! The `.cdl` bit layout against FCEUX's documented bits (FCEUX help,
//! "Code/Data Logger": PRG `xPdcAADC`, CHR `xxxxxxRD`), on a tiny NROM
//! program built here whose every access is known, run on both engines.

use emu::nes::Engine;
use emu::{Cartridge, Nes};
use profiler::cdl::{self, CdlSizes};

/// A hand-assembled program, placed at CPU address `org` of a 32 KiB PRG.
struct Prg {
    bytes: Vec<u8>,
}

impl Prg {
    fn put(&mut self, cpu: u16, code: &[u8]) -> u16 {
        let at = (cpu - 0x8000) as usize;
        self.bytes[at..at + code.len()].copy_from_slice(code);
        cpu + code.len() as u16
    }
}

/// End of the reset code (exclusive), and the NROM-256 image; the program
/// turns rendering on with PPUMASK = `mask` ($08: background only; $18:
/// background and sprites).
fn program(mask: u8) -> (u16, Vec<u8>) {
    let mut prg = Prg {
        bytes: vec![0; 0x8000],
    };
    #[rustfmt::skip]
    let reset: &[u8] = &[
        0x78,             // 8000 SEI
        0x2C, 0x02, 0x20, // 8001 BIT $2002
        0x10, 0xFB,       // 8004 BPL $8001
        0x2C, 0x02, 0x20, // 8006 BIT $2002
        0x10, 0xFB,       // 8009 BPL $8006
        0xAD, 0x00, 0x90, // 800B LDA $9000      data, window 0
        0xA9, 0x00,       // 800E LDA #$00
        0x85, 0x00,       // 8010 STA $00
        0xA9, 0x91,       // 8012 LDA #$91
        0x85, 0x01,       // 8014 STA $01
        0xA0, 0x02,       // 8016 LDY #$02
        0xB1, 0x00,       // 8018 LDA ($00),Y    $9102: indirect data
        0xA9, 0x01,       // 801A LDA #$01
        0x8D, 0x12, 0x40, // 801C STA $4012      sample at $C040
        0xA9, 0x00,       // 801F LDA #$00
        0x8D, 0x13, 0x40, // 8021 STA $4013      1 byte long
        0xA9, 0x10,       // 8024 LDA #$10
        0x8D, 0x15, 0x40, // 8026 STA $4015      DMC on: one fetch
        0xA9, 0x00,       // 8029 LDA #$00
        0x8D, 0x06, 0x20, // 802B STA $2006
        0xA9, 0x10,       // 802E LDA #$10
        0x8D, 0x06, 0x20, // 8030 STA $2006
        0xAD, 0x07, 0x20, // 8033 LDA $2007      CHR $0010 read
        // Row 0 of the second nametable ($2800: what line 239's
        // prefetch and the pre-render line's garbage fetches read) gets
        // tile 5, which no shown line has.
        0xA9, 0x28,       // 8036 LDA #$28
        0x8D, 0x06, 0x20, // 8038 STA $2006
        0xA9, 0x00,       // 803B LDA #$00
        0x8D, 0x06, 0x20, // 803D STA $2006
        0xA9, 0x05,       // 8040 LDA #$05
        0xA2, 0x20,       // 8042 LDX #$20
        0x8D, 0x07, 0x20, // 8044 STA $2007
        0xCA,             // 8047 DEX
        0xD0, 0xFA,       // 8048 BNE $8044
        0xA9, 0x00,       // 804A LDA #$00       scroll 0: t = v = $2000
        0x8D, 0x06, 0x20, // 804C STA $2006
        0x8D, 0x06, 0x20, // 804F STA $2006
        0xA9, 0x08,       // 8052 LDA #$08
        0x8D, 0x00, 0x20, // 8054 STA $2000      sprites from $1000
        0xA9, mask,       // 8057 LDA #mask
        0x8D, 0x01, 0x20, // 8059 STA $2001      rendering on
        0x6C, 0x00, 0x92, // 805C JMP ($9200)    pointer is data
    ];
    let end = prg.put(0x8000, reset);
    prg.put(0x9200, &[0x00, 0xA0]);
    #[rustfmt::skip]
    prg.put(0xA000, &[
        0xAD, 0x00, 0xC0, // A000 LDA $C000      data, window 2
        0x4C, 0x03, 0xA0, // A003 JMP $A003
    ]);
    // NMI, reset, IRQ vectors.
    prg.put(0xFFFA, &[0x03, 0xA0, 0x00, 0x80, 0x03, 0xA0]);
    let mut image = vec![b'N', b'E', b'S', 0x1A, 2, 1, 0, 0];
    image.resize(16, 0);
    image.extend_from_slice(&prg.bytes);
    image.extend(std::iter::repeat_n(0u8, 0x2000)); // CHR ROM: all zero
    (end, image)
}

fn cdl_of(engine: Engine, image: &[u8]) -> Vec<u8> {
    let cart = Cartridge::from_bytes(image).expect("valid image");
    let sizes = CdlSizes::of(&cart);
    let mut nes = Nes::new(cart);
    nes.set_engine(engine);
    nes.record_flow();
    nes.record_accesses();
    // Reset once the logs are on, so the reset vector's read is seen.
    nes.reset();
    for _ in 0..6 {
        nes.run_frame();
    }
    let counts = nes.take_flow_counts().expect("recorded");
    let log = nes.take_access_log().expect("recorded");
    cdl::build(&counts, &log, sizes)
}

/// The file FCEUX's documented bits describe for [`program`] with `mask`.
fn expected(end: u16, mask: u8) -> Vec<u8> {
    const CODE: u8 = 0x01;
    const DATA: u8 = 0x02;
    const INDIRECT_CODE: u8 = 0x10;
    const INDIRECT_DATA: u8 = 0x20;
    const PCM: u8 = 0x40;
    let window = |w: u8| w << 2;
    let mut prg = vec![0u8; 0x8000];
    for b in &mut prg[..(end - 0x8000) as usize] {
        *b = CODE | window(0);
    }
    prg[0x1000] = DATA | window(0);
    prg[0x1102] = DATA | INDIRECT_DATA | window(0);
    prg[0x1200] = DATA | window(0);
    prg[0x1201] = DATA | window(0);
    for b in &mut prg[0x2000..0x2003] {
        *b = CODE | INDIRECT_CODE | window(1);
    }
    for b in &mut prg[0x2003..0x2006] {
        *b = CODE | window(1);
    }
    prg[0x4000] = DATA | window(2);
    prg[0x4040] = PCM | DATA | window(2);
    prg[0x7FFC] = DATA | window(3);
    prg[0x7FFD] = DATA | window(3);
    let mut chr = vec![0u8; 0x2000];
    // Background: tile 0, both planes of all 8 rows (every shown line's
    // nametable bytes are 0). Not tile 5's row 0 ($0050, $0058), which
    // only line 239's two tiles for line 240 and the pre-render line's
    // garbage fetches read.
    for b in &mut chr[..16] {
        *b |= 0x01;
    }
    if mask & 0x10 != 0 {
        // Sprites on: OAM's zeros put tile-0 sprites (from $1000) on the
        // lines below Y = 0, all 8 rows. And the pre-render line's fetch
        // for line 0 uses what secondary OAM still holds: tile $FF and
        // attributes $FF from its clear, Y from the last sprite line 239
        // examined (0, in range of the pre-render line's 261 & $FF = 5, as
        // the 2C02 compares): row 7 - 5 = 2 of tile $FF, flipped
        // (`ppu/sprites.rs`, `pre_render_slot_in_range`).
        for b in &mut chr[0x1000..0x1010] {
            *b |= 0x01;
        }
        chr[0x1FF2] |= 0x01;
        chr[0x1FFA] |= 0x01;
    }
    // With sprites off the PPU fetches the same sprite rows (it does while
    // either layer is on), but draws none: not marked.
    chr[0x10] |= 0x02;
    prg.extend(chr);
    prg
}

#[test]
fn every_documented_bit_lands_where_fceux_puts_it() {
    for mask in [0x08, 0x18] {
        let (end, image) = program(mask);
        let want = expected(end, mask);
        for engine in Engine::ALL {
            let got = cdl_of(engine, &image);
            assert_eq!(got.len(), 0x8000 + 0x2000, "{engine}: PRG + CHR bytes");
            let diffs: Vec<String> = got
                .iter()
                .zip(&want)
                .enumerate()
                .filter(|(_, (g, w))| g != w)
                .take(12)
                .map(|(i, (g, w))| format!("{i:#06x}: got {g:#04x}, want {w:#04x}"))
                .collect();
            assert!(diffs.is_empty(), "mask {mask:#04x}, {engine}: {diffs:#?}");
        }
    }
}

#[test]
fn chr_ram_boards_have_no_chr_part() {
    let (_, mut image) = program(0x18);
    image[5] = 0; // no CHR ROM: 8 KiB of CHR RAM
    image.truncate(16 + 0x8000);
    let got = cdl_of(Engine::Interpreter, &image);
    assert_eq!(got.len(), 0x8000);
}
