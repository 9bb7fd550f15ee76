//! The bundled test programs in `roms-test/` are committed both as 6502 source and
//! as built `.nes` files (the profiler experiments and other tests load the `.nes`).
//! This test rebuilds every program from source with ca65/ld65 into a temporary
//! directory, through the same Makefile a developer uses, and requires each result
//! to be byte-identical to the committed file, so a source edit can never be
//! committed without its ROM (or the other way round); the ld65 label files
//! (`<name>.lbl`) and debug files (`<name>.dbg`, read by `--symbols`) are
//! checked the same way. It also checks that every committed ROM
//! is a well-formed iNES NROM image, and that the Makefile builds every program.
//! Without cc65 the rebuild cannot run and says so (`CANNOT RUN`); the other
//! checks, and every test that loads the committed ROMs, need no assembler.

mod common;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const PRG_LEN: usize = 32 * 1024;
const CHR_LEN: usize = 8 * 1024;

fn roms_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("roms-test")
}

/// Program names from the Makefile's `PROGRAMS :=` line.
fn makefile_programs(dir: &Path) -> Vec<String> {
    let makefile = fs::read_to_string(dir.join("Makefile")).expect("read roms-test/Makefile");
    let line = makefile
        .lines()
        .find(|l| l.trim_start().starts_with("PROGRAMS"))
        .expect("roms-test/Makefile has no PROGRAMS line");
    let list = line.split_once(":=").expect("PROGRAMS := ...").1;
    list.split_whitespace().map(str::to_owned).collect()
}

/// Every top-level `<name>.s` is a program (shared code lives in common/).
fn source_programs(dir: &Path) -> BTreeSet<String> {
    fs::read_dir(dir)
        .expect("list roms-test/")
        .filter_map(|e| {
            let path = e.ok()?.path();
            (path.extension()? == "s").then(|| path.file_stem()?.to_str().map(str::to_owned))?
        })
        .collect()
}

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn check_ines(name: &str, rom: &[u8]) -> Result<(), String> {
    if rom.len() < 16 || &rom[0..4] != b"NES\x1A" {
        return Err(format!("{name}.nes has no iNES header"));
    }
    let mapper = (rom[6] >> 4) | (rom[7] & 0xF0);
    if mapper != 0 {
        return Err(format!(
            "{name}.nes uses mapper {mapper}, expected 0 (NROM)"
        ));
    }
    if rom[7] & 0x0C == 0x08 {
        return Err(format!(
            "{name}.nes has an NES 2.0 header, expected plain iNES"
        ));
    }
    if rom[6] & 0x04 != 0 {
        return Err(format!("{name}.nes declares a trainer"));
    }
    let prg = rom[4] as usize * 16 * 1024;
    let chr = rom[5] as usize * 8 * 1024;
    if prg != PRG_LEN || chr != CHR_LEN {
        return Err(format!(
            "{name}.nes declares {prg} bytes PRG / {chr} bytes CHR, expected {PRG_LEN} / {CHR_LEN}"
        ));
    }
    if rom.len() != 16 + prg + chr {
        return Err(format!(
            "{name}.nes is {} bytes, header implies {}",
            rom.len(),
            16 + prg + chr
        ));
    }
    // Reset vector must point into PRG ROM.
    let vectors = 16 + PRG_LEN - 6;
    let reset = u16::from_le_bytes([rom[vectors + 2], rom[vectors + 3]]);
    if reset < 0x8000 {
        return Err(format!(
            "{name}.nes reset vector ${reset:04X} is outside PRG ROM"
        ));
    }
    Ok(())
}

