//! The profiling lifecycle, in one place: [`Session`] attaches the
//! count-and-time sampler (and, when asked, the ground-truth recorder) to a
//! machine, offers the batches it completes to the feeder thread after each
//! frame (at most one message per [`crate::feeder::OFFER_INTERVAL`]; a full
//! queue drops them for the builder, counted per batch), and at the end
//! detaches everything and hands back the builder's final state, the sample
//! stream and the flow counts. `profile`, `sweep` (through [`run`]) and the
//! live overlay all go through it.
//!
//! Emulated-time triggering makes a run deterministic: the same ROM, movie and
//! settings give the same batches, truth and (without drops) hot CFG.

use std::sync::Arc;
use std::time::{Duration, Instant};

use emu::clock::CPU_HZ_NTSC;
use emu::memory_profile::MemoryProfile;
use emu::movie::Replay;
use emu::nes::{Engine, MemoryState, Nes};
use emu::sampling::{SampleCapture, Spacing, Trigger};
use emu::FlowCounts;
use gfc::{BuilderKind, Cfg, GfcGaussiano, GfcParams, HotCfgBuilder, Sample};
use parking_lot::RwLock;

use crate::feeder::{Feeder, Snapshot, Stream};
use crate::sink::{BatchSink, SampleTally};
use crate::timer::WallTimer;
use crate::truth;

#[derive(Debug, Clone)]
pub struct ProfileSettings {
    pub trigger: Trigger,
    /// X: milliseconds between batches.
    pub interval_ms: f64,
    /// N: instructions per batch.
    pub batch_len: usize,
    /// Emulated trigger: how intervals of mean X are drawn.
    pub spacing: Spacing,
    /// Emulated trigger: extra delay of up to this many ms per batch.
    pub jitter_ms: f64,
    pub seed: u64,
    /// The hot-CFG algorithm.
    pub builder: BuilderKind,
    /// GFCGaussiano's configuration (when `builder` is `gfc`).
    pub params: GfcParams,
    pub engine: Engine,
    /// Capacity of the builder's queue, in offers (at most one per frame,
    /// and per 10 ms of wall time).
    pub queue: usize,
    /// Record the memory-dependence profile too (`emu::memory_profile`),
    /// with this lifetime in instructions (`Some(None)`: no lifetime).
    pub memory: Option<Option<u64>>,
    /// With `memory`: record it in bursts, `on` frames of every `period`
    /// (at a place drawn in each, [`in_burst`]; `None`: every frame). VMAD's idea: the instrumented code
    /// runs for sampled stretches, the plain code the rest of the time.
    pub memory_bursts: Option<(u32, u32)>,
    /// With `memory_bursts`: follow the last writers only in the `w` frames
    /// before each burst, and run the plain code before that (`None`: in
    /// every frame between bursts). Cheaper, but a read in a burst whose
    /// write came before the warm-up is counted only if the byte kept its
    /// value since the last burst (`MemoryRecorder::unpark`).
    pub memory_warmup: Option<u32>,
    /// Record the truth (the flow counts) only in `on` frames of every
    /// `period` (at a place drawn in each, [`in_burst`]; `None`: every
    /// frame): the truth CFG, the metrics
    /// against it and the code side of a code/data log then cover those
    /// frames only (the call stacks are followed throughout, so the memory
    /// recorder is not affected).
    pub truth_bursts: Option<(u32, u32)>,
}

impl Default for ProfileSettings {
    /// The thesis' setup: X = 3 ms, N = 25 and its best configuration for
    /// GFCGaussiano; the trace builder (the better one); the
    /// emulated trigger with intervals drawn uniformly around X (see
    /// [`Spacing`]).
    fn default() -> Self {
        ProfileSettings {
            trigger: Trigger::Emulated,
            interval_ms: 3.0,
            batch_len: 25,
            spacing: Spacing::Uniform,
            jitter_ms: 0.0,
            seed: 0,
            builder: BuilderKind::Trace,
            params: gfc::THESIS_BEST,
            engine: Engine::Translator,
            queue: 4096,
            memory: None,
            memory_bursts: None,
            memory_warmup: None,
            truth_bursts: None,
        }
    }
}

