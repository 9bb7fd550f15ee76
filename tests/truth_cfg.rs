//! The ground-truth recorder (issue 6): a CFG derived by hand from a program's
//! source; both engines recording the identical CFG; and profiling (recorder
//! and sampler) never changing what the emulator computes.

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use emu::movie::{Movie, Replay};
use emu::nes::Engine;
use emu::{Cartridge, Nes};
use gfc::Cfg;
use profiler::session::{self, ProfileSettings};

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn record_truth(rom: &[u8], frames: u64, engine: Engine) -> Cfg {
    let mut nes = Nes::new(Cartridge::from_bytes(rom).unwrap());
    nes.set_engine(engine);
    nes.record_flow();
    while nes.frame_count() < frames {
        nes.run_frame();
    }
    profiler::truth::build(&nes.take_flow_counts().unwrap())
}

/// cfgdemo's CFG, derived by hand from roms-test/cfgdemo.s with DESIGN.md's
/// rules (addresses from cfgdemo.lbl).
#[test]
fn cfgdemo_matches_the_hand_derived_cfg() {
    const RESET: u32 = 0x8000;
    const MAIN: u32 = 0x800F;
    const INNER: u32 = 0x8016;
    const CALL: u32 = 0x801B;
    const TEST: u32 = 0x801E;
    const THEN: u32 = 0x8024;
    const JOIN: u32 = 0x802A;
    const SUB: u32 = 0x802D;
    const NMI: u32 = 0x8038;
    let rom = std::fs::read(repo("roms-test/cfgdemo.nes")).unwrap();
    for engine in [Engine::Interpreter, Engine::Translator] {
        let cfg = record_truth(&rom, 300, engine);
        // Blocks: each leader and the instructions up to the next control
        // transfer or leader.
        let expected_blocks: Vec<(u32, Vec<u32>)> = vec![
            (
                RESET,
                vec![
                    0x8000, 0x8001, 0x8002, 0x8004, 0x8005, 0x8007, 0x8009, 0x800B, 0x800D,
                ],
            ),
            (MAIN, vec![0x800F, 0x8011, 0x8014]),
            (INNER, vec![0x8016, 0x8018, 0x8019]),
            (CALL, vec![0x801B]),
            (TEST, vec![0x801E, 0x8020, 0x8022]),
            (THEN, vec![0x8024, 0x8026, 0x8028]),
            (JOIN, vec![0x802A]),
            (SUB, vec![0x802D, 0x802F, 0x8031, 0x8032, 0x8035, 0x8037]),
            (
                NMI,
                vec![
                    0x8038, 0x8039, 0x803A, 0x803B, 0x803D, 0x8040, 0x8042, 0x8045, 0x8047, 0x804A,
                    0x804C, 0x804F, 0x8052, 0x8054, 0x8055, 0x8056, 0x8057,
                ],
            ),
        ];
        let blocks: Vec<(u32, Vec<u32>)> =
            cfg.blocks().map(|b| (b.entry, b.instrs.clone())).collect();
        assert_eq!(blocks, expected_blocks, "{engine:?}: blocks");

        // Edges: the ten transitions of the main loop; the NMI handler has
        // none (hardware interrupts are events, not edges).
        let mut edges: Vec<(u32, u32)> = cfg.edges().iter().map(|e| (e.src, e.dst)).collect();
        edges.sort();
        let mut expected = vec![
            (RESET, MAIN),
            (MAIN, INNER),
            (INNER, INNER),
            (INNER, CALL),
            (CALL, SUB),
            (SUB, TEST),
            (TEST, JOIN),
            (TEST, THEN),
            (THEN, JOIN),
            (JOIN, MAIN),
        ];
        expected.sort();
        assert_eq!(edges, expected, "{engine:?}: edges");

        // Counts follow from the source: 16 inner passes per main pass, the
        // call once per pass, THEN or JOIN once per return. The run stops
        // mid-loop, so allow the pass in progress.
        let e = |s, d| cfg.edge(s, d).unwrap();
        let passes = e(INNER, CALL);
        assert!(passes > 1000, "the main loop ran {passes} times");
        assert_eq!(e(RESET, MAIN), 1);
        assert!(
            e(INNER, INNER).abs_diff(15 * passes) <= 15,
            "{} vs 15 x {passes}",
            e(INNER, INNER)
        );
        assert!(e(CALL, SUB).abs_diff(passes) <= 1);
        assert!(e(SUB, TEST).abs_diff(passes) <= 1);
        assert!((e(TEST, JOIN) + e(TEST, THEN)).abs_diff(e(SUB, TEST)) <= 1);
        assert_eq!(e(THEN, JOIN).abs_diff(e(TEST, THEN)), 0);
        // A colour step every 30 NMIs.
        let nmis = *cfg.interrupts().get(&NMI).unwrap();
        assert!(
            e(TEST, THEN).abs_diff(nmis / 30) <= 1,
            "{} steps for {nmis} NMIs",
            e(TEST, THEN)
        );
    }
}

