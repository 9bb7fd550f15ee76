//! `nesprof trace`: nestest.log-format execution trace, optionally of a
//! movie's frames with the program's labels, so that a developer can read
//! the instructions of one frame (the worst one a profile found) by name.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::error::BadInput;
use crate::open::open;
use crate::symbol_files::{self, SymbolArgs};
use crate::write_policy::WritePolicy;

#[derive(Debug, Args)]
pub struct TraceArgs {
    /// The iNES (.nes) file to trace.
    pub rom: PathBuf,
    /// nestest automation mode: start at $C000 instead of the reset vector.
    #[arg(long, conflicts_with_all = ["movie", "from_frame"])]
    pub nestest: bool,
    /// How many instructions to trace, 0 to 1000000000 (default: 100, or
    /// with --frames as many as those frames run).
    #[arg(long, value_parser = crate::options::whole(0, 1_000_000_000))]
    pub instructions: Option<u64>,
    /// Replay this FCEUX movie (the machine powers on as FCEUX does for
    /// movies, and frame k reads input line k).
    #[arg(long, value_name = "F.fm2")]
    pub movie: Option<PathBuf>,
    /// With --movie: replay even if the movie's romChecksum names another ROM.
    #[arg(long)]
    pub ignore_rom_mismatch: bool,
    /// Run frames 0 to N-1 untraced, then trace from the start of frame N
    /// (frames as `run` and `profile` number them: a frame ends when the PPU
    /// completes scanline 239), 0 to 100000000.
    #[arg(long, value_name = "N", value_parser = crate::options::whole(0, 100_000_000))]
    pub from_frame: Option<u64>,
    /// Trace this many whole frames (1 to 100000), each introduced by a
    /// `; frame N` line.
    #[arg(long, value_name = "K", value_parser = crate::options::whole(1, 100_000))]
    pub frames: Option<u64>,
    #[command(flatten)]
    pub symbols: SymbolArgs,
}

/// Instructions traced when neither --instructions nor --frames is given.
const DEFAULT_INSTRUCTIONS: u64 = 100;

pub fn run(args: TraceArgs) -> anyhow::Result<ExitCode> {
    WritePolicy::new()
        .input("ROM", &args.rom)
        .maybe_input("--movie", args.movie.as_ref())
        .inputs("--symbols", &args.symbols.files)
        .check()?;
    let opened = open(&args.rom, args.movie.as_deref(), args.ignore_rom_mismatch)?;
    let (mut nes, replay) = (opened.nes, opened.replay);
    if args.nestest {
        nes.set_pc(0xC000);
    }
    // Labels only when asked for or found beside the ROM; a plain trace
    // stays nestest.log's format line for line.
    let symbols = symbol_files::load(&args.symbols, Some((&args.rom, nes.cartridge())))?;
    let from = args.from_frame.unwrap_or(0);
    let last_frame = args.frames.map(|k| from + k);
    let limit = args.instructions.unwrap_or(if args.frames.is_some() {
        u64::MAX
    } else {
        DEFAULT_INSTRUCTIONS
    });
    let apply = |nes: &mut emu::Nes, until: u64| -> anyhow::Result<()> {
        if let Some(replay) = &replay {
            replay
                .apply(nes, until)
                .map_err(|p| BadInput(format!("{}: {p}", args.rom.display())))?;
        }
        Ok(())
    };
    while nes.frame_count() < from {
        apply(&mut nes, from)?;
        if nes.frame_count() >= from {
            break;
        }
        nes.run_frame();
        if nes.jammed().is_some() {
            break;
        }
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut traced = 0;
    let mut last_label: Option<u32> = None;
    'frames: loop {
        if last_frame.is_some_and(|last| nes.frame_count() >= last) {
            break;
        }
        apply(&mut nes, last_frame.unwrap_or(u64::MAX))?;
        if args.frames.is_some() && writeln!(out, "; frame {}", nes.frame_count()).is_err() {
            break;
        }
        nes.begin_frame();
        while !nes.frame_done() {
            if traced >= limit || nes.jammed().is_some() {
                break 'frames;
            }
            let pc = nes.cpu_state().pc;
            let code = nes.code_address(pc);
            if let Some(s) = &symbols {
                if let Some(name) = s.name_at(code) {
                    if last_label != Some(code) && writeln!(out, "{name}:").is_err() {
                        break 'frames;
                    }
                    last_label = Some(code);
                }
            }
            if writeln!(out, "{}", emu::trace::nestest_line(&mut nes)).is_err() {
                break 'frames; // Closed pipe (e.g. `| head`): stop quietly.
            }
            let what = match nes.step() {
                emu::StepKind::Nmi => "; NMI",
                emu::StepKind::Irq => "; IRQ",
                _ => "",
            };
            if !what.is_empty() && writeln!(out, "{what}").is_err() {
                break 'frames;
            }
            traced += 1;
        }
        if args.frames.is_none() && traced >= limit {
            break;
        }
    }
    let _ = out.flush();
    if let Some((pc, opcode)) = nes.jammed() {
        eprintln!("CPU jammed by opcode ${opcode:02X} at ${pc:04X}");
    }
    Ok(ExitCode::SUCCESS)
}
