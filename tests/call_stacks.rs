//! Call stacks for flame graphs (issue 25): both engines record the same
//! stacks with the same instruction counts, the counts add up to the
//! instructions executed, and `nesprof profile` writes them as
//! `stacks.folded` and `flame.svg`.

mod common;

use std::process::Command;

use emu::movie::Replay;
use emu::nes::Engine;
use emu::FlowCounts;

fn replay(stem: &str) -> Replay {
    common::workload_replay(stem)
}

/// Runs `frames` frames of the movie with the truth recorder, on `engine`,
/// switching to `then` from frame `switch_at` on.
fn record(
    replay: &Replay,
    frames: u64,
    engine: Engine,
    then: Engine,
    switch_at: u64,
) -> FlowCounts {
    let mut nes = replay.power_on().unwrap();
    nes.set_engine(engine);
    nes.record_flow();
    while nes.frame_count() < frames {
        if nes.frame_count() == switch_at {
            nes.set_engine(then);
        }
        replay.apply(&mut nes, frames).unwrap();
        nes.run_frame();
    }
    *nes.take_flow_counts().unwrap()
}

fn folded(counts: &FlowCounts) -> Vec<String> {
    profiler::flame::folded(counts.call_stacks(), &emu::code_addr::label)
}

fn weight(line: &str) -> u64 {
    line.rsplit_once(' ').unwrap().1.parse().unwrap()
}

const FRAMES: u64 = 400;

/// Bundled programs (maze and snake run self-modifying code) and games on
/// bank-switching boards (fff UxROM, novathesquirrel MMC1, yun CNROM).
#[test]
fn both_engines_record_the_same_stacks() {
    let workloads = [
        "tracker",
        "swarm",
        "cfgdemo",
        "maze",
        "snake",
        "fff",
        "novathesquirrel",
        "yun",
    ];
    for stem in workloads {
        let replay = replay(stem);
        let interp = record(&replay, FRAMES, Engine::Interpreter, Engine::Interpreter, 0);
        let translate = record(&replay, FRAMES, Engine::Translator, Engine::Translator, 0);
        let mixed = record(
            &replay,
            FRAMES,
            Engine::Translator,
            Engine::Interpreter,
            FRAMES / 2,
        );
        let (a, b, c) = (folded(&interp), folded(&translate), folded(&mixed));
        assert_eq!(a, b, "{stem}: interpreter vs translator");
        assert_eq!(a, c, "{stem}: interpreter vs switched mid-run");
        for counts in [&interp, &translate, &mixed] {
            // Every retired instruction is in exactly one context.
            assert_eq!(counts.call_stacks().total(), counts.instructions, "{stem}");
            let sum: u64 = folded(counts).iter().map(|l| weight(l)).sum();
            assert_eq!(sum, counts.instructions, "{stem}: folded total");
        }
        // The programs call subroutines, and the NMI handler runs in its
        // own frame.
        let called = |l: &String| l.split(';').nth(1).is_some_and(|f| !f.starts_with('['));
        assert!(a.iter().any(called), "{stem}: {a:?}");
        assert!(a.iter().any(|l| l.contains("[NMI] ")), "{stem}: {a:?}");
        eprintln!(
            "{stem}: {} stacks, {} instructions",
            a.len(),
            interp.instructions
        );
    }
}

/// cfgdemo (roms-test/cfgdemo.s): the main loop calls SUB ($802D) from the
/// root, and the NMI handler ($8038) calls nothing; the NMI interrupts the
/// main loop, in SUB or not. So these are the only stacks, SUB's count is
/// its six instructions per call and the handler's seventeen per NMI.
#[test]
fn cfgdemo_stacks_match_the_source() {
    let replay = replay("cfgdemo");
    let counts = record(&replay, 300, Engine::Translator, Engine::Translator, 0);
    let lines = folded(&counts);
    let weight_of = |stack: &str| {
        lines
            .iter()
            .find(|l| l.rsplit_once(' ').unwrap().0 == stack)
            .map_or(0, |l| weight(l))
    };
    let known = [
        "reset",
        "reset;$802D",
        "reset;$802D;[NMI] $8038",
        "reset;[NMI] $8038",
    ];
    for line in &lines {
        assert!(known.contains(&line.rsplit_once(' ').unwrap().0), "{line}");
    }
    let calls = counts.executed(0x802D);
    assert!(calls > 100);
    assert_eq!(weight_of("reset;$802D"), 6 * calls);
    let nmis = counts.executed(0x8038);
    let in_handler = weight_of("reset;[NMI] $8038") + weight_of("reset;$802D;[NMI] $8038");
    // Unless the run stopped inside the last one.
    assert!(
        in_handler <= 17 * nmis && in_handler > 17 * (nmis - 1),
        "{in_handler} {nmis}"
    );
    assert!(weight_of("reset") > 0);
}

#[test]
fn profile_writes_folded_stacks_and_a_flame_graph() {
    let out = std::env::temp_dir().join(format!("nesprof-flame-{}", std::process::id()));
    let status = Command::new(env!("CARGO_BIN_EXE_nesprof"))
        .args([
            "profile",
            "roms-test/tracker.nes",
            "--movie",
            "movies/tracker.fm2",
        ])
        .args(["--frames", "200", "--trigger", "emulated", "--out"])
        .arg(&out)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let text = std::fs::read_to_string(out.join("stacks.folded")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() > 2, "{text}");
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(lines, sorted, "sorted lines");
    for line in &lines {
        let (stack, count) = line.rsplit_once(' ').expect("`stack count`");
        assert!(count.parse::<u64>().unwrap() > 0, "{line}");
        // By cycles: the main program under the reset handler's routine
        // (or `main` and `main_loop`, which it reaches by `jmp`: tail calls), the
        // NMI handler a root of its own, idle time and DMA stalls apart
        // (each above the stack that waited or stalled).
        let root = stack.split(';').next().unwrap();
        assert!(
            ["reset", "main", "main_loop", "[NMI]", "[idle]", "[DMA]"].contains(&root),
            "{line}"
        );
        assert!(stack.split(';').all(|f| !f.is_empty()), "{line}");
    }
    let root_weight = |root: &str| -> u64 {
        lines
            .iter()
            .filter(|l| l.starts_with(root))
            .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
            .sum()
    };
    for root in ["main_loop;", "[NMI];nmi", "[idle];", "[DMA];OAM"] {
        assert!(root_weight(root) > 0, "no {root} stacks");
    }
    // Every cycle of the run is in one stack: 199 frames of about 29781.
    let total = root_weight("");
    assert!(
        (199 * 29_700..=199 * 29_800).contains(&total),
        "{total} cycles"
    );
    let svg = std::fs::read_to_string(out.join("flame.svg")).unwrap();
    assert!(svg.starts_with("<?xml") && svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains("tracker.nes: CPU cycles by call stack"));
    assert!(svg.contains("[NMI]"));
    std::fs::remove_dir_all(&out).unwrap();
}
