//! `nesprof profile`: one run with the ground-truth recorder and the
//! count-and-time sampler; the hot CFG is built live by the chosen builder
//! and compared with the exact one.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use emu::clock::minutes_to_frames;
use emu::nes::Engine;
use emu::sampling::{Spacing, Trigger};
use gfc::{BuilderKind, GfcParams, HotTruth, Metrics};
use profiler::cfg_file::EdgeConfidence;
use profiler::frame_profile::csv::{self as frame_csv, Columns};
use profiler::frame_profile::recorder::{BatchTee, FrameRecorder, Outcome, Setup};
use profiler::frame_profile::report as frame_report;
use profiler::frame_profile::routines::{static_targets, vector_target};
use profiler::frame_profile::{Routines, Start};
use profiler::session::{self, ProfileSettings};
use profiler::stream::{StreamHeader, StreamTrailer, StreamWriter};
use profiler::symbols::{Location, Symbols};

use crate::atomic;
use crate::atomic::Staged;
use crate::emit::{emit, metric_line};
use crate::error::BadInput;
use crate::open::open;
use crate::options;
use crate::output_set::{OutputSet, Tool, PROFILE_FILES};
use crate::progress::frames_bar;
use crate::symbol_files::{self, SymbolArgs};
use crate::write_policy::WritePolicy;

#[derive(Debug, Args)]
pub struct ProfileArgs {
    /// The iNES (.nes) file to profile.
    pub rom: PathBuf,
    /// Replay this FCEUX movie while profiling.
    #[arg(long, value_name = "F.fm2")]
    pub movie: Option<PathBuf>,
    /// With --movie: replay even if the movie's romChecksum names another
    /// ROM (normally an error, since the replay would desync); only a
    /// warning is printed. For hacks or re-dumps known to be compatible.
    #[arg(long)]
    pub ignore_rom_mismatch: bool,
    /// Emulated minutes to run, above 0 and at most 27000 (default: the
    /// movie's length, else 5).
    #[arg(long, conflicts_with = "frames", value_parser = options::minutes())]
    pub minutes: Option<f64>,
    /// Frames to run instead of --minutes (of the window, with
    /// --from-frame or --start-at), 1 to 100000000.
    #[arg(long, value_parser = options::frames())]
    pub frames: Option<u64>,
    /// What starts a batch: a real-time timer thread (as in the thesis) or
    /// emulated time (deterministic; the default).
    #[arg(long, value_parser = options::trigger(), default_value = "emulated")]
    pub trigger: Trigger,
    /// X: milliseconds between batches, 0.01 to 60000.
    #[arg(long, default_value = "3", value_parser = options::interval_ms())]
    pub interval_ms: f64,
    /// N: consecutive instructions per batch, 1 to 10000.
    #[arg(long, default_value = "25", value_parser = options::batch())]
    pub batch: usize,
    /// Emulated trigger only: how the intervals of mean X are drawn —
    /// uniformly from [X/2, 3X/2] (so the sampler cannot phase-lock with the
    /// 60 Hz frame), or exactly X.
    #[arg(long, value_parser = options::spacing(), default_value = "uniform")]
    pub spacing: Spacing,
    /// Emulated trigger only: random extra delay of up to this many ms (0 to
    /// 60000).
    #[arg(long, default_value = "0", value_parser = options::jitter_ms())]
    pub jitter_ms: f64,
    /// Seed of the trigger's random intervals and jitter.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The hot-CFG builder: `trace` reads each batch as an exact trace and
    /// estimates counts with flow conservation; `gfc` is GFCGaussiano as
    /// the thesis specifies it.
    #[arg(long, value_parser = options::builder(), default_value = "trace")]
    pub builder: BuilderKind,
    /// GFCGaussiano parameters binSize,stdevThreshold,windowSize,recurrentThreshold
    /// (builder gfc only).
    #[arg(long, default_value = "10,15,13,5")]
    pub config: GfcParams,
    /// CPU engine.
    #[arg(long, value_parser = options::engine(), default_value = "translate")]
    pub engine: Engine,
    /// Output directory (default: results/profile-<rom>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also write the run's executed code and read data as an FCEUX
    /// code/data log (.cdl) to this file.
    #[arg(long, value_name = "F.cdl")]
    pub cdl: Option<PathBuf>,
    /// Also record the memory-dependence profile: memory.ron, ram.png
    /// (wram.png when PRG RAM was used) and a "memory" report section.
    #[arg(long)]
    pub memory: bool,
    /// With --memory: reads more than N instructions after their write are
    /// not counted as dependences (1 to 10^12; default: no limit).
    #[arg(long, value_name = "N", requires = "memory", value_parser = options::memory_lifetime())]
    pub memory_lifetime: Option<u64>,
    /// With --memory: record in bursts, ON frames in a row at a random place
    /// in every PERIOD (e.g. 1/30: not always the same phase, so that a
    /// game's 2- or 4-frame cycles are not sampled one-sidedly); between bursts the engines only note each byte's last
    /// writer, so a burst's reads are paired with their true writes. With
    /// /WARMUP (e.g. 3/90/10) writers are noted only in the WARMUP frames
    /// before each burst and the plain code runs before that: cheaper, but
    /// a byte whose value changed unseen loses its writer until written
    /// again (one that kept its value keeps it; with --memory-lifetime
    /// every writer is lost) (default: every frame).
    #[arg(long, value_name = "ON/PERIOD[/WARMUP]", requires = "memory", value_parser = options::bursts())]
    pub memory_bursts: Option<(u32, u32, Option<u32>)>,
    /// Record the truth (exact flow counts) only in ON frames in a row at a
    /// random place in every PERIOD (e.g. 1/30; the same frames as
    /// --memory-bursts with the same ON/PERIOD): cheaper; truth.ron, the metrics, the flame
    /// graph and a --cdl log's code bits then cover those frames only
    /// (default: every frame).
    #[arg(long, value_name = "ON/PERIOD", value_parser = options::truth_bursts())]
    pub truth_bursts: Option<(u32, u32)>,
    /// Run only the sampler (what you would leave on): no exact recorder,
    /// so no truth.ron, thesis metrics, flame graph, CDL code bits or
    /// memory profile; the frame-time profile (frames.csv, routines.csv,
    /// the report) is estimated from the samples, with 95 % intervals.
    #[arg(long, conflicts_with_all = ["memory", "cdl", "truth_bursts"])]
    pub no_truth: bool,
    /// Profile a window from frame N (frames 0 to N-1 run unprofiled;
    /// --frames and --minutes then count from N), 0 to 100000000.
    #[arg(long, value_name = "N", value_parser = options::whole(0, 100_000_000))]
    pub from_frame: Option<u64>,
    /// Start profiling when the PC first reaches this label (of the
    /// symbol files), after --from-frame if both are given: e.g. the
    /// first frame of gameplay rather than the title screen.
    #[arg(long, value_name = "LABEL")]
    pub start_at: Option<String>,
    #[command(flatten)]
    pub symbols: SymbolArgs,
}