/// Milliseconds of emulated time in CPU cycles.
pub fn ms_to_cycles(ms: f64) -> u64 {
    (ms * CPU_HZ_NTSC / 1000.0).round().max(1.0) as u64
}

/// The sampler for `settings`, scheduled from `start_cycle`, and the wall
/// timer if its trigger needs one.
pub fn sampler(settings: &ProfileSettings, start_cycle: u64) -> (SampleCapture, Option<WallTimer>) {
    match settings.trigger {
        Trigger::Emulated => {
            let jitter_cycles = if settings.jitter_ms > 0.0 {
                ms_to_cycles(settings.jitter_ms)
            } else {
                0
            };
            let capture = SampleCapture::emulated(
                ms_to_cycles(settings.interval_ms),
                settings.spacing,
                jitter_cycles,
                settings.seed,
                settings.batch_len,
                start_cycle,
            );
            (capture, None)
        }
        Trigger::Wall => {
            let timer = WallTimer::start(Duration::from_secs_f64(settings.interval_ms / 1000.0));
            let capture = SampleCapture::wall(timer.flag(), settings.batch_len, start_cycle);
            (capture, Some(timer))
        }
    }
}

/// What a session records besides the sampled hot CFG.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recording {
    /// The exact control-flow counts the truth CFG is built from.
    pub truth: bool,
    /// Every batch, converted, in order (the sample stream's content).
    pub stream: bool,
    /// Batches between two snapshots the feeder publishes (`u64::MAX`:
    /// only the final state).
    pub publish_every: u64,
    /// For [`run_streaming`]: the machine stopped inside a frame (see
    /// [`Window::mid_frame`]).
    pub mid_frame: bool,
}

impl Default for Recording {
    /// What `profile` and `sweep` record: everything, and no snapshot
    /// before the end, since nothing reads one: publishing makes the trace
    /// builder derive its graph (about 1 ms on fff), and on a two-core
    /// machine that work, every 64 batches, slowed the emulation thread
    /// next to it by 3 % (sampler_wall, fff).
    fn default() -> Self {
        Recording {
            truth: true,
            stream: true,
            publish_every: u64::MAX,
            mid_frame: false,
        }
    }
}

/// A profiling session attached to one machine.
pub struct Session {
    feeder: Feeder,
    timer: Option<WallTimer>,
    start_retired: u64,
    start: Instant,
}

/// What a finished session hands back.
pub struct Finished {
    /// The builder's final state.
    pub builder: Box<dyn HotCfgBuilder>,
    /// Every completed batch, in order (empty unless the stream was kept
    /// in memory).
    pub batches: Vec<Vec<Sample>>,
    /// The sink the stream went to, if one was given, and its first error.
    pub sink: Option<Box<dyn BatchSink>>,
    pub sink_error: Option<std::io::Error>,
    /// Every batch, tallied per address.
    pub tally: SampleTally,
    /// The flow counts (if the truth was recorded).
    pub counts: Option<Box<FlowCounts>>,
    /// The memory profile (if it was recorded).
    pub memory: Option<Box<MemoryProfile>>,
    pub executed_instructions: u64,
    pub sampled_instructions: u64,
    pub dropped_batches: u64,
    pub wall: Duration,
}

impl Session {
    /// Switches `nes` to the settings' engine, attaches the sampler (and the
    /// flow recorder, if `recording.truth`) and starts the feeder with the
    /// settings' builder.
    pub fn attach(nes: &mut Nes, settings: &ProfileSettings, recording: Recording) -> Session {
        let stream = if recording.stream {
            Stream::Memory
        } else {
            Stream::Nowhere
        };
        Session::attach_streaming(nes, settings, recording, stream)
    }

