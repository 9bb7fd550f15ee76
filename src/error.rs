//! The binary's error kinds and exit codes. Library crates have their own
//! `thiserror` enums; here, at the edge, errors travel as `anyhow` and the
//! one distinction that matters to the caller is made: input the user gave
//! us that we cannot use (exit code 2) versus everything else (1).

/// Exit code for bad arguments or bad input files (clap uses it for usage errors).
pub const EXIT_BAD_INPUT: u8 = 2;

/// Error for input the user gave us that we cannot use: exit code 2.
#[derive(Debug)]
pub struct BadInput(pub String);

impl std::fmt::Display for BadInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

/// Longest text quoted from a file or path in a one-line message.
const MAX_QUOTED_BYTES: usize = 240;

/// `text` fit for a one-line message on a terminal (control characters and
/// escape sequences escaped, at most [`MAX_QUOTED_BYTES`] bytes): a file
/// name or a field read from a file cannot break the line or drive the
/// terminal (see `emu::input_file::printable`).
pub fn printable(text: &str) -> String {
    emu::input_file::printable(text, MAX_QUOTED_BYTES)
}