/// Hot blocks listed in report.txt and in report.html.
const REPORT_ROWS: usize = 15;
const HTML_ROWS: usize = 40;

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "rom".into())
}

pub fn run(args: ProfileArgs) -> anyhow::Result<ExitCode> {
    crate::signals::install();
    let out_dir = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("results").join(format!("profile-{}", stem(&args.rom))));
    WritePolicy::new()
        .input("ROM", &args.rom)
        .maybe_input("--movie", args.movie.as_ref())
        .inputs("--symbols", &args.symbols.files)
        .dir("--out", &out_dir)
        .maybe_file("--cdl", args.cdl.as_ref())
        .check()?;
    let opened = open(&args.rom, args.movie.as_deref(), args.ignore_rom_mismatch)?;
    let (mut nes, replay, rom_bytes) = (opened.nes, opened.replay, opened.rom);
    let from = args.from_frame.unwrap_or(0);
    let length = match (args.frames, args.minutes) {
        (Some(f), _) => f,
        (None, Some(m)) => minutes_to_frames(m),
        (None, None) => replay.as_ref().map_or(minutes_to_frames(5.0), |r| {
            r.len().saturating_sub(from).max(1)
        }),
    };
    let truth_on = !args.no_truth;
    let settings = ProfileSettings {
        trigger: args.trigger,
        interval_ms: args.interval_ms,
        batch_len: args.batch,
        spacing: args.spacing,
        jitter_ms: args.jitter_ms,
        seed: args.seed,
        builder: args.builder,
        params: args.config,
        engine: args.engine,
        memory: args.memory.then_some(args.memory_lifetime),
        memory_bursts: args.memory_bursts.map(|(on, period, _)| (on, period)),
        memory_warmup: args.memory_bursts.and_then(|(_, _, warmup)| warmup),
        truth_bursts: args.truth_bursts,
        ..ProfileSettings::default()
    };
    // Every output is staged and the set committed at the end: an
    // interrupted or failed run leaves the previous outputs as they were.
    let mut outputs = OutputSet::open(&out_dir, Tool::Profile, PROFILE_FILES)?;
    if let Some(path) = &args.cdl {
        atomic::check(path)?;
    }
    // After the output checks: a run refused for an output says only that.
    let symbols = symbol_files::load(&args.symbols, Some((&args.rom, nes.cartridge())))?;
    let start_at = match &args.start_at {
        Some(label) => Some((label.as_str(), label_places(symbols.as_ref(), label)?)),
        None => None,
    };
    if args.cdl.is_some() {
        nes.record_accesses();
    }
    let rom_name = args
        .rom
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // The routines' root and the NMI handler, as the machine starts.
    let reset = vector_target(&mut nes, 0xFFFC);
    let nmi_handler = vector_target(&mut nes, 0xFFFA);

    // The window: frames before --from-frame, then up to --start-at's
    // label, run unprofiled.
    let bar = frames_bar(from + length, &stem(&args.rom));
    let how = run_to_window(
        &mut nes,
        replay.as_ref(),
        from,
        start_at
            .as_ref()
            .map(|(_, places)| (places.as_slice(), symbols.as_ref())),
        // How long to look for the label: the movie, or five minutes, or
        // the window if longer.
        from + length.max(replay.as_ref().map_or(minutes_to_frames(5.0), |r| r.len())),
        &|f| bar.set_position(f),
    )
    .map_err(|e| BadInput(format!("{}: {e}", args.rom.display())))?;
    if crate::signals::stop_requested() {
        return Err(crate::signals::Interrupted.into());
    }
    let window_start = nes.frame_count();
    let windowed = args.from_frame.is_some() || args.start_at.is_some();
    // Without a window, --frames is the frame count the run ends at, as
    // `run` counts it (a movie run starts with frame 0 counted).
    let frames = if windowed {
        window_start + length
    } else {
        length.max(window_start)
    };
    let mid_frame = how == Start::MidFrame;

    // The frame-time profile, on its own thread; frames.csv is written as
    // the rows come.
    let prg: Vec<u8> = nes.cartridge().prg_rom.to_vec();
    let mut routines = match &symbols {
        Some(s) => Routines::with_symbols(s, reset),
        None => Routines::new(prg.len(), reset),
    }
    .with_prg(prg.clone().into());
    if let Some(s) = symbols.as_ref().filter(|_| !routines.has_scopes()) {
        for entry in labelled_jump_targets(&mut nes, &prg, s) {
            routines.add_entry(entry);
        }
    }
    let frames_csv = std::io::BufWriter::new(outputs.stage("frames.csv")?);
    let mut recorder = FrameRecorder::start(
        &mut nes,
        Setup {
            routines,
            exact: truth_on,
            how,
            nmi_handler,
            prg,
            frames_csv,
        },
    );

    // The sample stream goes to its file as the run goes, so that memory
    // does not grow with the run's length.
    let header = StreamHeader {
        rom_hash: format!("{:016x}", emu::hash::fnv1a64(&rom_bytes)),
        rom_name: rom_name.clone(),
        movie: args.movie.as_ref().map(|m| m.display().to_string()),
        trigger: args.trigger.name().to_string(),
        interval_ms: args.interval_ms,
        batch_len: args.batch,
        jitter_ms: args.jitter_ms,
        spacing: args.spacing.name().to_string(),
        seed: args.seed,
    };
    let samples_path = out_dir.join("samples.bin");
    let io = |e: std::io::Error| atomic::say(&samples_path, e);
    let writer = StreamWriter::new(outputs.stage("samples.bin")?, &header).map_err(io)?;
    let tee = recorder.tee(Some(Box::new(writer)));
    // Where branches are taken in the window: the leaders the samples
    // cannot prove (`emu::taken_targets`), for the builder's blocks.
    let taken = nes.record_taken_targets();
    let mut result = session::run_streaming(
        &mut nes,
        replay.as_ref(),
        frames,
        &settings,
        session::Window {
            truth: truth_on,
            mid_frame,
        },
        Box::new(tee),
        |nes| {
            let frame = nes.frame_count();
            recorder.end_frame(nes, frame - 1);
            bar.set_position(frame);
            !crate::signals::stop_requested()
        },
    )
    .map_err(|e| BadInput(format!("{}: {e}", args.rom.display())))?;
    bar.finish_and_clear();
    {
        let taken = taken.clone();
        result
            .builder
            .set_taken_targets(Some(std::sync::Arc::new(move |a| taken.contains(a))));
    }
    // Like `perf record`: the first Ctrl-C ends the run and the outputs
    // cover the frames run (a second one abandons them).
    let interrupted = result.stopped || crate::signals::stop_requested();
    if interrupted && result.frames == window_start {
        return Err(crate::signals::Interrupted.into());
    }
    if let Some(e) = result.sink_error.take() {
        return Err(io(e));
    }
    let sink: Box<dyn std::any::Any> = result
        .sink
        .take()
        .ok_or_else(|| anyhow::anyhow!("internal: the sample stream's sink is missing"))?;
    let mut tee = sink
        .downcast::<BatchTee>()
        .map_err(|_| anyhow::anyhow!("internal: the sample stream's sink is of another type"))?;
    let inner: Box<dyn std::any::Any> = tee
        .inner
        .take()
        .ok_or_else(|| anyhow::anyhow!("internal: the sample stream's file is missing"))?;
    drop(tee);
    let writer = inner
        .downcast::<StreamWriter<Staged>>()
        .map_err(|_| anyhow::anyhow!("internal: the sample stream's sink is of another type"))?;
    let samples = writer
        .finish(&StreamTrailer {
            executed_instructions: result.executed_instructions,
            sampled_instructions: result.sampled_instructions,
            batches: result.tally.batches(),
            dropped_batches: result.dropped_batches,
            frames: result.frames,
            frame_hash: result.frame_hash,
            taken_targets: taken.bits(),
        })
        .map_err(io)?;
    outputs.add("samples.bin", samples)?;
    let (mut frame_time, frames_csv) = recorder.finish(&mut nes);
    let frames_path = out_dir.join("frames.csv");
    if let Some(e) = frame_time.error.take() {
        return Err(atomic::say(&frames_path, e));
    }
    let frames_file = frames_csv
        .into_inner()
        .map_err(|e| atomic::say(&frames_path, e.into_error()))?;
    outputs.add("frames.csv", frames_file)?;
    let columns = Columns {
        exact: truth_on,
        sampled: true,
    };
    let mut routines_csv = frame_csv::routines_header(columns);
    routines_csv.push('\n');
    for row in &frame_time.routines {
        routines_csv += &frame_csv::routines_line(row, columns);
        routines_csv.push('\n');
    }
    outputs.write("routines.csv", routines_csv)?;
    let routine_name = |entry: u32| frame_time.names.name(entry);

    // The report: the frame time first, the thesis' metrics last.
    let mut report = String::new();
    let _ = writeln!(report, "nesprof profile report");
    let _ = writeln!(report, "ROM        {rom_name}");
    if let Some(m) = &args.movie {
        let _ = writeln!(report, "movie      {}", m.display());
    }
    let window = match (&start_at, windowed) {
        (Some((label, _)), _) => format!(
            " (frames {window_start} to {}: from {label}, reached in frame {window_start})",
            result.frames.saturating_sub(1)
        ),
        (None, false) => String::new(),
        (None, true) => format!(
            " (frames {window_start} to {})",
            result.frames.saturating_sub(1)
        ),
    };
    let shown_frames = if windowed {
        result.frames - window_start
    } else {
        result.frames
    };
    let _ = writeln!(report, "frames     {shown_frames}{window}");
    if interrupted {
        let _ = writeln!(
            report,
            "           (interrupted: {shown_frames} of the {length} frames asked for were run)"
        );
    }
    let _ = writeln!(report);
    report += &frame_report::text(&frame_time);

    let name = symbol_files::block_namer(symbols.as_ref());
    let frame_name = symbol_files::namer(symbols.as_ref());
    let hot = result.builder.graph();
    let profile = result.builder.edge_profile();
    let counts = result.counts.as_deref();
    let hot_disasm = profiler::report::disassemble(hot, counts, &nes);
    let mut hot_record = profiler::report::record(
        "sampled",
        &rom_name,
        &rom_bytes,
        result.frames,
        hot.clone(),
        hot_disasm.clone(),
    );
    if let Some(confidence) = result.builder.confidence() {
        hot_record.confidence = EdgeConfidence::of(hot, confidence);
    }
    outputs.write("hot_cfg.ron", hot_record.to_ron())?;
    let profile_disasm = profiler::report::disassemble(profile, counts, &nes);
    let ron = profiler::report::record(
        "edge_profile",
        &rom_name,
        &rom_bytes,
        result.frames,
        profile.clone(),
        profile_disasm,
    )
    .to_ron();
    outputs.write("edge_profile.ron", ron)?;

    let truth = HotTruth::new(&result.truth);
    let h90: &gfc::Cfg = &truth.h90;
    let metrics = Metrics::evaluate(
        hot,
        profile,
        &truth,
        result.sampled_instructions,
        result.executed_instructions,
    );
    let dot = profiler::dot::render(
        hot,
        truth_on.then_some(h90),
        &hot_disasm,
        &format!("{rom_name}: hot CFG ({})", builder_label(&args)),
        symbols.as_ref(),
    );
    outputs.write("hot_cfg.dot", &dot)?;

    let mut flame_svg = None;
    if let Some(exact) = &frame_time.exact {
        let truth_disasm = profiler::report::disassemble(&result.truth, counts, &nes);
        let ron = profiler::report::record(
            "truth",
            &rom_name,
            &rom_bytes,
            result.frames,
            result.truth.clone(),
            truth_disasm,
        )
        .to_ron();
        outputs.write("truth.ron", ron)?;
        // By CPU cycles: idle apart under what waited, the NMI and IRQ
        // handlers as roots of their own.
        let stacks = exact.folded();
        outputs.write("stacks.folded", profiler::flame::folded_text(&stacks))?;
        let title = format!("{rom_name}: CPU cycles by call stack");
        let svg = profiler::flame::svg_counting(&stacks, &title, "cycles")
            .map_err(|e| anyhow::anyhow!("flame.svg: {e}"))?;
        outputs.write("flame.svg", &svg)?;
        flame_svg = Some(svg);
    }

    let blocks = profiler::hot_blocks::block_rows(&result.truth, hot, &result.tally, &name);
    // Functions: the blocks under one global label (with symbols only).
    let functions = symbols.as_ref().map(|s| {
        profiler::hot_blocks::group_rows(&blocks, &|entry| match s.lookup_global(entry) {
            Some(hit) => hit.name.to_string(),
            None => emu::code_addr::label(entry),
        })
    });
    let unit = if truth_on {
        "share of executed / of sampled instructions"
    } else {
        "share of sampled instructions"
    };
    if let Some(functions) = &functions {
        let _ = writeln!(report, "\nhottest labels ({unit})");
        report += &profiler::hot_blocks::text(functions, "label", REPORT_ROWS);
    }
    let _ = writeln!(report, "\nhottest blocks ({unit})");
    report += &profiler::hot_blocks::text(&blocks, "block", REPORT_ROWS);
    let memory = match (&result.memory, counts) {
        (Some(m), Some(counts)) => Some(memory_outputs(
            &mut outputs,
            &mut report,
            m,
            &result,
            counts,
            &name,
            &frame_name,
        )?),
        _ => None,
    };

    // The thesis' metrics, last.
    let mut thesis = String::new();
    let _ = writeln!(
        thesis,
        "sampler    trigger {}, X = {} ms ({}), N = {}, jitter {} ms, seed {}",
        args.trigger, args.interval_ms, args.spacing, args.batch, args.jitter_ms, args.seed
    );
    let _ = writeln!(thesis, "builder    {}", builder_label(&args));
    let _ = writeln!(
        thesis,
        "executed   {} instructions",
        result.executed_instructions
    );
    let sampled_pct = if result.executed_instructions > 0 {
        result.sampled_instructions as f64 * 100.0 / result.executed_instructions as f64
    } else {
        0.0
    };
    let _ = writeln!(
        thesis,
        "sampled    {} instructions in {} batches ({:.2}%), {} batches dropped",
        result.sampled_instructions,
        result.tally.batches(),
        sampled_pct,
        result.dropped_batches
    );
    if truth_on {
        let _ = writeln!(
            thesis,
            "truth      {} blocks, {} edges; H90 {} edges, H99 {} edges",
            result.truth.num_blocks(),
            result.truth.num_edges(),
            h90.num_edges(),
            truth.h99.num_edges()
        );
    } else {
        let _ = writeln!(thesis, "truth      not recorded (--no-truth)");
    }
    // What the bursty recorders cover: a reader comparing "exact %" with
    // "executed" needs to know the truth saw only part of the run.
    if let Some((on, period)) = args.truth_bursts {
        let _ = writeln!(
            thesis,
            "           (truth in bursts: {on} of every {period} frames)"
        );
    }
    if let Some((on, period, warmup)) = args.memory_bursts {
        let tracked = match warmup {
            Some(0) => "writers not followed between them".into(),
            Some(w) => format!("writers followed in the {w} frames before each"),
            None => "writers followed between them".into(),
        };
        let _ = writeln!(
            thesis,
            "memory in bursts: {on} of every {period} frames, {tracked}"
        );
    }
    let _ = writeln!(
        thesis,
        "hot CFG    {} blocks, {} edges, {} bins; edge profile {} edges",
        hot.num_blocks(),
        hot.num_edges(),
        result.builder.bins().len(),
        profile.num_edges()
    );
    if !hot_record.confidence.is_empty() {
        let p: Vec<f64> = hot_record.confidence.iter().map(|c| c.p_h90).collect();
        let sure = p.iter().filter(|&&p| p >= 0.9).count();
        let likely = p.iter().filter(|&&p| (0.5..0.9).contains(&p)).count();
        let _ = writeln!(
            thesis,
            "confidence {sure} hot edges sure (P(in H90) >= 0.9), {likely} likely (0.5-0.9), {} doubtful (< 0.5); each edge's in hot_cfg.ron",
            p.len() - sure - likely
        );
    }
    if truth_on {
        let _ = writeln!(
            thesis,
            "metrics    similarity {:.4}  precision {:.4}  f1 {:.4}  weighted {:.4}  overlap {:.4}",
            metrics.similarity, metrics.precision, metrics.f1, metrics.weighted, metrics.overlap
        );
        let _ = writeln!(
            thesis,
            "           similarity99 {:.4}  hot_precision {:.4}",
            metrics.similarity99, metrics.hot_precision
        );
    }
    let _ = writeln!(
        thesis,
        "wall time  {:.2} s ({:.0} fps)",
        result.wall.as_secs_f64(),
        (result.frames - window_start) as f64 / result.wall.as_secs_f64().max(1e-9)
    );
    if result.dropped_batches > 0 {
        let _ = writeln!(thesis, "warning    the builder dropped batches: the live hot CFG differs from a replay of samples.bin");
    }
    let _ = writeln!(report, "\nthe thesis' hot CFG (docs/metrics.md)");
    report += &thesis;
    outputs.write("report.txt", &report)?;

    let metric_line = if truth_on {
        metric_line(&metrics, result.frame_hash)
    } else {
        no_truth_line(&frame_time, result.frame_hash)
    };
    let (cfg_svg, cfg_layout) = match profiler::html::graphviz_svg(&dot) {
        Some(svg) => (svg, "Graphviz (dot)"),
        None => (
            profiler::cfg_svg::render(hot, &name, &|entry| {
                h90.block(entry).is_some() || h90.graph().contains_node(entry)
            }),
            "nesprof's built-in layout (Graphviz's dot was not found)",
        ),
    };
    let frame_text = frame_report::text(&frame_time);
    let frames_html = frame_report::html(&frame_time, &routine_name, &frame_text);
    let focus = blocks.first().map(|b| profiler::dot::node_id(b.entry));
    let page = profiler::html::render(&profiler::html::Page {
        rom: &rom_name,
        metric_line: &metric_line,
        summary: &thesis,
        frames: Some(&frames_html),
        cfg_svg: &cfg_svg,
        cfg_layout,
        cfg_focus: focus.as_deref(),
        flame_svg: flame_svg
            .as_deref()
            .and_then(|s| std::str::from_utf8(s).ok()),
        blocks: &blocks,
        functions: functions.as_deref(),
        limit: HTML_ROWS,
        memory: memory.as_ref().map(|m| profiler::html::MemorySection {
            tables: &m.html,
            ram_png: &m.ram_png,
            wram_png: m.wram_png.as_deref(),
        }),
    });
    outputs.write("report.html", page)?;
    if let (Some(path), Some(log), Some(counts)) = (&args.cdl, nes.access_log(), counts) {
        let sizes = profiler::cdl::CdlSizes::of(nes.cartridge());
        atomic::write_or_say(path, profiler::cdl::build(counts, log, sizes))?;
    }
    if interrupted {
        outputs.commit_interrupted()?;
    } else {
        outputs.commit()?;
    }
    eprint!("{report}");
    let shown = crate::error::printable(&out_dir.display().to_string());
    emit(&metric_line);
    if interrupted {
        return Err(crate::signals::Partial(format!(
            "interrupted: wrote {shown} for the {shown_frames} frames run (of {length})"
        ))
        .into());
    }
    eprintln!("wrote {shown}");
    Ok(ExitCode::SUCCESS)
}

