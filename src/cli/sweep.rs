//! `nesprof sweep`: the thesis' chapter-5 experiment as one command (see
//! `crate::sweep` for how it runs). Also `--bless`, which re-records the CFG
//! regression snapshots.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Duration;

use clap::{Args, Subcommand};
use emu::nes::Engine;
use emu::sampling::Spacing;
use gfc::{GfcParams, THESIS_BEST};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use profiler::session::ProfileSettings;

use crate::emit::emit;
use crate::error::BadInput;
use crate::options;
use crate::output_set::{OutputSet, Tool};
use crate::progress::frames_bar;
use crate::signals::{Interrupted, Partial};
use crate::sweep::run::{self, Observer, WorkloadError};
use crate::sweep::shard::{self, Shard};
use crate::sweep::{csv, plots, snapshots, tables, workloads, Workload};
use crate::write_policy::WritePolicy;

pub const LONG_ABOUT: &str = "\
Reproduces the thesis' chapter 5: each workload is emulated once, recording the exact \
CFG (the truth) and the sample stream (emulated-time trigger: a batch of --batch \
instructions every --interval-ms of emulated time). The stream is then replayed through \
all 144 GFCGaussiano configurations of the grid (binSize 8,10,13,16 x stdevThreshold \
8,10,12,15 x windowSize 6,10,13 x recurrentThreshold 5,8,12; config id = \
((b*4+s)*3+w)*3+r), in parallel on all cores, and each hot CFG is scored.

