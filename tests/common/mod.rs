//! Shared harness for the third-party ROM suites: a table of ROMs with their
//! expected outcome, one runner, one report listing every result. A ROM that
//! fails is reported as FAIL, never skipped; a known failure must say why, and
//! a known failure that starts passing is reported too so the table stays true.

#![allow(dead_code)]

pub mod panel;
pub mod tools;
pub mod x11;

use std::path::PathBuf;

use nesprof::testrom::{self, Manifest, TestOptions};

pub enum Expect {
    Pass,
    /// Expected to fail, with the reason.
    KnownFail(&'static str),
}

pub struct Case {
    /// Path below the ROM directory.
    pub path: String,
    pub expect: Expect,
    /// Buttons held from power-on.
    pub hold: u8,
    /// FCEUX movie (path below the repository) whose input is replayed.
    pub movie: Option<&'static str>,
}

pub fn pass(path: impl Into<String>) -> Case {
    Case {
        path: path.into(),
        expect: Expect::Pass,
        hold: 0,
        movie: None,
    }
}

/// The ROM driven by a movie that presses what it asks for.
pub fn pass_with_movie(path: impl Into<String>, movie: &'static str) -> Case {
    Case {
        path: path.into(),
        expect: Expect::Pass,
        hold: 0,
        movie: Some(movie),
    }
}

pub fn known_fail(path: impl Into<String>, reason: &'static str) -> Case {
    Case {
        path: path.into(),
        expect: Expect::KnownFail(reason),
        hold: 0,
        movie: None,
    }
}

/// The same ROM with buttons held from power-on.
pub fn pass_holding(path: impl Into<String>, hold: u8) -> Case {
    Case {
        path: path.into(),
        expect: Expect::Pass,
        hold,
        movie: None,
    }
}

pub fn roms_root() -> PathBuf {
    let root = testrom::roms_dir();
    assert!(
        root.join("MANIFEST.tsv").is_file(),
        "CANNOT RUN: the third-party test ROMs are not at {} (set NESPROF_ROMS to the \
         directory holding MANIFEST.tsv)",
        root.display()
    );
    root
}

/// Runs every case, prints one line each and the totals, and panics if any
/// outcome differs from the table.
pub fn run_suite(title: &str, cases: &[Case]) {
    let root = roms_root();
    let manifest = Manifest::load(&root).expect("manifest loads");
    let mut report = Vec::new();
    let (mut passed, mut failed, mut surprises) = (0, 0, Vec::new());
    for case in cases {
        let rom = root.join(&case.path);
        let protocol = manifest
            .find(&rom)
            .unwrap_or_else(|| panic!("{} is not in the manifest", case.path))
            .protocol;
        let movie = case.movie.map(|m| {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(m);
            std::sync::Arc::new(emu::movie::Movie::load(&path).unwrap_or_else(|e| panic!("{e}")))
        });
        let options = TestOptions {
            buttons: case.hold,
            movie,
            ..TestOptions::default()
        };
        let verdict = testrom::run_test(&rom, protocol, &options);
        let (ok, message) = match verdict {
            Ok(v) => (v.passed, v.message),
            Err(e) => (false, e.to_string()),
        };
        if ok {
            passed += 1;
            report.push(format!("PASS {}", case.path));
        } else {
            failed += 1;
            report.push(format!(
                "FAIL {}: {}",
                case.path,
                message.replace('\n', " ")
            ));
        }
        match (&case.expect, ok) {
            (Expect::Pass, false) => surprises.push(format!("{} failed: {message}", case.path)),
            (Expect::KnownFail(reason), true) => surprises.push(format!(
                "{} is marked as a known failure ({reason}) but passed: update the table",
                case.path
            )),
            (Expect::KnownFail(reason), false) => {
                report.push(format!("     (known failure: {reason})"));
            }
            _ => {}
        }
    }
    println!("== {title}");
    for line in &report {
        println!("{line}");
    }
    println!(
        "{title}: {passed} passed, {failed} failed of {}",
        cases.len()
    );
    assert!(
        surprises.is_empty(),
        "{title}: unexpected results:\n{}",
        surprises.join("\n")
    );
}

/// A bundled workload with its movie replayed: a roms-test program, or a
/// game from the shared ROMs (`games/`), and `movies/<stem>.fm2`.
pub fn workload_replay(stem: &str) -> emu::movie::Replay {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let bundled = repo.join(format!("roms-test/{stem}.nes"));
    let rom_path = if bundled.exists() {
        bundled
    } else {
        roms_root().join(format!("games/{stem}.nes"))
    };
    let rom = std::fs::read(rom_path).unwrap();
    let movie = emu::movie::Movie::load(&repo.join(format!("movies/{stem}.fm2"))).unwrap();
    emu::movie::Replay::new(&rom, &movie).unwrap()
}
