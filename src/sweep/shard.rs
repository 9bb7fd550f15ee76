//! Sweeps across machines (issue 25): `sweep --shard I/N` runs one slice of
//! the work and records its raw results in `shard-I-of-N.ron`; `sweep merge`
//! reads the N files back, checks that they are one whole sweep, and rebuilds
//! the [`SweepOutcome`] a single run would have had, from which the usual
//! tables, CSV and plots are written.
//!
//! The unit of work is one (workload, configuration) pair, numbered
//! workload-major: unit `w * C + c` is configuration slot `c` of workload
//! `w`, for `C` configurations (144). Shard I of N takes the contiguous run
//! of units `[(I-1)·U/N, I·U/N)` (U units, integer division), not a
//! round-robin pick: every shard gets the same number of replays (±1), and
//! since a shard must emulate each workload it has a configuration of, a
//! contiguous slice emulates at most W + N − 1 workloads in all (each shard
//! boundary splits at most one workload), where round-robin would emulate
//! every workload on every shard.
//!
//! Results are a pure function of the workload, its ROM and movie, and the
//! sampler settings (the emulated-time trigger with a fixed seed), so a
//! workload emulated by two shards gives the same truth; merge checks that
//! (frame hash, counts, trace-builder metrics) as well as the sweep's
//! identity (ROM and movie hashes, lengths, settings, configurations,
//! builders, nesprof version) so that shards of different sweeps or builds
//! are refused rather than mixed. Wall times are recorded but are not part
//! of any result: only `timing.txt` and the `wall_s=` field show them.
//!
//! A shard file is input like any other (it may be hand-edited, damaged or
//! hostile): [`ShardFile::read`] checks every name (workload names become
//! file names, see [`super::workloads::check_name`]) and every number
//! (finite, in its range, counts consistent with each other, see
//! [`ShardFile::check`]) before anything is computed from it, so no value
//! read back can reach a table as `NaN%` or drive a loop without bound.
//!
//! A shard stopped by a signal (Ctrl-C) still writes its file, with the
//! workloads it finished and the others marked [`ShardOutcome::Interrupted`];
//! `sweep merge` refuses such an incomplete shard (exit 2, naming the file
//! and the missing workloads): a merge gives a single run's outputs byte for
//! byte, or nothing. Run the shard again to complete it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use gfc::{BuilderKind, GfcParams};
use profiler::session::ProfileSettings;
use serde::{Deserialize, Serialize};

use super::run::{SweepOutcome, WorkloadError, WorkloadResult};
use super::workloads::Workload;
use emu::input_file::shorten;

/// Version of [`ShardFile`]'s shape; bumped on incompatible changes.
pub const SHARD_FORMAT: u32 = 1;

/// The largest N: far more machines than anyone has, small enough that a
/// typo like `--shard 1/80000000` is refused rather than run.
pub const MAX_SHARDS: usize = 100_000;

/// The largest shard file read: 1 GiB (each ran workload carries three CFG
/// records, each at most [`profiler::cfg_file::MAX_FILE`] in principle, but
/// real ones are a few hundred KiB).
const MAX_SHARD_FILE: emu::input_file::SizeLimit = emu::input_file::SizeLimit {
    bytes: 1 << 30,
    what: "shard files (1 GiB)",
};

/// Shard `index` (1-based) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// Parses `I/N` with 1 <= I <= N <= [`MAX_SHARDS`].
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("must be I/N with 1 <= I <= N <= {MAX_SHARDS}, e.g. 3/8");
        let (i, n) = text.trim().split_once('/').ok_or_else(bad)?;
        let (index, count) = match (i.trim().parse::<usize>(), n.trim().parse::<usize>()) {
            (Ok(i), Ok(n)) => (i, n),
            _ => return Err(bad()),
        };
        if index == 0 || index > count || count > MAX_SHARDS {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// The file a shard writes into its output directory.
    pub fn file_name(&self) -> String {
        format!("shard-{}-of-{}.ron", self.index, self.count)
    }

    /// This shard's units among `total`: a contiguous run, the runs of
    /// shards 1..=N tiling `0..total` in order.
    pub fn units(&self, total: usize) -> Range<usize> {
        // u128: total * index cannot overflow.
        let at = |k: usize| (total as u128 * k as u128 / self.count as u128) as usize;
        at(self.index - 1)..at(self.index)
    }

    /// Per workload, the configuration slots this shard replays (empty for
    /// a workload it has no unit of).
    pub fn slices(&self, workloads: usize, configs: usize) -> Vec<Range<usize>> {
        let units = self.units(workloads * configs);
        (0..workloads)
            .map(|w| {
                let (first, end) = (w * configs, (w + 1) * configs);
                let start = units.start.clamp(first, end) - first;
                let stop = units.end.clamp(first, end) - first;
                start..stop.max(start)
            })
            .collect()
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// What makes two shards parts of one sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepIdentity {
    /// The nesprof version that ran it.
    pub nesprof: String,
    pub workloads: Vec<WorkloadIdentity>,
    /// `--minutes`, if given.
    pub minutes: Option<f64>,
    pub interval_ms: f64,
    pub batch: usize,
    pub spacing: String,
    pub trigger: String,
    pub seed: u64,
    pub engine: String,
    /// The builders each workload is scored with.
    pub builders: Vec<String>,
    /// The configurations, in slot order.
    pub configs: Vec<GfcParams>,
}

/// One workload of the list, by content rather than by path (paths differ
/// from machine to machine).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkloadIdentity {
    pub name: String,
    pub rom_file: String,
    /// FNV-1a 64 of the ROM file, hex; `missing` or `unreadable` if so on
    /// the machine that wrote the shard.
    pub rom_hash: String,
    pub movie_hash: Option<String>,
    pub minutes: Option<f64>,
    pub ignore_rom_mismatch: bool,
}