    /// [`Session::attach`], with the stream going to `stream` (whatever
    /// `recording.stream` says).
    pub fn attach_streaming(
        nes: &mut Nes,
        settings: &ProfileSettings,
        recording: Recording,
        stream: Stream,
    ) -> Session {
        nes.set_engine(settings.engine);
        if recording.truth {
            nes.record_flow();
        }
        if let Some(lifetime) = settings.memory {
            // After the flow recorder: its call stacks name the contexts.
            nes.record_memory(lifetime);
        }
        let (capture, timer) = sampler(settings, nes.cycles());
        nes.attach_sampler(capture);
        let feeder = Feeder::spawn_streaming(
            settings.builder.build(settings.params),
            settings.queue,
            recording.publish_every,
            stream,
        );
        Session {
            feeder,
            timer,
            start_retired: nes.retired(),
            start: Instant::now(),
        }
    }

    /// After each emulated frame: offers the completed batches to the
    /// feeder when [`crate::feeder::OFFER_INTERVAL`] has passed since the
    /// last offer. Never blocks.
    pub fn after_frame(&mut self, nes: &mut Nes) {
        if let Some(sampler) = nes.sampler_mut() {
            self.feeder.offer_from(sampler);
        }
    }

    /// Offers every batch completed so far, now, and asks the feeder for a
    /// snapshot once they are in it (`Feeder::publish_now`); returns the
    /// generation that snapshot will carry (`None`: the feeder is gone).
    pub fn publish_now(&mut self, nes: &mut Nes) -> Option<u64> {
        if let Some(sampler) = nes.sampler_mut() {
            self.feeder.flush_from(sampler);
        }
        self.feeder.publish_now()
    }

    /// Makes the feeder's snapshots carry `guide`'s result in place of the
    /// graphs (`Feeder::guide_with`).
    pub fn guide_with(&mut self, guide: crate::feeder::Guide) {
        self.feeder.guide_with(guide);
    }

    /// The feeder's latest published snapshot.
    pub fn snapshot(&self) -> Arc<RwLock<Snapshot>> {
        self.feeder.snapshot()
    }

    /// Batches dropped for the builder so far.
    pub fn dropped(&self) -> u64 {
        self.feeder.dropped()
    }

    /// Starts the hot CFG over with `builder`, and the flow counts with it
    /// if they are recorded, so both cover the same stretch of the run.
    pub fn restart(&mut self, nes: &mut Nes, builder: Box<dyn HotCfgBuilder>) {
        self.feeder.reset(builder);
        if nes.flow_counts().is_some() {
            // (The memory profile, if recorded, starts over with them.)
            nes.record_flow();
        }
    }

    /// Offers every batch completed so far, waits for the feeder to process
    /// them, and detaches the probes from `nes`.
    pub fn finish(mut self, nes: &mut Nes) -> Finished {
        if let Some(sampler) = nes.sampler_mut() {
            self.feeder.flush_from(sampler);
        }
        if let Some(timer) = self.timer.take() {
            timer.stop();
        }
        let wall = self.start.elapsed();
        let memory = nes.take_memory_profile();
        let counts = nes.take_flow_counts();
        let sampled_instructions = nes.take_sampler().map_or(0, |s| s.sampled_instructions);
        let dropped_batches = self.feeder.dropped();
        let fed = self.feeder.finish();
        Finished {
            builder: fed.builder,
            batches: fed.stream,
            sink: fed.sink,
            sink_error: fed.sink_error,
            tally: fed.tally,
            counts,
            memory,
            executed_instructions: nes.retired() - self.start_retired,
            sampled_instructions,
            dropped_batches,
            wall,
        }
    }
}