WHAT IT RUNS
  no arguments       the bundled workloads: the roms-test/ programs (cfgdemo, snake, \
breakout, fountain, maze), each with movies/<name>.fm2 for the movie's length (5 min)
  ROM [--movie F]    one ROM (5 minutes, or the movie's length)
  --workloads FILE   a RON list; see workloads.ron (the bundled programs),
                     workloads-games.ron (the shared homebrew games) and
                     workloads-corpus.ron (the corpus of games outside the team's
                     code) at the repository root:
                       (workloads: [(name: \"maze\", rom: \"roms-test/maze.nes\",
                                     movie: \"movies/maze.fm2\", minutes: 5.0), ...])
                     movie and minutes are optional. Relative paths are relative to the
                     file's directory; a leading ${ROMS} is the shared ROM directory
                     ($NESPROF_ROMS, else the nearest shared/roms), a leading ${CORPUS}
                     the corpus directory ($NESPROF_CORPUS, else the nearest corpus/
                     holding roms/). A workload whose ROM
                     is missing is reported and skipped; any other bad workload is
                     reported, the rest still run, and the exit code is 2.
                     A name is also the name of the workload's files in cfg/, so it
                     must be one as it stands: at most 200 bytes, no / or \\, no
                     leading dot, no control character, and no two names equal but
                     for case (one file on macOS and Windows). Any other name is
                     refused (exit 2) before anything runs. With ROM, the name is the
                     ROM's file name without extension, made into such a name.
  --minutes M        overrides every workload's length.

METRICS (definitions: docs/metrics.md in the repository)
  similarity  |E(G) n E(H90)| / |E(H90)|, the thesis' metric (H90: the heaviest truth \
edges covering 90% of transitions)
  precision   |E(G) n E(H)| / |E(G)|;  weighted: H90's transitions on edges G found;
  overlap     profile overlap of G's and H's edge weights
  sim. H99    ours, not the thesis': similarity against H99 (99% of transitions). NES \
games idle in a wait-for-vblank loop, so H90 is often only one or two edges \
(edges_h90 is always shown); H99 holds the per-frame game code.

OUTPUT (in --out, default results/)
  tables.md            the tables below (also printed): workloads; per workload the 3 \
best and 3 worst configurations in the layout of the thesis' tables 3 and 4 plus \
precision, weighted, overlap and sim. H99; the mean per configuration (top and bottom \
10); the thesis' best configuration (10,15,13,5) everywhere; the mean per parameter value
  sweep.csv            one row per (workload, configuration), every metric
  workloads.csv        one row per workload (instructions, sampling rate, truth sizes)
  heatmap_similarity.svg, heatmap_similarity_h99.svg
                       mean similarity over binSize x stdevThreshold, one panel per \
windowSize x recurrentThreshold
  similarity_vs_sampled.svg
                       every configuration's similarity against the workload's sampled %
  cfg/<name>.h90.ron, cfg/<name>.hot_thesis_best.ron
                       the truth's H90 and the hot CFG at (10,15,13,5), CFG records
  timing.txt           wall times (emulation, replays)
  Ranking: similarity, then sim. H99, overlap, precision, lower id.
  The last line on stdout: workloads=N configs=N skipped=N failed=N best=#ID \
best_mean_similarity=F thesis_best_mean_similarity=F wall_s=F

CTRL-C
  Like `perf record`: the first SIGINT, SIGTERM or SIGHUP stops the sweep starting new \
work (a running emulation stops at its next frame); the workloads whose emulation and \
every replay had finished (each is announced on stderr as `done: NAME`) are then written \
as a complete set of outputs, as a sweep of those workloads alone would write them, the \
others reported as interrupted on stderr, in a note atop tables.md and in timing.txt, and \
the last line gets interrupted=N; the exit status is 130. If none had finished, nothing \
is written. A second signal abandons the new outputs and keeps the previous set.

SWEEPS ACROSS MACHINES
  --shard I/N        runs only the I-th of N contiguous slices of the (workload x \
configuration) units, in workload order (each shard emulates the workloads it has a \
configuration of), and writes shard-I-of-N.ron into --out (shards may share one \
directory); stdout is one line: shard=I/N units=N workloads=N skipped=N failed=N wall_s=F. \
A shard stopped by Ctrl-C writes its file with the workloads it finished and the others \
marked Interrupted (its line ends interrupted=N, exit 130); merge refuses it until the \
shard is run again.
  sweep merge DIR... --out D
                     combines all N shard files into the outputs above, byte for byte \
those of a single run (only timing.txt and wall_s, wall times, differ); a missing or \
repeated shard, or shards of different sweeps, exit 2. A ROM file named merge: give it \
as ./merge. See `nesprof sweep merge --help`.

REGRESSION SNAPSHOTS
  --bless re-records tests/snapshots/ (the truth's H90 and the hot CFG at the thesis' \
best configuration for each bundled workload, 1 emulated minute each) and runs nothing \
else; the test `cargo test --release --test sweep_snapshots` compares them, and \
NESPROF_BLESS=1 makes that test re-record instead.";

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct SweepArgs {
    #[command(subcommand)]
    pub command: Option<SweepCommand>,
    /// Sweep this one ROM instead of the bundled workloads.
    #[arg(conflicts_with = "workloads")]
    pub rom: Option<PathBuf>,
    /// The movie to replay with ROM.
    #[arg(long, value_name = "F.fm2", requires = "rom")]
    pub movie: Option<PathBuf>,
    /// With --movie: replay even if the movie's romChecksum names another
    /// ROM (normally an error, since the replay would desync); only a
    /// warning is printed. For hacks or re-dumps known to be compatible.
    #[arg(long)]
    pub ignore_rom_mismatch: bool,
    /// A RON file listing the workloads (name, rom, movie, minutes).
    #[arg(long, value_name = "FILE")]
    pub workloads: Option<PathBuf>,
    /// Run only these workloads of the list (comma-separated names).
    #[arg(
        long,
        value_name = "NAMES",
        value_delimiter = ',',
        conflicts_with = "rom"
    )]
    pub only: Vec<String>,
    /// Emulated minutes per workload (default: each workload's own, else the
    /// movie's length, else 5); above 0, at most 27000.
    #[arg(long, value_parser = crate::options::minutes())]
    pub minutes: Option<f64>,
    /// Output directory.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// X: milliseconds of emulated time between batches, 0.01 to 60000.
    #[arg(long, default_value = "3", value_parser = crate::options::interval_ms())]
    pub interval_ms: f64,
    /// N: consecutive instructions per batch, 1 to 10000.
    #[arg(long, default_value = "25", value_parser = crate::options::batch())]
    pub batch: usize,
    /// How the intervals of mean X are drawn: uniformly from [X/2, 3X/2]
    /// (the default), or exactly X (the sampler of earlier versions).
    #[arg(long, value_parser = options::spacing(), default_value = "uniform")]
    pub spacing: Spacing,
    /// Worker threads, 1 to 256 (default: all cores).
    #[arg(long, value_parser = crate::options::jobs())]
    pub jobs: Option<usize>,
    /// CPU engine for the emulations.
    #[arg(long, value_parser = options::engine(), default_value = "translate")]
    pub engine: Engine,
    /// Run only shard I of N (1 <= I <= N) of the (workload x configuration)
    /// work and write its raw results to --out as shard-I-of-N.ron; combine
    /// the N shards with `nesprof sweep merge`. See SWEEPS ACROSS MACHINES in
    /// --help.
    #[arg(long, value_name = "I/N", value_parser = shard_value)]
    pub shard: Option<Shard>,
    /// Re-record the regression snapshots in tests/snapshots/ and exit.
    #[arg(long, conflicts_with_all = ["rom", "workloads", "only", "minutes", "shard"])]
    pub bless: bool,
}

fn shard_value(text: &str) -> Result<Shard, String> {
    Shard::parse(text)
}

#[derive(Debug, Subcommand)]
pub enum SweepCommand {
    /// Combine the outputs of `sweep --shard I/N` runs into the tables, CSV
    /// and plots of one sweep (byte for byte those of a single run).
    #[command(long_about = MERGE_ABOUT)]
    Merge(MergeArgs),
}

pub const MERGE_ABOUT: &str = "\
Combines the shard files of `nesprof sweep --shard I/N` (shard-I-of-N.ron) into the outputs \
of one sweep: tables.md (also printed), sweep.csv, workloads.csv, the plots and cfg/ records, \
byte for byte what a single `nesprof sweep` with the same arguments writes. Only timing.txt \
(its first line: the longest shard's and the summed wall time) and the last line's wall_s \
(the longest shard's) speak of wall time, which is not a result.

Refused, exit 2: a missing shard (all N must be given), a shard given twice, shards of \
different sweeps (workload list, ROM or movie contents, lengths, sampler settings, \
configurations or nesprof version differ), shards that disagree on a workload both emulated, \
an incomplete shard (one stopped by Ctrl-C: run it again), and a shard file holding a \
workload name that cannot be a file name (see `nesprof sweep --help`) or any number no \
sweep writes: a metric that is not finite or outside its range (ratios in [0, 1], \
percentages in [0, 100]), counts that contradict each other (sampled above executed \
instructions, H90 above H99 above the truth, a ratio its counts do not give), a wall time \
above 10^9 s, a setting outside what the command line accepts. Each refusal is one line \
naming the file and the field.

A signal (Ctrl-C) during a merge stops it with nothing written (exit 130): a merge gives \
the single run's outputs whole or not at all.";

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Shard output directories (every shard-I-of-N.ron in each), or shard
    /// files.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Output directory.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
}

pub fn run(args: SweepArgs) -> anyhow::Result<ExitCode> {
    if let Some(SweepCommand::Merge(m)) = args.command {
        return merge(m);
    }
    let threads = args.jobs.unwrap_or_else(run::default_threads);
    if args.bless {
        return bless(threads);
    }
    crate::signals::install();
    let list = workload_list(&args)?;
    let settings = ProfileSettings {
        interval_ms: args.interval_ms,
        batch_len: args.batch,
        spacing: args.spacing,
        engine: args.engine,
        ..ProfileSettings::default()
    };
    let mut policy = WritePolicy::new();
    policy.maybe_input("--workloads", args.workloads.as_ref());
    for w in &list {
        policy.input("workload ROM", &w.rom);
        policy.maybe_input("workload movie", w.movie.as_ref());
    }
    let configs: Vec<GfcParams> = GfcParams::grid().collect();
    if let Some(shard) = args.shard {
        // Shards of one sweep may share a directory: each writes its own
        // file, not a set.
        policy.file("--shard's file", &args.out.join(shard.file_name()));
        policy.check()?;
        std::fs::create_dir_all(&args.out).map_err(|e| crate::atomic::say(&args.out, e))?;
        return run_shard(&args, shard, &list, &settings, &configs, threads);
    }
    // Checked before the (minutes-long) run, and a bad --out is a bad
    // argument: exit 2. Every output is staged and the set committed at
    // the end, so a failed run leaves the previous outputs as they were
    // (and an interrupted one too, unless some workloads had finished:
    // then their outputs replace them, see `publish`).
    policy.dir("--out", &args.out).check()?;
    let names: Vec<String> = list.iter().map(|w| w.name.clone()).collect();
    let outputs = open_outputs(&args.out, &names)?;
    check_cfg_dir(&args.out)?;
    eprintln!(
        "sweep: {} workload(s) x {} configurations and the trace builder on {threads} thread(s); sampler X = {} ms ({}), N = {}",
        list.len(),
        configs.len(),
        args.interval_ms,
        args.spacing,
        args.batch
    );
    let bars = Bars::new(&vec![configs.len(); list.len()]);
    let outcome = run::sweep(&list, &configs, args.minutes, &settings, threads, &bars);
    bars.finish();
    let header = format!(
        "sweep wall time {:.1} s on {threads} thread(s)",
        secs(outcome.wall)
    );
    publish(outputs, &args.out, &outcome, configs.len(), &header, true)
}

/// Refuses, before any work, an output directory whose `cfg/` (where the
/// CFG records go) exists and is not a directory: staging the records
/// would otherwise fail only after the sweep.
fn check_cfg_dir(out: &Path) -> anyhow::Result<()> {
    let cfg = out.join("cfg");
    match std::fs::symlink_metadata(&cfg) {
        Ok(m) if !m.is_dir() => Err(BadInput(format!(
            "{}: not a directory (the sweep writes its CFG records there)",
            cfg.display()
        ))
        .into()),
        _ => Ok(()),
    }
}

/// `text` with every control character escaped, for messages that quote
/// what a file said (a shard's skipped or failed workloads): one message,
/// one line, and nothing the terminal obeys.
fn printable(text: &str) -> String {
    emu::input_file::printable(text, emu::input_file::MESSAGE_BYTES)
}

/// "a", "b", ... quoted, for a one-line message: at most ten names.
fn quoted_names<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.into_iter().collect();
    let mut text: Vec<String> = names
        .iter()
        .take(10)
        .map(|n| format!("{:?}", emu::input_file::shorten(n)))
        .collect();
    if names.len() > 10 {
        text.push(format!("... ({} in all)", names.len()));
    }
    text.join(", ")
}

