//! Frame-hash regression tests. Each entry is a screenshot someone looked at
//! and judged correct (games: their title screens; holy_mapperel: every board
//! detected with detail code 0000, cross-checked against FCEUX for NROM and
//! CNROM); the hash locks it. A mismatch writes the new frame to
//! `target/frame-diffs/` so it can be looked at before the table is updated.

mod common;

use emu::Nes;

/// (ROM below the ROM directory, frames from power-on, expected frame_hash).
const LOCKED: &[(&str, u64, &str)] = &[
    ("games/croom.nes", 300, "a5d50694fc6ee234"),
    ("games/fff.nes", 300, "045d33439600b5b8"),
    ("games/full_game.nes", 300, "1d8271137d0e5cbf"),
    ("games/hello_mmc3.nes", 300, "cde5bf24ada8a8d9"),
    ("games/lunarlimit.nes", 300, "345079e6dbbaf68d"),
    ("games/novathesquirrel.nes", 300, "9cf31be844dcbb0e"),
    ("games/robotfindskitten.nes", 300, "a58d9b263d0a8320"),
    ("games/yun.nes", 300, "efe8f827c1fd3516"),
    (
        "mappers/holy_mapperel/M0_P32K_C8K_V.nes",
        240,
        "93d30867a1c06785",
    ),
    (
        "mappers/holy_mapperel/M0_P32K_CR8K_V.nes",
        240,
        "7ee50b67eafedfdd",
    ),
    (
        "mappers/holy_mapperel/M1_P128K.nes",
        240,
        "36bf55e60742109f",
    ),
    (
        "mappers/holy_mapperel/M1_P128K_C128K.nes",
        240,
        "580ac343f837227f",
    ),
    (
        "mappers/holy_mapperel/M1_P128K_C128K_W8K.nes",
        240,
        "580ac343f837227f",
    ),
    (
        "mappers/holy_mapperel/M1_P128K_C32K.nes",
        240,
        "44a3939c54cc01c5",
    ),
    (
        "mappers/holy_mapperel/M1_P128K_C32K_S8K.nes",
        240,
        "44a3939c54cc01c5",
    ),
    (
        "mappers/holy_mapperel/M1_P128K_CR8K.nes",
        240,
        "914acc8ca289caaf",
    ),
    (
        "mappers/holy_mapperel/M1_P512K_S8K.nes",
        240,
        "117a1bfcdd42e7f7",
    ),
    (
        "mappers/holy_mapperel/M2_P128K_CR8K_V.nes",
        240,
        "b1f59d19a27847f5",
    ),
    (
        "mappers/holy_mapperel/M2_P128K_V.nes",
        240,
        "f8852c78035db5e5",
    ),
    (
        "mappers/holy_mapperel/M3_P32K_C32K_H.nes",
        240,
        "3a87c0b404417e97",
    ),
    (
        "mappers/holy_mapperel/M4_P128K.nes",
        240,
        "645eeddd42ed5ccd",
    ),
    (
        "mappers/holy_mapperel/M4_P128K_CR32K.nes",
        1200,
        "85d0576a4e935cb7",
    ),
    (
        "mappers/holy_mapperel/M4_P128K_CR8K.nes",
        240,
        "774b688e0f7faddd",
    ),
    (
        "mappers/holy_mapperel/M4_P256K_C256K.nes",
        240,
        "6a499f87ac2e2415",
    ),
    (
        "mappers/holy_mapperel/M7_P128K.nes",
        240,
        "e299f68240ece92f",
    ),
    (
        "mappers/holy_mapperel/M7_P128K_CR8K.nes",
        240,
        "31ee03631a4c613f",
    ),
];