/// The first `frames` frames of a workload's movie.
fn workload(stem: &str) -> (Vec<u8>, Replay) {
    let rom_path = if repo(&format!("roms-test/{stem}.nes")).exists() {
        repo(&format!("roms-test/{stem}.nes"))
    } else {
        common::roms_root().join(format!("games/{stem}.nes"))
    };
    let rom = std::fs::read(&rom_path).unwrap();
    let movie = Movie::load(&repo(&format!("movies/{stem}.fm2"))).unwrap();
    let replay = Replay::new(&rom, &movie).unwrap();
    (rom, replay)
}

fn run_movie(
    replay: &Replay,
    frames: u64,
    engine: Engine,
    probes: bool,
) -> (Vec<u64>, Option<Cfg>, Option<profiler::session::ProfileRun>) {
    let mut nes = replay.power_on().unwrap();
    nes.set_engine(engine);
    if probes {
        let settings = ProfileSettings {
            engine,
            ..ProfileSettings::default()
        };
        let run = session::run(&mut nes, Some(replay), frames, &settings, |_| true).unwrap();
        return (
            vec![run.frame_hash, run.ram_hash],
            Some(run.truth.clone()),
            Some(run),
        );
    }
    let mut hashes = Vec::new();
    while nes.frame_count() < frames {
        replay.apply(&mut nes, frames).unwrap();
        nes.run_frame();
        hashes.push(nes.frame_hash());
    }
    (vec![nes.frame_hash(), nes.ram_hash()], None, None)
}

const WORKLOADS: [&str; 5] = ["maze", "snake", "fff", "novathesquirrel", "yun"];
const FRAMES: u64 = 1200;

/// Both engines record the identical CFG for the same run (self-modifying
/// code in maze and snake, bank switching in fff/UxROM, nova/MMC1, yun/CNROM).
#[test]
fn both_engines_record_the_same_cfg() {
    for stem in WORKLOADS {
        let (_, replay) = workload(stem);
        let (_, a, _) = run_movie(&replay, FRAMES, Engine::Interpreter, true);
        let (_, b, _) = run_movie(&replay, FRAMES, Engine::Translator, true);
        let (a, b) = (a.unwrap(), b.unwrap());
        let d = profiler::diff::diff(&a, &b);
        assert!(
            d.is_empty(),
            "{stem}: {}",
            profiler::diff::report(&d, "interpreter", "translator", 10)
        );
        assert!(a.num_edges() > 20, "{stem}: {} edges", a.num_edges());
    }
}

/// On bank-switching boards the truth names code by its bank (code
/// addresses, `emu::code_addr`): code from more than one bank runs in the
/// switched window, and every banked address holds, in the PRG ROM it names,
/// the opcode the recorder saw executed there.
#[test]
fn banked_code_is_named_by_its_bank() {
    for stem in ["fff", "novathesquirrel"] {
        let (_, replay) = workload(stem);
        let mut nes = replay.power_on().unwrap();
        nes.record_flow();
        while nes.frame_count() < FRAMES {
            replay.apply(&mut nes, FRAMES).unwrap();
            nes.run_frame();
        }
        let counts = nes.take_flow_counts().unwrap();
        let mut banks = std::collections::BTreeSet::new();
        let mut banked = 0;
        for (code, _) in counts.executed_addresses() {
            let Some(offset) = emu::code_addr::prg_offset(code) else {
                continue;
            };
            banked += 1;
            assert_eq!(
                counts.opcode(code),
                nes.peek_code(code),
                "{stem}: {} executed an opcode its bank does not hold",
                emu::code_addr::label(code)
            );
            if emu::code_addr::cpu_address(code) < 0xC000 {
                banks.insert(offset / 0x4000);
            }
        }
        assert!(banked > 1000, "{stem}: {banked} banked addresses");
        assert!(banks.len() >= 2, "{stem}: banks run at $8000: {banks:?}");
    }
}

