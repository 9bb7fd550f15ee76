//! Running the sweep: one emulation per workload (truth CFG + sample stream),
//! then all 144 configurations replayed from the stream and scored.
//!
//! Work is spread over scoped threads pulling jobs from one queue. Replay jobs
//! (one configuration of one emulated workload, ~50 ms) go first, so a stream
//! is dropped as soon as its 144 configurations are done; a worker with no
//! replay to do starts the next emulation (one core each, several seconds).
//! At most about one stream per worker is alive at once, and on two cores one
//! workload's replays overlap the next one's emulation.
//!
//! Results do not depend on the thread count or on scheduling: each replay is
//! a pure function of the stream and the configuration, and results are
//! stored by (workload, config id).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;
use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use gfc::{BuilderKind, Cfg, GfcParams, HotTruth, Metrics, Sample};
use profiler::cfg_file::CfgFile;
use profiler::session::{self, ProfileSettings};
use serde::{Deserialize, Serialize};

use super::workloads::Workload;
use crate::open::open;
use emu::clock::minutes_to_frames;

/// Emulated minutes when neither the workload nor the command line says and
/// there is no movie: the thesis' runs were ~5 minutes.
pub const DEFAULT_MINUTES: f64 = 5.0;

/// What one emulation produced: everything the replays and reports need.
pub struct Emulated {
    pub name: String,
    pub batches: Vec<Vec<Sample>>,
    pub truth: Cfg,
    pub h90: Cfg,
    /// Our extra reference, see [`gfc::HotTruth`]'s `h99`.
    pub h99: Cfg,
    /// The truth's H95: `hot_precision` counts a hot edge as right within
    /// this margin.
    pub h95: Cfg,
    pub executed_instructions: u64,
    pub sampled_instructions: u64,
    pub frames: u64,
    pub frame_hash: u64,
    /// H90 of the truth as a record (with disassembly): the snapshot and the
    /// per-workload output file.
    pub h90_record: CfgFile,
    /// The hot CFG at the thesis' best configuration, as a record.
    pub best_record: CfgFile,
    /// The trace builder's result on the same stream, and its hot CFG as a
    /// record.
    pub trace: BuilderResult,
    pub trace_record: CfgFile,
    pub wall: Duration,
}

impl Emulated {
    /// The truth and its hot sets, for [`Metrics::evaluate`].
    pub fn hot_truth(&self) -> HotTruth<'_> {
        HotTruth {
            h: &self.truth,
            h90: Cow::Borrowed(&self.h90),
            h95: Cow::Borrowed(&self.h95),
            h99: Cow::Borrowed(&self.h99),
        }
    }
}

/// A builder without parameters, scored on a workload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BuilderResult {
    pub builder: BuilderKind,
    pub metrics: Metrics,
    /// Edges in its edge profile.
    pub profile_edges: usize,
    /// Wall time of the replay (not part of the results' identity).
    pub replay: Duration,
}

/// Why a workload did not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkloadError {
    /// The ROM file does not exist: reported and skipped, not an error (a
    /// workload list may name games this machine does not have).
    MissingRom(String),
    /// Anything else (unreadable or corrupt ROM, missing or bad movie).
    Bad(String),
}

impl std::fmt::Display for WorkloadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WorkloadError::MissingRom(m) | WorkloadError::Bad(m) => f.write_str(m),
        }
    }
}

/// A workload ready to emulate: the machine powered on, the movie loaded.
pub struct Prepared {
    nes: emu::Nes,
    replay: Option<emu::movie::Replay>,
    rom_bytes: Vec<u8>,
    rom_name: String,
    pub frames: u64,
}

