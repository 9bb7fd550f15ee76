//! Mapper test suites (issues 3 and 22). The two MMC3 revisions' tests
//! exclude each other: the runner runs the revision-A ones as NES 2.0
//! submapper 4 (the NEC MMC3A), the rest as the Sharp MMC3B/C most games
//! need.

mod common;

use common::{pass, pass_holding, run_suite};

#[test]
fn mmc3_test_2() {
    let dir = "mappers/mmc3_test_2/rom_singles";
    run_suite(
        "mmc3_test_2",
        &[
            pass(format!("{dir}/1-clocking.nes")),
            pass(format!("{dir}/2-details.nes")),
            pass(format!("{dir}/3-A12_clocking.nes")),
            pass(format!("{dir}/4-scanline_timing.nes")),
            pass(format!("{dir}/5-MMC3.nes")),
            pass(format!("{dir}/6-MMC3_alt.nes")),
        ],
    );
}

#[test]
fn mmc3_irq_tests() {
    let dir = "mappers/mmc3_irq_tests";
    run_suite(
        "mmc3_irq_tests",
        &[
            pass(format!("{dir}/1.Clocking.nes")),
            pass(format!("{dir}/2.Details.nes")),
            pass(format!("{dir}/3.A12_clocking.nes")),
            pass(format!("{dir}/4.Scanline_timing.nes")),
            pass(format!("{dir}/5.MMC3_rev_A.nes")),
            pass(format!("{dir}/6.MMC3_rev_B.nes")),
        ],
    );
}

/// Holy Mapperel on every board it was built for: the detected mapper and
/// PRG size must be the file name's, every memory `OK`, and the detailed
/// result `0000` (read from the screen: `testrom::holy_mapperel`).
#[test]
fn holy_mapperel() {
    let dir = "mappers/holy_mapperel";
    let names = [
        "M0_P32K_C8K_V",
        "M0_P32K_CR8K_V",
        "M1_P128K",
        "M1_P128K_C128K",
        "M1_P128K_C128K_W8K",
        "M1_P128K_C32K",
        "M1_P128K_C32K_S8K",
        "M1_P128K_CR8K",
        "M1_P512K_S8K",
        "M2_P128K_CR8K_V",
        "M2_P128K_V",
        "M3_P32K_C32K_H",
        "M4_P128K",
        "M4_P128K_CR32K",
        "M4_P128K_CR8K",
        "M4_P256K_C256K",
        "M7_P128K",
        "M7_P128K_CR8K",
    ];
    let cases: Vec<_> = names
        .iter()
        .map(|n| pass(format!("{dir}/{n}.nes")))
        .collect();
    run_suite("holy_mapperel", &cases);
}

/// The games have no result protocol: they get the smoke verdict (600 frames
/// without a jam, a picture, both engines identical).
#[test]
fn games_smoke_verdict() {
    run_suite(
        "games",
        &[
            "croom",
            "fff",
            "full_game",
            "hello_mmc3",
            "lunarlimit",
            "novathesquirrel",
            "robotfindskitten",
            "yun",
        ]
        .map(|g| pass(format!("games/{g}.nes"))),
    );
}

/// The grey band must be as tall as the DELAY the ROM prints, also after Up
/// (+10) and Down (-10) change it: the SNROM RAM enable follows PPU A12.
#[test]
fn mmc1_a12() {
    let rom = "mappers/mmc1_a12/mmc1_a12.nes";
    run_suite(
        "mmc1_a12",
        &[pass(rom), pass_holding(rom, 0x10), pass_holding(rom, 0x20)],
    );
}

/// `rom` with a NES 2.0 header naming `submapper`, written beside the test
/// binaries (the ROM directory is read-only).
fn as_submapper(rom: &str, submapper: u8) -> std::path::PathBuf {
    let mut bytes = std::fs::read(common::roms_root().join(rom)).expect("ROM reads");
    bytes[7] = (bytes[7] & 0xF0) | 0x08;
    bytes[8] = submapper << 4;
    bytes[9..16].fill(0);
    if bytes[5] == 0 {
        bytes[11] = 0x07; // 8 KiB of CHR RAM (64 << 7)
    }
    let name = std::path::Path::new(rom)
        .file_name()
        .unwrap()
        .to_string_lossy();
    let path = std::env::temp_dir().join(format!("nesprof-sub{submapper}-{name}"));
    std::fs::write(&path, bytes).expect("temporary ROM writes");
    path
}

/// Selected by its NES 2.0 submapper (1), the MMC6 runs the MMC3 IRQ tests
/// with the older revision's IRQ: the revision-A test passes and the
/// revision-B one fails, as on that chip.
#[test]
fn mmc6_by_submapper() {
    use nesprof::testrom::{run_test, Protocol, TestOptions};
    let dir = "mappers/mmc3_irq_tests";
    for (name, passes) in [("5.MMC3_rev_A.nes", true), ("6.MMC3_rev_B.nes", false)] {
        let rom = as_submapper(&format!("{dir}/{name}"), 1);
        let verdict = run_test(&rom, Protocol::ZeroPage(0xF8), &TestOptions::default()).unwrap();
        std::fs::remove_file(&rom).ok();
        assert_eq!(
            verdict.passed, passes,
            "{name} as MMC6: {}",
            verdict.message
        );
    }
}