/// Frames and RAM are identical with the recorder and sampler on or off, on
/// both engines.
#[test]
fn profiling_never_perturbs_emulation() {
    for stem in WORKLOADS {
        let (_, replay) = workload(stem);
        let (plain, _, _) = run_movie(&replay, FRAMES, Engine::Translator, false);
        for engine in [Engine::Interpreter, Engine::Translator] {
            let (profiled, _, run) = run_movie(&replay, FRAMES, engine, true);
            assert_eq!(
                plain, profiled,
                "{stem} on {engine:?}: profiling changed frame or RAM"
            );
            assert!(run.unwrap().batches.len() > 100);
        }
    }
}

/// The sampler sees the same instructions on both engines: the translator
/// delivers N consecutive instructions (not whole blocks) starting at the
/// same cycle as the interpreter, through chained blocks and idle loops
/// counted in bulk, so the batches, and the hot CFG built from them, are
/// identical.
#[test]
fn both_engines_sample_the_same_batches() {
    for stem in WORKLOADS {
        let (_, replay) = workload(stem);
        let (_, _, interp) = run_movie(&replay, FRAMES, Engine::Interpreter, true);
        let (_, _, translate) = run_movie(&replay, FRAMES, Engine::Translator, true);
        let (interp, translate) = (interp.unwrap(), translate.unwrap());
        assert_eq!(interp.batches.len(), translate.batches.len(), "{stem}");
        for (i, (a, b)) in interp.batches.iter().zip(&translate.batches).enumerate() {
            assert_eq!(a, b, "{stem}: batch {i} differs between the engines");
        }
        assert_eq!(
            ron::to_string(interp.builder.graph()).unwrap(),
            ron::to_string(translate.builder.graph()).unwrap(),
            "{stem}: hot CFG differs between the engines"
        );
    }
}

/// The same at a sampling density far from the thesis': short batches every
/// few cycles with jitter, so batches start and end inside blocks, several
/// fall in one block, interrupts land inside them, and they begin and end
/// inside the idle-loop iterations the translator skips (recorded from the
/// loop's timing). Batches, instruction counts, flow counts and
/// frames must still be the interpreter's; and so without the flow
/// recorder, where the translator runs its unobserved loop between
/// batches and leaves it at the block a batch begins in.
#[test]
fn dense_sampling_is_identical_on_both_engines() {
    use emu::sampling::{SampleCapture, Spacing};
    for (stem, flow) in ["lunarlimit", "fff", "maze"]
        .into_iter()
        .flat_map(|s| [(s, true), (s, false)])
    {
        let (_, replay) = workload(stem);
        let run = |engine: Engine| {
            let mut nes = replay.power_on().unwrap();
            nes.set_engine(engine);
            if flow {
                nes.record_flow();
            }
            let cycles = nes.cycles();
            nes.attach_sampler(SampleCapture::emulated(
                5,
                Spacing::Periodic,
                60,
                11,
                3,
                cycles,
            ));
            let mut batches = Vec::new();
            let mut frame_hashes = Vec::new();
            while nes.frame_count() < 300 {
                replay.apply(&mut nes, u64::MAX).unwrap();
                nes.run_frame();
                let taken = nes.sampler_mut().unwrap().take_batches();
                batches.extend(taken.iter().map(<[_]>::to_vec));
                frame_hashes.push(nes.frame_hash());
            }
            let truth = nes
                .take_flow_counts()
                .map(|c| profiler::truth::build(&c))
                .unwrap_or_default();
            (batches, nes.retired(), frame_hashes, truth)
        };
        let (a, b) = (run(Engine::Interpreter), run(Engine::Translator));
        assert_same_batches(stem, &a.0, &b.0, 10_000);
        assert_eq!(a.1, b.1, "{stem}: instructions retired differ");
        assert_eq!(a.2, b.2, "{stem}: frames differ");
        let d = profiler::diff::diff(&a.3, &b.3);
        assert!(
            d.is_empty(),
            "{stem}: {}",
            profiler::diff::report(&d, "interpreter", "translator", 10)
        );
    }
}