/// Everything a run produced.
pub struct ProfileRun {
    /// Every completed batch, in order (the sample stream's content), when
    /// it was kept in memory ([`run`]; [`run_streaming`] sends it to its
    /// sink instead).
    pub batches: Vec<Vec<Sample>>,
    /// The sink the stream went to ([`run_streaming`]), and its first error.
    pub sink: Option<Box<dyn BatchSink>>,
    pub sink_error: Option<std::io::Error>,
    /// Every batch, tallied per address.
    pub tally: SampleTally,
    /// Whether `progress` stopped the run before `frames`.
    pub stopped: bool,
    /// The live builder's final state.
    pub builder: Box<dyn HotCfgBuilder>,
    /// The exact CFG (empty when the truth was not recorded).
    pub truth: Cfg,
    /// Raw counts behind `truth` (for disassembly and deeper reports);
    /// `None` when the truth was not recorded.
    pub counts: Option<Box<FlowCounts>>,
    /// The memory profile, with `ProfileSettings::memory`.
    pub memory: Option<Box<MemoryProfile>>,
    pub executed_instructions: u64,
    pub sampled_instructions: u64,
    pub dropped_batches: u64,
    pub frames: u64,
    pub frame_hash: u64,
    pub ram_hash: u64,
    pub wall: Duration,
}

/// Runs `nes` (already powered on, probes not yet attached) until frame
/// `frames`, replaying `replay` if given, in a [`Session`] that records
/// everything, the stream kept in memory. `progress(frame)` is called after
/// each frame; when it returns false (the user interrupted the run) the run
/// ends there, and the result covers the frames run ([`ProfileRun::stopped`]).
pub fn run(
    nes: &mut Nes,
    replay: Option<&Replay>,
    frames: u64,
    settings: &ProfileSettings,
    mut progress: impl FnMut(u64) -> bool,
) -> Result<ProfileRun, String> {
    run_to(
        nes,
        replay,
        frames,
        settings,
        Recording::default(),
        Stream::Memory,
        |nes: &mut Nes| progress(nes.frame_count()),
    )
}

/// [`run`], with the stream written to `sink` as the run goes: memory
/// stays bounded whatever the run's length (`profile`). Without `truth`
/// the flow counts are not recorded (`profile --no-truth`: the sampler
/// alone, what a user leaves on): the result's truth is empty and its
/// counts `None`. `progress(nes)` is called after each frame, before the
/// batches are offered; false ends the run.
pub fn run_streaming(
    nes: &mut Nes,
    replay: Option<&Replay>,
    frames: u64,
    settings: &ProfileSettings,
    window: Window,
    sink: Box<dyn BatchSink>,
    progress: impl FnMut(&mut Nes) -> bool,
) -> Result<ProfileRun, String> {
    let recording = Recording {
        truth: window.truth,
        mid_frame: window.mid_frame,
        ..Recording::default()
    };
    run_to(
        nes,
        replay,
        frames,
        settings,
        recording,
        Stream::Sink(sink),
        progress,
    )
}

/// How [`run_streaming`] records and where its run starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// Record the flow counts (the truth).
    pub truth: bool,
    /// The machine stopped inside a frame (`profile --start-at`): the
    /// movie's input for it was applied when it began, and is not again.
    pub mid_frame: bool,
}

fn run_to(
    nes: &mut Nes,
    replay: Option<&Replay>,
    frames: u64,
    settings: &ProfileSettings,
    recording: Recording,
    stream: Stream,
    mut progress: impl FnMut(&mut Nes) -> bool,
) -> Result<ProfileRun, String> {
    let mut session = Session::attach_streaming(nes, settings, recording, stream);
    let mut stopped = false;
    let mut inside_a_frame = recording.mid_frame;
    while nes.frame_count() < frames {
        if let Some(replay) = replay.filter(|_| !std::mem::take(&mut inside_a_frame)) {
            replay.apply(nes, frames).map_err(|p| p.to_string())?;
            if nes.frame_count() >= frames {
                break;
            }
        }
        before_frame(nes, settings);
        nes.run_frame();
        let go_on = progress(nes);
        session.after_frame(nes);
        if !go_on {
            stopped = nes.frame_count() < frames;
            break;
        }
    }
    let finished = session.finish(nes);
    let counts = finished.counts;
    let truth = counts.as_deref().map(truth::build).unwrap_or_default();
    Ok(ProfileRun {
        batches: finished.batches,
        sink: finished.sink,
        sink_error: finished.sink_error,
        tally: finished.tally,
        stopped,
        builder: finished.builder,
        truth,
        counts,
        memory: finished.memory,
        executed_instructions: finished.executed_instructions,
        sampled_instructions: finished.sampled_instructions,
        dropped_batches: finished.dropped_batches,
        frames: nes.frame_count(),
        frame_hash: nes.frame_hash(),
        ram_hash: nes.ram_hash(),
        wall: finished.wall,
    })
}