/// Writes a sweep's outputs (tables, CSV, plots, CFG records, timing) and
/// prints its tables and last line: the same for a single run and for
/// merged shards. `timing_header` is `timing.txt`'s first line.
///
/// `keep_when_stopped`: a sweep, like `perf record`, keeps what it has
/// when first stopped by a signal: the outputs of the workloads that
/// finished (emulation and every replay) are written whole, the others
/// reported as interrupted (stderr, tables.md, timing.txt), and the exit
/// status is 130 ([`Partial`]); with none finished nothing is written. A
/// second signal abandons the staged files (see `crate::signals`), keeping
/// the previous set. A merge (`false`) writes all or nothing: a signal
/// leaves the previous set.
fn publish(
    mut outputs: OutputSet,
    out: &Path,
    outcome: &run::SweepOutcome,
    configs: usize,
    timing_header: &str,
    keep_when_stopped: bool,
) -> anyhow::Result<ExitCode> {
    for m in &outcome.skipped {
        eprintln!("skipped: {}", printable(m));
    }
    for m in &outcome.failed {
        eprintln!("failed: {}", printable(m));
    }
    for (_, name) in &outcome.interrupted {
        eprintln!("interrupted: {name} (stopped before its emulation and replays finished)");
    }
    let results = &outcome.results;
    if results.is_empty() {
        if crate::signals::stop_requested() {
            return Err(Interrupted.into());
        }
        return Err(BadInput("no workload could run".into()).into());
    }
    // The names were checked where they were read (workloads file, shard
    // file, ROM file name); checked again here, where they become file
    // names, so that no other way in can write outside cfg/.
    workloads::check_names(results.iter().map(|r| r.name.as_str()))
        .map_err(|(_, problem)| BadInput(problem))?;
    let interrupted: Vec<&str> = outcome
        .interrupted
        .iter()
        .map(|(_, n)| n.as_str())
        .collect();

    let report = tables::report(results, &interrupted);
    outputs.write("tables.md", &report)?;
    outputs.write("sweep.csv", csv::sweep_csv(results))?;
    outputs.write("workloads.csv", csv::workloads_csv(results))?;
    for r in results {
        for (suffix, record) in
            workloads::RECORD_SUFFIXES
                .iter()
                .zip([&r.h90_record, &r.best_record, &r.trace_record])
        {
            outputs.write(&workloads::record_file(&r.name, suffix), record.to_ron())?;
        }
        // A merge writes all or nothing: a signal ends it here.
        if !keep_when_stopped {
            crate::signals::check()?;
        }
    }
    let mut svgs = Vec::new();
    for (name, svg) in plots::render_all(results)? {
        outputs.write(&name, svg)?;
        svgs.push(name);
    }
    let timing = timing(outcome, timing_header);
    outputs.write("timing.txt", &timing)?;
    if keep_when_stopped {
        outputs.commit_interrupted()?;
    } else {
        outputs.commit()?;
    }

    // The tables are the command's product: stdout. Notes go to stderr.
    for line in report.lines() {
        emit(line);
    }
    eprint!("{timing}");
    eprintln!(
        "wrote {}: tables.md sweep.csv workloads.csv timing.txt {} cfg/",
        printable(&out.display().to_string()),
        svgs.join(" ")
    );

    let means = tables::config_means(results);
    let ranked = tables::ranked_means(&means);
    let thesis = means.iter().find(|m| m.params == THESIS_BEST);
    let groups = tables::group_means(results);
    let group = |kind: &str| groups.iter().find(|g| g.0 == kind);
    let busy = group("busy");
    let stopped = keep_when_stopped && crate::signals::stop_requested();
    // Appended only to a stopped run's line (new fields go last).
    let interrupted_field = if stopped {
        format!(" interrupted={}", interrupted.len())
    } else {
        String::new()
    };
    emit(&format!(
        "workloads={} configs={} skipped={} failed={} best=#{} best_mean_similarity={:.4} thesis_best_mean_similarity={:.4} wall_s={:.1} busy={} degenerate={} busy_gfc_similarity={:.4} busy_trace_similarity={:.4} busy_trace_hot_precision={:.4} busy_trace_overlap={:.4}{interrupted_field}",
        results.len(),
        configs,
        outcome.skipped.len(),
        outcome.failed.len(),
        ranked.first().and_then(|m| m.params.id()).unwrap_or(0),
        ranked.first().map_or(0.0, |m| m.similarity),
        thesis.map_or(0.0, |m| m.similarity),
        outcome.wall.as_secs_f64(),
        busy.map_or(0, |g| g.1),
        group("degenerate").map_or(0, |g| g.1),
        busy.map_or(0.0, |g| g.2[0]),
        busy.map_or(0.0, |g| g.3[0]),
        busy.map_or(0.0, |g| g.3[1]),
        busy.map_or(0.0, |g| g.3[2]),
    ));
    if stopped {
        return Err(stopped_message(
            &out.display().to_string(),
            results.len(),
            &interrupted,
        ));
    }
    failed_exit(&outcome.failed)
}

