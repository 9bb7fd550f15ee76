//! Opening a ROM for a run, with or without an FCEUX movie to replay, and
//! powering a machine on for recording one. Every subcommand that runs a ROM
//! comes through here, so the file is read once and every failure is a
//! [`BadInput`] naming the file.

use std::path::Path;

use emu::movie::{self, Movie, MovieError, Replay};
use emu::{Cartridge, EmuError, Nes};

use crate::error::BadInput;

/// A ROM ready to run.
pub struct Opened {
    /// Powered on: as FCEUX does for movies when there is one, else as the
    /// console does.
    pub nes: Nes,
    /// The movie's input, if one was given.
    pub replay: Option<Replay>,
    /// The ROM file's bytes (for hashes and headers).
    pub rom: Vec<u8>,
}

fn movie_error(e: MovieError) -> anyhow::Error {
    BadInput(e.to_string()).into()
}

fn rom_error(e: EmuError) -> anyhow::Error {
    BadInput(e.to_string()).into()
}

/// Opens `rom`, and `movie` for replay if given (see [`load_replay`];
/// `allow_rom_mismatch` is `--ignore-rom-mismatch`).
pub fn open(rom: &Path, movie: Option<&Path>, allow_rom_mismatch: bool) -> anyhow::Result<Opened> {
    match movie {
        Some(movie) => {
            let (nes, replay, _, bytes) = replay_parts(rom, movie, allow_rom_mismatch)?;
            Ok(Opened {
                nes,
                replay: Some(replay),
                rom: bytes,
            })
        }
        None => {
            let bytes = read_rom(rom)?;
            let cart =
                Cartridge::from_bytes(&bytes).map_err(|p| rom_error(EmuError::bad_rom(rom, p)))?;
            Ok(Opened {
                nes: Nes::new(cart),
                replay: None,
                rom: bytes,
            })
        }
    }
}

/// Loads a ROM, powered on as the console does.
pub fn load_rom(path: &Path) -> anyhow::Result<Nes> {
    Ok(open(path, None, false)?.nes)
}

/// Reads a ROM file's bytes, refusing anything but a regular file of at
/// most [`emu::rom::MAX_FILE`]; errors name the file.
pub fn read_rom(path: &Path) -> anyhow::Result<Vec<u8>> {
    emu::input_file::read_limited(path, emu::rom::MAX_FILE).map_err(|source| {
        rom_error(EmuError::Io {
            path: path.to_path_buf(),
            source,
        })
    })
}

/// The checksum-mismatch warning, naming both sides; `None` if they match or
/// the movie names no checksum.
pub fn checksum_warning(
    movie: &Movie,
    movie_path: &Path,
    rom: &Path,
    rom_bytes: &[u8],
) -> Option<String> {
    let expected = movie.header.rom_checksum?;
    let actual = movie::rom_checksum(rom_bytes).ok()?;
    (expected != actual).then(|| {
        format!(
            "warning: {} was recorded with ROM {} (romChecksum {}), but {} has checksum {}; playback may desync",
            movie_path.display(),
            if movie.header.rom_filename.is_empty() {
                "(unnamed)".to_string()
            } else {
                emu::input_file::shorten(&movie.header.rom_filename)
            },
            movie::format_checksum(&expected),
            rom.display(),
            movie::format_checksum(&actual)
        )
    })
}

/// Refuses a movie recorded with another ROM (its `romChecksum` differs
/// from `rom_bytes`'): a [`BadInput`] naming both checksums. Replaying it
/// would desync within frames and give results that look valid, so this is
/// an error; `allow` (`--ignore-rom-mismatch`, for a hacked or re-dumped ROM
/// known to be compatible) turns it back into the warning on stderr.
pub fn check_rom_checksum(
    movie: &Movie,
    movie_path: &Path,
    rom: &Path,
    rom_bytes: &[u8],
    allow: bool,
) -> anyhow::Result<()> {
    let Some(warning) = checksum_warning(movie, movie_path, rom, rom_bytes) else {
        return Ok(());
    };
    if allow {
        crate::notice::later(&warning);
        return Ok(());
    }
    let expected = movie.header.rom_checksum.unwrap_or_default();
    let actual = movie::rom_checksum(rom_bytes).unwrap_or_default();
    Err(BadInput(format!(
        "{}: recorded with a ROM of checksum {}, but {} has checksum {} (--ignore-rom-mismatch replays it anyway)",
        movie_path.display(),
        movie::format_checksum(&expected),
        rom.display(),
        movie::format_checksum(&actual)
    ))
    .into())
}

/// Loads a ROM and a movie for replay, and powers the machine on as FCEUX
/// does for movies. A movie made with another ROM is an error unless
/// `allow_rom_mismatch` (see [`check_rom_checksum`]).
pub fn load_replay(
    rom: &Path,
    movie_path: &Path,
    allow_rom_mismatch: bool,
) -> anyhow::Result<(Nes, Replay, Movie)> {
    let (nes, replay, movie, _) = replay_parts(rom, movie_path, allow_rom_mismatch)?;
    Ok((nes, replay, movie))
}

fn replay_parts(
    rom: &Path,
    movie_path: &Path,
    allow_rom_mismatch: bool,
) -> anyhow::Result<(Nes, Replay, Movie, Vec<u8>)> {
    let rom_bytes = read_rom(rom)?;
    let movie = Movie::load(movie_path).map_err(movie_error)?;
    check_rom_checksum(&movie, movie_path, rom, &rom_bytes, allow_rom_mismatch)?;
    let replay =
        Replay::new(&rom_bytes, &movie).map_err(|p| rom_error(EmuError::bad_rom(rom, p)))?;
    let nes = replay
        .power_on()
        .map_err(|p| rom_error(EmuError::bad_rom(rom, p)))?;
    Ok((nes, replay, movie, rom_bytes))
}

/// A fresh movie header for recording play of `rom` (file bytes given).
pub fn new_movie_header(
    rom: &Path,
    rom_bytes: &[u8],
    guid_seed: u64,
    comment: String,
) -> movie::Header {
    movie::Header {
        rom_filename: rom
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        rom_checksum: movie::rom_checksum(rom_bytes).ok(),
        guid: guid_from(guid_seed),
        comments: vec![comment],
        ..movie::Header::default()
    }
}

/// A GUID-shaped string (FCEUX's `8-4-4-4-12` hex) derived from `seed`, so a
/// generated movie is the same file every time.
fn guid_from(seed: u64) -> String {
    let a = emu::hash::fnv1a64(&seed.to_le_bytes());
    let b = emu::hash::fnv1a64(&a.to_le_bytes());
    format!(
        "{:08X}-{:04X}-{:04X}-{:04X}-{:012X}",
        a >> 32,
        (a >> 16) & 0xFFFF,
        a & 0xFFFF,
        b >> 48,
        b & 0xFFFF_FFFF_FFFF
    )
}

/// Powers on a machine for recording (FCEUX's movie power-on) from ROM bytes.
pub fn power_on_for_recording(rom: &Path, rom_bytes: &[u8]) -> anyhow::Result<Nes> {
    let cart =
        Cartridge::from_bytes(rom_bytes).map_err(|p| rom_error(EmuError::bad_rom(rom, p)))?;
    Ok(movie::power_on(cart, movie::RamInit::default()))
}