/// The whole content of `shard-I-of-N.ron`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ShardFile {
    pub format: u32,
    pub shard: Shard,
    pub sweep: SweepIdentity,
    /// The units this shard ran (see the module comment).
    pub units: Range<usize>,
    /// Each workload this shard had a unit of, in list order.
    pub workloads: Vec<ShardWorkload>,
    /// Wall time and worker threads (not part of the results).
    pub wall: Duration,
    pub threads: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ShardWorkload {
    /// Index in the workload list.
    pub index: usize,
    pub name: String,
    pub outcome: ShardOutcome,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum ShardOutcome {
    /// The workload's results, its configurations this shard's slice.
    Ran(Box<WorkloadResult>),
    /// The ROM is missing (a skip in a single run).
    Skipped(String),
    Failed(String),
    /// A signal stopped the shard before this workload's emulation and
    /// replays finished: the shard is incomplete, and merge refuses it.
    Interrupted,
}

/// FNV-1a 64 of a file, hex, or why there is none.
fn file_hash(path: &Path) -> String {
    const LIMIT: emu::input_file::SizeLimit = emu::input_file::SizeLimit {
        bytes: 64 << 20,
        what: "hashed workload files",
    };
    if !path.exists() {
        return "missing".into();
    }
    match emu::input_file::read_limited(path, LIMIT) {
        Ok(bytes) => format!("{:016x}", emu::hash::fnv1a64(&bytes)),
        Err(_) => "unreadable".into(),
    }
}

/// The identity of a sweep of `list` with these settings.
pub fn identity(
    list: &[Workload],
    minutes: Option<f64>,
    settings: &ProfileSettings,
    configs: &[GfcParams],
) -> SweepIdentity {
    SweepIdentity {
        nesprof: env!("CARGO_PKG_VERSION").into(),
        workloads: list
            .iter()
            .map(|w| WorkloadIdentity {
                name: w.name.clone(),
                rom_file: w
                    .rom
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                rom_hash: file_hash(&w.rom),
                movie_hash: w.movie.as_deref().map(file_hash),
                minutes: w.minutes,
                ignore_rom_mismatch: w.ignore_rom_mismatch,
            })
            .collect(),
        minutes,
        interval_ms: settings.interval_ms,
        batch: settings.batch_len,
        spacing: settings.spacing.name().into(),
        trigger: settings.trigger.name().into(),
        seed: settings.seed,
        engine: settings.engine.name().into(),
        builders: [BuilderKind::Gfc, BuilderKind::Trace]
            .iter()
            .map(|b| b.name().to_string())
            .collect(),
        configs: configs.to_vec(),
    }
}

/// The shard file of a finished [`super::run::sweep_slice`] run.
pub fn shard_file(
    shard: Shard,
    sweep: SweepIdentity,
    outcome: &SweepOutcome,
    threads: usize,
) -> ShardFile {
    let total = sweep.workloads.len() * sweep.configs.len();
    let mut workloads: Vec<ShardWorkload> = Vec::new();
    for (&index, r) in outcome.ran.iter().zip(&outcome.results) {
        workloads.push(ShardWorkload {
            index,
            name: r.name.clone(),
            outcome: ShardOutcome::Ran(Box::new(r.clone())),
        });
    }
    for (index, name) in &outcome.interrupted {
        workloads.push(ShardWorkload {
            index: *index,
            name: name.clone(),
            outcome: ShardOutcome::Interrupted,
        });
    }
    for (index, e) in &outcome.problems {
        workloads.push(ShardWorkload {
            index: *index,
            name: sweep.workloads[*index].name.clone(),
            outcome: match e {
                WorkloadError::MissingRom(m) => ShardOutcome::Skipped(m.clone()),
                WorkloadError::Bad(m) => ShardOutcome::Failed(m.clone()),
            },
        });
    }
    workloads.sort_by_key(|w| w.index);
    ShardFile {
        format: SHARD_FORMAT,
        shard,
        units: shard.units(total),
        sweep,
        workloads,
        wall: outcome.wall,
        threads,
    }
}

impl ShardFile {
    pub fn to_ron(&self) -> String {
        ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default())
            .expect("shard files serialize")
    }

    /// Reads and checks one shard file (on its own; [`merge`] checks the
    /// set). Errors name the file.
    pub fn read(path: &Path) -> Result<ShardFile, String> {
        let text = emu::input_file::read_limited_text(path, MAX_SHARD_FILE)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        #[derive(Deserialize)]
        struct FormatOnly {
            format: u32,
        }
        let options = ron::Options::default();
        match options.from_str::<FormatOnly>(&text) {
            Ok(f) if f.format != SHARD_FORMAT => {
                return Err(format!(
                    "{}: shard file format {}, this nesprof reads format {SHARD_FORMAT}",
                    path.display(),
                    f.format
                ))
            }
            _ => {}
        }
        let file: ShardFile = options.from_str(&text).map_err(|e| {
            format!(
                "{}: not a shard file: {}",
                path.display(),
                emu::input_file::shorten_to(&e.to_string(), 160)
            )
        })?;
        file.check()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(file)
    }

    /// The workloads a signal stopped before they finished (names, in list
    /// order): empty for a complete shard.
    pub fn interrupted(&self) -> Vec<&str> {
        self.workloads
            .iter()
            .filter(|w| matches!(w.outcome, ShardOutcome::Interrupted))
            .map(|w| w.name.as_str())
            .collect()
    }

    /// The file's own validity: names usable as file names, every number
    /// in its range ([`values`]), a valid shard whose units match I/N and
    /// whose workloads are exactly those its units touch, each ran one with
    /// exactly its slice of configurations.
    pub fn check(&self) -> Result<(), String> {
        let s = self.shard;
        if s.index == 0 || s.index > s.count || s.count > MAX_SHARDS {
            return Err(format!(
                "inconsistent shard file: shard {s} is not I/N with 1 <= I <= N <= {MAX_SHARDS}"
            ));
        }
        super::workloads::check_names(self.sweep.workloads.iter().map(|w| w.name.as_str()))
            .map_err(|(i, problem)| format!("field sweep.workloads[{i}].name: {problem}"))?;
        values::identity(&self.sweep)?;
        if !(1..=values::MAX_THREADS).contains(&self.threads) {
            return Err(format!(
                "field threads: {} is not a thread count in [1, {}]",
                self.threads,
                values::MAX_THREADS
            ));
        }
        values::wall("wall", self.wall)?;
        self.check_layout()
            .map_err(|e| format!("inconsistent shard file: {e}"))?;
        for x in &self.workloads {
            if let ShardOutcome::Ran(r) = &x.outcome {
                values::result(r).map_err(|e| format!("workload {:?}: {e}", shorten(&x.name)))?;
            }
        }
        Ok(())
    }

    /// Units, workloads and configuration slices as shard I/N of this
    /// sweep has them.
    fn check_layout(&self) -> Result<(), String> {
        let s = self.shard;
        let (w, c) = (self.sweep.workloads.len(), self.sweep.configs.len());
        if self.units != s.units(w * c) {
            return Err(format!(
                "units {:?} are not shard {s}'s {:?}",
                self.units,
                s.units(w * c)
            ));
        }
        let slices = s.slices(w, c);
        let expected: Vec<usize> = (0..w).filter(|&i| !slices[i].is_empty()).collect();
        let have: Vec<usize> = self.workloads.iter().map(|x| x.index).collect();
        if have != expected {
            return Err(format!(
                "holds workloads {have:?}, its units cover {expected:?}"
            ));
        }
        for x in &self.workloads {
            let id = &self.sweep.workloads[x.index];
            if x.name != id.name {
                return Err(format!(
                    "workload {:?} is named {:?} in the list",
                    shorten(&x.name),
                    shorten(&id.name)
                ));
            }
            if let ShardOutcome::Ran(r) = &x.outcome {
                if r.name != x.name {
                    return Err(format!(
                        "the results of workload {:?} are named {:?}",
                        shorten(&x.name),
                        shorten(&r.name)
                    ));
                }
                let want = &self.sweep.configs[slices[x.index].clone()];
                let got: Vec<GfcParams> = r.configs.iter().map(|c| c.params).collect();
                if got != want {
                    return Err(format!(
                        "workload {:?}: {} configuration results, not its slice of {}",
                        shorten(&x.name),
                        got.len(),
                        want.len()
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The checks of every number a shard file holds ([`ShardFile::check`]):
/// finite, in the range the sweep can produce, and consistent with the
/// counts it derives from. Each error names the field (and the value,
/// printed with `{:?}` so that `1e308` stays short).
mod values {
    use std::time::Duration;

    use gfc::Metrics;

    use super::{SweepIdentity, WorkloadResult};

    /// `--minutes` and a workload's `minutes`: above 0, at most this.
    const MAX_MINUTES: f64 = crate::options::MAX_MINUTES;
    /// `--interval-ms`, as `crate::options::interval_ms` accepts it.
    const INTERVAL_MS: (f64, f64) = (0.01, 60_000.0);
    /// `--batch`, as `crate::options::batch` accepts it.
    const BATCH: (usize, usize) = (1, 10_000);
    /// `--jobs`, as `crate::options::jobs` accepts it: a shard's threads.
    pub const MAX_THREADS: usize = 256;
    /// The longest wall time believed: about 31.7 years, far beyond any
    /// sweep (27 000 emulated minutes run in hours), and small enough that
    /// the sum over [`super::MAX_SHARDS`] shards stays exact in a
    /// `Duration` and in an `f64` of seconds.
    pub const MAX_WALL_SECS: u64 = 1_000_000_000;
    /// Slack for values computed in floating point: `overlap` sums many
    /// small ratios and may end a few ulps above 1, a ratio recomputed from
    /// its counts may differ in the last bit.
    const SLACK: f64 = 1e-9;

    /// `value` is finite and within `[lo, hi]` (with [`SLACK`] above).
    pub fn in_range(field: &str, value: f64, (lo, hi): (f64, f64)) -> Result<(), String> {
        if value.is_finite() && value >= lo && value <= hi + SLACK * hi.abs().max(1.0) {
            Ok(())
        } else {
            Err(format!(
                "field {field}: {value:?} is not a number in [{lo}, {hi}]"
            ))
        }
    }

    fn minutes(field: &str, m: f64) -> Result<(), String> {
        if m.is_finite() && m > 0.0 && m <= MAX_MINUTES {
            Ok(())
        } else {
            Err(format!(
                "field {field}: {m:?} is not a number of minutes above 0, at most {MAX_MINUTES}"
            ))
        }
    }

    pub fn wall(field: &str, d: Duration) -> Result<(), String> {
        if d.as_secs() <= MAX_WALL_SECS {
            Ok(())
        } else {
            Err(format!(
                "field {field}: {} s is not a wall time (at most {MAX_WALL_SECS} s)",
                d.as_secs()
            ))
        }
    }

    /// `small <= large`, for counts where one is a subset of the other.
    fn at_most(small: (&str, u64), large: (&str, u64)) -> Result<(), String> {
        if small.1 <= large.1 {
            Ok(())
        } else {
            Err(format!(
                "field {}: {} is more than {} ({})",
                small.0, small.1, large.0, large.1
            ))
        }
    }

    fn equal(field: &str, value: u64, what: &str, expected: u64) -> Result<(), String> {
        if value == expected {
            Ok(())
        } else {
            Err(format!(
                "field {field}: {value}, but the workload's {what} is {expected}"
            ))
        }
    }

    /// `value` is `num / den` (0 when `den` is 0), as the metric defines it.
    fn ratio_of(field: &str, value: f64, num: (&str, u64), den: (&str, u64)) -> Result<(), String> {
        // As gfc's metrics compute it.
        let expected = if den.1 > 0 {
            num.1 as f64 / den.1 as f64
        } else {
            0.0
        };
        if (value - expected).abs() <= SLACK {
            Ok(())
        } else {
            Err(format!(
                "field {field}: {value:?}, but {} / {} = {} / {}",
                num.0, den.0, num.1, den.1
            ))
        }
    }

    /// The sweep's settings, lengths and configurations.
    pub fn identity(s: &SweepIdentity) -> Result<(), String> {
        if let Some(m) = s.minutes {
            minutes("sweep.minutes", m)?;
        }
        for (i, w) in s.workloads.iter().enumerate() {
            if let Some(m) = w.minutes {
                minutes(&format!("sweep.workloads[{i}].minutes"), m)?;
            }
        }
        in_range("sweep.interval_ms", s.interval_ms, INTERVAL_MS)?;
        if !(BATCH.0..=BATCH.1).contains(&s.batch) {
            return Err(format!(
                "field sweep.batch: {} is not a batch length in [{}, {}]",
                s.batch, BATCH.0, BATCH.1
            ));
        }
        // A sweep replays grid configurations in id order, each once.
        let mut last = None;
        for (k, p) in s.configs.iter().enumerate() {
            let Some(id) = p.id() else {
                return Err(format!(
                    "field sweep.configs[{k}]: {p} is not a configuration of the grid"
                ));
            };
            if last.is_some_and(|l| id <= l) {
                return Err(format!(
                    "field sweep.configs[{k}]: {p} is out of id order or repeated"
                ));
            }
            last = Some(id);
        }
        Ok(())
    }

    /// One workload's results: its counts, every configuration's metrics
    /// and the trace builder's, the wall times, the CFG records.
    pub fn result(r: &WorkloadResult) -> Result<(), String> {
        at_most(
            ("sampled_instructions", r.sampled_instructions),
            ("executed_instructions", r.executed_instructions),
        )?;
        // H90 is a prefix of H99 (edges by count), H99 part of the truth.
        at_most(
            ("edges_h90", r.edges_h90 as u64),
            ("edges_h99", r.edges_h99 as u64),
        )?;
        at_most(
            ("edges_h99", r.edges_h99 as u64),
            ("truth_edges", r.truth_edges as u64),
        )?;
        at_most(
            ("frames", r.frames),
            ("the most frames a run has", crate::options::MAX_FRAMES),
        )?;
        in_range("top_edge_pct", r.top_edge_pct, (0.0, 100.0))?;
        wall("emulate_wall", r.emulate_wall)?;
        for (k, c) in r.configs.iter().enumerate() {
            let at = |e: String| format!("configs[{k}] {}: {e}", c.params);
            metrics(r, &c.metrics).map_err(at)?;
            // A bin is made from a window of sampled instructions.
            at_most(
                ("bins", c.bins as u64),
                ("sampled_instructions", r.sampled_instructions),
            )
            .map_err(at)?;
            wall("replay", c.replay).map_err(at)?;
        }
        metrics(r, &r.trace.metrics).map_err(|e| format!("trace: {e}"))?;
        wall("trace.replay", r.trace.replay)?;
        for (field, record) in [
            ("h90_record", &r.h90_record),
            ("best_record", &r.best_record),
            ("trace_record", &r.trace_record),
        ] {
            record
                .validate()
                .map_err(|e| format!("field {field}: {e}"))?;
        }
        Ok(())
    }

    /// One builder's metrics on workload `r` (see `gfc::Metrics`).
    fn metrics(r: &WorkloadResult, m: &Metrics) -> Result<(), String> {
        for (field, v) in [
            ("similarity", m.similarity),
            ("precision", m.precision),
            ("f1", m.f1),
            ("weighted", m.weighted),
            ("overlap", m.overlap),
            ("similarity99", m.similarity99),
            ("hot_precision", m.hot_precision),
        ] {
            in_range(field, v, (0.0, 1.0))?;
        }
        in_range("sampled_pct", m.sampled_pct, (0.0, 100.0))?;
        let pct = r.sampled_pct();
        if (m.sampled_pct - pct).abs() > SLACK * pct.max(1.0) {
            return Err(format!(
                "field sampled_pct: {:?}, but the workload sampled {:?} %",
                m.sampled_pct, pct
            ));
        }
        // Every builder is scored against the workload's own truth.
        equal(
            "edges_h",
            m.edges_h as u64,
            "truth_edges",
            r.truth_edges as u64,
        )?;
        equal(
            "edges_h90",
            m.edges_h90 as u64,
            "edges_h90",
            r.edges_h90 as u64,
        )?;
        equal(
            "edges_h99",
            m.edges_h99 as u64,
            "edges_h99",
            r.edges_h99 as u64,
        )?;
        let count = |name, v: usize| (name, v as u64);
        at_most(count("common_h", m.common_h), count("edges_g", m.edges_g))?;
        at_most(count("common_h", m.common_h), count("edges_h", m.edges_h))?;
        at_most(
            count("common_h90", m.common_h90),
            count("edges_g", m.edges_g),
        )?;
        at_most(
            count("common_h90", m.common_h90),
            count("edges_h90", m.edges_h90),
        )?;
        ratio_of(
            "similarity",
            m.similarity,
            count("common_h90", m.common_h90),
            count("edges_h90", m.edges_h90),
        )?;
        ratio_of(
            "precision",
            m.precision,
            count("common_h", m.common_h),
            count("edges_g", m.edges_g),
        )
    }
}

/// The shard files named by `paths`: a directory stands for every
/// `shard-I-of-N.ron` in it (so shards may share one directory), a file
/// for itself.
pub fn find(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let entries = std::fs::read_dir(p).map_err(|e| format!("{}: {e}", p.display()))?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|f| {
                    f.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(is_shard_name)
                })
                .collect();
            if found.is_empty() {
                return Err(format!(
                    "{}: no shard files (shard-I-of-N.ron) in this directory",
                    p.display()
                ));
            }
            found.sort();
            files.extend(found);
        } else if p.exists() {
            files.push(p.clone());
        } else {
            return Err(format!("{}: no such directory or file", p.display()));
        }
    }
    Ok(files)
}

/// `shard-I-of-N.ron` with I and N decimal.
fn is_shard_name(name: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    name.strip_prefix("shard-")
        .and_then(|r| r.strip_suffix(".ron"))
        .and_then(|r| r.split_once("-of-"))
        .is_some_and(|(i, n)| digits(i) && digits(n))
}

/// The shards merged: what a single run would have returned, and the
/// shards' own wall times.
pub struct Merged {
    pub outcome: SweepOutcome,
    pub configs: usize,
    pub shards: usize,
    /// Summed over the shards.
    pub total_wall: Duration,
    pub threads: usize,
}

/// Checks that `files` are all N shards of one sweep, each once, and
/// combines them. `outcome.wall` is the longest shard's wall time (the
/// sweep's, if the shards ran at once).
pub fn merge(files: &[(PathBuf, ShardFile)]) -> Result<Merged, String> {
    let Some((first_path, first)) = files.first() else {
        return Err("no shard files given".into());
    };
    let n = first.shard.count;
    let mut by_index: BTreeMap<usize, (&PathBuf, &ShardFile)> = BTreeMap::new();
    for (path, f) in files {
        let missing = f.interrupted();
        if !missing.is_empty() {
            let names: Vec<String> = missing
                .iter()
                .map(|m| format!("{:?}", shorten(m)))
                .collect();
            return Err(format!(
                "{}: incomplete shard {}: interrupted before workload(s) {} finished; run `nesprof sweep --shard {}` again to complete it",
                path.display(),
                f.shard,
                list_some(&names),
                f.shard
            ));
        }
        if f.shard.count != n {
            return Err(format!(
                "{} is shard {} but {} is shard {}: not from the same split",
                path.display(),
                f.shard,
                first_path.display(),
                first.shard
            ));
        }
        if let Some(why) = difference(&first.sweep, &f.sweep) {
            return Err(format!(
                "{} and {} are not from the same sweep: {why}",
                first_path.display(),
                path.display()
            ));
        }
        if let Some((other, _)) = by_index.insert(f.shard.index, (path, f)) {
            return Err(format!(
                "shard {} given twice: {} and {}",
                f.shard,
                other.display(),
                path.display()
            ));
        }
    }
    let missing: Vec<String> = (1..=n)
        .filter(|i| !by_index.contains_key(i))
        .map(|i| i.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(format!("missing shard(s) {} of {n}", list_some(&missing)));
    }

    let sweep = &first.sweep;
    // Per workload, its part in each shard that has one, in shard order
    // (so the configuration slices come in slot order).
    let mut parts: Vec<Vec<(usize, &ShardOutcome)>> = vec![Vec::new(); sweep.workloads.len()];
    for (&i, (_, f)) in &by_index {
        for w in &f.workloads {
            parts[w.index].push((i, &w.outcome));
        }
    }
    let mut outcome = SweepOutcome {
        results: Vec::new(),
        skipped: Vec::new(),
        failed: Vec::new(),
        ran: Vec::new(),
        problems: Vec::new(),
        interrupted: Vec::new(),
        wall: Duration::ZERO,
    };
    for (index, parts) in parts.iter().enumerate() {
        let name = &sweep.workloads[index].name;
        let Some(&(first_shard, first_part)) = parts.first() else {
            continue;
        };
        match first_part {
            ShardOutcome::Interrupted => unreachable!("incomplete shards are refused above"),
            ShardOutcome::Ran(base) => {
                let mut configs = Vec::with_capacity(sweep.configs.len());
                for &(i, part) in parts {
                    let ShardOutcome::Ran(r) = part else {
                        return Err(format!(
                            "workload {name} ran on shard {first_shard}/{n} but not on shard {i}/{n}: {}",
                            problem_text(part)
                        ));
                    };
                    if let Some(why) = disagreement(base, r) {
                        return Err(format!(
                            "workload {name}: shards {first_shard}/{n} and {i}/{n} disagree ({why}); were they run by the same nesprof build?"
                        ));
                    }
                    configs.extend(r.configs.iter().cloned());
                }
                outcome.results.push(WorkloadResult {
                    name: name.clone(),
                    configs,
                    ..(**base).clone()
                });
                outcome.ran.push(index);
            }
            ShardOutcome::Skipped(m) | ShardOutcome::Failed(m) => {
                if let Some((i, _)) = parts
                    .iter()
                    .find(|(_, p)| matches!(p, ShardOutcome::Ran(_)))
                {
                    return Err(format!(
                        "workload {name} ran on shard {i}/{n} but not on shard {first_shard}/{n}: {m}"
                    ));
                }
                let error = if matches!(first_part, ShardOutcome::Skipped(_)) {
                    outcome.skipped.push(m.clone());
                    WorkloadError::MissingRom(m.clone())
                } else {
                    outcome.failed.push(m.clone());
                    WorkloadError::Bad(m.clone())
                };
                outcome.problems.push((index, error));
            }
        }
    }
    let walls = by_index.values().map(|(_, f)| f.wall);
    outcome.wall = walls.clone().max().unwrap_or_default();
    // Each wall time is at most `values::MAX_WALL_SECS` and each thread
    // count at most 256 (checked on reading), so over at most MAX_SHARDS
    // shards neither sum can overflow; saturating all the same.
    let total_wall = walls.fold(Duration::ZERO, Duration::saturating_add);
    Ok(Merged {
        outcome,
        configs: sweep.configs.len(),
        shards: n,
        total_wall,
        threads: by_index
            .values()
            .fold(0usize, |t, (_, f)| t.saturating_add(f.threads)),
    })
}

/// "a, b, c" for up to ten items, else the first ten and the count.
fn list_some(items: &[String]) -> String {
    if items.len() > 10 {
        format!("{}, ... ({} in all)", items[..10].join(", "), items.len())
    } else {
        items.join(", ")
    }
}

fn problem_text(p: &ShardOutcome) -> &str {
    match p {
        ShardOutcome::Ran(_) => "",
        ShardOutcome::Interrupted => "interrupted",
        ShardOutcome::Skipped(m) | ShardOutcome::Failed(m) => m,
    }
}

/// How two shards' emulations of one workload differ, if they do (they
/// cannot, from the same build: the emulation is deterministic).
fn disagreement(a: &WorkloadResult, b: &WorkloadResult) -> Option<String> {
    let pairs = [
        ("frame hash", a.frame_hash, b.frame_hash),
        ("frames", a.frames, b.frames),
        (
            "executed instructions",
            a.executed_instructions,
            b.executed_instructions,
        ),
        (
            "sampled instructions",
            a.sampled_instructions,
            b.sampled_instructions,
        ),
        ("batches", a.batches as u64, b.batches as u64),
        ("truth edges", a.truth_edges as u64, b.truth_edges as u64),
    ];
    if let Some((what, x, y)) = pairs.iter().find(|(_, x, y)| x != y) {
        return Some(format!("{what} {x} vs {y}"));
    }
    if a.trace.metrics != b.trace.metrics || a.trace.builder != b.trace.builder {
        return Some("trace-builder metrics".into());
    }
    if a.h90_record.to_ron() != b.h90_record.to_ron() {
        return Some("H90 record".into());
    }
    None
}

/// The first difference between two sweeps' identities, in words.
fn difference(a: &SweepIdentity, b: &SweepIdentity) -> Option<String> {
    if a == b {
        return None;
    }
    if a.nesprof != b.nesprof {
        return Some(format!("nesprof {} vs {}", a.nesprof, b.nesprof));
    }
    let names = |s: &SweepIdentity| {
        s.workloads
            .iter()
            .map(|w| w.name.as_str())
            .collect::<Vec<_>>()
            .join(",")
    };
    if names(a) != names(b) {
        return Some(format!("workloads [{}] vs [{}]", names(a), names(b)));
    }
    for (x, y) in a.workloads.iter().zip(&b.workloads) {
        if x != y {
            let mut why = format!("workload {}:", x.name);
            if x.rom_hash != y.rom_hash {
                let _ = write!(why, " ROM {} vs {}", x.rom_hash, y.rom_hash);
            } else if x.movie_hash != y.movie_hash {
                let _ = write!(why, " movie {:?} vs {:?}", x.movie_hash, y.movie_hash);
            } else {
                let _ = write!(why, " {x:?} vs {y:?}");
            }
            return Some(why);
        }
    }
    if a.configs != b.configs {
        return Some(format!(
            "{} vs {} configurations",
            a.configs.len(),
            b.configs.len()
        ));
    }
    let settings = |s: &SweepIdentity| {
        format!(
            "minutes={:?} interval_ms={} batch={} spacing={} trigger={} seed={} engine={} builders={}",
            s.minutes,
            s.interval_ms,
            s.batch,
            s.spacing,
            s.trigger,
            s.seed,
            s.engine,
            s.builders.join(",")
        )
    };
    Some(format!("{} vs {}", settings(a), settings(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_accepts_i_of_n_only() {
        assert_eq!(Shard::parse("3/8"), Ok(Shard { index: 3, count: 8 }));
        assert_eq!(Shard::parse("1/1"), Ok(Shard { index: 1, count: 1 }));
        for bad in [
            "0/8", "9/8", "3", "3/", "/8", "a/b", "-1/8", "1/0", "1/100001", "",
        ] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }

    /// The shards tile the units in order, each unit once, sizes within one.
    #[test]
    fn shards_tile_the_units() {
        for (total, n) in [(720, 8), (720, 1), (5, 8), (0, 3), (144 * 5, 7)] {
            let mut next = 0;
            let sizes: Vec<usize> = (1..=n)
                .map(|i| {
                    let u = Shard { index: i, count: n }.units(total);
                    assert_eq!(u.start, next);
                    next = u.end;
                    u.len()
                })
                .collect();
            assert_eq!(next, total);
            let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
            assert!(hi - lo <= 1, "{sizes:?}");
        }
    }

    /// Each unit's (workload, slot) is in exactly one shard's slices.
    #[test]
    fn slices_cover_every_pair_once() {
        let (w, c, n) = (5, 144, 7);
        let mut seen = vec![0; w * c];
        for i in 1..=n {
            let slices = Shard { index: i, count: n }.slices(w, c);
            for (k, s) in slices.iter().enumerate() {
                for slot in s.clone() {
                    seen[k * c + slot] += 1;
                }
            }
        }
        assert!(seen.iter().all(|&k| k == 1));
        // Contiguous: at most W + N - 1 emulations in all.
        let emulations: usize = (1..=n)
            .map(|i| {
                Shard { index: i, count: n }
                    .slices(w, c)
                    .iter()
                    .filter(|s| !s.is_empty())
                    .count()
            })
            .sum();
        assert!(emulations < w + n, "{emulations}");
    }

    /// A real shard file passes its checks, also read back from its text;
    /// every absurd or inconsistent value in it is refused, naming the
    /// field (the rest of the file as written).
    #[test]
    fn absurd_values_are_refused_naming_the_field() {
        let configs: Vec<GfcParams> = GfcParams::grid().step_by(29).collect();
        let shard = Shard { index: 1, count: 1 };
        let (list, outcome) = super::super::run::testing::tiny(&configs);
        let settings = ProfileSettings::default();
        let file = shard_file(
            shard,
            identity(&list, None, &settings, &configs),
            &outcome,
            1,
        );
        file.check().unwrap();
        let dir = std::env::temp_dir().join(format!("nesprof-shard-values-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(shard.file_name());
        std::fs::write(&path, file.to_ron()).unwrap();
        ShardFile::read(&path).unwrap();
        let _ = std::fs::remove_dir_all(&dir);

        type Edit = fn(&mut ShardFile);
        fn ran(f: &mut ShardFile) -> &mut WorkloadResult {
            match &mut f.workloads[0].outcome {
                ShardOutcome::Ran(r) => r,
                _ => panic!("cfgdemo ran"),
            }
        }
        let cases: [(&str, Edit); 22] = [
            ("field similarity: inf", |f| {
                ran(f).configs[0].metrics.similarity = f64::INFINITY
            }),
            ("field similarity: NaN", |f| {
                ran(f).configs[1].metrics.similarity = f64::NAN
            }),
            ("field similarity: 1e308", |f| {
                ran(f).configs[0].metrics.similarity = 1e308
            }),
            ("field precision: -0.5", |f| {
                ran(f).configs[0].metrics.precision = -0.5
            }),
            ("field overlap: 1e50", |f| {
                ran(f).configs[2].metrics.overlap = 1e50
            }),
            ("field similarity99: -inf", |f| {
                ran(f).configs[0].metrics.similarity99 = f64::NEG_INFINITY
            }),
            ("trace: field weighted: NaN", |f| {
                ran(f).trace.metrics.weighted = f64::NAN
            }),
            ("field sampled_pct: 1e50", |f| {
                ran(f).configs[0].metrics.sampled_pct = 1e50
            }),
            ("field top_edge_pct: 100.5", |f| ran(f).top_edge_pct = 100.5),
            ("field sampled_instructions", |f| {
                let r = ran(f);
                r.sampled_instructions = r.executed_instructions + 1;
            }),
            ("field edges_h99", |f| {
                ran(f).edges_h99 = ran(f).truth_edges + 1
            }),
            ("field edges_h90", |f| {
                ran(f).configs[0].metrics.edges_h90 += 1
            }),
            ("field common_h90", |f| {
                let m = &mut ran(f).configs[0].metrics;
                m.common_h90 = m.edges_g + 1;
            }),
            ("field similarity", |f| {
                let m = &mut ran(f).configs[0].metrics;
                m.similarity = if m.similarity > 0.5 { 0.25 } else { 0.75 };
            }),
            ("field bins", |f| ran(f).configs[0].bins = usize::MAX),
            ("field frames", |f| ran(f).frames = u64::MAX),
            ("field emulate_wall", |f| {
                ran(f).emulate_wall = Duration::MAX
            }),
            ("field wall", |f| f.wall = Duration::from_secs(u64::MAX)),
            ("field threads: 0", |f| f.threads = 0),
            ("field sweep.interval_ms: NaN", |f| {
                f.sweep.interval_ms = f64::NAN
            }),
            ("field sweep.workloads[0].minutes: inf", |f| {
                f.sweep.workloads[0].minutes = Some(f64::INFINITY)
            }),
            ("field sweep.configs[1]", |f| {
                f.sweep.configs[1] = f.sweep.configs[0]
            }),
        ];
        for (expected, edit) in cases {
            let mut bad = file.clone();
            edit(&mut bad);
            let e = bad.check().expect_err(expected);
            assert!(e.contains(expected), "wanted {expected:?} in {e}");
            assert!(!e.contains('\n') && e.len() < 300, "{e}");
        }
        // Names: checked like a workloads file's.
        let mut bad = file.clone();
        for name in ["../../x", "/abs/x", "a\u{7}", ".x"] {
            bad.sweep.workloads[0].name = name.into();
            bad.workloads[0].name = name.into();
            ran(&mut bad).name = name.into();
            let e = bad.check().unwrap_err();
            assert!(
                e.starts_with("field sweep.workloads[0].name: workload name"),
                "{e}"
            );
        }
    }

    /// A shard stopped by a signal says which workloads are missing, and
    /// merge refuses it.
    #[test]
    fn an_interrupted_shard_is_refused_by_merge() {
        let configs: Vec<GfcParams> = GfcParams::grid().step_by(72).collect();
        let shard = Shard { index: 1, count: 1 };
        let (list, mut outcome) = super::super::run::testing::tiny(&configs);
        outcome.interrupted.push((0, list[0].name.clone()));
        outcome.results.clear();
        outcome.ran.clear();
        let settings = ProfileSettings::default();
        let file = shard_file(
            shard,
            identity(&list, None, &settings, &configs),
            &outcome,
            1,
        );
        file.check().unwrap();
        assert_eq!(file.interrupted(), ["cfgdemo"]);
        let again: ShardFile = ron::from_str(&file.to_ron()).unwrap();
        assert_eq!(again.interrupted(), ["cfgdemo"]);
        let e = merge(&[(PathBuf::from("s.ron"), again)]).err().unwrap();
        assert!(
            e.starts_with(
                "s.ron: incomplete shard 1/1: interrupted before workload(s) \"cfgdemo\""
            ),
            "{e}"
        );
    }

    #[test]
    fn shard_names() {
        assert_eq!(Shard { index: 2, count: 8 }.file_name(), "shard-2-of-8.ron");
        assert!(is_shard_name("shard-2-of-8.ron"));
        for bad in [
            "shard-2-of-8.ron.tmp",
            ".shard-2-of-8.ron.1.tmp",
            "shard-x-of-8.ron",
        ] {
            assert!(!is_shard_name(bad), "{bad}");
        }
    }
}
