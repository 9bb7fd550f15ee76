//! `nesprof play`'s arguments; the window, audio and overlay are `crate::play`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use emu::sampling::Trigger;
use gfc::BuilderKind;

use crate::options;
use crate::play::overlay::PanelView;
use crate::play::Options;

#[derive(Debug, Args)]
#[command(
    after_help = "Without a display, `play` prints one line and exits with code 2 \
(`--headless` needs none). Without a sound device, or in a build without the `audio` \
feature (the default: it needs libasound2-dev to build), it says so in one line and \
plays muted."
)]
pub struct PlayArgs {
    /// The iNES (.nes) file to play.
    pub rom: PathBuf,
    /// Window scale factor (each NES pixel becomes N×N).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=8))]
    pub scale: u32,
    /// Key bindings overriding the defaults, e.g. "a=K,b=J,start=Space".
    /// Defaults: arrows, X = A, Z = B, Enter = Start, Right Shift = Select.
    #[arg(long, default_value = "")]
    pub keys: String,
    /// Quit after this many frames (for scripted runs), 1 to 100000000.
    #[arg(long, value_parser = crate::options::frames())]
    pub frames: Option<u64>,
    /// No sound.
    #[arg(long)]
    pub mute: bool,
    /// Replay this FCEUX movie; the keyboard is ignored until it ends.
    #[arg(long, value_name = "F.fm2", conflicts_with = "record")]
    pub movie: Option<PathBuf>,
    /// With --movie: replay even if the movie's romChecksum names another
    /// ROM (normally an error, since the replay would desync); only a
    /// warning is printed. For hacks or re-dumps known to be compatible.
    #[arg(long)]
    pub ignore_rom_mismatch: bool,
    /// Record the keyboard input into this FCEUX movie. It is written
    /// atomically every few seconds and when the window closes, also on Ctrl-C.
    #[arg(long, value_name = "F.fm2")]
    pub record: Option<PathBuf>,
    /// Show the live hot CFG beside the game (keys: O hide, C colouring,
    /// M memory view, 1-4 GFCGaussiano parameter preset, R reset).
    #[arg(long)]
    pub overlay: bool,
    /// With --overlay: live similarity, precision and weighted against the
    /// exact CFG recorded in the same run (updated about once a second).
    #[arg(long, requires = "overlay")]
    pub truth: bool,
    /// With --overlay: the hot-CFG builder drawn. `trace` (the default)
    /// finds far more of the hot edges than `gfc`, GFCGaussiano as the
    /// thesis specifies it (keys 1-4 switch to gfc with a preset).
    #[arg(long, value_parser = options::builder(), default_value = "trace", requires = "overlay")]
    pub builder: BuilderKind,
    /// With --overlay: what starts a sample batch. Default: emulated time
    /// (5-6 batches spread over every frame); `wall` is the thesis'
    /// real-time timer, which in a paced window takes about one batch per
    /// frame, as the frame's work starts.
    #[arg(long, value_parser = options::trigger(), requires = "overlay")]
    pub trigger: Option<Trigger>,
    /// With --overlay: also record the memory-dependence profile (as
    /// `profile --memory` does); M switches the graph area to it: RAM (and
    /// PRG RAM) heat maps, reads green and writes red, the variables shared
    /// between NMI/IRQ and main code, the top dependences; refreshed about
    /// once a second while shown.
    #[arg(long, requires = "overlay")]
    pub memory: bool,
    /// With --memory: reads more than N instructions after their write are
    /// not counted as dependences (1 to 10^12; default: no limit).
    #[arg(long, value_name = "N", requires = "memory", value_parser = options::memory_lifetime())]
    pub memory_lifetime: Option<u64>,
    /// With --memory: record in bursts, ON frames in a row at a random place
    /// in every PERIOD (e.g. 1/30), noting only each byte's last writer between them; with
    /// /WARMUP (e.g. 3/90/10) only in the WARMUP frames before each burst
    /// (as `profile --memory-bursts`).
    #[arg(long, value_name = "ON/PERIOD[/WARMUP]", requires = "memory", value_parser = options::bursts())]
    pub memory_bursts: Option<(u32, u32, Option<u32>)>,
    /// With --overlay: what the graph area shows first, the hot CFG or the
    /// memory view (M switches; for --headless screenshots of either).
    #[arg(long, value_parser = options::overlay_view(), default_value = "graph", requires = "overlay")]
    pub overlay_view: PanelView,
    /// No window, audio or pacing: run --frames N as fast as possible (for
    /// tests and documentation; pair with --screenshot).
    #[arg(long, requires = "frames", conflicts_with = "record")]
    pub headless: bool,
    /// Write the window image (game, and panel with --overlay) to this PNG
    /// at the end.
    #[arg(long, value_name = "F.png")]
    pub screenshot: Option<PathBuf>,
    /// With --overlay: labels for the PC and the hottest blocks.
    #[command(flatten)]
    pub symbols: crate::symbol_files::SymbolArgs,
}

pub fn run(args: PlayArgs) -> anyhow::Result<ExitCode> {
    crate::play::run(Options {
        rom: args.rom,
        scale: args.scale,
        keys: args.keys,
        frames: args.frames,
        mute: args.mute,
        movie: args.movie,
        ignore_rom_mismatch: args.ignore_rom_mismatch,
        record: args.record,
        overlay: args.overlay,
        truth: args.truth,
        trigger: args.trigger,
        builder: args.builder,
        memory: args.memory.then_some(args.memory_lifetime),
        memory_bursts: args.memory_bursts,
        overlay_view: args.overlay_view,
        headless: args.headless,
        screenshot: args.screenshot,
        symbols: args.symbols,
    })
}
