//! The frame-time profile of a run as it goes, on a thread of its own:
//! the exact accounting ([`FrameProfile`], fed each frame's events from
//! the engines' log) and the sampler-only estimates ([`SampledProfile`],
//! fed every batch by the feeder through [`BatchTee`]) meet here, frame by
//! frame, and each frame's row goes to `frames.csv` as soon as both sides
//! have it. Nothing per frame is kept: the rows are written, the chart
//! folds them ([`FrameChart`]), the work per frame goes into a histogram.
//!
//! The emulation thread's part ([`FrameRecorder::end_frame`]) is moving
//! the frame's events out of the engine's log (a buffer swap) and one
//! channel send; the accounting's cost is on the other core.
//!
//! **When a frame's sampled estimate is final.** Batches come from the
//! feeder, later than the frame ends come from the emulation thread, and
//! a batch can straddle a frame's end. A frame ending at cycle E is
//! estimated once a batch starting at or after E has arrived (batches come
//! in order, so every observation before E is in), or at the end of the
//! run. The rows waiting for that are at most the frames of one sampling
//! interval.

use std::collections::VecDeque;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::{bounded, unbounded, Receiver, Sender, TryRecvError};
use emu::frame_events::{FlowEvent, Stamp};
use emu::nes::Nes;
use gfc::Sample;
use parking_lot::RwLock;

use super::accounting::{FrameProfile, Profile, Start};
use super::chart::FrameChart;
use super::csv::{self, Columns};
use super::histogram::FrameHistogram;
use super::routines::Routines;
use super::rows::{self, Estimate, FrameRow, RoutineRow, SampledFrame, SampledRoutine};
use super::sampled::{Classifier, Cycles, Estimates, FrameEstimate, SampledProfile, WaitLoops};
use crate::sink::BatchSink;

/// How far the emulation thread may be ahead of the accounting before
/// [`FrameRecorder::end_frame`] waits, in events (each frame counting
/// [`FRAME_WEIGHT`] besides its events): a few MB ([`MAX_IN_FLIGHT_BYTES`]).
/// A busy frame's events are up to a few hundred kilobytes (tracker's
/// bytecode interpreter makes 5,000 calls a frame), and the accounting
/// looks at its queue every [`POLL`], when a fast game has run ten frames:
/// so the bound is in events, not frames. A quarter of it (and a 200 µs
/// poll) kept the memory lower but cost tracker's `profile` 10 % of its
/// speed, the emulation waiting for the accounting.
const EVENTS_IN_FLIGHT: usize = 1 << 16;

/// The most the events in flight, those not yet sent (a quarter of
/// [`EVENTS_IN_FLIGHT`], see [`FrameRecorder::end_frame`]) and the spare
/// buffers hold: how much a loaded machine, where the accounting falls
/// behind, can add to the peak memory of a run (the soak test allows for
/// it).
pub const MAX_IN_FLIGHT_BYTES: usize =
    (EVENTS_IN_FLIGHT + EVENTS_IN_FLIGHT / 4 + SPARE_BUFFERS * (1 << 13))
        * std::mem::size_of::<FlowEvent>();

/// How long the accounting sleeps when its queue is empty (it polls, as
/// the feeder does: see the loop in `State::run`).
const POLL: std::time::Duration = std::time::Duration::from_millis(1);

/// What a frame counts against [`EVENTS_IN_FLIGHT`] besides its events.
const FRAME_WEIGHT: usize = 64;

/// Spare event buffers kept for reuse.
const SPARE_BUFFERS: usize = 8;

/// How long ended frames wait on the emulation thread before they are
/// sent together (see [`FrameRecorder::end_frame`]).
const SEND_INTERVAL: std::time::Duration = std::time::Duration::from_millis(10);

/// A frame as the emulation thread ended it.
struct FrameEnd {
    frame: u64,
    end: Stamp,
    events: Vec<FlowEvent>,
}

enum Message {
    /// Frames in order, each after the one before.
    Frames(Vec<FrameEnd>),
    /// Batches in order: batch `i` is `samples[ends[i - 1]..ends[i]]`.
    Batches {
        samples: Vec<Sample>,
        ends: Vec<usize>,
    },
    /// The run failed: drop everything (`frames.csv`'s temporary with it).
    Abandon,
}

