//! The memory-dependence profile (issue 26): both engines record the same
//! accesses and dependences, recording changes no frame, and
//! `nesprof profile --memory` writes its outputs.

mod common;

use std::path::PathBuf;
use std::process::Command;

use emu::memory_profile::{Access, Dependence, MemoryProfile};
use emu::movie::Replay;
use emu::nes::{Engine, MemoryState};

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn replay(stem: &str) -> Replay {
    common::workload_replay(stem)
}

struct Run {
    frame_hash: u64,
    ram_hash: u64,
    profile: Option<Box<MemoryProfile>>,
    /// Idle-loop iterations the translator counted without running them.
    skipped: u64,
}

fn run(replay: &Replay, frames: u64, engine: Engine, memory: Option<Option<u64>>) -> Run {
    let mut nes = replay.power_on().unwrap();
    nes.set_engine(engine);
    if let Some(lifetime) = memory {
        nes.record_memory(lifetime);
    }
    while nes.frame_count() < frames {
        replay.apply(&mut nes, frames).unwrap();
        nes.run_frame();
    }
    Run {
        frame_hash: nes.frame_hash(),
        ram_hash: nes.ram_hash(),
        skipped: nes.translator_stats().map_or(0, |s| s.skipped_iterations),
        profile: nes.take_memory_profile(),
    }
}

type Recorded = (Vec<(u16, u64, u64)>, Vec<Access>, Vec<Dependence>);

fn contents(p: &MemoryProfile) -> Recorded {
    let mut accesses: Vec<Access> = p.accesses().collect();
    accesses.sort_by_key(|a| (a.addr, a.pc));
    (p.byte_counts().collect(), accesses, p.dependences())
}

const FRAMES: u64 = 600;

#[test]
fn engines_agree_and_frames_do_not_change() {
    for stem in ["tracker", "fff"] {
        let replay = replay(stem);
        let plain = run(&replay, FRAMES, Engine::Interpreter, None);
        let mut recorded: Vec<Recorded> = Vec::new();
        for engine in [Engine::Interpreter, Engine::Translator] {
            let off = run(&replay, FRAMES, engine, None);
            let on = run(&replay, FRAMES, engine, Some(None));
            for r in [&off, &on] {
                assert_eq!(
                    (r.frame_hash, r.ram_hash),
                    (plain.frame_hash, plain.ram_hash),
                    "{stem} on {engine}: recording changed the run"
                );
            }
            if engine == Engine::Translator {
                // The recorder is told of skipped idle-loop iterations: the
                // engines agree with them skipped, not with them run.
                assert!(on.skipped > 0, "{stem}: no idle loop skipped");
            }
            recorded.push(contents(on.profile.as_deref().unwrap()));
        }
        let (bytes, accesses, deps) = &recorded[0];
        assert!(bytes.len() > 100, "{stem}: {} bytes", bytes.len());
        assert!(deps.len() > 50, "{stem}: {} dependences", deps.len());
        assert!(
            deps.iter().any(|d| d.crosses_interrupt),
            "{stem}: no NMI/main variable"
        );
        // Reads and writes per byte are the sums over instructions.
        for &(addr, reads, writes) in bytes {
            let (r, w) = accesses
                .iter()
                .filter(|a| a.addr == addr)
                .fold((0, 0), |(r, w), a| (r + a.reads, w + a.writes));
            assert_eq!((r, w), (reads, writes), "{stem} ${addr:04X}");
        }
        assert!(recorded[0] == recorded[1], "{stem}: the engines differ");
    }
}

