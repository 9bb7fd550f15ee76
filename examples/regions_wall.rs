//! Wall-clock cost or gain of hot regions (issue 47's "the profiling pays
//! for itself"), measured A/B as `sampler_wall` measures the sampler: two
//! machines replay the same movie in one process, one with regions off
//! and one with regions chosen as `run --regions CHOICE` chooses them
//! (for `sampled`: the sampler, its feeder thread and the guide, as `run`
//! runs them), advanced in alternating slices of frames (the order
//! flipping every slice) and timed slice by slice. Whole runs in turn
//! (`scripts/regions-wall.sh`) differed here by more than the effect: the
//! same binary's fps moved by 40 % from run to run, and by where a run
//! fell in the turn.
//!
//! Prints the total times and the trimmed mean of the per-slice ratios
//! (the 10 % highest and lowest dropped). Both machines must end with the
//! same frame: regions change no result.
//!
//! Usage: regions_wall GAME net|sampled|exact FRAMES [ROUNDS] [TRUTH.ron]
//! (GAME: a bundled workload or a game of `workloads-games.ron`; `exact`
//! takes the truth `nesprof profile` wrote for the game.)

use std::path::Path;
use std::sync::Arc;

use emu::movie::Replay;
use emu::nes::Engine;
use emu::translate::region::RegionChoice;
use emu::Nes;
use profiler::region_guide::SampledGuide;
use profiler::session::ProfileSettings;

#[path = "common/interleaved.rs"]
mod interleaved;
use interleaved::{Interleaved, SLICE_FRAMES};

#[path = "common/cli.rs"]
mod cli;

fn advance(nes: &mut Nes, replay: &Replay, to: u64, guide: Option<&mut SampledGuide>) {
    let mut guide = guide;
    while nes.frame_count() < to {
        replay.apply(nes, u64::MAX).expect("movie input");
        nes.run_frame();
        if let Some(guide) = guide.as_deref_mut() {
            guide.after_frame(nes);
        }
    }
}

fn usage() -> ! {
    eprintln!("usage: regions_wall GAME net|sampled|exact FRAMES [ROUNDS] [TRUTH.ron]");
    std::process::exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if !(4..=6).contains(&args.len()) {
        usage();
    }
    let (game, choice) = (&args[1], args[2].as_str());
    let frames: u64 = args[3].parse().unwrap_or_else(|_| usage());
    let rounds: u32 = args
        .get(4)
        .map_or(1, |r| r.parse().unwrap_or_else(|_| usage()));
    let truth = args.get(5);
    if !matches!(choice, "net" | "sampled" | "exact") || (choice == "exact") != truth.is_some() {
        usage();
    }
    let (workload, _, replay) = cli::workload_replay("regions_wall", game);
    let rom = std::fs::read(&workload.rom).expect("the ROM");
    let mut timed = Interleaved::default();
    for _ in 0..rounds {
        let mut off = replay.power_on().expect("power on");
        let mut on = replay.power_on().expect("power on");
        off.set_engine(Engine::Translator);
        on.set_engine(Engine::Translator);
        let mut guide = None;
        match choice {
            "net" => on.set_regions(RegionChoice::NET),
            "exact" => {
                let prg = on.cartridge().prg_rom.to_vec();
                let paths = nesprof::cli::run::exact_paths(Path::new(&truth.unwrap()), &rom, prg)
                    .expect("the truth of this game");
                on.set_regions(RegionChoice::Guided(Arc::new(paths)));
            }
            _ => guide = Some(SampledGuide::attach(&mut on, &ProfileSettings::default())),
        }
        while off.frame_count() < frames {
            let to = (off.frame_count() + SLICE_FRAMES).min(frames);
            timed.slice(
                || advance(&mut off, &replay, to, None),
                || advance(&mut on, &replay, to, guide.as_mut()),
            );
        }
        assert_eq!(off.frame_hash(), on.frame_hash(), "regions changed a frame");
        assert_eq!(off.ram_hash(), on.ram_hash(), "regions changed the RAM");
        if let Some(guide) = guide {
            guide.finish(&mut on);
        }
    }
    println!(
        "off_s={:.4} {choice}_s={:.4} change_pct={:+.2} trimmed_slice_pct={:+.2}",
        timed.a.as_secs_f64(),
        timed.b.as_secs_f64(),
        timed.change_pct(),
        timed.trimmed_pct(),
    );
}