/// How the recorder starts.
pub struct Setup<W> {
    /// The routines (scopes from the symbols, else learned), with the
    /// reset handler's as the root and the PRG for `JMP (indirect)`.
    pub routines: Routines,
    /// Whether the exact accounting runs (the engines log events).
    pub exact: bool,
    /// Where the accounting starts.
    pub how: Start,
    /// The code address of the NMI handler (to tell the sampled side's
    /// interrupt entries apart).
    pub nmi_handler: u32,
    /// PRG ROM, for the sampled side's wait loops.
    pub prg: Vec<u8>,
    /// Where `frames.csv` goes, written as rows come.
    pub frames_csv: W,
}

/// What the recorder ends with.
pub struct Outcome {
    /// The exact side's results (with `Setup::exact`).
    pub exact: Option<Profile>,
    /// The sampled side's estimates for the run.
    pub sampled: Estimates,
    /// The routine table, both sides joined by entry.
    pub routines: Vec<RoutineRow>,
    /// Frames written.
    pub frames: u64,
    /// The frame-budget chart.
    pub chart: FrameChart,
    /// Work (busy + NMI + IRQ) per frame: exact, else the sampled
    /// estimate.
    pub work_per_frame: FrameHistogram,
    /// Lag frames.
    pub lag_frames: u64,
    /// Cycles of the frames written.
    pub cycles: u64,
    /// `frames.csv`'s first write error (the writer took nothing after
    /// it).
    pub error: Option<std::io::Error>,
    /// Names of routine entries, as the rows use them.
    pub names: Routines,
}

/// The emulation thread's end (see the module doc).
pub struct FrameRecorder<W> {
    tx: Option<Sender<Message>>,
    give_back: Receiver<Vec<FlowEvent>>,
    exact: bool,
    /// Events (and frames) sent and not yet accounted for.
    in_flight: Arc<AtomicUsize>,
    thread: Option<JoinHandle<Option<(Outcome, W)>>>,
    /// Frames ended and not yet sent, and what they count against
    /// [`EVENTS_IN_FLIGHT`].
    unsent: Vec<FrameEnd>,
    unsent_weight: usize,
    last_send: std::time::Instant,
}

/// The feeder's end: a [`BatchSink`] that passes each batch on to the
/// recorder and to the sink it wraps (the sample-stream file).
///
/// The batches of one group (see [`BatchSink::end_of_group`]) go to the
/// recorder in one message: a message per batch, its buffer allocated on
/// the feeder's thread and freed on the recorder's, made the two threads
/// spend more on the channel and the allocator than on the batches.
pub struct BatchTee {
    pub inner: Option<Box<dyn BatchSink>>,
    tx: Sender<Message>,
    samples: Vec<Sample>,
    ends: Vec<usize>,
}

impl BatchTee {
    fn send(&mut self) {
        if self.ends.is_empty() {
            return;
        }
        // A recorder gone (it only goes at the end) takes nothing more.
        let _ = self.tx.send(Message::Batches {
            samples: std::mem::take(&mut self.samples),
            ends: std::mem::take(&mut self.ends),
        });
    }
}

impl BatchSink for BatchTee {
    fn batch(&mut self, samples: &[Sample]) -> std::io::Result<()> {
        self.samples.extend_from_slice(samples);
        self.ends.push(self.samples.len());
        match &mut self.inner {
            Some(inner) => inner.batch(samples),
            None => Ok(()),
        }
    }

    fn end_of_group(&mut self) {
        self.send();
        if let Some(inner) = &mut self.inner {
            inner.end_of_group();
        }
    }
}

impl Drop for BatchTee {
    /// Batches not yet sent (none when the feeder ended its last group)
    /// still reach the recorder.
    fn drop(&mut self) {
        self.send();
    }
}