/// Loads a workload's ROM and movie and works out its length in frames:
/// `minutes` (the command line's) over the workload's own, over the movie's
/// length, over [`DEFAULT_MINUTES`].
pub fn prepare(w: &Workload, minutes: Option<f64>) -> Result<Prepared, WorkloadError> {
    if !w.rom.is_file() {
        return Err(WorkloadError::MissingRom(format!(
            "{}: ROM {} not found",
            w.name,
            w.rom.display()
        )));
    }
    let bad = |e: anyhow::Error| WorkloadError::Bad(format!("{}: {e:#}", w.name));
    let opened = open(&w.rom, w.movie.as_deref(), w.ignore_rom_mismatch).map_err(bad)?;
    let (nes, replay, rom_bytes) = (opened.nes, opened.replay, opened.rom);
    let frames = match minutes.or(w.minutes) {
        Some(m) => minutes_to_frames(m),
        None => replay
            .as_ref()
            .map_or(minutes_to_frames(DEFAULT_MINUTES), |r| r.len()),
    };
    Ok(Prepared {
        nes,
        replay,
        rom_bytes,
        rom_name: file_name(&w.rom),
        frames,
    })
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Emulates a prepared workload with the truth recorder and the sampler.
/// `progress(frame)` is called after each frame; false stops the run (see
/// `profiler::session::run`).
pub fn emulate(
    name: &str,
    mut p: Prepared,
    settings: &ProfileSettings,
    progress: impl FnMut(u64) -> bool,
) -> Result<Emulated, WorkloadError> {
    let run = session::run(&mut p.nes, p.replay.as_ref(), p.frames, settings, progress)
        .map_err(|e| WorkloadError::Bad(format!("{name}: {e}")))?;
    let hot_truth = HotTruth::new(&run.truth);
    let (h90, h95, h99) = (
        hot_truth.h90.clone().into_owned(),
        hot_truth.h95.clone().into_owned(),
        hot_truth.h99.clone().into_owned(),
    );
    // Replayed rather than taken from the live builder: a replay never drops
    // batches, so this equals config 69 of the sweep by construction.
    let best = session::replay_gfc(&run.batches, gfc::THESIS_BEST).into_graph();
    let record = |kind: &str, cfg: &Cfg| {
        let disasm = profiler::report::disassemble(cfg, run.counts.as_deref(), &p.nes);
        profiler::report::record(
            kind,
            &p.rom_name,
            &p.rom_bytes,
            run.frames,
            cfg.clone(),
            disasm,
        )
    };
    let h90_record = record("h90", &h90);
    let best_record = record("sampled", &best);
    let start = Instant::now();
    let tracer = session::replay_batches(&run.batches, BuilderKind::Trace, gfc::THESIS_BEST);
    let trace = BuilderResult {
        builder: BuilderKind::Trace,
        metrics: Metrics::evaluate(
            tracer.graph(),
            tracer.edge_profile(),
            &hot_truth,
            run.sampled_instructions,
            run.executed_instructions,
        ),
        profile_edges: tracer.edge_profile().num_edges(),
        replay: start.elapsed(),
    };
    let trace_record = record("sampled", tracer.graph());
    drop(hot_truth);
    Ok(Emulated {
        name: name.to_string(),
        truth: run.truth,
        h90,
        h99,
        h95,
        executed_instructions: run.executed_instructions,
        sampled_instructions: run.sampled_instructions,
        frames: run.frames,
        frame_hash: run.frame_hash,
        h90_record,
        best_record,
        trace,
        trace_record,
        wall: run.wall,
        batches: run.batches,
    })
}

/// One configuration's result on one workload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigResult {
    pub params: GfcParams,
    /// Bins at the end (the thesis' "Baldes" column).
    pub bins: usize,
    /// Every metric, `similarity99` (against H99, ours) included.
    pub metrics: Metrics,
    /// Wall time of the replay (not part of the results' identity).
    pub replay: Duration,
}

/// Replays the stream through one configuration and scores the hot CFG.
pub fn replay_config(e: &Emulated, params: GfcParams) -> ConfigResult {
    let start = Instant::now();
    let gfc = session::replay_gfc(&e.batches, params);
    let replay = start.elapsed();
    let g = gfc.graph();
    ConfigResult {
        params,
        bins: gfc.num_bins(),
        metrics: Metrics::evaluate(
            g,
            g,
            &e.hot_truth(),
            e.sampled_instructions,
            e.executed_instructions,
        ),
        replay,
    }
}

/// All results of one workload (also what a sweep shard stores, with its
/// slice of the configurations: `shard.rs`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WorkloadResult {
    pub name: String,
    pub rom: String,
    pub frames: u64,
    pub frame_hash: u64,
    pub executed_instructions: u64,
    pub sampled_instructions: u64,
    pub batches: usize,
    pub truth_blocks: usize,
    pub truth_edges: usize,
    pub edges_h90: usize,
    pub edges_h99: usize,
    /// Share of all transitions on H90's heaviest edge, in percent: how much
    /// the idle loop dominates.
    pub top_edge_pct: f64,
    pub emulate_wall: Duration,
    /// The 144 configurations, in id order (a shard's slice of them, see
    /// [`sweep_slice`]).
    pub configs: Vec<ConfigResult>,
    /// The trace builder on the same stream.
    pub trace: BuilderResult,
    pub h90_record: CfgFile,
    pub best_record: CfgFile,
    pub trace_record: CfgFile,
}

/// A workload is busy when its H90 has at least this many edges; below it,
/// H90 is the idle loop and a few edges around it, which any builder finds,
/// so similarity on it says nothing (issue 21's definition).
pub const BUSY_H90_EDGES: usize = 20;