/// The last line without the truth: the frame-time profile's figures.
fn no_truth_line(outcome: &Outcome, frame_hash: u64) -> String {
    let s = &outcome.sampled;
    let w = &outcome.work_per_frame;
    format!(
        "frames={} cycles={} busy_pct={:.2} nmi_pct={:.2} irq_pct={:.2} dma_pct={:.2} idle_pct={:.2} lag_frames={} work_p99={} sampled_batches={} frame_hash={frame_hash:016x}",
        outcome.frames,
        outcome.cycles,
        s.classes.busy.value * 100.0,
        s.classes.nmi.value * 100.0,
        s.classes.irq.value * 100.0,
        s.classes.dma.value * 100.0,
        s.classes.idle.value * 100.0,
        outcome.lag_frames,
        w.p99().unwrap_or(0),
        s.batches,
    )
}

/// Without ld65 scopes, which `JMP`s are tail calls: those whose target
/// carries a global label in the symbol files (`jmp draw_sprites` at a
/// routine's end, `jmp main` after the reset code), read from the `JMP
/// abs` instructions in PRG ROM (a `$4C` byte and an address in
/// $8000-$FFFF, mapped as the banks are now). A jump to a cheap local
/// (`jmp @loop`) or to an unlabelled place stays inside its routine.
/// Without symbols nothing tells a tail call from a loop, and no `JMP` is
/// one.
fn labelled_jump_targets(nes: &mut emu::Nes, prg: &[u8], symbols: &Symbols) -> Vec<u32> {
    static_targets(nes, prg, 0x4C)
        .into_iter()
        .filter(|&code| {
            symbols
                .lookup_global(code)
                .is_some_and(|hit| hit.offset == 0)
        })
        .collect()
}

