//! The lines scripts read from stdout: every subcommand ends with one
//! (`key=value` fields, fixed by DESIGN.md's CLI contract), written here.

use std::io::Write;

/// Prints a line to stdout. When the reader has gone away (`nesprof ... |
/// head`), exits quietly with the conventional SIGPIPE status instead of
/// panicking as `println!` would.
pub fn emit(line: &str) {
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{line}").and_then(|_| out.flush()).is_err() {
        std::process::exit(141);
    }
}
