//! Whether the engines' recorders and the hot-CFG builders hold memory that
//! grows with the run's length rather than with the code (issue 42, class
//! 4): runs a workload for FRAMES frames (a game keeps running, with no
//! input, after its movie ends) with one set of probes, the builder fed on
//! this thread (no feeder thread, no sample stream, no outputs), and
//! prints at each checkpoint the process's peak and current resident
//! memory, the main heap's bytes in use (what is held, apart from how the
//! allocator lays it out) and the sizes of what the probes hold.
//!
//! Usage: memory_growth GAME none|flow|memory|bursts|gfc|trace CHECKPOINT[,CHECKPOINT...]
//! (GAME: a bundled workload or a game of `workloads-games.ron`;
//! checkpoints in frames, ascending, e.g. `3600,36000,216000` for 1, 10
//! and 60 emulated minutes). `flow` is the truth recorder (`record_flow`),
//! `memory` the memory recorder with it (`record_memory(None)`), `bursts`
//! both in the README's cheap bursts (`--memory-bursts 4/120/0
//! --truth-bursts 1/30`), `gfc` and `trace` the sampler with that builder
//! fed every frame, at X = 0.1 ms and N = 25 (thirty times the thesis'
//! rate, so that many batches come soon).

use emu::nes::Engine;
use gfc::builder::BuilderKind;
use profiler::session::{self, ProfileSettings};

#[path = "common/cli.rs"]
mod cli;

/// The process's peak (`VmHWM`) and current (`VmRSS`) resident set, in KiB.
fn rss_kib() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    (field("VmHWM:"), field("VmRSS:"))
}

/// Bytes the allocator has handed out and not had back (glibc's
/// `mallinfo2`: the main heap, other threads' arenas and mapped blocks):
/// what the program holds, apart from how the allocator lays it out.
fn heap_kib() -> u64 {
    // SAFETY: mallinfo2 only reads the allocator's statistics.
    let info = unsafe { libc::mallinfo2() };
    (info.uordblks + info.hblkhd) as u64 / 1024
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        eprintln!(
            "usage: memory_growth GAME none|flow|memory|bursts|gfc|trace CHECKPOINT[,CHECKPOINT...]"
        );
        std::process::exit(2);
    }
    let (game, probes) = (&args[1], args[2].as_str());
    let checkpoints: Vec<u64> = args[3]
        .split(',')
        .map(|f| cli::number("memory_growth", "CHECKPOINT", f))
        .collect();
    let (_, mut nes, replay) = cli::workload_replay("memory_growth", game);
    nes.set_engine(Engine::Translator);
    match probes {
        "flow" => nes.record_flow(),
        "memory" | "bursts" => nes.record_memory(None),
        _ => {}
    }
    let bursts = ProfileSettings {
        memory_bursts: Some((4, 120)),
        memory_warmup: Some(0),
        truth_bursts: Some((1, 30)),
        ..ProfileSettings::default()
    };
    let builder_kind = match probes {
        "gfc" => Some(BuilderKind::Gfc),
        "trace" => Some(BuilderKind::Trace),
        _ => None,
    };
    let mut builder = builder_kind.map(|kind| {
        let settings = ProfileSettings {
            interval_ms: 0.1,
            ..ProfileSettings::default()
        };
        nes.attach_sampler(session::sampler(&settings, nes.cycles()).0);
        kind.build(gfc::THESIS_BEST)
    });
    let mut batches = emu::sampling::Batches::default();
    println!("frames peak_kib rss_kib heap_kib what_is_held");
    for &until in &checkpoints {
        while nes.frame_count() < until {
            replay.apply(&mut nes, u64::MAX).expect("movie input");
            if probes == "bursts" {
                session::before_frame(&mut nes, &bursts);
            }
            nes.run_frame();
            if let (Some(b), Some(sampler)) = (builder.as_mut(), nes.sampler_mut()) {
                sampler.take_batches_into(&mut batches);
                for batch in batches.iter() {
                    b.process_batch(&profiler::convert::batch(batch));
                }
            }
        }
        let held = match probes {
            "flow" => {
                let flow = nes.flow_counts().expect("recording");
                format!("call_contexts={}", flow.call_stacks().node_count())
            }
            "memory" | "bursts" => {
                let contexts = nes
                    .flow_counts()
                    .expect("recording")
                    .call_stacks()
                    .node_count();
                let p = nes.memory_profile().expect("recording");
                format!(
                    "call_contexts={contexts} dependences={} accesses={}",
                    p.dependences().len(),
                    p.accesses().count()
                )
            }
            _ => match &builder {
                Some(b) => format!(
                    "batches={} graph_edges={} profile_edges={} bins={}",
                    b.counters().batches,
                    b.graph().num_edges(),
                    b.edge_profile().num_edges(),
                    b.bins().len()
                ),
                None => String::new(),
            },
        };
        let (peak, now) = rss_kib();
        println!("{} {peak} {now} {} {held}", nes.frame_count(), heap_kib());
    }
}