impl<W: Write + Send + 'static> FrameRecorder<W> {
    /// Starts the recorder on `nes` now (call it where the profile's
    /// window starts: power-on, a frame's end, or mid-frame at a label),
    /// attaching the engines' event log when `setup.exact`.
    pub fn start(nes: &mut Nes, setup: Setup<W>) -> FrameRecorder<W> {
        if setup.exact {
            nes.record_events();
        }
        let start = nes.stamp();
        let mut sampled_routines = setup.routines.clone();
        // The interrupt handlers are roots of the reading of the code,
        // as the reset handler is.
        sampled_routines.add_entry(setup.nmi_handler);
        sampled_routines.add_entry(super::routines::vector_target(nes, 0xFFFE));
        static_calls(nes, &setup.prg, &mut sampled_routines);
        // The exact side watches the entries the code shows for falling
        // into (`EventKind::FallInto`), and knows them as entries from the
        // start (a `JMP` to one is a tail call before any call to it): both
        // sides then agree on where a routine's code begins.
        let mut exact_routines = setup.routines.clone();
        if setup.exact {
            let entries: Vec<u32> = sampled_routines.entries().collect();
            nes.watch_entries(&entries);
            for &e in &entries {
                exact_routines.add_entry(e);
            }
        }
        let shared = Arc::new(RwLock::new(sampled_routines));
        let seen = shared.clone();
        let nmi = setup.nmi_handler;
        let classifier = Classifier::new(
            move |pc| seen.read().owner_of(pc),
            move |entry| entry == nmi,
            WaitLoops::from_prg(setup.prg),
        );
        let sampled = SampledProfile::new(classifier, start.cycle);
        let exact = setup.exact.then(|| {
            let mut p = FrameProfile::new(exact_routines, start, setup.how);
            if setup.how != Start::PowerOn {
                let mut page = [0u8; 256];
                for (i, b) in page.iter_mut().enumerate() {
                    *b = nes.peek(0x0100 + i as u16);
                }
                let sp = nes.cpu_state().s;
                // A return address on the stack is a JSR's last byte: its
                // operand is the two bytes before.
                let mut target = |ret: u16| {
                    let at = ret.wrapping_sub(2);
                    (nes.peek(at) == 0x20).then(|| {
                        let to = u16::from_le_bytes([
                            nes.peek(at.wrapping_add(1)),
                            nes.peek(at.wrapping_add(2)),
                        ]);
                        nes.code_address(to)
                    })
                };
                p.seed_stack(&page, sp, &mut target);
            }
            p
        });
        let columns = Columns {
            exact: setup.exact,
            sampled: true,
        };
        let state = State {
            exact,
            sampled,
            shared,
            previous: start,
            early: VecDeque::new(),
            waiting: VecDeque::new(),
            last_batch_start: 0,
            columns,
            out: setup.frames_csv,
            error: None,
            chart: FrameChart::default(),
            work: FrameHistogram::new(),
            frames: 0,
            lag_frames: 0,
            cycles: 0,
        };
        let (tx, rx) = unbounded::<Message>();
        let (give, give_back) = bounded::<Vec<FlowEvent>>(SPARE_BUFFERS);
        let in_flight = Arc::new(AtomicUsize::new(0));
        let done = in_flight.clone();
        let thread = std::thread::Builder::new()
            .name("nesprof-frames".into())
            .spawn(move || state.run(rx, give, &done))
            .expect("spawn the frame-profile thread");
        FrameRecorder {
            tx: Some(tx),
            give_back,
            exact: setup.exact,
            in_flight,
            thread: Some(thread),
            unsent: Vec::new(),
            unsent_weight: 0,
            last_send: std::time::Instant::now(),
        }
    }

    /// The sink to give the feeder: every batch reaches the recorder, and
    /// `inner` too.
    pub fn tee(&self, inner: Option<Box<dyn BatchSink>>) -> BatchTee {
        BatchTee {
            inner,
            tx: self.tx.clone().expect("recorder running"),
            samples: Vec::new(),
            ends: Vec::new(),
        }
    }

    /// After each frame (`frame` is the one that just ended). The frames
    /// go to the accounting together, every [`SEND_INTERVAL`] (or sooner
    /// when their events fill a quarter of [`EVENTS_IN_FLIGHT`]): a send
    /// per frame touched the channel's and the counter's cache lines,
    /// which the accounting's core touches too, at every frame, and cost
    /// `profile --no-truth` about a point of its speed at 9,000 frames a
    /// second (tracker), where the accounting has nothing to do per frame.
    pub fn end_frame(&mut self, nes: &mut Nes, frame: u64) {
        if self.tx.is_none() {
            return;
        }
        let mut events = Vec::new();
        if self.exact {
            events = self.give_back.try_recv().unwrap_or_default();
            nes.drain_events(&mut events);
        }
        self.unsent_weight += events.len() + FRAME_WEIGHT;
        self.unsent.push(FrameEnd {
            frame,
            end: nes.stamp(),
            events,
        });
        if self.unsent_weight >= EVENTS_IN_FLIGHT / 4 || self.last_send.elapsed() >= SEND_INTERVAL {
            self.send_frames();
        }
    }

    /// Sends the frames ended so far.
    fn send_frames(&mut self) {
        let Some(tx) = &self.tx else { return };
        if self.unsent.is_empty() {
            return;
        }
        // Bounded: wait for the accounting rather than let frames pile up.
        while self.in_flight.load(Ordering::Acquire) >= EVENTS_IN_FLIGHT
            && !self.thread.as_ref().is_some_and(JoinHandle::is_finished)
        {
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        self.in_flight
            .fetch_add(std::mem::take(&mut self.unsent_weight), Ordering::AcqRel);
        let _ = tx.send(Message::Frames(std::mem::take(&mut self.unsent)));
        self.last_send = std::time::Instant::now();
    }

    /// Ends the recording: the last frames are estimated with what came,
    /// and the results handed back with `frames.csv`'s writer, flushed.
    /// Call it after the feeder finished and the [`BatchTee`] is dropped
    /// (so that every batch has come, and the channel closes).
    pub fn finish(mut self, nes: &mut Nes) -> (Outcome, W) {
        if self.exact {
            let _ = nes.take_events();
        }
        self.send_frames();
        drop(self.tx.take());
        self.thread
            .take()
            .expect("recorder running")
            .join()
            .expect("the frame-profile thread panicked")
            .expect("the recorder was not abandoned")
    }
}