/// The one line a sweep stopped by a signal ends with (exit 130): what it
/// wrote (`written`: the output directory or shard file) and what is
/// missing.
fn stopped_message(written: &str, finished: usize, interrupted: &[&str]) -> anyhow::Error {
    let text = if interrupted.is_empty() {
        format!("interrupted: every workload had finished; wrote their outputs to {written}")
    } else {
        format!(
            "interrupted: wrote the outputs of the {finished} finished workload(s) to {written}; not finished: {}",
            quoted_names(interrupted.iter().copied())
        )
    };
    Partial(printable(&text)).into()
}

/// Exit 2 when any workload failed (after the outputs are written).
fn failed_exit(failed: &[String]) -> anyhow::Result<ExitCode> {
    if !failed.is_empty() {
        return Err(BadInput(format!(
            "{} workload(s) failed:\n{}",
            failed.len(),
            failed.join("\n")
        ))
        .into());
    }
    Ok(ExitCode::SUCCESS)
}

/// `--shard I/N`: runs this shard's slice of the units and writes
/// `shard-I-of-N.ron` into --out (directly, not as an output set, so that
/// the shards of one sweep can share a directory).
fn run_shard(
    args: &SweepArgs,
    shard: Shard,
    list: &[Workload],
    settings: &ProfileSettings,
    configs: &[GfcParams],
    threads: usize,
) -> anyhow::Result<ExitCode> {
    let path = args.out.join(shard.file_name());
    crate::atomic::check(&path)?;
    let identity = shard::identity(list, args.minutes, settings, configs);
    let slices = shard.slices(list.len(), configs.len());
    let units = shard.units(list.len() * configs.len());
    let workloads = slices.iter().filter(|s| !s.is_empty()).count();
    eprintln!(
        "sweep shard {shard}: units {}..{} of {} ({} configuration replay(s) of {workloads} workload(s)) on {threads} thread(s); sampler X = {} ms ({}), N = {}",
        units.start,
        units.end,
        list.len() * configs.len(),
        units.len(),
        args.interval_ms,
        args.spacing,
        args.batch
    );
    let per_workload: Vec<usize> = slices.iter().map(|s| s.len()).collect();
    let bars = Bars::new(&per_workload);
    let outcome = run::sweep_slice(
        list,
        configs,
        &slices,
        args.minutes,
        settings,
        threads,
        &bars,
    );
    bars.finish();
    // Stopped by a signal: as a sweep does (see `publish`), the shard file
    // is written if any workload finished, the others marked interrupted
    // in it (merge refuses such a file until the shard is run again).
    let stopped = crate::signals::stop_requested();
    if stopped && outcome.results.is_empty() {
        return Err(Interrupted.into());
    }
    for m in &outcome.skipped {
        eprintln!("skipped: {}", printable(m));
    }
    for m in &outcome.failed {
        eprintln!("failed: {}", printable(m));
    }
    for (_, name) in &outcome.interrupted {
        eprintln!("interrupted: {name} (stopped before its emulation and replays finished)");
    }
    let file = shard::shard_file(shard, identity, &outcome, threads);
    crate::atomic::write_or_say(&path, file.to_ron())?;
    if stopped {
        eprintln!(
            "wrote {}, incomplete: run shard {shard} again before merging",
            printable(&path.display().to_string())
        );
    } else {
        eprintln!(
            "wrote {} (merge all {} with `nesprof sweep merge DIR...`)",
            printable(&path.display().to_string()),
            shard.count
        );
    }
    let interrupted_field = if stopped {
        format!(" interrupted={}", outcome.interrupted.len())
    } else {
        String::new()
    };
    emit(&format!(
        "shard={shard} units={} workloads={} skipped={} failed={} wall_s={:.1}{interrupted_field}",
        units.len(),
        outcome.results.len(),
        outcome.skipped.len(),
        outcome.failed.len(),
        outcome.wall.as_secs_f64()
    ));
    if stopped {
        let interrupted: Vec<&str> = outcome
            .interrupted
            .iter()
            .map(|(_, n)| n.as_str())
            .collect();
        return Err(stopped_message(
            &path.display().to_string(),
            outcome.results.len(),
            &interrupted,
        ));
    }
    failed_exit(&outcome.failed)
}

