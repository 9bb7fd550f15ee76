//! Recorded input: FCEUX `.fm2` movies and how the machine replays them.
//!
//! - `fm2.rs`: the text format (TASVideos "FM2" page, FCEUX `movie.cpp`):
//!   header keys and the `|commands|RLDUTSBA|RLDUTSBA||` input log.
//! - `checksum.rs`: the ROM fingerprint a movie names (`romChecksum`).
//! - `ram_init.rs`: what FCEUX puts in memory at power-on (`RAMInitOption`).
//! - `playback.rs`: powering on and stepping the machine so that input line k
//!   reaches the game at the same point as in FCEUX (see that file for the
//!   frame-boundary mapping).
//!
//! Only standard controllers in ports 0 and 1 are supported (no Zapper, Four
//! Score, FDS or VS System commands, no movies that start from a savestate);
//! such movies are rejected with an error that names the header key.

mod checksum;
mod fm2;
mod playback;
mod ram_init;

use std::path::PathBuf;

pub use checksum::{format_checksum, parse_checksum, rom_checksum};
pub use fm2::{command, FrameInput, Header, Movie, PortDevice, MAX_FILE};
pub use playback::{power_on, Replay, FRAMES_AT_POWER_ON};
pub use ram_init::RamInit;

/// Why a movie could not be read or written. Messages name the file and, for
/// format problems, the line.
#[derive(Debug, thiserror::Error)]
pub enum MovieError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Format {
        path: String,
        line: usize,
        message: String,
    },
    #[error("{path}: {message}")]
    Unsupported { path: String, message: String },
}
