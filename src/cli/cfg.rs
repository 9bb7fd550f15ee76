//! `nesprof cfg`: the exact CFG on its own — record it from a run, render a
//! record as Graphviz DOT, and compare two records.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Subcommand};
use emu::nes::Engine;
use profiler::cfg_file::CfgFile;

use crate::emit::emit;
use crate::error::BadInput;
use crate::open::open;
use crate::options;
use crate::progress::frames_bar;

/// Frames recorded when neither `--frames` nor a movie says how many.
const DEFAULT_FRAMES: u64 = 600;

#[derive(Debug, Args)]
pub struct CfgArgs {
    #[command(subcommand)]
    pub command: CfgCommand,
}

#[derive(Debug, Subcommand)]
pub enum CfgCommand {
    /// Run a ROM with the ground-truth recorder and write its exact CFG as RON.
    Record(RecordArgs),
    /// Render a recorded CFG as Graphviz DOT (hot subgraph H90 highlighted).
    Dot(DotArgs),
    /// Compare two recorded CFGs; exit 0 if identical, 1 if they differ.
    Diff(DiffArgs),
}

#[derive(Debug, Args)]
pub struct RecordArgs {
    /// The iNES (.nes) file to run.
    pub rom: PathBuf,
    /// Replay this FCEUX movie while recording.
    #[arg(long, value_name = "F.fm2")]
    pub movie: Option<PathBuf>,
    /// Frames to run (default: the movie's length, else 600).
    #[arg(long)]
    pub frames: Option<u64>,
    /// CPU engine; both record the identical CFG.
    #[arg(long, value_parser = options::engine(), default_value = "translate")]
    pub engine: Engine,
    /// Where to write the CFG record.
    #[arg(long, value_name = "F.ron")]
    pub out: PathBuf,
    /// Also write it as Graphviz DOT.
    #[arg(long, value_name = "F.dot")]
    pub dot: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct DotArgs {
    /// A CFG record written by `cfg record` or `profile`.
    pub cfg: PathBuf,
    /// Output file (default: standard output).
    #[arg(long, value_name = "F.dot")]
    pub out: Option<PathBuf>,
    /// Draw only the hot subgraph H90 instead of the whole graph.
    #[arg(long)]
    pub hot_only: bool,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    pub a: PathBuf,
    pub b: PathBuf,
    /// Most differences listed per kind.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
}

pub fn run(args: CfgArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        CfgCommand::Record(a) => record(a),
        CfgCommand::Dot(a) => dot(a),
        CfgCommand::Diff(a) => diff(a),
    }
}

fn read_record(path: &Path) -> anyhow::Result<CfgFile> {
    CfgFile::read(path).map_err(|e| BadInput(e.to_string()).into())
}

fn record(args: RecordArgs) -> anyhow::Result<ExitCode> {
    let opened = open(&args.rom, args.movie.as_deref())?;
    let (mut nes, replay, rom_bytes) = (opened.nes, opened.replay, opened.rom);
    nes.set_engine(args.engine);
    nes.record_flow();
    let frames = args
        .frames
        .unwrap_or(replay.as_ref().map_or(DEFAULT_FRAMES, |r| r.len()));
    let rom_name = args
        .rom
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let bar = frames_bar(frames, &rom_name);
    let start = Instant::now();
    while nes.frame_count() < frames {
        if let Some(replay) = &replay {
            replay
                .apply(&mut nes, frames)
                .map_err(|p| BadInput(format!("{}: {p}", args.rom.display())))?;
            if nes.frame_count() >= frames {
                break;
            }
        }
        nes.run_frame();
        if nes.frame_count() % 64 == 0 {
            bar.set_position(nes.frame_count());
        }
    }
    let counts = nes.take_flow_counts().expect("recorder attached");
    let seconds = start.elapsed().as_secs_f64();
    bar.finish_and_clear();

    let truth = profiler::truth::build(&counts);
    let h90 = gfc::h90(&truth);
    let disasm = profiler::report::disassemble(&truth, &counts, &nes);
    let record = profiler::report::record(
        "truth",
        &rom_name,
        &rom_bytes,
        nes.frame_count(),
        truth,
        disasm,
    );
    record.write(&args.out)?;
    if let Some(path) = &args.dot {
        let title = format!("{rom_name}: exact CFG, {} frames", record.frames);
        let text = profiler::dot::render(&record.cfg, Some(&h90), &record.disasm, &title);
        std::fs::write(path, text)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    }
    emit(&format!(
        "frames={} instructions={} blocks={} edges={} edges_h90={} fps={:.1} frame_hash={:016x}",
        nes.frame_count(),
        nes.retired(),
        record.cfg.num_blocks(),
        record.cfg.num_edges(),
        h90.num_edges(),
        nes.frame_count() as f64 / seconds.max(1e-9),
        nes.frame_hash()
    ));
    Ok(ExitCode::SUCCESS)
}

fn dot(args: DotArgs) -> anyhow::Result<ExitCode> {
    let record = read_record(&args.cfg)?;
    let h90 = gfc::h90(&record.cfg);
    let title = format!(
        "{}: {} CFG, {} frames",
        record.rom_name, record.kind, record.frames
    );
    let text = if args.hot_only {
        profiler::dot::render(&h90, Some(&h90), &record.disasm, &format!("{title} (H90)"))
    } else {
        profiler::dot::render(&record.cfg, Some(&h90), &record.disasm, &title)
    };
    match &args.out {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?,
        None => {
            for line in text.lines() {
                emit(line);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn diff(args: DiffArgs) -> anyhow::Result<ExitCode> {
    let a = read_record(&args.a)?;
    let b = read_record(&args.b)?;
    if a.rom_hash != b.rom_hash {
        eprintln!(
            "note: the records come from different ROMs ({} {} vs {} {})",
            a.rom_name, a.rom_hash, b.rom_name, b.rom_hash
        );
    }
    let d = profiler::diff::diff(&a.cfg, &b.cfg);
    let name = |p: &Path| p.display().to_string();
    if d.is_empty() {
        emit(&format!(
            "identical: {} blocks, {} edges",
            a.cfg.num_blocks(),
            a.cfg.num_edges()
        ));
        return Ok(ExitCode::SUCCESS);
    }
    for line in profiler::diff::report(&d, &name(&args.a), &name(&args.b), args.limit).lines() {
        emit(line);
    }
    Ok(ExitCode::from(1))
}