/// Where label `label` is (every place of that name), or a clear error.
fn label_places(symbols: Option<&Symbols>, label: &str) -> anyhow::Result<Vec<Location>> {
    let Some(symbols) = symbols else {
        return Err(BadInput(format!(
            "--start-at {}: no symbol file was read (give --symbols, or put GAME.dbg beside the ROM)",
            crate::error::printable(label)
        ))
        .into());
    };
    let places: Vec<Location> = symbols
        .iter()
        .filter(|(_, name)| *name == label)
        .map(|(at, _)| at)
        .collect();
    if places.is_empty() {
        return Err(BadInput(format!(
            "--start-at {}: no such label in the symbol files",
            crate::error::printable(label)
        ))
        .into());
    }
    Ok(places)
}

/// Runs `nes` unprofiled to the start of the window: to frame `from`,
/// then, with `label`, until the PC first reaches one of its places
/// (giving up at frame `limit`). Returns how the window starts.
fn run_to_window(
    nes: &mut emu::Nes,
    replay: Option<&emu::movie::Replay>,
    from: u64,
    label: Option<(&[Location], Option<&Symbols>)>,
    limit: u64,
    progress: &dyn Fn(u64),
) -> Result<Start, String> {
    let apply = |nes: &mut emu::Nes, until: u64| match replay {
        Some(r) => r.apply(nes, until).map_err(|p| p.to_string()),
        None => Ok(()),
    };
    while nes.frame_count() < from {
        apply(nes, from)?;
        if nes.frame_count() >= from {
            break;
        }
        nes.run_frame();
        progress(nes.frame_count());
        if crate::signals::stop_requested() {
            return Ok(Start::FrameStart);
        }
    }
    let Some((places, Some(symbols))) = label else {
        return Ok(if from == 0 {
            Start::PowerOn
        } else {
            Start::FrameStart
        });
    };
    while nes.frame_count() < limit {
        apply(nes, limit)?;
        nes.begin_frame();
        while !nes.frame_done() {
            let pc = nes.cpu_state().pc;
            let code = nes.code_address(pc);
            if places.contains(&symbols.location(code)) {
                return Ok(Start::MidFrame);
            }
            nes.step();
            if nes.jammed().is_some() {
                return Err("the CPU jammed before reaching the --start-at label".into());
            }
        }
        nes.sync();
        progress(nes.frame_count());
        if crate::signals::stop_requested() {
            return Ok(Start::MidFrame);
        }
    }
    Err(format!(
        "the --start-at label was not reached in {limit} frames"
    ))
}

