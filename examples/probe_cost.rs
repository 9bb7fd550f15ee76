//! What the profiling probes cost, in host instructions: run under valgrind's
//! callgrind (deterministic, unaffected by other load on the machine), with
//! `--separate-threads=yes` so the emulation thread and the feeder thread
//! are counted apart. `scripts/probe-cost.sh` runs the whole table.
//!
//! Usage: probe_cost GAME interp|translate off|sampler|capture|truth|both|memory|all FRAMES
//! (GAME: a bundled workload or a game of `workloads-games.ron`; `capture`
//! is the sampler without a feeder thread, its batches taken and dropped;
//! `memory` the truth recorder with the memory recorder (`profile
//! --memory` without the sampler), `all` both with the sampler).
//! Prints the final frame hash, the emulation loop's wall time and the
//! batches completed.
//! `PROBE_COST_N` in the environment changes the batch length (N = 25), to
//! see which part of the sampler's cost grows with it (under `perf record`);
//! `PROBE_COST_X_MS` its interval (X = 3 ms), to magnify the batches' share.
//! `PROBE_COST_EVENTS=1` attaches the frame-event log too (issue 43;
//! `PROBE_COST_WATCH=1` with it watches the entries `profile` watches),
//! drained after every frame as the profiler does. `PROBE_COST_TAKEN=1`
//! notes the taken branch targets, as `profile` does (issue 44).

use emu::nes::Engine;
use profiler::feeder::Feeder;
use profiler::session::{self, ProfileSettings};

#[path = "common/cli.rs"]
mod cli;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 5 {
        eprintln!(
            "usage: probe_cost GAME interp|translate off|sampler|capture|truth|both|memory|all FRAMES"
        );
        std::process::exit(2);
    }
    let (game, engine, probes) = (&args[1], &args[2], &args[3]);
    let frames: u64 = cli::number("probe_cost", "FRAMES", &args[4]);
    let (_, mut nes, replay) = cli::workload_replay("probe_cost", game);
    nes.set_engine(match engine.as_str() {
        "interp" => Engine::Interpreter,
        _ => Engine::Translator,
    });
    if matches!(probes.as_str(), "truth" | "both" | "memory" | "all") {
        nes.record_flow();
    }
    if matches!(probes.as_str(), "memory" | "all") {
        nes.record_memory(None);
    }
    let mut builder = None;
    if matches!(probes.as_str(), "sampler" | "both" | "capture" | "all") {
        // The thesis' setup: X = 3 ms of emulated time, N = 25 (unless
        // PROBE_COST_N says otherwise).
        let mut settings = ProfileSettings::default();
        if let Some(x) = cli::env_positive("probe_cost", "PROBE_COST_X_MS") {
            settings.interval_ms = x;
        }
        if let Some(n) = cli::env_count("probe_cost", "PROBE_COST_N") {
            settings.batch_len = n;
        }
        nes.attach_sampler(session::sampler(&settings, nes.cycles()).0);
        if probes != "capture" {
            let gfc = Box::new(gfc::GfcGaussiano::new(gfc::THESIS_BEST));
            builder = Some(Feeder::spawn(gfc, 4096, 64, false));
        }
    }
    if std::env::var("PROBE_COST_TAKEN").is_ok_and(|v| v == "1") {
        nes.record_taken_targets();
    }
    let events = std::env::var("PROBE_COST_EVENTS").is_ok_and(|v| v == "1");
    if events {
        nes.record_events();
        if std::env::var("PROBE_COST_WATCH").is_ok_and(|v| v == "1") {
            // As `profile` watches: the entries the code shows.
            let reset = profiler::frame_profile::routines::vector_target(&mut nes, 0xFFFC);
            let prg: std::sync::Arc<[u8]> = nes.cartridge().prg_rom.to_vec().into();
            let mut r = profiler::frame_profile::Routines::new(prg.len(), reset).with_prg(prg);
            r.add_entry(profiler::frame_profile::routines::vector_target(
                &mut nes, 0xFFFA,
            ));
            r.add_entry(profiler::frame_profile::routines::vector_target(
                &mut nes, 0xFFFE,
            ));
            r.refresh_owners();
            let entries: Vec<u32> = r.entries().collect();
            nes.watch_entries(&entries);
        }
    }
    let mut drained = Vec::new();
    // `capture` drops its batches into one buffer kept here, as the builder
    // hands its buffers back: no allocation per frame.
    let mut dropped = emu::sampling::Batches::default();
    let start = std::time::Instant::now();
    while nes.frame_count() < frames {
        replay.apply(&mut nes, u64::MAX).expect("movie input");
        nes.run_frame();
        if events {
            nes.drain_events(&mut drained);
        }
        if let Some(sampler) = nes.sampler_mut() {
            match builder.as_mut() {
                Some(b) => {
                    b.offer_from(sampler);
                }
                None => sampler.take_batches_into(&mut dropped),
            }
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let batches = nes.sampler().map_or(0, |s| s.batches);
    println!(
        "frame_hash={:016x} emulation_s={seconds:.4} batches={batches} idle={}",
        nes.frame_hash(),
        nes.stamp().idle
    );
}