#[test]
fn locked_frames_are_unchanged() {
    let root = common::roms_root();
    let diff_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/frame-diffs");
    let mut changed = Vec::new();
    for &(rom, frames, expected) in LOCKED {
        let mut nes = Nes::load(&root.join(rom)).unwrap_or_else(|e| panic!("{e}"));
        while nes.frame_count() < frames {
            nes.run_frame();
        }
        let got = format!("{:016x}", nes.frame_hash());
        if got != expected {
            std::fs::create_dir_all(&diff_dir).unwrap();
            let png = diff_dir.join(rom.replace('/', "_").replace(".nes", ".png"));
            nesprof::screenshot::save(&nes, &png).unwrap();
            changed.push(format!(
                "{rom} @ {frames}: expected {expected}, got {got} (frame in {})",
                png.display()
            ));
        }
    }
    println!(
        "{} locked frames checked, {} changed",
        LOCKED.len(),
        changed.len()
    );
    assert!(
        changed.is_empty(),
        "frames changed:\n{}",
        changed.join("\n")
    );
}

/// Catch-up scheduling must not change what is rendered: the same ROMs run
/// with the PPU synchronised on every CPU cycle give the same frames.
#[test]
fn catch_up_matches_cycle_by_cycle() {
    let root = common::roms_root();
    for &(rom, frames, _) in LOCKED.iter().step_by(3) {
        let bytes = std::fs::read(root.join(rom)).unwrap();
        let mut lazy = Nes::new(emu::Cartridge::from_bytes(&bytes).unwrap());
        let mut eager = Nes::new(emu::Cartridge::from_bytes(&bytes).unwrap());
        eager.set_eager_ppu(true);
        for _ in 0..frames.min(240) {
            lazy.run_frame();
            eager.run_frame();
            assert_eq!(
                lazy.frame_hash(),
                eager.frame_hash(),
                "{rom} frame {}",
                lazy.frame_count()
            );
            assert_eq!(lazy.cycles(), eager.cycles(), "{rom}");
        }
    }
}

/// MMC3 boards run the PPU lazily too, until the scanline IRQ could rise
/// (`Mapper::ppu_dots_before_irq`): hello_mmc3 replaying its movie (IRQ
/// splits, bank switches, input) and the MMC3 IRQ test ROMs give the same
/// frames, cycle counts and RAM as with the PPU caught up every cycle.
#[test]
fn mmc3_catch_up_matches_cycle_by_cycle() {
    use emu::movie::{Movie, Replay};
    let root = common::roms_root();
    let rom = std::fs::read(root.join("games/hello_mmc3.nes")).unwrap();
    let movie = Movie::load(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("movies/hello_mmc3.fm2"),
    )
    .unwrap();
    let replay = Replay::new(&rom, &movie).unwrap();
    let mut lazy = replay.power_on().unwrap();
    let mut eager = replay.power_on().unwrap();
    eager.set_eager_ppu(true);
    let frames = 3000;
    while lazy.frame_count() < frames {
        replay.apply(&mut lazy, frames).unwrap();
        replay.apply(&mut eager, frames).unwrap();
        lazy.run_frame();
        eager.run_frame();
        assert_eq!(
            (lazy.frame_hash(), lazy.cycles()),
            (eager.frame_hash(), eager.cycles()),
            "hello_mmc3 frame {}",
            lazy.frame_count()
        );
    }
    assert_eq!(lazy.ram_hash(), eager.ram_hash());
    for name in [
        "mappers/mmc3_irq_tests/1.Clocking.nes",
        "mappers/mmc3_irq_tests/2.Details.nes",
        "mappers/mmc3_irq_tests/3.A12_clocking.nes",
        "mappers/mmc3_irq_tests/4.Scanline_timing.nes",
        "mappers/mmc3_irq_tests/6.MMC3_rev_B.nes",
    ] {
        let bytes = std::fs::read(root.join(name)).unwrap();
        let mut lazy = Nes::new(emu::Cartridge::from_bytes(&bytes).unwrap());
        let mut eager = Nes::new(emu::Cartridge::from_bytes(&bytes).unwrap());
        eager.set_eager_ppu(true);
        for _ in 0..300 {
            lazy.run_frame();
            eager.run_frame();
            assert_eq!(
                (lazy.frame_hash(), lazy.cycles(), lazy.ram_hash()),
                (eager.frame_hash(), eager.cycles(), eager.ram_hash()),
                "{name} frame {}",
                lazy.frame_count()
            );
        }
    }
}
