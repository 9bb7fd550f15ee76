//! 100thCoin's AccuracyCoin, judged by its own results: one NROM cartridge
//! of 141 scored tests (verified on an RP2A03G/RP2C02G console). On its
//! menu, Start on the page index runs every test and writes one result
//! byte per test in $0400-$04FF: low two bits 1 = pass, 2 = fail with the
//! error code in bits 2-7 (its source's `TEST_Fail`), 0 = not run yet.
//! Which byte is which test is in `tests.tsv` beside the ROM (address,
//! page, name); the suite's run is over when every listed byte holds a
//! result.

use std::path::Path;

use emu::nes::Engine;
use emu::Nes;

use super::Verdict;

/// Frames on the menu before Start is pressed (the ROM draws its menu
/// and starts reading the controller well within a second).
const MENU_FRAMES: u64 = 60;
/// Frames Start is held.
const PRESS_FRAMES: u64 = 5;
/// The fewest frames the run of every test is given (`nesprof test
/// --max-frames` may give more): the results stop changing after about
/// 3,700 frames (the ROM directory's README), and a test that hangs is
/// reported by name as not run.
pub const MAX_FRAMES: u64 = 20_000;
/// The controller's Start bit.
const START: u8 = 0x08;

/// One test, as `tests.tsv` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestInfo {
    /// Where its result byte is.
    pub addr: u16,
    pub page: String,
    pub name: String,
}

/// What a test's result byte says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    /// Failed with the suite's error code.
    Fail(u8),
    /// No result written (the run did not reach it).
    NotRun,
}

/// One test's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestResult {
    pub test: TestInfo,
    pub outcome: Outcome,
}

/// The suite's results on one engine.
#[derive(Debug, Clone)]
pub struct Report {
    pub results: Vec<TestResult>,
    /// Frames run in all.
    pub frames: u64,
}

impl Report {
    pub fn passed(&self) -> usize {
        self.results
            .iter()
            .filter(|r| r.outcome == Outcome::Pass)
            .count()
    }

    /// The verdict `nesprof test` prints on its one line: every test must
    /// pass.
    pub fn verdict(&self) -> Verdict {
        let total = self.results.len();
        let passed = self.passed();
        let mut message = format!("{passed} of {total} tests passed");
        let failing: Vec<String> = self
            .results
            .iter()
            .filter_map(|r| match r.outcome {
                Outcome::Pass => None,
                Outcome::Fail(code) => Some(format!("{} (error {code})", r.test.name)),
                Outcome::NotRun => Some(format!("{} (not run)", r.test.name)),
            })
            .collect();
        if !failing.is_empty() {
            message += &format!("; failing: {}", failing.join(", "));
        }
        Verdict {
            passed: passed == total && total > 0,
            message,
            frames: self.frames,
        }
    }

    /// The per-test table, one line per test in the suite's order.
    pub fn table(&self) -> Vec<String> {
        self.results
            .iter()
            .map(|r| {
                let outcome = match r.outcome {
                    Outcome::Pass => "PASS".to_string(),
                    Outcome::Fail(code) => format!("FAIL {code}"),
                    Outcome::NotRun => "NOT RUN".to_string(),
                };
                format!(
                    "  ${:04X} {:<8} {:<18} {}",
                    r.test.addr, outcome, r.test.page, r.test.name
                )
            })
            .collect()
    }
}

/// Reads `tests.tsv` beside `rom`.
pub fn load_tests(rom: &Path) -> Result<Vec<TestInfo>, String> {
    let path = rom.with_file_name("tests.tsv");
    let limit = emu::input_file::SizeLimit {
        bytes: 1 << 20,
        what: "AccuracyCoin's test list (1 MiB)",
    };
    let text = emu::input_file::read_limited_text(&path, limit)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let mut tests = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let bad = || format!("{}:{}: expected addr, page, name", path.display(), i + 1);
        let (addr, page, name) = match fields.as_slice() {
            [addr, page, name, ..] => (*addr, *page, *name),
            _ => return Err(bad()),
        };
        let addr = u16::from_str_radix(addr.trim_start_matches('$'), 16).map_err(|_| bad())?;
        if !(0x0400..=0x04FF).contains(&addr) {
            return Err(format!(
                "{}:{}: result address ${addr:04X} outside $0400-$04FF",
                path.display(),
                i + 1
            ));
        }
        tests.push(TestInfo {
            addr,
            page: page.to_string(),
            name: name.to_string(),
        });
    }
    if tests.is_empty() {
        return Err(format!("{}: no tests listed", path.display()));
    }
    Ok(tests)
}

/// The outcome a result byte gives.
pub fn outcome(byte: u8) -> Outcome {
    match byte & 3 {
        1 => Outcome::Pass,
        2 => Outcome::Fail(byte >> 2),
        _ => Outcome::NotRun,
    }
}

/// Runs every test on `nes` (powered on with the ROM): the menu, Start,
/// then frames until every test of `tests` has a result or
/// `max_frames` (at least [`MAX_FRAMES`]) have run in all.
pub fn run(nes: &mut Nes, tests: &[TestInfo], max_frames: u64) -> Report {
    let max_frames = max_frames.max(MAX_FRAMES);
    let mut frames = 0;
    for _ in 0..MENU_FRAMES {
        nes.run_frame();
        frames += 1;
    }
    nes.set_buttons(0, START);
    for _ in 0..PRESS_FRAMES {
        nes.run_frame();
        frames += 1;
    }
    nes.set_buttons(0, 0);
    let done = |nes: &Nes| {
        tests
            .iter()
            .all(|t| outcome(nes.ram()[t.addr as usize]) != Outcome::NotRun)
    };
    while frames < max_frames && !done(nes) {
        nes.run_frame();
        frames += 1;
    }
    Report {
        results: tests
            .iter()
            .map(|t| TestResult {
                test: t.clone(),
                outcome: outcome(nes.ram()[t.addr as usize]),
            })
            .collect(),
        frames,
    }
}

/// Loads `rom` and its test list and runs the suite on `engine`.
pub fn run_rom(rom: &Path, engine: Engine, max_frames: u64) -> Result<Report, String> {
    let tests = load_tests(rom)?;
    let mut nes = Nes::load(rom).map_err(|e| e.to_string())?;
    nes.set_engine(engine);
    Ok(run(&mut nes, &tests, max_frames))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_bytes() {
        assert_eq!(outcome(0x01), Outcome::Pass);
        assert_eq!(outcome(0x0A), Outcome::Fail(2));
        assert_eq!(outcome(0xFE), Outcome::Fail(0x3F));
        assert_eq!(outcome(0x00), Outcome::NotRun);
        assert_eq!(outcome(0x03), Outcome::NotRun);
    }

    #[test]
    fn a_verdict_names_what_failed() {
        let test = |addr, name: &str| TestInfo {
            addr,
            page: "P".into(),
            name: name.into(),
        };
        let report = Report {
            results: vec![
                TestResult {
                    test: test(0x400, "a"),
                    outcome: Outcome::Pass,
                },
                TestResult {
                    test: test(0x401, "b"),
                    outcome: Outcome::Fail(2),
                },
                TestResult {
                    test: test(0x402, "c"),
                    outcome: Outcome::NotRun,
                },
            ],
            frames: 10,
        };
        let v = report.verdict();
        assert!(!v.passed);
        assert_eq!(
            v.message,
            "1 of 3 tests passed; failing: b (error 2), c (not run)"
        );
        assert_eq!(report.table().len(), 3);
        assert!(report.table()[1].contains("FAIL 2"));
    }
}