/// `sweep merge DIR...`: the shards' results as one sweep's outputs.
fn merge(args: MergeArgs) -> anyhow::Result<ExitCode> {
    crate::signals::install();
    let mut policy = WritePolicy::new();
    for dir in &args.dirs {
        policy.input("shard directory", dir);
    }
    policy.dir("--out", &args.out).check()?;
    // Reading and checking a shard can take a while (up to 1 GiB of RON):
    // a signal between files ends the merge, writing nothing.
    let mut files = Vec::new();
    for path in shard::find(&args.dirs).map_err(BadInput)? {
        crate::signals::check()?;
        let file = shard::ShardFile::read(&path).map_err(BadInput)?;
        files.push((path, file));
    }
    crate::signals::check()?;
    let merged = shard::merge(&files).map_err(BadInput)?;
    crate::signals::check()?;
    let names: Vec<String> = merged
        .outcome
        .results
        .iter()
        .map(|r| r.name.clone())
        .collect();
    let outputs = open_outputs(&args.out, &names)?;
    check_cfg_dir(&args.out)?;
    eprintln!(
        "sweep merge: {} shard(s), {} workload(s) x {} configurations",
        merged.shards,
        merged.outcome.results.len() + merged.outcome.skipped.len() + merged.outcome.failed.len(),
        merged.configs
    );
    // Not the single run's first line: wall times of separate machines do
    // not add up to one run's.
    let header = format!(
        "merged from {} shard(s): wall time {:.1} s for the longest shard, {:.1} s summed, on {} thread(s) in all",
        merged.shards,
        secs(merged.outcome.wall),
        secs(merged.total_wall),
        merged.threads
    );
    publish(
        outputs,
        &args.out,
        &merged.outcome,
        merged.configs,
        &header,
        false,
    )
}

