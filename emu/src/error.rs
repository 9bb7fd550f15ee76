//! The emulator crate's error type.

use std::path::PathBuf;
use thiserror::Error;

/// Everything that can go wrong loading or running a cartridge. Messages name the
/// file and the problem so the CLI can print them as they are.
#[derive(Debug, Error)]
pub enum EmuError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {problem}")]
    BadRom { path: PathBuf, problem: RomProblem },
}

/// Why a ROM image was rejected.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum RomProblem {
    #[error("not an iNES file (bad magic, expected \"NES\\x1A\")")]
    BadMagic,
    #[error("file is {len} bytes, shorter than the 16-byte iNES header")]
    TooShortForHeader { len: usize },
    #[error("truncated: header promises {expected} bytes of {what}, file has only {available}")]
    Truncated {
        what: &'static str,
        expected: usize,
        available: usize,
    },
    #[error("mapper {number} ({name}) is not supported")]
    UnsupportedMapper { number: u16, name: &'static str },
    #[error("no PRG ROM (header says 0 banks)")]
    NoPrgRom,
    #[error("{0}")]
    Invalid(String),
}

impl EmuError {
    pub fn bad_rom(path: impl Into<PathBuf>, problem: RomProblem) -> Self {
        EmuError::BadRom {
            path: path.into(),
            problem,
        }
    }
}
