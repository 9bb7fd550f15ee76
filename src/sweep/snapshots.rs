//! CFG regression snapshots: for each bundled workload, the truth's H90, the
//! hot CFG at the thesis' best configuration and the trace builder's hot
//! CFG, as CFG records (versioned
//! RON with sorted blocks and edges, and the disassembly) in
//! `tests/snapshots/`.
//!
//! The run is [`SNAPSHOT_MINUTES`] of emulated time (not the movies' full 5
//! minutes) with the default sampler (emulated trigger, X = 3 ms, N = 25) and
//! the translator engine, to keep the test suite fast; emulation is
//! deterministic, so a rerun must reproduce the files exactly. What a snapshot
//! proves: that nothing changed, not that the CFG is right (the truth
//! recorder and GFCGaussiano have their own hand-checked tests).
//!
//! Re-record after an intended change with `nesprof sweep --bless` or
//! `NESPROF_BLESS=1 cargo test --release --test sweep_snapshots`.

use std::path::{Path, PathBuf};

use profiler::cfg_file::CfgFile;
use profiler::session::ProfileSettings;

use super::run::{self, Quiet};
use super::workloads;

/// Emulated minutes per workload in the snapshots.
pub const SNAPSHOT_MINUTES: f64 = 1.0;

/// The environment variable that makes the snapshot test rewrite the files.
pub const BLESS_VAR: &str = "NESPROF_BLESS";

/// One snapshot file's content.
pub struct Snapshot {
    /// File name inside the snapshot directory.
    pub file: String,
    pub record: CfgFile,
}

/// `tests/snapshots` of the repository at `repo`.
pub fn dir(repo: &Path) -> PathBuf {
    repo.join("tests").join("snapshots")
}

/// Whether `NESPROF_BLESS` asks for re-recording (any value but "" and "0").
pub fn bless_requested() -> bool {
    std::env::var(BLESS_VAR).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Runs the bundled workloads of `repo` and returns their snapshots, three
/// per workload in workload order.
pub fn compute(repo: &Path, threads: usize) -> Result<Vec<Snapshot>, String> {
    let list: Vec<_> = workloads::bundled(repo);
    let outcome = run::sweep(
        &list,
        &[],
        Some(SNAPSHOT_MINUTES),
        &ProfileSettings::default(),
        threads,
        &Quiet,
    );
    let problems: Vec<String> = outcome.skipped.into_iter().chain(outcome.failed).collect();
    if !problems.is_empty() {
        return Err(problems.join("\n"));
    }
    Ok(outcome
        .results
        .into_iter()
        .flat_map(|r| {
            [
                Snapshot {
                    file: format!("{}.h90.ron", r.name),
                    record: r.h90_record,
                },
                Snapshot {
                    file: format!("{}.hot_thesis_best.ron", r.name),
                    record: r.best_record,
                },
                Snapshot {
                    file: format!("{}.hot_trace.ron", r.name),
                    record: r.trace_record,
                },
            ]
        })
        .collect())
}

/// Writes every snapshot into `dir` (created if needed); returns the paths.
pub fn write(dir: &Path, snaps: &[Snapshot]) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    snaps
        .iter()
        .map(|s| {
            let path = dir.join(&s.file);
            s.record.write(&path).map_err(|e| e.to_string())?;
            Ok(path)
        })
        .collect()
}

/// Compares every snapshot with its file; returns one readable report per
/// mismatch (empty when all match).
pub fn compare(dir: &Path, snaps: &[Snapshot]) -> Vec<String> {
    snaps
        .iter()
        .filter_map(|s| {
            let path = dir.join(&s.file);
            let expected = match CfgFile::read(&path) {
                Ok(r) => r,
                Err(e) => return Some(format!("{e}\n(record it with `nesprof sweep --bless`)")),
            };
            mismatch(&expected, &s.record).map(|m| format!("{}: {m}", path.display()))
        })
        .collect()
}

/// What differs between a stored record and a fresh one, or `None`.
pub fn mismatch(expected: &CfgFile, actual: &CfgFile) -> Option<String> {
    let mut out = Vec::new();
    for (field, a, b) in [
        ("kind", &expected.kind, &actual.kind),
        ("rom_name", &expected.rom_name, &actual.rom_name),
        ("rom_hash", &expected.rom_hash, &actual.rom_hash),
    ] {
        if a != b {
            out.push(format!("{field}: snapshot {a:?}, this run {b:?}"));
        }
    }
    if expected.frames != actual.frames {
        out.push(format!(
            "frames: snapshot {}, this run {}",
            expected.frames, actual.frames
        ));
    }
    if expected.cfg != actual.cfg {
        let d = profiler::diff::diff(&expected.cfg, &actual.cfg);
        // Interrupt counts are not part of the edge diff; say so if they are
        // all that differs.
        let text = if d.is_empty() {
            format!(
                "interrupt counts differ: snapshot {:?}, this run {:?}\n",
                expected.cfg.interrupts(),
                actual.cfg.interrupts()
            )
        } else {
            profiler::diff::report(&d, "the snapshot", "this run", 25)
        };
        out.push(format!("CFG differs:\n{text}"));
    }
    if expected.disasm != actual.disasm {
        let changed: Vec<String> = expected
            .disasm
            .iter()
            .filter(|(a, t)| actual.disasm.get(a) != Some(t))
            .chain(
                actual
                    .disasm
                    .iter()
                    .filter(|(a, _)| !expected.disasm.contains_key(a)),
            )
            .take(10)
            .map(|(a, _)| {
                format!(
                    "  ${a:04X}: {:?} -> {:?}",
                    expected.disasm.get(a),
                    actual.disasm.get(a)
                )
            })
            .collect();
        out.push(format!("disassembly differs:\n{}", changed.join("\n")));
    }
    (!out.is_empty()).then(|| {
        format!(
            "{}\n(if the change is intended, re-record with `nesprof sweep --bless` or {BLESS_VAR}=1)",
            out.join("\n")
        )
    })
}