/// The busy bundled movies the batch tests run.
const BUSY_MOVIES: [&str; 6] = [
    "tracker",
    "plasma",
    "fountain",
    "swarm",
    "lunarlimit",
    "fff",
];

/// Attaches the sampler at the thesis' rate (X = 3 ms of emulated time,
/// uniform spacing, N = 25, seed 7), with the taken branch targets noted as
/// `profile` notes them.
fn attach_thesis_sampler(nes: &mut Nes) {
    use emu::sampling::{SampleCapture, Spacing};
    nes.record_taken_targets();
    let cycles = nes.cycles();
    nes.attach_sampler(SampleCapture::emulated(
        5_369,
        Spacing::Uniform,
        0,
        7,
        25,
        cycles,
    ));
}

/// At the thesis' rate (X = 3 ms of emulated time, uniform spacing, N = 25)
/// with the sampler the only probe, the translator runs its blocks in the
/// unobserved loop and leaves it only for the blocks a batch may touch:
/// the batches are still the interpreter's, one for one, on every busy
/// bundled movie.
#[test]
fn thesis_rate_sampling_is_identical_on_both_engines() {
    for stem in BUSY_MOVIES {
        let (_, replay) = workload(stem);
        let run = |engine: Engine| {
            let mut nes = replay.power_on().unwrap();
            nes.set_engine(engine);
            attach_thesis_sampler(&mut nes);
            let mut batches = Vec::new();
            while nes.frame_count() < 900 {
                replay.apply(&mut nes, u64::MAX).unwrap();
                nes.run_frame();
                let taken = nes.sampler_mut().unwrap().take_batches();
                batches.extend(taken.iter().map(<[_]>::to_vec));
            }
            (batches, nes.retired(), nes.frame_hash())
        };
        let (a, b) = (run(Engine::Interpreter), run(Engine::Translator));
        assert_same_batches(stem, &a.0, &b.0, 4_000);
        assert_eq!(a.1, b.1, "{stem}: instructions retired differ");
        assert_eq!(a.2, b.2, "{stem}: frames differ");
    }
}