/// With a lifetime the engines still agree (the instruction counts behind
/// it are exact on both, and the translator's skipped idle-loop iterations
/// count only while within it), and fewer reads count.
#[test]
fn lifetime_is_exact_on_both_engines() {
    let total = |r: &Run| -> u64 {
        r.profile
            .as_ref()
            .unwrap()
            .dependences()
            .iter()
            .map(|d| d.count)
            .sum()
    };
    for stem in ["tracker", "fff"] {
        let replay = replay(stem);
        let full = run(&replay, 200, Engine::Interpreter, Some(None));
        // 50: most idle-loop reads are past it; 3000: a frame's idle loop
        // is partly within it.
        for lifetime in [50, 3000] {
            let short: Vec<Run> = [Engine::Interpreter, Engine::Translator]
                .into_iter()
                .map(|e| run(&replay, 200, e, Some(Some(lifetime))))
                .collect();
            assert_eq!(
                short[0].profile.as_ref().unwrap().dependences(),
                short[1].profile.as_ref().unwrap().dependences(),
                "{stem}, lifetime {lifetime}"
            );
            assert!(
                total(&short[0]) < total(&full),
                "{stem}: the lifetime drops far reads"
            );
        }
    }
}

#[test]
fn profile_writes_the_memory_outputs() {
    let out = std::env::temp_dir().join(format!("nesprof-memory-{}", std::process::id()));
    let status = Command::new(env!("CARGO_BIN_EXE_nesprof"))
        .arg("profile")
        .arg(repo("roms-test/tracker.nes"))
        .arg("--movie")
        .arg(repo("movies/tracker.fm2"))
        .args(["--frames", "120", "--memory", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let report = std::fs::read_to_string(out.join("report.txt")).unwrap();
    assert!(report.contains("top memory dependences"), "{report}");
    assert!(report.contains("shared between interrupt handlers and main code"));
    let ron = std::fs::read_to_string(out.join("memory.ron")).unwrap();
    let parsed: profiler::memory::MemoryReport = ron::from_str(&ron).unwrap();
    assert!(!parsed.dependences.is_empty() && !parsed.shared.is_empty());
    let png = std::fs::read(out.join("ram.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    // tracker has no PRG RAM.
    assert!(!out.join("wram.png").exists());
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<h2>Memory</h2>") && html.contains("data:image/png;base64,"));
    let _ = std::fs::remove_dir_all(&out);

    // --memory-lifetime needs --memory, and a positive N.
    for bad in [
        &["--memory-lifetime", "5"][..],
        &["--memory", "--memory-lifetime", "0"],
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_nesprof"))
            .arg("profile")
            .arg(repo("roms-test/tracker.nes"))
            .args(["--frames", "1"])
            .args(bad)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
    }
}

type Counts = std::collections::BTreeMap<(u32, u32, u16, u32, bool), i64>;

fn add_counts(into: &mut Counts, p: &MemoryProfile, sign: i64) {
    for d in p.dependences() {
        *into
            .entry((d.writer, d.reader, d.addr, d.nca, d.crosses_interrupt))
            .or_default() += sign * d.count as i64;
    }
}

/// A bursty recording of `frames` frames with the recorder in
/// `state(frame)` each frame, on `engine`, with `lifetime`: checks that
/// the frames are as a plain run's and returns the profile.
fn bursty(
    replay: &Replay,
    frames: u64,
    engine: Engine,
    lifetime: Option<u64>,
    state: impl Fn(u64) -> MemoryState,
) -> Box<MemoryProfile> {
    let plain = run(replay, frames, Engine::Translator, None);
    let mut nes = replay.power_on().unwrap();
    nes.set_engine(engine);
    nes.record_memory(lifetime);
    while nes.frame_count() < frames {
        replay.apply(&mut nes, frames).unwrap();
        nes.set_memory_state(state(nes.frame_count()));
        nes.run_frame();
    }
    assert_eq!(
        (nes.frame_hash(), nes.ram_hash()),
        (plain.frame_hash, plain.ram_hash),
        "{engine:?}"
    );
    nes.take_memory_profile().unwrap()
}

/// The full profile's dependence counts in the frames where `in_burst`
/// holds (the profile at each such frame's end less the one at its
/// start), and the number of dependences of the whole run.
fn full_counts_in(replay: &Replay, frames: u64, in_burst: impl Fn(u64) -> bool) -> (Counts, usize) {
    let mut expected = Counts::new();
    let mut nes = replay.power_on().unwrap();
    nes.set_engine(Engine::Translator);
    nes.record_memory(None);
    while nes.frame_count() < frames {
        replay.apply(&mut nes, frames).unwrap();
        let frame = nes.frame_count();
        if in_burst(frame) {
            add_counts(&mut expected, &nes.memory_profile().unwrap(), -1);
        }
        nes.run_frame();
        if in_burst(frame) {
            add_counts(&mut expected, &nes.memory_profile().unwrap(), 1);
        }
    }
    expected.retain(|_, n| *n != 0);
    let total = nes.memory_profile().unwrap().dependences().len();
    (expected, total)
}

/// Bursty recording (`profile --memory-bursts`): frames unchanged, both
/// engines identical, and a burst counts exactly what the full profile
/// counts in the same frames: between bursts the recorder still follows
/// each byte's last writer, so a read in a burst is paired with the write
/// it took its value from however long before.
#[test]
fn bursts_count_what_the_full_profile_counts_in_their_frames() {
    let replay = replay("fff");
    let frames = 600;
    let in_burst = |frame: u64| frame % 10 < 2;
    let state = |frame| {
        if in_burst(frame) {
            MemoryState::Recording
        } else {
            MemoryState::Tracking
        }
    };
    let a = bursty(&replay, frames, Engine::Interpreter, None, state);
    let b = bursty(&replay, frames, Engine::Translator, None, state);
    assert!(
        contents(&a) == contents(&b),
        "the engines' bursty profiles differ"
    );
    let (expected, total) = full_counts_in(&replay, frames, in_burst);
    let mut found = Counts::new();
    add_counts(&mut found, &a, 1);
    assert_eq!(found, expected);
    assert!(
        !found.is_empty() && found.len() < total,
        "{} of {total}",
        found.len()
    );
}

/// Bursts with a warm-up (`--memory-bursts ON/PERIOD/WARMUP`): paused
/// before the warm-up, the recorder saw no write meanwhile. With a
/// lifetime it forgets every last writer on resuming, so a burst finds a
/// part of what the full profile counts in its frames: no dependence it
/// does not have, none more often, and fewer in all. Without one it keeps
/// the last writers of the bytes whose values did not change
/// (`MemoryRecorder::unpark`): it finds all that forgetting finds, and more.
#[test]
fn bursts_after_a_pause_find_part_of_their_frames_dependences() {
    let replay = replay("fff");
    let frames = 600;
    let state = |frame| profiler::session::burst_state(frame, 2, 20, Some(1));
    let in_burst = |frame| state(frame) == MemoryState::Recording;
    // Longer than the run: the lifetime drops no read, it only makes the
    // recorder forget the writers on resuming.
    let endless = Some(u64::MAX);
    let forgetting = bursty(&replay, frames, Engine::Interpreter, endless, state);
    let b = bursty(&replay, frames, Engine::Translator, endless, state);
    assert!(
        contents(&forgetting) == contents(&b),
        "the engines' bursty profiles differ"
    );
    let (expected, _) = full_counts_in(&replay, frames, in_burst);
    let mut forgot = Counts::new();
    add_counts(&mut forgot, &forgetting, 1);
    for (key, n) in &forgot {
        let full = expected.get(key).copied().unwrap_or(0);
        assert!(*n <= full, "{key:?}: {n} found, {full} in the full profile");
    }
    let sum = |c: &Counts| c.values().sum::<i64>();
    assert!(
        sum(&forgot) > 0 && sum(&forgot) < sum(&expected),
        "{} of {}",
        sum(&forgot),
        sum(&expected)
    );

    let keeping = bursty(&replay, frames, Engine::Interpreter, None, state);
    let b = bursty(&replay, frames, Engine::Translator, None, state);
    assert!(
        contents(&keeping) == contents(&b),
        "the engines' bursty profiles differ"
    );
    let mut kept = Counts::new();
    add_counts(&mut kept, &keeping, 1);
    for (key, n) in &forgot {
        let k = kept.get(key).copied().unwrap_or(0);
        assert!(k >= *n, "{key:?}: {n} found forgetting, {k} keeping");
    }
    assert!(
        sum(&kept) > sum(&forgot),
        "keeping the unchanged bytes' writers found nothing more: {} vs {}",
        sum(&kept),
        sum(&forgot)
    );
}
