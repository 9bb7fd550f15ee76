//! The lines scripts read from stdout: every subcommand ends with one
//! (`key=value` fields, fixed by DESIGN.md's CLI contract), written here.

use std::io::Write;

use gfc::Metrics;

/// Prints a line to stdout. When the reader has gone away (`nesprof ... |
/// head`), exits quietly with the conventional SIGPIPE status instead of
/// panicking as `println!` would.
pub fn emit(line: &str) {
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{line}").and_then(|_| out.flush()).is_err() {
        std::process::exit(141);
    }
}

/// `profile`'s last line (and `cfg build`'s): the DESIGN.md fields in
/// their order, then the fields added since, appended.
pub fn metric_line(m: &Metrics, frame_hash: u64) -> String {
    format!(
        "similarity={:.4} precision={:.4} weighted={:.4} overlap={:.4} sampled_pct={:.4} edges_g={} edges_h90={} frame_hash={:016x} similarity99={:.4} edges_h99={} hot_precision={:.4}",
        m.similarity,
        m.precision,
        m.weighted,
        m.overlap,
        m.sampled_pct,
        m.edges_g,
        m.edges_h90,
        frame_hash,
        m.similarity99,
        m.edges_h99,
        m.hot_precision
    )
}