impl<W> Drop for FrameRecorder<W> {
    /// A recorder dropped unfinished (the run failed) stops its thread and
    /// waits for it, so that what it holds (`frames.csv`'s temporary) is
    /// gone before the process exits, even while a [`BatchTee`] lives on.
    fn drop(&mut self) {
        if let (Some(tx), Some(thread)) = (self.tx.take(), self.thread.take()) {
            let _ = tx.send(Message::Abandon);
            drop(tx);
            let _ = thread.join();
        }
    }
}

struct State<W> {
    exact: Option<FrameProfile>,
    sampled: SampledProfile,
    /// The sampled side's routines: the scopes, the `JSR` targets in the
    /// PRG, and the entries the batches show.
    shared: Arc<RwLock<Routines>>,
    previous: Stamp,
    /// Batches that came before the exact side reached their frame.
    early: VecDeque<Vec<Sample>>,
    /// Rows waiting for their sampled estimate, and where their frames end.
    waiting: VecDeque<(FrameRow, u64)>,
    last_batch_start: u64,
    columns: Columns,
    out: W,
    error: Option<std::io::Error>,
    chart: FrameChart,
    work: FrameHistogram,
    frames: u64,
    lag_frames: u64,
    cycles: u64,
}

impl<W: Write> State<W> {
    fn run(
        mut self,
        rx: Receiver<Message>,
        give_back: Sender<Vec<FlowEvent>>,
        in_flight: &AtomicUsize,
    ) -> Option<(Outcome, W)> {
        self.write_line(csv::frames_header(self.columns));
        // Polled, as the feeder polls its queue:
        // a receiver asleep in `recv` makes every send a futex wake, and
        // the emulation thread sends every `SEND_INTERVAL` and the feeder
        // once a batch (5 % of the emulation thread's time on tracker, flat
        // out, when it sent once a frame).
        loop {
            let message = match rx.try_recv() {
                Ok(m) => m,
                Err(TryRecvError::Empty) => {
                    std::thread::sleep(POLL);
                    continue;
                }
                Err(TryRecvError::Disconnected) => break,
            };
            match message {
                Message::Frames(frames) => {
                    for FrameEnd { frame, end, events } in frames {
                        self.frame(frame, end, &events);
                        in_flight.fetch_sub(events.len() + FRAME_WEIGHT, Ordering::AcqRel);
                        if events.capacity() > 0 {
                            let _ = give_back.try_send(events);
                        }
                    }
                }
                Message::Batches { samples, ends } => {
                    let mut start = 0;
                    for end in ends {
                        self.batch_arrived(&samples[start..end]);
                        start = end;
                    }
                }
                Message::Abandon => return None,
            }
        }
        Some(self.finish())
    }