impl WorkloadResult {
    /// Whether the workload is busy ([`BUSY_H90_EDGES`]): builders are
    /// judged on busy workloads only.
    pub fn busy(&self) -> bool {
        self.edges_h90 >= BUSY_H90_EDGES
    }

    pub fn sampled_pct(&self) -> f64 {
        gfc::metrics::sampled_pct(self.sampled_instructions, self.executed_instructions)
    }

    pub(crate) fn new(e: &Emulated, configs: Vec<ConfigResult>) -> Self {
        let total = e.truth.total_transitions();
        let top = e.truth.edges().iter().map(|x| x.count).max().unwrap_or(0);
        WorkloadResult {
            name: e.name.clone(),
            rom: e.h90_record.rom_name.clone(),
            frames: e.frames,
            frame_hash: e.frame_hash,
            executed_instructions: e.executed_instructions,
            sampled_instructions: e.sampled_instructions,
            batches: e.batches.len(),
            truth_blocks: e.truth.num_blocks(),
            truth_edges: e.truth.num_edges(),
            edges_h90: e.h90.num_edges(),
            edges_h99: e.h99.num_edges(),
            top_edge_pct: if total > 0 {
                top as f64 * 100.0 / total as f64
            } else {
                0.0
            },
            emulate_wall: e.wall,
            configs,
            trace: e.trace.clone(),
            h90_record: e.h90_record.clone(),
            best_record: e.best_record.clone(),
            trace_record: e.trace_record.clone(),
        }
    }
}

/// What the sweep did.
pub struct SweepOutcome {
    /// In the order of the workload list.
    pub results: Vec<WorkloadResult>,
    /// Workloads whose ROM is missing.
    pub skipped: Vec<String>,
    /// Workloads that failed for another reason.
    pub failed: Vec<String>,
    /// The workload-list index of each of `results` (a shard records them).
    pub ran: Vec<usize>,
    /// Every skipped or failed workload by index, in index order.
    pub problems: Vec<(usize, WorkloadError)>,
    /// The workloads a termination signal stopped before their emulation
    /// and every replay had finished (index and name, in index order):
    /// empty unless [`crate::signals::stop_requested`].
    pub interrupted: Vec<(usize, String)>,
    pub wall: Duration,
}

/// Progress reports from the workers (the CLI draws bars; tests ignore them).
pub trait Observer: Sync {
    /// A worker started emulating workload `index` for `frames` frames.
    fn emulating(&self, _index: usize, _name: &str, _frames: u64) {}
    fn frame(&self, _index: usize, _frame: u64) {}
    /// The emulation of `index` ended (successfully or not).
    fn emulated(&self, _index: usize) {}
    /// Workload `index` failed or was skipped.
    fn problem(&self, _index: usize, _error: &WorkloadError) {}
    /// One configuration replayed.
    fn replayed(&self) {}
    /// Workload `index` is done: emulated and every replay of its slice
    /// scored (so it is in the outputs even if the sweep is interrupted).
    fn finished(&self, _index: usize, _name: &str) {}
}

/// An observer that ignores everything.
pub struct Quiet;
impl Observer for Quiet {}

enum Job {
    Emulate(usize),
    Replay(Arc<Emulated>, usize, GfcParams),
}

/// One emulated workload whose replays are under way.
struct Active {
    index: usize,
    data: Arc<Emulated>,
    /// The next slot of `configs` to replay, and the end of its slice.
    next_id: usize,
    end: usize,
    /// Results by slot minus the slice's start.
    results: Vec<Option<ConfigResult>>,
    done: usize,
}

#[derive(Default)]
struct Queue {
    next_workload: usize,
    /// Emulations under way: a worker with nothing to do waits for them
    /// instead of exiting, since each brings 144 replays.
    emulating: usize,
    active: Vec<Active>,
    finished: BTreeMap<usize, WorkloadResult>,
    problems: BTreeMap<usize, WorkloadError>,
}

impl Queue {
    /// The next job; `emulate(i)` says whether workload `i` is to run at all.
    fn next_job(
        &mut self,
        workloads: usize,
        configs: &[GfcParams],
        emulate: impl Fn(usize) -> bool,
    ) -> Option<Job> {
        if let Some(a) = self.active.iter_mut().find(|a| a.next_id < a.end) {
            let id = a.next_id;
            a.next_id += 1;
            return Some(Job::Replay(Arc::clone(&a.data), a.index, configs[id]));
        }
        while self.next_workload < workloads {
            self.next_workload += 1;
            if emulate(self.next_workload - 1) {
                self.emulating += 1;
                return Some(Job::Emulate(self.next_workload - 1));
            }
        }
        None
    }

