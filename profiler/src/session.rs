//! One profiling run: the emulator runs a ROM (optionally replaying a movie)
//! with the ground-truth recorder and the count-and-time sampler attached;
//! after each frame the batches it completed are kept (for the sample
//! stream) and offered to the builder thread, which grows the hot CFG live
//! (one message per frame; a full queue drops them, counted per batch). At the end the truth CFG is
//! derived from the recorded flow counts.
//!
//! Emulated-time triggering makes a run deterministic: the same ROM, movie and
//! settings give the same batches, truth and (without drops) hot CFG.

use std::time::{Duration, Instant};

use emu::movie::Replay;
use emu::nes::{Engine, Nes, CPU_HZ_NTSC};
use emu::sampling::{Batches, SampleCapture, Trigger};
use emu::FlowCounts;
use gfc::{Cfg, GfcGaussiano, GfcParams, Sample};

use crate::builder::BuilderHandle;
use crate::timer::WallTimer;
use crate::{convert, truth};

/// What starts a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TriggerKind {
    /// A timer thread, every X ms of real time (the thesis' setup).
    Wall,
    /// Every X ms of emulated time (deterministic).
    Emulated,
}

#[derive(Debug, Clone)]
pub struct ProfileSettings {
    pub trigger: TriggerKind,
    /// X: milliseconds between batches.
    pub interval_ms: f64,
    /// N: instructions per batch.
    pub batch_len: usize,
    /// Emulated trigger: extra delay of up to this many ms per batch.
    pub jitter_ms: f64,
    pub seed: u64,
    /// The live builder's configuration.
    pub params: GfcParams,
    pub engine: Engine,
    /// Capacity of the builder's queue, in offers (at most one per frame,
    /// and per 10 ms of wall time).
    pub queue: usize,
}

impl Default for ProfileSettings {
    /// The thesis' setup: X = 3 ms, N = 25, its best configuration.
    fn default() -> Self {
        ProfileSettings {
            trigger: TriggerKind::Emulated,
            interval_ms: 3.0,
            batch_len: 25,
            jitter_ms: 0.0,
            seed: 0,
            params: gfc::THESIS_BEST,
            engine: Engine::Translator,
            queue: 4096,
        }
    }
}

/// Milliseconds of emulated time in CPU cycles.
pub fn ms_to_cycles(ms: f64) -> u64 {
    (ms * CPU_HZ_NTSC / 1000.0).round().max(1.0) as u64
}

/// Everything a run produced.
pub struct ProfileRun {
    /// Every completed batch, in order (the sample stream's content).
    pub batches: Vec<Vec<Sample>>,
    /// The live builder's final state.
    pub gfc: GfcGaussiano,
    /// The exact CFG.
    pub truth: Cfg,
    /// Raw counts behind `truth` (for disassembly and deeper reports).
    pub counts: Box<FlowCounts>,
    pub executed_instructions: u64,
    pub sampled_instructions: u64,
    pub dropped_batches: u64,
    pub frames: u64,
    pub frame_hash: u64,
    pub ram_hash: u64,
    pub wall: Duration,
}

/// Attaches the probes for `settings` to `nes`; returns the wall timer if the
/// trigger needs one.
pub fn attach(nes: &mut Nes, settings: &ProfileSettings) -> Option<WallTimer> {
    nes.set_engine(settings.engine);
    nes.probes.flow = Some(Box::new(FlowCounts::new()));
    let (sampler, timer) = sampler(settings, nes.cycles());
    nes.probes.sampler = Some(sampler);
    timer
}

/// The sampler for `settings`, scheduled from `start_cycle`, and the wall
/// timer if its trigger needs one.
pub fn sampler(settings: &ProfileSettings, start_cycle: u64) -> (SampleCapture, Option<WallTimer>) {
    let (trigger, timer) = match settings.trigger {
        TriggerKind::Emulated => (
            Trigger::Emulated {
                interval_cycles: ms_to_cycles(settings.interval_ms),
                jitter_cycles: if settings.jitter_ms > 0.0 {
                    ms_to_cycles(settings.jitter_ms)
                } else {
                    0
                },
                seed: settings.seed,
            },
            None,
        ),
        TriggerKind::Wall => {
            let timer = WallTimer::start(Duration::from_secs_f64(settings.interval_ms / 1000.0));
            (Trigger::Wall(timer.flag()), Some(timer))
        }
    };
    (
        SampleCapture::new(trigger, settings.batch_len, start_cycle),
        timer,
    )
}

/// Runs `nes` (already powered on, probes not yet attached) until frame
/// `frames`, replaying `replay` if given. `progress(frame)` is called after
/// each frame.
pub fn run(
    nes: &mut Nes,
    replay: Option<&Replay>,
    frames: u64,
    settings: &ProfileSettings,
    mut progress: impl FnMut(u64),
) -> Result<ProfileRun, String> {
    let timer = attach(nes, settings);
    let mut builder = BuilderHandle::spawn(settings.params, settings.queue, 64);
    let mut batches = Batches::default();
    let start = Instant::now();
    let start_retired = nes.retired;
    while nes.frame_count() < frames {
        if let Some(replay) = replay {
            replay.apply(nes, frames).map_err(|p| p.to_string())?;
            if nes.frame_count() >= frames {
                break;
            }
        }
        nes.run_frame();
        if builder.offer_due() {
            offer_keeping(nes, &mut builder, &mut batches);
        }
        progress(nes.frame_count());
    }
    offer_keeping(nes, &mut builder, &mut batches);
    if let Some(timer) = timer {
        timer.stop();
    }
    let wall = start.elapsed();
    nes.flush_probes();
    let counts = nes.probes.flow.take().expect("flow counts attached");
    let sampler = nes.probes.sampler.take().expect("sampler attached");
    let dropped_batches = builder.dropped();
    let gfc = builder.finish();
    let truth = truth::build(&counts);
    Ok(ProfileRun {
        // Converted after the run: during it only the builder converts.
        batches: batches.iter().map(convert::batch).collect(),
        gfc,
        truth,
        executed_instructions: nes.retired - start_retired,
        sampled_instructions: sampler.sampled_instructions,
        counts,
        dropped_batches,
        frames: nes.frame_count(),
        frame_hash: nes.frame_hash(),
        ram_hash: nes.ram_hash(),
        wall,
    })
}

/// Offers the sampler's completed batches to the builder, keeping a copy
/// for the sample stream.
fn offer_keeping(nes: &mut Nes, builder: &mut BuilderHandle, kept: &mut Batches) {
    if let Some(sampler) = nes.probes.sampler.as_mut() {
        let taken = builder.take_from(sampler);
        kept.append(&taken);
        builder.offer(taken);
    }
}

/// Replays recorded batches through a fresh GFCGaussiano (the offline path
/// the sweep uses; identical to the live builder when nothing was dropped).
pub fn replay_batches(batches: &[Vec<Sample>], params: GfcParams) -> GfcGaussiano {
    let mut gfc = GfcGaussiano::new(params);
    for batch in batches {
        gfc.process_batch(batch);
    }
    gfc
}