/// Replays recorded batches through a fresh builder (the offline path the
/// sweep and `cfg build` use; identical to the live builder when nothing
/// was dropped).
pub fn replay_batches(
    batches: &[Vec<Sample>],
    builder: BuilderKind,
    params: GfcParams,
) -> Box<dyn HotCfgBuilder> {
    let mut b = builder.build(params);
    for batch in batches {
        b.process_batch(batch);
    }
    b
}

/// As [`replay_batches`], for batches that come one at a time and may fail
/// to come (a `stream::StreamReader`): the builders fold each batch as it
/// arrives, so the memory is the builder's and one batch's, not the run's.
/// Stops at the first error and returns it.
pub fn replay_each<B: AsRef<[Sample]>, E>(
    batches: impl IntoIterator<Item = Result<B, E>>,
    builder: BuilderKind,
    params: GfcParams,
) -> Result<Box<dyn HotCfgBuilder>, E> {
    let mut b = builder.build(params);
    for batch in batches {
        b.process_batch(batch?.as_ref());
    }
    Ok(b)
}

/// [`replay_batches`] through GFCGaussiano, keeping its own type (the
/// sweep reads its bins).
pub fn replay_gfc(batches: &[Vec<Sample>], params: GfcParams) -> GfcGaussiano {
    let mut gfc = GfcGaussiano::new(params);
    for batch in batches {
        gfc.process_batch(batch);
    }
    gfc
}

/// Switches the recorders on or off for the frame about to run, as the
/// truth and memory bursts in `settings` say.
pub fn before_frame(nes: &mut Nes, settings: &ProfileSettings) {
    let frame = nes.frame_count();
    if let Some((on, period)) = settings.truth_bursts {
        nes.set_flow_recording(in_burst(frame, on, period));
    }
    if let Some((on, period)) = settings.memory_bursts {
        nes.set_memory_state(burst_state(frame, on, period, settings.memory_warmup));
    }
}

/// The first frame of the burst in the `k`-th stretch of `period` frames:
/// `on` frames at a place drawn afresh in each stretch (a fixed hash of
/// `k`, so runs repeat). Not always the stretch's first frames: many games
/// run some of their work every other frame (or every fourth), and bursts
/// at a fixed phase of an even period saw only one kind of frame — on one
/// game, 1 frame in 30 gave a truth CFG overlapping the full one by 0.93
/// where 1 in 29 or 31 gave 0.98 (as the sampler's intervals are drawn at
/// random so as not to lock onto the 60 Hz frame).
fn burst_start(k: u64, on: u32, period: u32) -> u64 {
    let period = period.max(1) as u64;
    let places = period - (on as u64).min(period) + 1;
    // splitmix64's finaliser: consecutive `k` give unrelated places.
    let mut z = k.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    k * period + z % places
}

/// Whether frame `frame` is in a burst of `on` frames every `period`
/// (see `burst_start`).
pub fn in_burst(frame: u64, on: u32, period: u32) -> bool {
    let k = frame / period.max(1) as u64;
    let start = burst_start(k, on, period);
    (start..start + on as u64).contains(&frame)
}

