//! Interpreter vs translator in lockstep (issue 6): registers, cycle counter
//! and bus-access count compared after every translator step, frames and RAM
//! after every frame. Any divergence fails with the instruction that caused it.

mod common;

use emu::sampling::{SampleCapture, Spacing};
use nesprof::lockstep::Lockstep;
use nesprof::testrom::nrom_with_code;

/// A deterministic button pattern that changes every few frames.
fn pad(frame: u64) -> u8 {
    let x = (frame / 7).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56;
    // Start now and then, so games leave their title screens.
    if frame % 97 < 3 {
        0x08
    } else {
        x as u8 & 0xF7
    }
}

fn check(path: &std::path::Path, frames: u64, single_step: bool) -> Result<u64, String> {
    let rom = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut pair = Lockstep::new(&rom, single_step)?;
    pair.run(frames, pad)
        .map_err(|e| format!("{}: {e}", path.display()))
}

fn run_all(label: &str, roms: &[std::path::PathBuf], frames: u64, single_step: bool) {
    let mut failures = Vec::new();
    let mut comparisons = 0;
    for rom in roms {
        match check(rom, frames, single_step) {
            Ok(n) => comparisons += n,
            Err(e) => failures.push(e),
        }
    }
    println!(
        "{label}: {} ROMs, {comparisons} comparisons, {} diverged",
        roms.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn manifest_roms(dirs: &[&str]) -> Vec<std::path::PathBuf> {
    let root = common::roms_root();
    let manifest = nesprof::testrom::Manifest::load(&root).unwrap();
    manifest
        .entries
        .iter()
        .filter(|e| e.path.ends_with(".nes") && dirs.iter().any(|d| e.path.starts_with(d)))
        .map(|e| root.join(&e.path))
        .collect()
}

#[test]
fn test_roms_block_mode() {
    let roms = manifest_roms(&["cpu/", "ppu/", "mappers/", "input/", "apu/"]);
    run_all("test ROMs", &roms, 240, false);
}

/// Frames of each workload's movie run in lockstep: the first 30 s of play
/// by default; `NESPROF_LOCKSTEP_FRAMES=18000` runs the whole movies (about
/// three minutes).
fn movie_frames() -> u64 {
    std::env::var("NESPROF_LOCKSTEP_FRAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1800)
}

/// (name, ROM, movie) of every bundled workload: each movie in movies/
/// whose ROM is in roms-test/ or the shared games (other movies are format
/// tests).
fn movie_workloads() -> Vec<(String, std::path::PathBuf, std::path::PathBuf)> {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for entry in std::fs::read_dir(repo.join("movies")).unwrap() {
        let movie_path = entry.unwrap().path();
        let Some(stem) = movie_path
            .file_stem()
            .filter(|_| movie_path.extension().is_some_and(|e| e == "fm2"))
            .map(|s| s.to_string_lossy().into_owned())
        else {
            continue;
        };
        let local = repo.join(format!("roms-test/{stem}.nes"));
        let rom_path = if local.exists() {
            local
        } else {
            common::roms_root().join(format!("games/{stem}.nes"))
        };
        if rom_path.exists() {
            out.push((stem, rom_path, movie_path));
        }
    }
    out
}

#[test]
fn workloads_with_their_movies() {
    let mut failures = Vec::new();
    let mut comparisons = 0;
    let mut count = 0;
    let frames = movie_frames();
    for (stem, rom_path, movie_path) in movie_workloads() {
        count += 1;
        let rom = std::fs::read(&rom_path).unwrap();
        let movie = emu::movie::Movie::load(&movie_path).unwrap();
        let replay = emu::movie::Replay::new(&rom, &movie).unwrap();
        let result = Lockstep::from_replay(&replay, false)
            .and_then(|mut pair| pair.run_replay(&replay, frames));
        match result {
            Ok(n) => comparisons += n,
            Err(e) => failures.push(format!("{stem} with its movie: {e}")),
        }
    }
    println!(
        "workloads: {count} movies x {frames} frames, {comparisons} comparisons, {} diverged",
        failures.len()
    );
    assert!(count >= 13, "every workload has a movie");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The workloads again with a pseudo-random pad (inputs no movie makes).
#[test]
fn workloads_with_random_input() {
    let mut roms = manifest_roms(&["games/"]);
    let rt = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("roms-test");
    for entry in std::fs::read_dir(&rt).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "nes") {
            roms.push(path);
        }
    }
    roms.sort();
    run_all("workloads", &roms, 600, false);
}

#[test]
fn single_instruction_mode() {
    let root = common::roms_root();
    let mut roms: Vec<_> = [
        "cpu/instr_test-v5/rom_singles/16-special.nes",
        "games/fff.nes",
        "games/hello_mmc3.nes",
    ]
    .iter()
    .map(|p| root.join(p))
    .collect();
    roms.push(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("roms-test/maze.nes"));
    run_all("single-instruction", &roms, 120, true);
}

/// The translator counts idle-loop iterations without running them, each as
/// long as the one just run. A DMC sample fetch steals cycles from one
/// iteration now and then: that iteration must not set the length of the
/// ones counted after it. Here the DMC loops a sample at its fastest rate
/// (a fetch every 432 cycles) under three idle loops, a JMP to itself, a
/// load-and-branch and a vblank poll, with samplers taking short batches
/// every few cycles (which the translator writes for the iterations it
/// skips).
#[test]
fn dmc_fetches_inside_idle_loops() {
    let setup: &[u8] = &[
        0x78, // SEI
        0xA9, 0x4F, 0x8D, 0x10, 0x40, // DMC: loop, rate 15 (fastest)
        0xA9, 0x00, 0x8D, 0x12, 0x40, // sample at $C000
        0xA9, 0xFF, 0x8D, 0x13, 0x40, // 4081 bytes
        0xA9, 0x10, 0x8D, 0x15, 0x40, // start it
    ];
    let jmp_self: &[u8] = &[0x4C, 0x15, 0x80]; // $8015: JMP $8015
    let lda_beq: &[u8] = &[0xA5, 0x00, 0xF0, 0xFC]; // $8015: LDA $00; BEQ $8015
                                                    // $8015: BIT $2002; BPL $8015; JMP $8015 (a vblank poll, again
                                                    // after each vblank).
    let vblank_poll: &[u8] = &[0x2C, 0x02, 0x20, 0x10, 0xFB, 0x4C, 0x15, 0x80];
    let cases = [
        ("JMP to itself", jmp_self),
        ("LDA/BEQ", lda_beq),
        ("BIT $2002/BPL", vblank_poll),
    ];
    // Batch lengths shorter than, equal to and far longer than an iteration.
    for ((name, idle), batch_len) in cases.into_iter().flat_map(|c| [(c, 1), (c, 3), (c, 40)]) {
        let name = format!("{name}, N = {batch_len}");
        let rom = nrom_with_code(&[setup, idle].concat());
        let mut pair = Lockstep::new(&rom, false).unwrap();
        for nes in [&mut pair.interp, &mut pair.translated] {
            let cycles = nes.cycles();
            nes.attach_sampler(SampleCapture::emulated(
                5,
                Spacing::Periodic,
                60,
                3,
                batch_len,
                cycles,
            ));
        }
        let comparisons = pair
            .run(30, |_| 0)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(comparisons > 0);
        let [a, b] = [&mut pair.interp, &mut pair.translated]
            .map(|nes| nes.sampler_mut().unwrap().take_batches());
        assert!(a.len() > 500, "{name}: {} batches", a.len());
        assert!(a == b, "{name}: the engines' batches differ");
    }
}

/// Hot regions (`run --regions net`) change nothing but speed: every
/// bundled workload replaying its movie ends with the same frame, RAM,
/// cycles and instructions with them as without, and on both engines'
/// lockstep (the interpreter against the translator with regions formed
/// at a head's first visit, compared after every run of blocks) for the
/// first 300 frames of each.
#[test]
fn hot_regions_change_nothing() {
    let (mut checked, mut with_regions) = (0, 0);
    for (stem, rom_path, movie_path) in movie_workloads() {
        let rom = std::fs::read(&rom_path).unwrap();
        let movie = emu::movie::Movie::load(&movie_path).unwrap();
        let replay = emu::movie::Replay::new(&rom, &movie).unwrap();
        let frames = replay.len().min(600);
        let end = |regions: emu::translate::region::RegionChoice| {
            let mut nes = replay.power_on().unwrap();
            nes.set_regions(regions);
            while nes.frame_count() < frames {
                replay.apply(&mut nes, frames).unwrap();
                if nes.frame_count() >= frames {
                    break;
                }
                nes.run_frame();
            }
            let state = (
                nes.frame_hash(),
                nes.ram_hash(),
                nes.cycles(),
                nes.retired(),
            );
            (state, nes.region_stats().ops)
        };
        let (plain, _) = end(emu::translate::region::RegionChoice::Off);
        let (hot, ops) = end(emu::translate::region::RegionChoice::NET);
        assert_eq!(plain, hot, "{stem}");
        with_regions += usize::from(ops > 0);
        let mut pair = Lockstep::from_replay(&replay, false).unwrap();
        pair.translated
            .set_regions(emu::translate::region::RegionChoice::Net { threshold: 0 });
        pair.run_replay(&replay, frames.min(300))
            .unwrap_or_else(|e| panic!("{stem}: {e}"));
        checked += 1;
    }
    assert!(checked >= 13, "every workload has a movie");
    assert!(
        with_regions * 2 > checked,
        "regions ran on {with_regions} of {checked} workloads"
    );
}

/// Idle-loop skipping changes nothing but speed: every bundled workload
/// replaying its movie ends with the same frame, RAM, cycles and
/// instructions with it switched off (`run --no-idle-skip`).
#[test]
fn idle_skipping_changes_nothing() {
    let mut checked = 0;
    for (stem, rom_path, movie_path) in movie_workloads() {
        let rom = std::fs::read(&rom_path).unwrap();
        let movie = emu::movie::Movie::load(&movie_path).unwrap();
        let replay = emu::movie::Replay::new(&rom, &movie).unwrap();
        let end = |skip: bool| {
            let mut nes = replay.power_on().unwrap();
            nes.set_idle_skip(skip);
            let frames = replay.len().min(600);
            while nes.frame_count() < frames {
                replay.apply(&mut nes, frames).unwrap();
                if nes.frame_count() >= frames {
                    break;
                }
                nes.run_frame();
            }
            (
                nes.frame_hash(),
                nes.ram_hash(),
                nes.cycles(),
                nes.retired(),
            )
        };
        assert_eq!(end(true), end(false), "{stem}");
        checked += 1;
    }
    assert!(checked >= 13, "every workload has a movie");
}
