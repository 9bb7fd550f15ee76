//! `nesprof test`: runs test ROMs by their result protocol and prints one
//! `PASS name` / `FAIL name: message` line each (AccuracyCoin's followed by
//! its per-test table), then the totals.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::emit::emit;
use crate::error::{BadInput, EXIT_BAD_INPUT};
use crate::open::check_rom_checksum;
use crate::testrom::{self, accuracy_coin, Manifest, Protocol, TestOptions};

#[derive(Debug, Args)]
pub struct TestArgs {
    /// Test ROMs to run. A directory runs every manifest ROM below it.
    #[arg(required = true)]
    pub roms: Vec<PathBuf>,
    /// Result protocol, overriding the manifest: blargg-6000, nestest-log,
    /// zp-F0, zp-F8, screen, none (a game's smoke test) or accuracycoin.
    #[arg(long)]
    pub protocol: Option<Protocol>,
    /// Buttons held on controller 1 from power-on, e.g. "B" or "A+START".
    #[arg(long, value_parser = parse_buttons, default_value = "")]
    pub hold: u8,
    /// Replay this FCEUX movie into each ROM (for tests that ask for input).
    #[arg(long, value_name = "F.fm2")]
    pub movie: Option<PathBuf>,
    /// With --movie: replay even if the movie's romChecksum names another
    /// ROM (normally an error, since the replay would desync); only a
    /// warning is printed. For hacks or re-dumps known to be compatible.
    #[arg(long)]
    pub ignore_rom_mismatch: bool,
    /// Give up on a ROM after this many frames, 1 to 100000000
    /// (AccuracyCoin's run of every test gets at least 20000).
    #[arg(long, default_value_t = TestOptions::default().max_frames, value_parser = crate::options::frames())]
    pub max_frames: u64,
    /// Also print what passing ROMs reported.
    #[arg(long, short)]
    pub verbose: bool,
    /// CPU engine the ROMs run on: the dynamic translator (default) or the
    /// interpreter.
    #[arg(long, value_parser = crate::options::engine(), default_value = "translate")]
    pub engine: emu::nes::Engine,
    /// Directory holding MANIFEST.tsv (default: $NESPROF_ROMS or ../shared/roms).
    #[arg(long)]
    pub roms_dir: Option<PathBuf>,
}

/// Parses "A+B+START"-style button lists into the controller bit mask.
pub fn parse_buttons(text: &str) -> Result<u8, String> {
    use emu::controller::buttons::*;
    let mut mask = 0;
    for name in text
        .split(['+', ','])
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        mask |= match name.to_ascii_uppercase().as_str() {
            "A" => A,
            "B" => B,
            "SELECT" => SELECT,
            "START" => START,
            "UP" => UP,
            "DOWN" => DOWN,
            "LEFT" => LEFT,
            "RIGHT" => RIGHT,
            other => {
                return Err(format!(
                    "unknown button `{other}` (A, B, SELECT, START, UP, DOWN, LEFT, RIGHT)"
                ))
            }
        };
    }
    Ok(mask)
}

/// Expands directories into the manifest ROMs below them, in manifest order.
fn expand(roms: &[PathBuf], manifest: &Manifest) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for rom in roms {
        if rom.is_dir() {
            let dir = rom.canonicalize()?;
            let mut found: Vec<PathBuf> = manifest
                .entries
                .iter()
                .filter(|e| e.path.ends_with(".nes"))
                .map(|e| manifest.root.join(&e.path))
                .filter(|p| {
                    p.canonicalize()
                        .map(|c| c.starts_with(&dir))
                        .unwrap_or(false)
                })
                .collect();
            if found.is_empty() {
                return Err(BadInput(format!(
                    "{}: no manifest ROMs in this directory",
                    rom.display()
                ))
                .into());
            }
            found.sort();
            out.extend(found);
        } else {
            out.push(rom.clone());
        }
    }
    Ok(out)
}

pub fn run(args: TestArgs) -> anyhow::Result<ExitCode> {
    let root = args.roms_dir.clone().unwrap_or_else(testrom::roms_dir);
    let manifest = Manifest::load(&root).map_err(BadInput)?;
    let roms = expand(&args.roms, &manifest)?;
    let movie = match &args.movie {
        Some(path) => Some(std::sync::Arc::new(
            emu::movie::Movie::load(path).map_err(|e| BadInput(e.to_string()))?,
        )),
        None => None,
    };
    let options = TestOptions {
        buttons: args.hold,
        max_frames: args.max_frames,
        movie: movie.clone(),
        engine: args.engine,
    };
    let (mut passed, mut failed, mut unreadable) = (0, 0, 0);
    for rom in &roms {
        let name = testrom::display_name(rom, &manifest);
        if let (Some(movie), Some(path)) = (&movie, &args.movie) {
            if let Ok(bytes) = crate::open::read_rom(rom) {
                check_rom_checksum(movie, path, rom, &bytes, args.ignore_rom_mismatch)?;
            }
        }
        let protocol = match args
            .protocol
            .or_else(|| manifest.find(rom).map(|e| e.protocol))
        {
            Some(p) => p,
            None => {
                emit(&format!(
                    "FAIL {name}: not in {}; pass --protocol",
                    root.join("MANIFEST.tsv").display()
                ));
                failed += 1;
                unreadable += 1;
                continue;
            }
        };
        if protocol == Protocol::AccuracyCoin {
            // A suite on one cartridge: its verdict, then its own table.
            match accuracy_coin::run_rom(rom, args.engine, args.max_frames) {
                Ok(report) => {
                    let v = report.verdict();
                    if v.passed {
                        passed += 1;
                        emit(&format!("PASS {name}: {}", v.message));
                    } else {
                        failed += 1;
                        emit(&format!("FAIL {name}: {}", v.message));
                    }
                    for line in report.table() {
                        emit(&line);
                    }
                }
                Err(e) => {
                    failed += 1;
                    unreadable += 1;
                    emit(&format!("FAIL {name}: {e}"));
                }
            }
            continue;
        }
        match testrom::run_test(rom, protocol, &options) {
            Ok(v) if v.passed => {
                passed += 1;
                if args.verbose {
                    emit(&format!("PASS {name}: {} ({} frames)", v.message, v.frames));
                } else {
                    emit(&format!("PASS {name}"));
                }
            }
            Ok(v) => {
                failed += 1;
                emit(&format!("FAIL {name}: {}", v.message));
            }
            Err(e) => {
                failed += 1;
                unreadable += 1;
                emit(&format!("FAIL {name}: {e}"));
            }
        }
    }
    emit(&format!("{passed} passed, {failed} failed"));
    Ok(if unreadable > 0 {
        ExitCode::from(EXIT_BAD_INPUT)
    } else if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