    fn frame(&mut self, frame: u64, end: Stamp, events: &[FlowEvent]) {
        let row = match &mut self.exact {
            Some(p) => p.frame(frame, events, end),
            None => FrameRow {
                frame,
                cycles: end.cycle.saturating_sub(self.previous.cycle),
                lag: end.controller_reads == self.previous.controller_reads,
                exact: None,
                sampled: None,
            },
        };
        self.previous = end;
        self.waiting.push_back((row, end.cycle));
        self.release_batches(end.cycle, false);
        self.flush(false);
    }

    /// A batch from the feeder. With the exact side, it waits until the
    /// frame it starts in has been accounted for, so that the routines the
    /// sampled side knows when it reads the batch are those the exact side
    /// learned up to that frame's end: the same for every run, however the
    /// two threads' messages interleave.
    fn batch_arrived(&mut self, batch: &[Sample]) {
        let Some(first) = batch.first() else { return };
        if self.exact.is_some() && first.cycle >= self.previous.cycle {
            self.early.push_back(batch.to_vec());
            return;
        }
        self.batch(batch);
    }

    /// The batches waiting for frames accounted for up to `end`.
    fn release_batches(&mut self, end: u64, all: bool) {
        while let Some(b) = self.early.front() {
            if !all && b.first().is_some_and(|s| s.cycle >= end) {
                break;
            }
            let b = self.early.pop_front().expect("a waiting batch");
            self.batch(&b);
        }
    }

    fn batch(&mut self, batch: &[Sample]) {
        let Some(first) = batch.first() else { return };
        {
            // The sampled side's routines are the entries the samples
            // show, by the exact side's rules: calls, interrupt handlers,
            // `JMP (indirect)` targets and the targets of an `RTS` that
            // returns to no `JSR` (the RTS trick). Never the exact side's:
            // with or without it the sampled columns are what the sampler
            // alone gives, the same on every run.
            let mut shared = self.shared.write();
            for s in batch {
                shared.note_code(s.pc);
                let entry = match s.flow {
                    gfc::Flow::Call => Some(s.next_pc),
                    gfc::Flow::Interrupt => Some(s.pc),
                    gfc::Flow::Jump if shared.is_indirect_jump(s.pc) => Some(s.next_pc),
                    gfc::Flow::Return => {
                        let jsr = (s.next_pc & 0xFFFF >= 3)
                            .then(|| shared.prg_byte(s.next_pc - 3))
                            .flatten();
                        // Unknown bytes (code in RAM): not a dispatch.
                        (jsr.is_some_and(|b| b != 0x20)).then_some(s.next_pc)
                    }
                    _ => None,
                };
                if let Some(entry) = entry.filter(|&e| !shared.is_entry(e)) {
                    shared.add_entry(entry);
                }
            }
            shared.refresh_owners();
        }
        self.sampled.add_batch(batch);
        self.last_batch_start = first.cycle;
        self.flush(false);
    }

    /// Writes the rows whose estimates are final (all of them, at the end).
    fn flush(&mut self, all: bool) {
        while let Some((_, end)) = self.waiting.front() {
            if !all && self.last_batch_start < *end {
                break;
            }
            let (mut row, end) = self.waiting.pop_front().expect("a waiting row");
            let estimate = self.sampled.end_frame(row.frame, end);
            row.sampled = Some(sampled_frame(&estimate));
            self.write_row(&row);
        }
    }