/// Hot regions (issue 47) change neither the batches nor the truth: with
/// the sampler attached the translator runs regions in its sampler's
/// instance of the plain chain, and every batch must still be the one the
/// run without regions takes, whether NET chooses them (formed at a
/// head's first visit) or the run's own busy H90 does, replaced halfway
/// as a live guide's would be. The truth is recorded with regions on too.
#[test]
fn hot_regions_leave_the_batches_and_the_truth_alone() {
    use emu::translate::region::RegionChoice;
    use std::sync::Arc;
    const FRAMES: u64 = 900;
    let mut covered = 0;
    for stem in BUSY_MOVIES {
        let (_, replay) = workload(stem);
        let truth = |regions: RegionChoice| {
            let mut nes = replay.power_on().unwrap();
            nes.set_regions(regions);
            nes.record_flow();
            while nes.frame_count() < FRAMES {
                replay.apply(&mut nes, u64::MAX).unwrap();
                nes.run_frame();
            }
            profiler::truth::build(&nes.take_flow_counts().unwrap())
        };
        let exact = truth(RegionChoice::Off);
        let (rom, _) = workload(stem);
        let prg = emu::Cartridge::from_bytes(&rom).unwrap().prg_rom.to_vec();
        let mut waits = profiler::frame_profile::sampled::WaitLoops::from_prg(prg);
        let busy = profiler::region_guide::busy_hot(&exact, &mut waits);
        let paths = Arc::new(profiler::region_guide::hot_paths(&busy));
        assert_eq!(
            exact,
            truth(RegionChoice::NET),
            "{stem}: the truth differs with regions"
        );
        let run = |regions: RegionChoice, again: Option<RegionChoice>| {
            let mut nes = replay.power_on().unwrap();
            nes.set_regions(regions);
            attach_thesis_sampler(&mut nes);
            let mut batches = Vec::new();
            while nes.frame_count() < FRAMES {
                replay.apply(&mut nes, u64::MAX).unwrap();
                nes.run_frame();
                if nes.frame_count() == FRAMES / 2 {
                    if let Some(choice) = &again {
                        nes.set_regions(choice.clone());
                    }
                }
                let taken = nes.sampler_mut().unwrap().take_batches();
                batches.extend(taken.iter().map(<[_]>::to_vec));
            }
            let ops = nes.region_stats().ops;
            (
                (batches, nes.retired(), nes.frame_hash(), nes.ram_hash()),
                ops,
            )
        };
        let (plain, _) = run(RegionChoice::Off, None);
        let (net, net_ops) = run(RegionChoice::Net { threshold: 0 }, None);
        let guided = RegionChoice::Guided(paths.clone());
        let (exact_run, exact_ops) = run(guided.clone(), Some(RegionChoice::Guided(paths)));
        for (name, other) in [("NET", &net), ("the busy H90", &exact_run)] {
            assert_same_batches(stem, &plain.0, &other.0, 4_000);
            assert_eq!(
                (plain.1, plain.2, plain.3),
                (other.1, other.2, other.3),
                "{stem}: regions chosen by {name} changed the run"
            );
        }
        covered += usize::from(net_ops > 0 && exact_ops > 0);
    }
    assert!(covered >= 4, "regions ran on {covered} of 6 movies");
}

/// The interpreter's batches `a` (more than `min` of them) and the
/// translator's `b`, one for one.
fn assert_same_batches(
    stem: &str,
    a: &[Vec<emu::sampling::Retired>],
    b: &[Vec<emu::sampling::Retired>],
    min: usize,
) {
    assert!(a.len() > min, "{stem}: {} batches", a.len());
    assert_eq!(a.len(), b.len(), "{stem}: batch counts differ");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert_eq!(x, y, "{stem}: batch {i} differs between the engines");
    }
}

/// Replaying the recorded batches through a fresh builder gives the live
/// builder's graph and edge profile exactly (no batches were dropped), for
/// every builder, also through the sample-stream file format.
#[test]
fn replaying_the_stream_gives_the_live_graph() {
    for stem in ["maze", "lunarlimit"] {
        let (_, replay) = workload(stem);
        for kind in gfc::BuilderKind::ALL {
            let mut nes = replay.power_on().unwrap();
            let settings = ProfileSettings {
                builder: kind,
                ..ProfileSettings::default()
            };
            let run = session::run(&mut nes, Some(&replay), FRAMES, &settings, |_| true).unwrap();
            assert_eq!(run.dropped_batches, 0);
            let replayed = session::replay_batches(&run.batches, kind, gfc::THESIS_BEST);
            let live = (
                ron::to_string(run.builder.graph()).unwrap(),
                ron::to_string(run.builder.edge_profile()).unwrap(),
            );
            let again = (
                ron::to_string(replayed.graph()).unwrap(),
                ron::to_string(replayed.edge_profile()).unwrap(),
            );
            assert!(
                live == again,
                "{stem} {kind}: replay differs from the live run"
            );
            let mut w = profiler::stream::StreamWriter::new(
                Vec::new(),
                &profiler::stream::StreamHeader {
                    rom_hash: String::new(),
                    rom_name: stem.into(),
                    movie: None,
                    trigger: "emulated".into(),
                    interval_ms: 3.0,
                    batch_len: 25,
                    jitter_ms: 0.0,
                    spacing: "uniform".into(),
                    seed: 0,
                },
            )
            .unwrap();
            for b in &run.batches {
                w.batch(b).unwrap();
            }
            // The trailer the run's totals give (a stream's reader checks
            // it against the batches).
            let bytes = w
                .finish(&profiler::stream::StreamTrailer {
                    executed_instructions: run.executed_instructions,
                    sampled_instructions: run.sampled_instructions,
                    batches: run.batches.len() as u64,
                    dropped_batches: run.dropped_batches,
                    frames: run.frames,
                    frame_hash: run.frame_hash,
                    taken_targets: Vec::new(),
                })
                .unwrap();
            let stream = profiler::stream::parse(&bytes, std::path::Path::new(stem)).unwrap();
            let from_file = session::replay_batches(&stream.batches, kind, gfc::THESIS_BEST);
            let file = (
                ron::to_string(from_file.graph()).unwrap(),
                ron::to_string(from_file.edge_profile()).unwrap(),
            );
            assert!(live == file, "{stem} {kind}: via the stream file");
        }
    }
}