/// What the memory recorder does in frame `frame` with bursts of `on`
/// frames every `period` (see [`in_burst`]), and `warmup` frames of write
/// tracking before each (`None`: tracking in every frame between bursts).
pub fn burst_state(frame: u64, on: u32, period: u32, warmup: Option<u32>) -> MemoryState {
    if in_burst(frame, on, period) {
        return MemoryState::Recording;
    }
    let Some(w) = warmup else {
        return MemoryState::Tracking;
    };
    let k = frame / period.max(1) as u64;
    let start = burst_start(k, on, period);
    let next = if frame < start {
        start
    } else {
        burst_start(k + 1, on, period)
    };
    if next - frame <= w as u64 {
        MemoryState::Tracking
    } else {
        MemoryState::Paused
    }
}

#[cfg(test)]
mod replay_tests {
    use super::*;
    use gfc::Flow;

    /// Batch by batch gives what the slice gives, and an error stops it.
    #[test]
    fn replay_each_matches_replay_batches() {
        let batches: Vec<Vec<Sample>> = (0..200u32)
            .map(|i| {
                let base = 0x8000 + (i % 7) * 0x10;
                vec![
                    Sample::plain(base, 2),
                    Sample::control(base + 2, 2, Flow::Branch, base),
                    Sample::plain(base, 2),
                ]
            })
            .collect();
        for kind in BuilderKind::ALL {
            let whole = replay_batches(&batches, kind, gfc::THESIS_BEST);
            let each =
                replay_each(batches.iter().map(Ok::<_, ()>), kind, gfc::THESIS_BEST).unwrap();
            assert_eq!(
                ron::to_string(whole.graph()).unwrap(),
                ron::to_string(each.graph()).unwrap(),
                "{kind}"
            );
            assert_eq!(whole.counters().batches, each.counters().batches);
            let failing = batches
                .iter()
                .take(3)
                .map(Ok)
                .chain(std::iter::once(Err("bad batch")));
            assert_eq!(
                replay_each(failing, kind, gfc::THESIS_BEST).err(),
                Some("bad batch")
            );
        }
    }
}

#[cfg(test)]
mod burst_tests {
    use super::*;

    /// In every stretch of `period` frames, one run of `on` burst frames,
    /// the `warmup` frames before each burst tracking writes and the rest
    /// paused; the bursts' places vary from stretch to stretch.
    #[test]
    fn burst_states_by_frame() {
        use MemoryState::{Paused as P, Recording as R, Tracking as T};
        let (on, period, frames) = (2u32, 7u32, 7000u64);
        for warmup in [None, Some(0), Some(1), Some(3), Some(5)] {
            let states: Vec<MemoryState> = (0..frames)
                .map(|f| burst_state(f, on, period, warmup))
                .collect();
            let mut places = std::collections::HashSet::new();
            for (k, stretch) in states.chunks(period as usize).enumerate() {
                let first = stretch.iter().position(|&s| s == R).expect("a burst");
                places.insert(first);
                assert!(
                    stretch[first..first + on as usize].iter().all(|&s| s == R)
                        && stretch.iter().filter(|&&s| s == R).count() == on as usize,
                    "stretch {k}: {stretch:?}"
                );
                for (i, &s) in stretch.iter().enumerate() {
                    assert_eq!(
                        in_burst(k as u64 * period as u64 + i as u64, on, period),
                        s == R
                    );
                }
            }
            assert_eq!(
                places.len(),
                (period - on + 1) as usize,
                "every place is drawn"
            );
            for (f, &s) in states.iter().enumerate() {
                let next = (f..states.len()).find(|&g| states[g] == R);
                let expected = match (s, warmup, next) {
                    (R, ..) => R,
                    (_, None, _) => T,
                    (_, Some(w), Some(n)) if n - f <= w as usize => T,
                    (_, Some(_), Some(_)) => P,
                    // After the last burst of the run: tracking or paused
                    // depends on the next stretch's draw.
                    (_, Some(_), None) => s,
                };
                assert_eq!(s, expected, "frame {f}, warm-up {warmup:?}");
            }
        }
        // One frame in every one: always recording.
        assert!((0..100).all(|f| in_burst(f, 1, 1)));
        // No frame in any (the memory-only measurement's truth).
        assert!((0..100).all(|f| !in_burst(f, 0, 5)));
    }
}