/// The sweep's output set in `out`, for the workloads `names`: its fixed
/// files, the plots and the CFG records of each workload.
fn open_outputs(out: &Path, names: &[String]) -> anyhow::Result<OutputSet> {
    let mut files: Vec<String> = ["tables.md", "sweep.csv", "workloads.csv", "timing.txt"]
        .into_iter()
        .chain(plots::FILE_NAMES.iter().copied())
        .map(str::to_string)
        .collect();
    for name in names {
        for suffix in workloads::RECORD_SUFFIXES {
            files.push(workloads::record_file(name, suffix));
        }
    }
    let files: Vec<&str> = files.iter().map(String::as_str).collect();
    OutputSet::open(out, Tool::Sweep, &files)
}

/// The workloads the arguments ask for.
fn workload_list(args: &SweepArgs) -> anyhow::Result<Vec<Workload>> {
    let mut list = match (&args.rom, &args.workloads) {
        (Some(rom), _) => vec![Workload {
            name: workloads::name_from_rom(rom),
            rom: rom.clone(),
            movie: args.movie.clone(),
            minutes: None,
            ignore_rom_mismatch: args.ignore_rom_mismatch,
        }],
        (None, Some(file)) => workloads::load(file).map_err(|e| BadInput(e.to_string()))?,
        (None, None) => workloads::bundled(&workloads::repo_root()),
    };
    for w in &mut list {
        w.ignore_rom_mismatch |= args.ignore_rom_mismatch;
    }
    if !args.only.is_empty() {
        if let Some(unknown) = args
            .only
            .iter()
            .find(|n| !list.iter().any(|w| &w.name == *n))
        {
            let names: Vec<&str> = list.iter().map(|w| w.name.as_str()).collect();
            return Err(BadInput(format!(
                "--only: no workload named {unknown:?} (there are: {})",
                names.join(", ")
            ))
            .into());
        }
        list.retain(|w| args.only.contains(&w.name));
    }
    // Every list is checked where it is read (`workloads::parse`); this
    // covers the others (a ROM's name, the bundled list) before any work.
    workloads::check_names(list.iter().map(|w| w.name.as_str()))
        .map_err(|(_, problem)| BadInput(problem))?;
    Ok(list)
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// Wall times: `header`, then emulation per workload and replay per
/// configuration.
fn timing(outcome: &run::SweepOutcome, header: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{header}");
    for r in &outcome.results {
        let replays: Vec<f64> = r.configs.iter().map(|c| secs(c.replay) * 1e3).collect();
        let sum: f64 = replays.iter().sum();
        let max = replays.iter().copied().fold(0.0, f64::max);
        let mut sorted = replays.clone();
        sorted.sort_by(f64::total_cmp);
        let median = sorted.get(sorted.len() / 2).copied().unwrap_or(0.0);
        let _ = writeln!(
            out,
            "  {:<18} emulation {:>6.2} s ({:>5.0} fps, {} frames, {} batches); replay per config: median {:.1} ms, max {:.1} ms, total {:.2} s",
            r.name,
            secs(r.emulate_wall),
            r.frames as f64 / secs(r.emulate_wall).max(1e-9),
            r.frames,
            r.batches,
            median,
            max,
            sum / 1e3
        );
    }
    for (_, name) in &outcome.interrupted {
        let _ = writeln!(
            out,
            "  {name:<18} interrupted: stopped by a signal before its emulation and replays finished"
        );
    }
    out
}

/// `--bless`: re-records the snapshots, showing what changed.
fn bless(threads: usize) -> anyhow::Result<ExitCode> {
    let repo = workloads::repo_root();
    let dir = snapshots::dir(&repo);
    eprintln!(
        "recording snapshots of the bundled workloads ({} emulated minute(s) each) into {}",
        snapshots::SNAPSHOT_MINUTES,
        dir.display()
    );
    let snaps = snapshots::compute(&repo, threads).map_err(BadInput)?;
    // New files are listed by `wrote` below; report only real changes.
    for s in snaps.iter().filter(|s| dir.join(&s.file).is_file()) {
        for change in snapshots::compare(&dir, std::slice::from_ref(s)) {
            eprintln!("changed: {change}");
        }
    }
    let written = snapshots::write(&dir, &snaps).map_err(anyhow::Error::msg)?;
    for p in &written {
        eprintln!("wrote {}", p.display());
    }
    emit(&format!("snapshots={}", written.len()));
    Ok(ExitCode::SUCCESS)
}

/// Progress bars: one per running emulation (frames), one for the replays.
struct Bars {
    multi: MultiProgress,
    emulations: Mutex<HashMap<usize, ProgressBar>>,
    replays: ProgressBar,
    /// Replays per workload, taken off the total when one cannot run.
    per_workload: Vec<u64>,
}

impl Bars {
    /// Bars for `per_workload[i]` replays of workload `i`.
    fn new(per_workload: &[usize]) -> Self {
        let total_replays: usize = per_workload.iter().sum();
        let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
        let replays = multi.add(ProgressBar::new(total_replays as u64));
        replays.set_style(
            ProgressStyle::with_template(
                "{msg:>12} [{bar:40}] {pos}/{len} configs replayed ({per_sec}, eta {eta})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        replays.set_message("replays");
        Bars {
            multi,
            emulations: Mutex::new(HashMap::new()),
            replays,
            per_workload: per_workload.iter().map(|&n| n as u64).collect(),
        }
    }

    fn finish(&self) {
        self.replays.finish_and_clear();
        let _ = self.multi.clear();
    }
}

impl Observer for Bars {
    fn emulating(&self, index: usize, name: &str, frames: u64) {
        let bar = self.multi.add(frames_bar(frames, name));
        if let Ok(mut map) = self.emulations.lock() {
            map.insert(index, bar);
        }
    }

    fn frame(&self, index: usize, frame: u64) {
        // Every 32nd frame is plenty for a bar and keeps the lock cold.
        if frame.is_multiple_of(32) {
            if let Some(bar) = self
                .emulations
                .lock()
                .ok()
                .and_then(|m| m.get(&index).cloned())
            {
                bar.set_position(frame);
            }
        }
    }

    fn emulated(&self, index: usize) {
        if let Some(bar) = self
            .emulations
            .lock()
            .ok()
            .and_then(|mut m| m.remove(&index))
        {
            bar.finish_and_clear();
            self.multi.remove(&bar);
        }
    }

    fn problem(&self, index: usize, _error: &WorkloadError) {
        // Reported after the run (a hidden draw target would drop a println).
        self.replays.set_length(
            self.replays
                .length()
                .unwrap_or(0)
                .saturating_sub(self.per_workload.get(index).copied().unwrap_or(0)),
        );
    }

    fn replayed(&self) {
        self.replays.inc(1);
    }

    fn finished(&self, _index: usize, name: &str) {
        // One line per workload done: on a long sweep, what a Ctrl-C now
        // would keep. Above the bars, which suspend redraws around it.
        self.multi.suspend(|| eprintln!("done: {name}"));
    }
}
