//! Command-line interface: the clap definitions, one module per subcommand,
//! and the dispatch. Nothing below `cli/` imports from it: what subcommands
//! share (opening ROMs, errors, the last line, option types, the progress
//! bar) lives in modules of its own beside it. The contract (argument names,
//! last-line formats, exit codes) is fixed by DESIGN.md; scripts and tests
//! depend on it.

mod cfg;
pub mod movie;
mod play;
pub mod profile;
pub mod run;
pub mod sweep;
mod test;
mod trace;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "nesprof",
    version,
    about = "Cycle-accurate NES emulator with a built-in sampling profiler",
    long_about = "nesprof runs NES games and test ROMs on a cycle-accurate emulator. \
A count-and-time sampler feeds a hot-CFG builder, which builds the control-flow \
graph of the running game's hot code: the trace builder by default (it reads each \
batch as an exact trace), or GFCGaussiano, the thesis' algorithm (--builder gfc); an \
instrumented engine records the exact CFG for comparison."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a ROM headless and print a summary line with frame and RAM hashes.
    Run(run::RunArgs),
    /// Run test ROMs and judge each by its result protocol.
    ///
    /// The protocol comes from MANIFEST.tsv (or --protocol). ROMs that print
    /// no verdict are judged by what they do: the dmc_tests by the DMC
    /// output they play, scanline.nes and mmc1_a12 by their picture, the
    /// full_palette ROMs against reference images, Holy Mapperel by its
    /// result code; test_buttons' on-screen prompts are answered. Games
    /// (protocol none) get a smoke test: 600 frames without a CPU jam, a
    /// picture, and both engines ending identical.
    Test(test::TestArgs),
    /// Print an execution trace in nestest.log format.
    Trace(trace::TraceArgs),
    /// Profile a run: sampled hot CFG (trace builder, or GFCGaussiano) vs the exact CFG.
    ///
    /// Writes into --out: frames.csv (CPU cycles per frame: busy, idle,
    /// NMI, IRQ, DMA, lag, vblank, top routine) and routines.csv (calls,
    /// exclusive/inclusive cycles, per call and per frame), exact and
    /// estimated from the sampler alone; report.txt and report.html (one
    /// self-contained page: the frame-budget chart, routines, worst frames,
    /// then the hot CFG, flame graph, hottest labels and blocks, the thesis'
    /// metrics); truth.ron, hot_cfg.ron, edge_profile.ron (CFG records),
    /// hot_cfg.dot (Graphviz), samples.bin (the sample stream, for `cfg
    /// build`), stacks.folded and flame.svg (call stacks by CPU cycles).
    /// --no-truth runs the sampler alone; --from-frame and --start-at
    /// profile a window. Blocks are named
    /// by bank (`03:A1F0`) on bank-switching boards and by label with symbol
    /// files (--symbols, or files beside the ROM). --cdl also writes an
    /// FCEUX code/data log.
    Profile(profile::ProfileArgs),
    /// Play a ROM in a window with keyboard input.
    Play(play::PlayArgs),
    /// The thesis' experiment: all 144 GFCGaussiano configurations and the trace builder over workloads.
    // (The variant's doc comment would replace the args' long_about.)
    #[command(long_about = sweep::LONG_ABOUT)]
    Sweep(sweep::SweepArgs),
    /// FCEUX movie tools: generate a movie with an input bot, describe one.
    Movie(movie::MovieArgs),
    /// The exact CFG: record it from a run, render it as DOT, diff two records.
    Cfg(cfg::CfgArgs),
}

/// Runs the parsed command line; errors are reported by the caller.
pub fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Run(args) => run::run(args),
        Command::Test(args) => test::run(args),
        Command::Trace(args) => trace::run(args),
        Command::Play(args) => play::run(args),
        Command::Profile(args) => profile::run(args),
        Command::Movie(args) => movie::run(args),
        Command::Sweep(args) => sweep::run(args),
        Command::Cfg(args) => cfg::run(args),
    }
}