fn builder_label(args: &ProfileArgs) -> String {
    if args.builder.has_params() {
        format!("{} {}", args.builder, args.config)
    } else {
        args.builder.to_string()
    }
}

/// Dependences listed in report.txt / report.html.
const MEMORY_ROWS: usize = 20;
const MEMORY_HTML_ROWS: usize = 60;

/// What the memory section puts in report.html.
struct MemoryPage {
    html: String,
    ram_png: Vec<u8>,
    wram_png: Option<Vec<u8>>,
}

/// `--memory`: memory.ron, ram.png (wram.png when PRG RAM was used) and
/// the report's "memory" section.
fn memory_outputs(
    outputs: &mut OutputSet,
    report: &mut String,
    profile: &emu::memory_profile::MemoryProfile,
    result: &session::ProfileRun,
    counts: &emu::FlowCounts,
    block: &dyn Fn(u32) -> String,
    label: &dyn Fn(u32) -> String,
) -> anyhow::Result<MemoryPage> {
    let analysed = profiler::memory::analyse(profile, &result.truth, counts.call_stacks());
    outputs.write("memory.ron", analysed.to_ron())?;
    let data = |addr: u16| label(addr as u32);
    let _ = writeln!(report);
    *report += &analysed.text(MEMORY_ROWS, block, &data);
    let ram_png = heat_map_png(&analysed.bytes, 0x0000, 64, 32)?;
    outputs.write("ram.png", &ram_png)?;
    let wram_png = if analysed.touches_wram() {
        let png = heat_map_png(&analysed.bytes, 0x6000, 128, 64)?;
        outputs.write("wram.png", &png)?;
        Some(png)
    } else {
        None
    };
    Ok(MemoryPage {
        html: analysed.html(MEMORY_HTML_ROWS, block, &data),
        ram_png,
        wram_png,
    })
}

/// Pixels per byte in the heat maps.
const HEAT_SCALE: usize = 8;

/// A heat map of `cols` × `rows` bytes from `base`, with its address axes
/// and legend, as a PNG file's bytes.
fn heat_map_png(
    bytes: &[(u16, u64, u64)],
    base: u16,
    cols: usize,
    rows: usize,
) -> anyhow::Result<Vec<u8>> {
    let image = profiler::memory::heat_map_image(bytes, base, cols, rows, HEAT_SCALE);
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, image.width as u32, image.height as u32);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&image.rgb)?;
    writer.finish()?;
    Ok(out)
}
