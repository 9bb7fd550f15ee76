//! `nesprof profile --cdl`: the file is FCEUX's size (PRG then CHR ROM),
//! and both engines write the same one on bundled workloads. (The bit
//! layout itself is tested in `profiler/tests/cdl_layout.rs`.)

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("nesprof-cdl-{}-{name}", std::process::id()))
}

/// Profiles `rom` with `movie` for `frames` on `engine`, returning the
/// `.cdl` bytes.
fn profile_cdl(rom: &Path, movie: &Path, frames: u32, engine: &str) -> Vec<u8> {
    // Per run: the tests run at once, and two runs into one directory are
    // refused (its lock).
    let stem = format!("{}-{frames}", rom.file_stem().unwrap().to_string_lossy());
    let cdl = temp(&format!("{stem}-{engine}.cdl"));
    let out_dir = temp(&format!("{stem}-{engine}-out"));
    let out = Command::new(env!("CARGO_BIN_EXE_nesprof"))
        .arg("profile")
        .arg(rom)
        .arg("--movie")
        .arg(movie)
        .args(["--frames", &frames.to_string(), "--engine", engine])
        .arg("--out")
        .arg(&out_dir)
        .arg("--cdl")
        .arg(&cdl)
        .output()
        .expect("nesprof runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&cdl).expect("the .cdl was written");
    let _ = std::fs::remove_file(&cdl);
    let _ = std::fs::remove_dir_all(&out_dir);
    bytes
}

/// PRG and CHR ROM sizes from an iNES header (no NES 2.0 size extensions
/// in the ROMs used here).
fn rom_sizes(rom: &Path) -> (usize, usize) {
    let header = std::fs::read(rom).unwrap();
    (header[4] as usize * 0x4000, header[5] as usize * 0x2000)
}

#[test]
fn the_file_is_prg_then_chr_rom_sized() {
    let rom = root().join("roms-test/maze.nes");
    let (prg, chr) = rom_sizes(&rom);
    assert!(chr > 0, "maze has CHR ROM");
    let cdl = profile_cdl(&rom, &root().join("movies/maze.fm2"), 120, "interp");
    assert_eq!(cdl.len(), prg + chr);
    assert!(cdl[..prg].iter().any(|b| b & 0x01 != 0), "code logged");
    assert!(cdl[prg..].iter().any(|b| b & 0x01 != 0), "CHR drawn logged");
}

#[test]
fn both_engines_write_the_same_file() {
    let games = common::roms_root().join("games");
    let workloads = [
        (
            root().join("roms-test/maze.nes"),
            root().join("movies/maze.fm2"),
        ),
        (games.join("fff.nes"), root().join("movies/fff.fm2")),
    ];
    for (rom, movie) in workloads {
        let interp = profile_cdl(&rom, &movie, 600, "interp");
        let translate = profile_cdl(&rom, &movie, 600, "translate");
        let (prg, chr) = rom_sizes(&rom);
        assert_eq!(interp.len(), prg + chr, "{}", rom.display());
        let first_difference = interp.iter().zip(&translate).position(|(a, b)| a != b);
        assert_eq!(
            first_difference,
            None,
            "{}: the engines' logs differ",
            rom.display()
        );
        assert_eq!(interp.len(), translate.len());
        let data = interp[..prg].iter().filter(|b| *b & 0x02 != 0).count();
        assert!(data > 0, "{}: data reads logged", rom.display());
    }
}
