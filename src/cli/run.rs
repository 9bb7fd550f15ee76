//! `nesprof run`: headless emulation with a contract-fixed summary line.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;

use super::{emit, load_rom};

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The iNES (.nes) file to run.
    pub rom: PathBuf,
    /// Stop at the end of this frame (counted from power-on).
    #[arg(long, default_value_t = 600)]
    pub frames: u64,
    /// Write the last frame as a 256×240 PNG.
    #[arg(long, value_name = "F.png")]
    pub screenshot: Option<PathBuf>,
}

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let mut nes = load_rom(&args.rom)?;
    let start = Instant::now();
    let mut instructions: u64 = 0;
    while nes.frame_count() < args.frames {
        nes.bus.ppu.frame_complete = false;
        while !nes.bus.ppu.frame_complete {
            nes.step();
            instructions += 1;
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    if let Some(path) = &args.screenshot {
        crate::screenshot::save(&nes, path)?;
    }
    if let Some((pc, opcode)) = nes.jammed() {
        eprintln!("warning: CPU jammed by opcode ${opcode:02X} at ${pc:04X}");
    }
    emit(&format!(
        "frames={} instructions={} cycles={} fps={:.1} frame_hash={:016x} ram_hash={:016x}",
        nes.frame_count(),
        instructions,
        nes.cycles(),
        args.frames as f64 / seconds.max(1e-9),
        nes.frame_hash(),
        nes.ram_hash()
    ));
    Ok(ExitCode::SUCCESS)
}
