//! AccuracyCoin (100thCoin, 141 tests verified on an RP2A03G/RP2C02G
//! console), judged by its own result bytes on both engines. Every test
//! must pass except the known failures below, each with its reason; a test
//! that passed before and fails now is a regression, and a known failure
//! that starts passing fails here too until it leaves the list, so the
//! count can only go up.

mod common;

use emu::nes::Engine;
use nesprof::testrom::accuracy_coin::{self, Outcome};

/// The tests that fail today, by name (as `tests.tsv` gives it), with the
/// error code they stop at and why (BENCHMARKS.md, "AccuracyCoin").
const KNOWN_FAILURES: &[(&str, u8, &str)] = &[];

fn check(engine: Engine) -> Result<usize, String> {
    let rom = common::roms_root().join("accuracy/AccuracyCoin/AccuracyCoin.nes");
    assert!(
        rom.is_file(),
        "CANNOT RUN: {} is missing (the shared ROMs' accuracy/ folder)",
        rom.display()
    );
    let report = accuracy_coin::run_rom(&rom, engine, accuracy_coin::MAX_FRAMES)?;
    let mut problems = Vec::new();
    for r in &report.results {
        let known = KNOWN_FAILURES.iter().find(|k| k.0 == r.test.name);
        match (r.outcome, known) {
            (Outcome::Pass, None) => {}
            (Outcome::Pass, Some(_)) => problems.push(format!(
                "{}: passes now: remove it from KNOWN_FAILURES",
                r.test.name
            )),
            (Outcome::Fail(code), Some(&(_, known_code, _))) if code == known_code => {}
            (Outcome::Fail(code), Some(&(_, known_code, _))) => problems.push(format!(
                "{}: fails with error {code}, known to fail with {known_code}",
                r.test.name
            )),
            (Outcome::Fail(code), None) => problems.push(format!(
                "{}: FAIL (error {code}): a regression",
                r.test.name
            )),
            (Outcome::NotRun, _) => problems.push(format!("{}: not run", r.test.name)),
        }
    }
    for (name, _, _) in KNOWN_FAILURES {
        if !report.results.iter().any(|r| r.test.name == *name) {
            problems.push(format!("{name}: in KNOWN_FAILURES but not in tests.tsv"));
        }
    }
    println!(
        "AccuracyCoin on the {engine:?}: {} of {} passed ({} known failures)",
        report.passed(),
        report.results.len(),
        KNOWN_FAILURES.len()
    );
    if problems.is_empty() {
        Ok(report.passed())
    } else {
        Err(problems.join("\n"))
    }
}

#[test]
fn every_test_passes_but_the_known_failures_on_both_engines() {
    let interp = check(Engine::Interpreter).unwrap_or_else(|e| panic!("interpreter:\n{e}"));
    let translated = check(Engine::Translator).unwrap_or_else(|e| panic!("translator:\n{e}"));
    assert_eq!(interp, translated, "the engines pass different counts");
    assert_eq!(interp, 141 - KNOWN_FAILURES.len());
}