    /// Whether a worker finding no job should wait rather than exit.
    fn more_may_come(&self) -> bool {
        self.emulating > 0
    }

    /// Stores a replay's result; true when it was the workload's last.
    fn store(&mut self, index: usize, slot: usize, result: ConfigResult) -> bool {
        let pos = self
            .active
            .iter()
            .position(|a| a.index == index)
            .expect("replayed workload is active");
        let a = &mut self.active[pos];
        let start = a.end - a.results.len();
        a.results[slot - start] = Some(result);
        a.done += 1;
        if a.done == a.results.len() {
            let a = self.active.swap_remove(pos);
            let configs = a
                .results
                .into_iter()
                .map(|r| r.expect("all done"))
                .collect();
            self.finished
                .insert(index, WorkloadResult::new(&a.data, configs));
            return true;
        }
        false
    }
}

/// Runs the sweep over `workloads` with `configs` (normally the 144 of the
/// grid) on `threads` worker threads.
pub fn sweep(
    workloads: &[Workload],
    configs: &[GfcParams],
    minutes: Option<f64>,
    settings: &ProfileSettings,
    threads: usize,
    observer: &dyn Observer,
) -> SweepOutcome {
    let all = vec![0..configs.len(); workloads.len()];
    sweep_slice(
        workloads, configs, &all, minutes, settings, threads, observer,
    )
}

/// [`sweep`] restricted to a slice of the work (a shard, see
/// `super::shard`): workload `i` replays only the configuration slots
/// `slices[i]`, and a workload with an empty slice is not emulated at all
/// (unless `configs` itself is empty: then every workload is emulated, for
/// its truth and trace-builder results). Each result's `configs` holds its
/// slice, in id order.
pub fn sweep_slice(
    workloads: &[Workload],
    configs: &[GfcParams],
    slices: &[Range<usize>],
    minutes: Option<f64>,
    settings: &ProfileSettings,
    threads: usize,
    observer: &dyn Observer,
) -> SweepOutcome {
    let start = Instant::now();
    let runs = |i: usize| configs.is_empty() || slices.get(i).is_some_and(|s| !s.is_empty());
    let queue = Mutex::new(Queue::default());
    let slot_of = |p: GfcParams| configs.iter().position(|&c| c == p).expect("listed config");
    // Signalled whenever an emulation ends: its replays are new jobs (or,
    // if it failed, perhaps the end of all work).
    let wake = Condvar::new();
    let next = || {
        let mut q = queue.lock().expect("queue lock");
        loop {
            // A termination signal: no new work. The workloads already
            // finished stay in the outcome (the caller writes them); the
            // others are reported as interrupted.
            if crate::signals::stop_requested() {
                return None;
            }
            if let Some(job) = q.next_job(workloads.len(), configs, runs) {
                return Some(job);
            }
            if !q.more_may_come() {
                return None;
            }
            q = wake.wait(q).expect("queue lock");
        }
    };
    let worker = || {
        while let Some(job) = next() {
            match job {
                Job::Replay(data, index, params) => {
                    let result = replay_config(&data, params);
                    drop(data);
                    observer.replayed();
                    let last =
                        queue
                            .lock()
                            .expect("queue lock")
                            .store(index, slot_of(params), result);
                    if last {
                        observer.finished(index, &workloads[index].name);
                    }
                }
                Job::Emulate(index) => {
                    let w = &workloads[index];
                    // Set when a signal cut the emulation short: its result
                    // covers fewer frames than asked, so it is neither a
                    // result nor a failure but an interrupted workload.
                    let mut cut = false;
                    // A panic in the emulator (a bug, or a ROM it cannot
                    // handle) fails this workload only: unwinding past here
                    // would leave the other workers waiting for it forever.
                    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
                        prepare(w, minutes).and_then(|p| {
                            observer.emulating(index, &w.name, p.frames);
                            emulate(&w.name, p, settings, |f| {
                                observer.frame(index, f);
                                cut = crate::signals::stop_requested();
                                !cut
                            })
                        })
                    }))
                    .unwrap_or_else(|panic| {
                        Err(WorkloadError::Bad(format!(
                            "{}: the emulation panicked: {}",
                            w.name,
                            panic_message(panic.as_ref())
                        )))
                    });
                    observer.emulated(index);
                    let mut q = queue.lock().expect("queue lock");
                    q.emulating -= 1;
                    let mut done = false;
                    match outcome {
                        // Left out of `finished` and `problems`: reported
                        // as interrupted below.
                        Ok(_) if cut => {}
                        Ok(e) if configs.is_empty() => {
                            q.finished
                                .insert(index, WorkloadResult::new(&e, Vec::new()));
                            done = true;
                        }
                        Ok(e) => {
                            let slice = slices[index].clone();
                            q.active.push(Active {
                                index,
                                data: Arc::new(e),
                                next_id: slice.start,
                                end: slice.end,
                                results: vec![None; slice.len()],
                                done: 0,
                            })
                        }
                        Err(err) => {
                            observer.problem(index, &err);
                            q.problems.insert(index, err);
                        }
                    }
                    drop(q);
                    wake.notify_all();
                    if done {
                        observer.finished(index, &w.name);
                    }
                }
            }
        }
    };
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(worker);
        }
    });
    let q = queue.into_inner().expect("queue lock");
    // Every workload with work to do ends finished or with a problem,
    // unless a signal stopped the sweep first.
    let interrupted: Vec<(usize, String)> = (0..workloads.len())
        .filter(|&i| runs(i) && !q.finished.contains_key(&i) && !q.problems.contains_key(&i))
        .map(|i| (i, workloads[i].name.clone()))
        .collect();
    debug_assert!(interrupted.is_empty() || crate::signals::stop_requested());
    let (mut skipped, mut failed) = (Vec::new(), Vec::new());
    for e in q.problems.values() {
        match e.clone() {
            WorkloadError::MissingRom(m) => skipped.push(m),
            WorkloadError::Bad(m) => failed.push(m),
        }
    }
    SweepOutcome {
        ran: q.finished.keys().copied().collect(),
        results: q.finished.into_values().collect(),
        skipped,
        failed,
        problems: q.problems.into_iter().collect(),
        interrupted,
        wall: start.elapsed(),
    }
}

