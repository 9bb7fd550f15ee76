//! Issue 25: on bank-switching boards no block of any CFG a profile writes
//! (the truth, the sampled hot CFG of both builders, the edge profile)
//! merges code of two banks: every instruction of a block is named in the
//! same mapping of PRG ROM as the block's entry, holds in that bank the
//! opcode the recorder saw executed, and the CFG files say `BB:AAAA`.

mod common;

use std::collections::BTreeSet;
use std::path::PathBuf;

use emu::code_addr;
use emu::movie::{Movie, Replay};
use emu::nes::Engine;
use gfc::{BuilderKind, Cfg};
use profiler::session::{self, ProfileSettings};

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path)
}

const FRAMES: u64 = 1500;

/// Checks every block of `cfg`, returning the 16 KiB banks its code ran from.
fn check_blocks(
    stem: &str,
    what: &str,
    cfg: &Cfg,
    counts: &emu::FlowCounts,
    nes: &emu::Nes,
) -> BTreeSet<usize> {
    let mut banks = BTreeSet::new();
    for b in cfg.blocks() {
        let high = b.entry & !0xFFFF;
        for &pc in &b.instrs {
            assert_eq!(
                pc & !0xFFFF,
                high,
                "{stem} {what}: block {} holds {} of another bank",
                code_addr::label(b.entry),
                code_addr::label(pc)
            );
            if counts.executed(pc) > 0 {
                assert_eq!(
                    nes.peek_code(pc),
                    counts.opcode(pc),
                    "{stem} {what}: {} in block {} is not the executed opcode",
                    code_addr::label(pc),
                    code_addr::label(b.entry)
                );
            }
            if let Some(offset) = code_addr::prg_offset(pc) {
                banks.insert(offset / 0x4000);
            }
        }
    }
    banks
}

#[test]
fn no_block_merges_two_banks() {
    // hello_mmc3: MMC3 (8 KiB pages); novathesquirrel: MMC1 (16 KiB banks).
    for stem in ["hello_mmc3", "novathesquirrel"] {
        let rom = std::fs::read(common::roms_root().join(format!("games/{stem}.nes"))).unwrap();
        let movie = Movie::load(&repo(&format!("movies/{stem}.fm2"))).unwrap();
        let replay = Replay::new(&rom, &movie).unwrap();
        for builder in [BuilderKind::Trace, BuilderKind::Gfc] {
            let mut nes = replay.power_on().unwrap();
            let settings = ProfileSettings {
                builder,
                engine: Engine::Translator,
                ..ProfileSettings::default()
            };
            let run = session::run(&mut nes, Some(&replay), FRAMES, &settings, |_| true).unwrap();
            let counts = run.counts.as_deref().expect("truth recorded");
            let truth_banks = check_blocks(stem, "truth", &run.truth, counts, &nes);
            assert!(
                truth_banks.len() >= 2,
                "{stem}: code from {truth_banks:?} only"
            );
            check_blocks(stem, "hot CFG", run.builder.graph(), counts, &nes);
            check_blocks(
                stem,
                "edge profile",
                run.builder.edge_profile(),
                counts,
                &nes,
            );
            // The files name banked blocks `BB:AAAA`.
            let disasm = profiler::report::disassemble(&run.truth, Some(counts), &nes);
            let dot = profiler::dot::render(&run.truth, None, &disasm, stem, None);
            let banked = run.truth.blocks().filter(|b| b.entry >= 0x10000).count();
            assert!(banked > 10, "{stem}: {banked} banked blocks");
            for b in run.truth.blocks().filter(|b| b.entry >= 0x10000) {
                let label = code_addr::label(b.entry);
                assert!(
                    label.len() == 7 && label.as_bytes()[2] == b':',
                    "{stem}: {label}"
                );
                assert!(
                    dot.contains(&format!("\"{label}-")) || dot.contains(&label),
                    "{stem}: {label} not in the DOT"
                );
            }
        }
    }
}
