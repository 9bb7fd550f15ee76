//! CFG regression snapshots (issue 8): for each bundled workload (the
//! roms-test/ programs with their movies, 1 emulated minute), the truth's H90
//! and the hot CFG at the thesis' best configuration (10, 15, 13, 5) must
//! equal the records in tests/snapshots/ exactly: emulation, the sampler and
//! GFCGaussiano are all deterministic.
//!
//! A snapshot is a regression guard, not evidence of correctness (the truth
//! recorder and GFCGaussiano have hand-derived tests of their own). After an
//! intended change, re-record with `nesprof sweep --bless` or
//! `NESPROF_BLESS=1 cargo test --release --test sweep_snapshots`, and read the
//! printed diff before committing.

use std::path::Path;

use nesprof::sweep::snapshots;

#[test]
fn bundled_workloads_match_their_snapshots() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = snapshots::dir(repo);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let snaps = snapshots::compute(repo, threads).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(snaps.len(), 3 * nesprof::sweep::workloads::BUNDLED.len());
    let changes = snapshots::compare(&dir, &snaps);
    if snapshots::bless_requested() {
        for c in &changes {
            eprintln!("changed: {c}");
        }
        let written = snapshots::write(&dir, &snaps).unwrap_or_else(|e| panic!("{e}"));
        eprintln!(
            "{} blessed: wrote {} snapshot(s)",
            snapshots::BLESS_VAR,
            written.len()
        );
        return;
    }
    assert!(
        changes.is_empty(),
        "{} snapshot(s) differ:\n\n{}",
        changes.len(),
        changes.join("\n\n")
    );
}

/// The comparison reports a changed CFG as a readable edge diff, not as two
/// RON dumps: take a real snapshot, drop an edge, and look at the message.
#[test]
fn a_changed_snapshot_reads_as_a_cfg_diff() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = snapshots::dir(repo).join("cfgdemo.h90.ron");
    let expected = profiler::cfg_file::CfgFile::read(&path)
        .unwrap_or_else(|e| panic!("{e} (record it with `nesprof sweep --bless`)"));
    assert!(snapshots::mismatch(&expected, &expected).is_none());

    let mut changed = expected.clone();
    let gone = changed.cfg.edges()[0];
    changed.cfg.remove_edge(gone.src, gone.dst);
    let msg = snapshots::mismatch(&expected, &changed).expect("a difference");
    assert!(msg.contains("CFG differs"), "{msg}");
    assert!(
        msg.contains(&format!("${:04X}", gone.src)) && msg.contains(&format!("${:04X}", gone.dst)),
        "the diff names the missing edge: {msg}"
    );
    assert!(msg.contains("--bless"), "{msg}");
}