/// The text of a panic payload (`panic!` with a literal or a format).
fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)")
}

/// Worker threads by default: every core the OS grants us.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// A real sweep of one short workload, for the other modules' unit tests
/// (tables, plots, shard files need results to work on).
#[cfg(test)]
pub(crate) mod testing {
    use super::*;
    use crate::sweep::workloads::{bundled, repo_root};

    /// The workload list (cfgdemo, 0.02 emulated minutes), and its sweep
    /// over `configs` (as shard 1/1 has it, too).
    pub fn tiny(configs: &[GfcParams]) -> (Vec<Workload>, SweepOutcome) {
        let list: Vec<Workload> = bundled(&repo_root())
            .into_iter()
            .filter(|w| w.name == "cfgdemo")
            .map(|w| Workload {
                minutes: Some(0.02),
                ..w
            })
            .collect();
        let outcome = sweep(&list, configs, None, &ProfileSettings::default(), 1, &Quiet);
        assert_eq!(outcome.results.len(), 1, "{:?}", outcome.failed);
        (list, outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::workloads::{bundled, repo_root};

    /// Results depend on neither the thread count nor the scheduling; a
    /// missing ROM is skipped and the rest still run.
    #[test]
    fn threads_do_not_change_results_and_missing_roms_are_skipped() {
        let mut list: Vec<Workload> = bundled(&repo_root())
            .into_iter()
            .filter(|w| w.name == "cfgdemo" || w.name == "maze")
            .collect();
        list.insert(
            1,
            Workload {
                name: "absent".into(),
                rom: "/no/such/rom.nes".into(),
                movie: None,
                minutes: None,
                ignore_rom_mismatch: false,
            },
        );
        let configs: Vec<GfcParams> = GfcParams::grid().step_by(13).collect();
        let run = |threads| {
            sweep(
                &list,
                &configs,
                Some(0.05),
                &ProfileSettings::default(),
                threads,
                &Quiet,
            )
        };
        let (one, three) = (run(1), run(3));
        for outcome in [&one, &three] {
            assert_eq!(outcome.skipped.len(), 1, "{:?}", outcome.skipped);
            assert!(outcome.skipped[0].starts_with("absent: ROM"));
            assert!(outcome.failed.is_empty(), "{:?}", outcome.failed);
            let names: Vec<&str> = outcome.results.iter().map(|r| r.name.as_str()).collect();
            assert_eq!(names, ["cfgdemo", "maze"]);
        }
        for (a, b) in one.results.iter().zip(&three.results) {
            assert_eq!(a.frame_hash, b.frame_hash);
            assert_eq!(a.configs.len(), configs.len());
            for (x, y) in a.configs.iter().zip(&b.configs) {
                assert_eq!(x.params, y.params);
                assert_eq!((x.bins, &x.metrics), (y.bins, &y.metrics));
                assert_eq!(x.metrics.similarity99, y.metrics.similarity99);
            }
        }
    }
}