/// The flow counts themselves, not only the CFG built from them, are the
/// same on both engines: executions and last opcode per address, every
/// transfer (the translator counts most of them in bulk, per block and
/// per link: `emu::translate::flow`), interrupt and BRK entries, and the
/// call stacks with the instructions credited to each.
fn assert_same_counts(stem: &str, a: &emu::FlowCounts, b: &emu::FlowCounts) {
    fn transfers(c: &emu::FlowCounts) -> BTreeMap<(u32, u32), u64> {
        let mut all = BTreeMap::new();
        for (src, dst, n) in c.static_transfers() {
            *all.entry((src, dst)).or_insert(0) += n;
        }
        for (&key, &n) in &c.dynamic {
            *all.entry(key).or_insert(0) += n;
        }
        all
    }
    fn sorted(m: &emu::int_hash::IntMap<u32, u64>) -> BTreeMap<u32, u64> {
        m.iter().map(|(&k, &v)| (k, v)).collect()
    }
    assert_eq!(a.instructions, b.instructions, "{stem}: instructions");
    let executed: Vec<_> = a.executed_addresses().collect();
    let other: Vec<_> = b.executed_addresses().collect();
    assert_eq!(executed, other, "{stem}: executions");
    for &(code, _) in &executed {
        assert_eq!(
            a.opcode(code),
            b.opcode(code),
            "{stem}: opcode at {code:#x}"
        );
    }
    assert_eq!(transfers(a), transfers(b), "{stem}: transfers");
    assert_eq!(
        sorted(&a.interrupts),
        sorted(&b.interrupts),
        "{stem}: interrupts"
    );
    assert_eq!(
        sorted(&a.brk_handlers),
        sorted(&b.brk_handlers),
        "{stem}: BRK entries"
    );
    let stacks = |c: &emu::FlowCounts| c.call_stacks().stacks().collect::<Vec<_>>();
    assert_eq!(stacks(a), stacks(b), "{stem}: call stacks");
    assert!(
        transfers(a).len() > 3,
        "{stem}: {} transfers",
        transfers(a).len()
    );
}

#[test]
fn both_engines_count_the_same_raw_flow() {
    fn counts(replay: &Replay, engine: Engine) -> emu::FlowCounts {
        let mut nes = replay.power_on().unwrap();
        nes.set_engine(engine);
        nes.record_flow();
        while nes.frame_count() < 600 {
            replay.apply(&mut nes, 600).unwrap();
            nes.run_frame();
        }
        *nes.take_flow_counts().unwrap()
    }
    for stem in WORKLOADS.iter().chain(&["tracker", "lunarlimit"]) {
        let (_, replay) = workload(stem);
        let a = counts(&replay, Engine::Interpreter);
        let b = counts(&replay, Engine::Translator);
        assert_same_counts(stem, &a, &b);
    }
}

