//! Issue 26's acceptance: the roms-test dependence programs (dep_counter,
//! dep_buffer, dep_dead) give exactly the dependences derived by hand from
//! their source, written in `roms-test/<name>.deps.ron` (schema in
//! roms-test/README.md): the set of (writer routine, reader routine,
//! variables, crosses an interrupt, nearest common ancestor) is equal, the
//! dead variables are equal, and no RAM outside the listed variables (and
//! the stack page) is touched. Routines are named by the nearest global
//! label at or before a block's entry, from the program's committed .dbg;
//! both engines must agree.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use emu::nes::Engine;
use emu::{Cartridge, Nes};
use profiler::symbols::Symbols;
use serde::Deserialize;

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path)
}

#[derive(Debug, Deserialize)]
struct Expected {
    program: String,
    vars: Vec<Var>,
    deps: Vec<ExpectedDep>,
    dead: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct Var {
    name: String,
    addr: u16,
    len: u16,
}

#[derive(Debug, Deserialize)]
struct ExpectedDep {
    writer: String,
    reader: String,
    vars: Vec<String>,
    crosses_interrupt: bool,
    nca: String,
}

/// (writer, reader, variables, crosses, nca): one dependence as compared.
type Key = (String, String, BTreeSet<String>, bool, String);

const FRAMES: u64 = 30;

fn measured(stem: &str, engine: Engine, expected: &Expected) -> (BTreeSet<Key>, BTreeSet<String>) {
    let rom = std::fs::read(repo(&format!("roms-test/{stem}.nes"))).unwrap();
    let mut nes = Nes::new(Cartridge::from_bytes(&rom).unwrap());
    nes.set_engine(engine);
    let mut symbols = Symbols::new(nes.cartridge().prg_rom.len());
    symbols
        .load(&repo(&format!("roms-test/{stem}.dbg")))
        .unwrap();
    nes.record_memory(None);
    while nes.frame_count() < FRAMES {
        nes.run_frame();
    }
    // The memory profile first: taking the flow counts ends it.
    let memory = nes.take_memory_profile().expect("memory recorder attached");
    let counts = nes.take_flow_counts().expect("flow recorder attached");
    let truth = profiler::truth::build(&counts);
    let report = profiler::memory::analyse(&memory, &truth, counts.call_stacks());

    let routine = |code: u32| -> String {
        symbols
            .lookup_global(code)
            .map(|h| h.name.to_string())
            .unwrap_or_else(|| emu::code_addr::label(code))
    };
    let var_of = |addr: u16| -> String {
        expected
            .vars
            .iter()
            .find(|v| (v.addr..v.addr + v.len).contains(&addr))
            .map(|v| v.name.clone())
            .unwrap_or_else(|| format!("${addr:04X} (not a listed variable)"))
    };

    // Every byte outside the stack page belongs to a listed variable.
    for &(addr, _, _) in &report.bytes {
        if !(0x0100..0x0200).contains(&addr) {
            let v = var_of(addr);
            assert!(
                !v.contains("not a listed"),
                "{stem} on {engine:?}: touches {v}"
            );
        }
    }

    // Per dependence, the bytes it covers, to check whole variables.
    let mut covered: BTreeMap<Key, BTreeSet<u16>> = BTreeMap::new();
    for d in &report.dependences {
        let nca = d
            .nca
            .last()
            .map_or_else(|| "reset".to_string(), |&entry| routine(entry));
        let key_base = (
            routine(d.writer_block),
            routine(d.reader_block),
            d.crosses_interrupt,
            nca,
        );
        for addr in d.first..=d.last {
            let key = (
                key_base.0.clone(),
                key_base.1.clone(),
                BTreeSet::new(),
                key_base.2,
                key_base.3.clone(),
            );
            covered.entry(key).or_default().insert(addr);
        }
    }
    let mut deps = BTreeSet::new();
    for ((w, r, _, x, n), bytes) in covered {
        let vars: BTreeSet<String> = bytes.iter().map(|&a| var_of(a)).collect();
        for name in &vars {
            if let Some(v) = expected.vars.iter().find(|v| &v.name == name) {
                let all: BTreeSet<u16> = (v.addr..v.addr + v.len).collect();
                assert!(
                    all.is_subset(&bytes),
                    "{stem} on {engine:?}: {w} -> {r} carries only part of {name}"
                );
            }
        }
        deps.insert((w, r, vars, x, n));
    }
    let dead: BTreeSet<String> = report
        .dead
        .iter()
        .flat_map(|&(first, last)| (first..=last).map(var_of))
        .collect();
    (deps, dead)
}

#[test]
fn dependence_programs_give_exactly_their_known_dependences() {
    for stem in ["dep_counter", "dep_buffer", "dep_dead"] {
        let text = std::fs::read_to_string(repo(&format!("roms-test/{stem}.deps.ron"))).unwrap();
        let expected: Expected = ron::from_str(&text).unwrap_or_else(|e| panic!("{stem}: {e}"));
        assert_eq!(expected.program, stem);
        let want: BTreeSet<Key> = expected
            .deps
            .iter()
            .map(|d| {
                (
                    d.writer.clone(),
                    d.reader.clone(),
                    d.vars.iter().cloned().collect(),
                    d.crosses_interrupt,
                    d.nca.clone(),
                )
            })
            .collect();
        let want_dead: BTreeSet<String> = expected.dead.iter().cloned().collect();
        for engine in [Engine::Interpreter, Engine::Translator] {
            let (deps, dead) = measured(stem, engine, &expected);
            assert_eq!(deps, want, "{stem} on {engine:?}: dependences");
            assert_eq!(dead, want_dead, "{stem} on {engine:?}: dead stores");
        }
    }
}
