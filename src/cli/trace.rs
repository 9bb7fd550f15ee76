//! `nesprof trace`: nestest.log-format execution trace.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::open::load_rom;

#[derive(Debug, Args)]
pub struct TraceArgs {
    /// The iNES (.nes) file to trace.
    pub rom: PathBuf,
    /// nestest automation mode: start at $C000 instead of the reset vector.
    #[arg(long)]
    pub nestest: bool,
    /// How many instructions to trace, 0 to 1000000000.
    #[arg(long, default_value = "100", value_parser = crate::options::whole(0, 1_000_000_000))]
    pub instructions: u64,
}

pub fn run(args: TraceArgs) -> anyhow::Result<ExitCode> {
    let mut nes = load_rom(&args.rom)?;
    if args.nestest {
        nes.set_pc(0xC000);
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for _ in 0..args.instructions {
        if writeln!(out, "{}", emu::trace::nestest_line(&mut nes)).is_err() {
            break; // Closed pipe (e.g. `| head`): stop quietly.
        }
        nes.step();
        if nes.jammed().is_some() {
            break;
        }
    }
    let _ = out.flush();
    if let Some((pc, opcode)) = nes.jammed() {
        eprintln!("CPU jammed by opcode ${opcode:02X} at ${pc:04X}");
    }
    Ok(ExitCode::SUCCESS)
}