/// A board with 32 KiB of PRG ROM names code by its CPU address, yet may
/// switch banks: here (MMC1) the routine at $8100 is `LDA #1; RTS` in one
/// bank and `LDX #2; NOP; RTS` in the other, called alternately. The
/// opcode recorded at $8100 and $8102 is the last one executed, on both
/// engines, whichever frame the run stops in (the translator flushes its
/// bulk counts at each switch on such boards).
#[test]
fn both_engines_count_the_same_flow_under_switched_unnamed_banks() {
    let mut prg = vec![0xEAu8; 0x8000];
    let fixed = 0x4000; // $C000
    #[rustfmt::skip]
    let main = [
        0x78, 0xA2, 0xFF, 0x9A, //       SEI; LDX #$FF; TXS
        0xA9, 0x00, 0x20, 0x20, 0xC0, // loop: LDA #0; JSR setbank
        0x20, 0x00, 0x81, //             JSR $8100
        0xA9, 0x01, 0x20, 0x20, 0xC0, // LDA #1; JSR setbank
        0x20, 0x00, 0x81, //             JSR $8100
        0x4C, 0x04, 0xC0, //             JMP loop
    ];
    prg[fixed..fixed + main.len()].copy_from_slice(&main);
    // setbank ($C020): the PRG bank register takes five bits, one a write.
    let mut setbank = Vec::new();
    for i in 0..5 {
        setbank.extend_from_slice(&[0x8D, 0x00, 0xE0]); // STA $E000
        if i < 4 {
            setbank.push(0x4A); // LSR A
        }
    }
    setbank.push(0x60);
    prg[fixed + 0x20..fixed + 0x20 + setbank.len()].copy_from_slice(&setbank);
    prg[0x100..0x103].copy_from_slice(&[0xA9, 0x01, 0x60]);
    prg[0x4100..0x4104].copy_from_slice(&[0xA2, 0x02, 0xEA, 0x60]);
    prg[0x4040] = 0x40; // RTI
    prg[0x7FFA..].copy_from_slice(&[0x40, 0xC0, 0x00, 0xC0, 0x40, 0xC0]);
    let mut rom = b"NES\x1a".to_vec();
    rom.extend_from_slice(&[2, 0, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    rom.extend_from_slice(&prg);
    for frames in [3, 4, 5] {
        let count = |engine| {
            let mut nes = Nes::new(Cartridge::from_bytes(&rom).unwrap());
            nes.set_engine(engine);
            nes.record_flow();
            while nes.frame_count() < frames {
                nes.run_frame();
            }
            *nes.take_flow_counts().unwrap()
        };
        let (a, b) = (count(Engine::Interpreter), count(Engine::Translator));
        assert!(a.executed(0x8100) > 100 && a.executed(0x8103) > 100);
        assert_same_counts(&format!("{frames} frames"), &a, &b);
    }
}

/// Where branches were taken (`emu::taken_targets`, the leaders the
/// builder cannot prove from samples): both engines note the same
/// addresses, the translator with the truth recorder attached (its observed
/// loop) and with only the sampler (its plain loop, as `profile
/// --no-truth` runs); and none of them lies inside a block of the truth,
/// whose leaders include every taken branch's target.
#[test]
fn both_engines_note_the_same_taken_branch_targets() {
    for stem in WORKLOADS {
        let (_, replay) = workload(stem);
        let run = |engine: Engine, truth: bool| {
            let mut nes = replay.power_on().unwrap();
            nes.set_engine(engine);
            if truth {
                nes.record_flow();
            } else {
                let settings = ProfileSettings::default();
                nes.attach_sampler(session::sampler(&settings, nes.cycles()).0);
            }
            let taken = nes.record_taken_targets();
            while nes.frame_count() < FRAMES {
                replay.apply(&mut nes, FRAMES).unwrap();
                nes.run_frame();
            }
            let cfg = nes.take_flow_counts().map(|c| profiler::truth::build(&c));
            (taken, cfg)
        };
        let (reference, truth) = run(Engine::Interpreter, true);
        let truth = truth.unwrap();
        assert!(reference.len() > 10, "{stem}: {} targets", reference.len());
        for (label, truth_on) in [("with the truth", true), ("sampler only", false)] {
            let (translated, _) = run(Engine::Translator, truth_on);
            assert_eq!(
                reference.bits(),
                translated.bits(),
                "{stem}: the translator {label} noted other targets"
            );
        }
        for block in truth.blocks() {
            for &i in &block.instrs[1..] {
                assert!(
                    !reference.contains(i),
                    "{stem}: {i:#x}, a taken branch's target, lies inside block {:#x}",
                    block.entry
                );
            }
        }
    }
}