#[test]
fn committed_roms_are_valid_nrom_images() {
    let dir = roms_dir();
    let programs = makefile_programs(&dir);
    assert!(!programs.is_empty(), "roms-test/Makefile lists no PROGRAMS");
    let problems: Vec<String> = programs
        .iter()
        .filter_map(|name| {
            let path = dir.join(format!("{name}.nes"));
            match fs::read(&path) {
                Ok(rom) => check_ines(name, &rom).err(),
                Err(e) => Some(format!(
                    "roms-test/{name}.nes is missing ({e}); build it with `make -C roms-test` and commit it"
                )),
            }
        })
        .collect();
    assert!(
        problems.is_empty(),
        "bad ROM images:\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn makefile_lists_every_program() {
    let dir = roms_dir();
    let listed: BTreeSet<String> = makefile_programs(&dir).into_iter().collect();
    let sources = source_programs(&dir);
    assert_eq!(
        listed, sources,
        "roms-test/Makefile PROGRAMS must name exactly the top-level <name>.s files"
    );
}

#[test]
fn committed_roms_match_a_fresh_build() {
    common::tools::require(&["make", "ca65", "ld65"]);
    let dir = roms_dir();
    let programs = makefile_programs(&dir);

    let out = TempDir(std::env::temp_dir().join(format!("roms-test-build-{}", std::process::id())));
    let _ = fs::remove_dir_all(&out.0);
    fs::create_dir_all(&out.0).expect("create temporary build directory");

    let result = Command::new("make")
        .arg("-C")
        .arg(&dir)
        .arg(format!("OUT={}", out.0.display()))
        .output()
        .unwrap_or_else(|e| panic!("could not run make ({e}); apt-get install make cc65"));
    assert!(
        result.status.success(),
        "building roms-test failed:\n{}\n{}",
        String::from_utf8_lossy(&result.stdout),
        String::from_utf8_lossy(&result.stderr)
    );

    // The .lbl label files (address of every label) and the .dbg debug files (what
    // `--symbols` reads) are committed next to the ROMs for mapping profiler
    // addresses back to source, so they must be current too.
    let mut stale = Vec::new();
    for name in &programs {
        for ext in ["nes", "lbl", "dbg"] {
            let file = format!("{name}.{ext}");
            let built = fs::read(out.0.join(&file))
                .unwrap_or_else(|e| panic!("make did not produce {file}: {e}"));
            match fs::read(dir.join(&file)) {
                Ok(committed) if committed == built => {}
                Ok(committed) => {
                    let first_diff = committed
                        .iter()
                        .zip(&built)
                        .position(|(a, b)| a != b)
                        .unwrap_or(committed.len().min(built.len()));
                    stale.push(format!(
                        "roms-test/{file} is stale (differs from a fresh build at file offset \
                         {first_diff:#x}); rebuild with `make -C roms-test` and commit {file}"
                    ));
                }
                Err(e) => stale.push(format!(
                    "roms-test/{file} is missing ({e}); build it with `make -C roms-test` and commit it"
                )),
            }
        }
    }
    assert!(stale.is_empty(), "{}", stale.join("\n"));
}

/// `<name>.deps.ron`: the memory dependences a `dep_*` program must produce, written
/// by hand from its source (schema in roms-test/README.md, "Memory-dependence
/// programs"). The recorder's tests compare against these files exactly.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct DepsFile {
    program: String,
    vars: Vec<DepVar>,
    deps: Vec<Dep>,
    dead: Vec<String>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct DepVar {
    name: String,
    addr: u32,
    len: u32,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Dep {
    writer: String,
    reader: String,
    vars: Vec<String>,
    #[allow(dead_code)] // read by the recorder's tests; here only parsed
    crosses_interrupt: bool,
    nca: String,
}

/// `al ADDRESS .name` lines of an ld65 label file, as (name, address).
fn lbl_labels(dir: &Path, name: &str) -> Vec<(String, u32)> {
    let text = fs::read_to_string(dir.join(format!("{name}.lbl")))
        .unwrap_or_else(|e| panic!("read roms-test/{name}.lbl: {e}"));
    text.lines()
        .filter_map(|line| {
            let mut f = line.split_whitespace();
            let (Some("al"), Some(addr), Some(label)) = (f.next(), f.next(), f.next()) else {
                return None;
            };
            let addr = u32::from_str_radix(addr, 16).ok()?;
            Some((label.trim_start_matches('.').to_owned(), addr))
        })
        .collect()
}

/// Each `dep_*` program has a `.deps.ron` and each `.deps.ron` a program, and every
/// file agrees with its program's label file: the variables sit at their labels'
/// addresses in RAM outside the stack page and do not overlap; every variable is
/// either carried by a dependence or declared dead (so the list covers all the RAM
/// the program touches); and writers, readers and ancestors are global code labels
/// (the recorder names a routine by the nearest global label, `Symbols::lookup_global`).
#[test]
fn dependence_expectations_match_the_programs() {
    let dir = roms_dir();
    let programs = makefile_programs(&dir);
    let dep_programs: BTreeSet<String> = programs
        .iter()
        .filter(|p| p.starts_with("dep_"))
        .cloned()
        .collect();
    let files: BTreeSet<String> = fs::read_dir(&dir)
        .expect("list roms-test/")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".deps.ron").map(str::to_owned)
        })
        .collect();
    assert_eq!(
        files, dep_programs,
        "every dep_* program in the Makefile needs exactly one roms-test/<name>.deps.ron"
    );
    assert!(!files.is_empty(), "no dependence programs found");

    let mut problems = Vec::new();
    for name in &files {
        let path = dir.join(format!("{name}.deps.ron"));
        let text = fs::read_to_string(&path).unwrap();
        let expected: DepsFile =
            ron::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut problem = |p: String| problems.push(format!("{name}.deps.ron: {p}"));
        if expected.program != *name {
            problem(format!("program is {:?}", expected.program));
        }
        let labels = lbl_labels(&dir, name);
        let code_label =
            |l: &str| !l.starts_with('@') && labels.iter().any(|(n, a)| n == l && *a >= 0x8000);
        let mut bytes = BTreeSet::new();
        for var in &expected.vars {
            if !labels.iter().any(|(n, a)| *n == var.name && *a == var.addr) {
                problem(format!("{} is not labelled at ${:04X}", var.name, var.addr));
            }
            let end = var.addr + var.len;
            if var.len == 0 || end > 0x0800 || (var.addr < 0x0200 && end > 0x0100) {
                problem(format!("{} is not in RAM outside the stack page", var.name));
            }
            for b in var.addr..end {
                if !bytes.insert(b) {
                    problem(format!(
                        "{} overlaps another variable at ${b:04X}",
                        var.name
                    ));
                }
            }
        }
        let declared = |v: &String| expected.vars.iter().any(|d| d.name == *v);
        let mut used = BTreeSet::new();
        let mut pairs = BTreeSet::new();
        for dep in &expected.deps {
            for routine in [&dep.writer, &dep.reader, &dep.nca] {
                if !code_label(routine) {
                    problem(format!("{routine} is not a global code label"));
                }
            }
            if !pairs.insert((&dep.writer, &dep.reader)) {
                problem(format!("{} -> {} listed twice", dep.writer, dep.reader));
            }
            if dep.vars.is_empty() {
                problem(format!(
                    "{} -> {} carries no variable",
                    dep.writer, dep.reader
                ));
            }
            for v in &dep.vars {
                if !declared(v) {
                    problem(format!("{v} is not in vars"));
                }
                used.insert(v.clone());
            }
        }
        for v in &expected.dead {
            if !declared(v) {
                problem(format!("dead {v} is not in vars"));
            }
            if used.contains(v) {
                problem(format!("{v} is both dead and carried by a dependence"));
            }
        }
        for var in &expected.vars {
            if !used.contains(&var.name) && !expected.dead.contains(&var.name) {
                problem(format!("{} is neither carried nor dead", var.name));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
