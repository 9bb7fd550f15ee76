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
