//! Runs third-party test ROMs and reads their verdicts. Each ROM reports in one
//! of a few "result protocols" (see `../shared/roms/README.md`); the manifest
//! says which one a ROM uses.

pub mod accuracy_coin;
mod dmc_audio;
mod game;
mod holy_mapperel;
mod manifest;
mod mmc1_a12;
mod nrom;
mod prompts;
mod protocols;
mod scanline_stars;
mod screen;
mod visual;

use std::fmt;
use std::path::Path;
use std::str::FromStr;

pub use manifest::{roms_dir, Manifest, ManifestEntry};
pub use nrom::nrom_with_code;
pub use protocols::run_test;
pub use screen::screen_text;

/// How a test ROM reports its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// Status at $6000 once $6001-$6003 hold DE B0 61; text from $6004.
    Blargg6000,
    /// Trace from $C000 compared with the ROM's `.log` file (nestest).
    NestestLog,
    /// Result code in zero page ($F0 or $F8) once the ROM parks in its final
    /// `JMP *` loop: 1 = passed.
    ZeroPage(u8),
    /// Pass/fail words in the on-screen text.
    Screen,
    /// No result of its own (games): judged by [`game`]'s smoke test.
    None,
    /// AccuracyCoin: Start runs every test, each writing its result byte
    /// in $0400-$04FF ([`accuracy_coin`]).
    AccuracyCoin,
}

impl FromStr for Protocol {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "blargg-6000" => Ok(Protocol::Blargg6000),
            "nestest-log" => Ok(Protocol::NestestLog),
            "zp-F0" | "zp-f0" => Ok(Protocol::ZeroPage(0xF0)),
            "zp-F8" | "zp-f8" => Ok(Protocol::ZeroPage(0xF8)),
            "screen" => Ok(Protocol::Screen),
            "none" => Ok(Protocol::None),
            "accuracycoin" => Ok(Protocol::AccuracyCoin),
            other => Err(format!(
                "unknown result protocol `{other}` (expected blargg-6000, nestest-log, zp-F0, zp-F8, screen, none or accuracycoin)"
            )),
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Protocol::Blargg6000 => write!(f, "blargg-6000"),
            Protocol::NestestLog => write!(f, "nestest-log"),
            Protocol::ZeroPage(addr) => write!(f, "zp-{addr:02X}"),
            Protocol::Screen => write!(f, "screen"),
            Protocol::None => write!(f, "none"),
            Protocol::AccuracyCoin => write!(f, "accuracycoin"),
        }
    }
}

/// Knobs for a test run.
#[derive(Debug, Clone)]
pub struct TestOptions {
    /// Buttons held on controller 1 from power-on (some ROMs read them at boot).
    pub buttons: u8,
    /// Give up after this many frames of emulated time.
    pub max_frames: u64,
    /// Input to replay (FCEUX movie), for ROMs that ask for button presses.
    /// The machine then powers on as FCEUX does for movies.
    pub movie: Option<std::sync::Arc<emu::movie::Movie>>,
    /// The CPU engine the ROM runs on.
    pub engine: emu::nes::Engine,
}

impl Default for TestOptions {
    fn default() -> Self {
        TestOptions {
            buttons: 0,
            max_frames: 60 * 60,
            movie: None,
            engine: emu::nes::Engine::Translator,
        }
    }
}

/// The outcome of one test ROM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub passed: bool,
    /// Why it failed, or what it printed when it passed.
    pub message: String,
    pub frames: u64,
}

/// A short display name for a ROM: its path below the ROM directory if it is
/// there, else the path as given.
pub fn display_name(rom: &Path, manifest: &Manifest) -> String {
    manifest
        .find(rom)
        .map(|e| e.path.clone())
        .unwrap_or_else(|| rom.display().to_string())
}