    fn write_row(&mut self, row: &FrameRow) {
        self.frames += 1;
        self.cycles += row.cycles;
        self.lag_frames += row.lag as u64;
        let work = match (&row.exact, &row.sampled) {
            (Some(e), _) => e.work(),
            (None, Some(s)) => (s.busy.value + s.nmi.value + s.irq.value).round() as u64,
            (None, None) => row.cycles,
        };
        self.work.add(work);
        self.chart.push(row);
        let line = {
            let shared = self.shared.read();
            let name = |entry: u32| match &self.exact {
                Some(p) => p.routines().name(entry),
                None => shared.name(entry),
            };
            csv::frames_line(row, self.columns, &name)
        };
        self.write_line(line);
    }

    fn write_line(&mut self, line: String) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self
            .out
            .write_all(line.as_bytes())
            .and_then(|()| self.out.write_all(b"\n"))
        {
            self.error = Some(e);
        }
    }

    fn finish(mut self) -> (Outcome, W) {
        self.release_batches(u64::MAX, true);
        self.flush(true);
        if self.error.is_none() {
            if let Err(e) = self.out.flush() {
                self.error = Some(e);
            }
        }
        let end = self.previous.cycle;
        let sampled = self.sampled.estimates(end);
        let names = match &self.exact {
            Some(p) => p.routines().clone(),
            None => self.shared.read().clone(),
        };
        let sampled_rows = sampled_routines(&sampled, &names);
        let exact = self.exact.map(FrameProfile::finish);
        let exact_rows = exact
            .as_ref()
            .map(Profile::routine_rows)
            .unwrap_or_default();
        let outcome = Outcome {
            routines: rows::join_routines(exact_rows, sampled_rows),
            exact,
            sampled,
            frames: self.frames,
            chart: self.chart,
            work_per_frame: self.work,
            lag_frames: self.lag_frames,
            cycles: self.cycles,
            error: self.error,
            names,
        };
        (outcome, self.out)
    }
}

fn estimate(c: Cycles) -> Estimate {
    Estimate {
        value: c.value,
        low: c.low,
        high: c.high,
    }
}

fn sampled_frame(e: &FrameEstimate) -> SampledFrame {
    SampledFrame {
        batches: e.batches,
        busy: estimate(e.classes.busy),
        idle: estimate(e.classes.idle),
        nmi: estimate(e.classes.nmi),
        irq: estimate(e.classes.irq),
        dma: estimate(e.classes.dma),
        top_routine: e.top_routine,
    }
}

/// The sampled side's routine rows.
fn sampled_routines(e: &Estimates, names: &Routines) -> Vec<RoutineRow> {
    e.routines
        .iter()
        .map(|r| RoutineRow {
            entry: r.routine,
            name: match r.routine {
                Some(entry) => names.name(entry),
                None => "(no routine)".into(),
            },
            source: r
                .routine
                .and_then(|entry| names.source(entry).map(str::to_owned)),
            exact: None,
            sampled: Some(SampledRoutine {
                pct_of_busy: Estimate {
                    value: r.share_of_work.value * 100.0,
                    low: r.share_of_work.low * 100.0,
                    high: r.share_of_work.high * 100.0,
                },
                cycles: estimate(r.cycles),
                batches: r.batches,
            }),
        })
        .collect()
}

/// Without the exact side, the samples show a routine's entry only when a
/// batch holds the call to it, which a routine called once a frame rarely
/// gets. So the calls are read from the code beforehand: from the
/// vectors and the entries known, following the code
/// (`Routines::refresh_owners`, `extents.rs`). With symbol files, the
/// `JSR abs` instructions in PRG ROM are read too (every `$20` byte
/// followed by an address in $8000-$FFFF, mapped as the banks are now)
/// and the targets that carry a label taken: data bytes can look like a
/// `JSR`, and a label leaves out nearly all of those. Without labels,
/// those targets are candidates, taken where the reading of the code from
/// the known entries does not reach (`Routines::add_candidates`).
fn static_calls(nes: &mut Nes, prg: &[u8], routines: &mut Routines) {
    let labels = routines.entries().any(|e| routines.is_labelled(e)) || routines.has_scopes();
    let targets = super::routines::static_targets(nes, prg, 0x20);
    if labels {
        for code in targets {
            if routines.is_labelled(code) {
                routines.add_entry(code);
            }
        }
    } else {
        routines.add_candidates(targets);
    }
    routines.refresh_owners();
}
