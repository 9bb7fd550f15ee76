//! `nesprof run`: headless emulation with a contract-fixed summary line.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;

use super::load_rom;

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The iNES (.nes) file to run.
    pub rom: PathBuf,
    /// Stop at the end of this frame (counted from power-on).
    #[arg(long, default_value_t = 600)]
    pub frames: u64,
    /// Also write the run's audio to this file (16-bit mono PCM WAV, 48 kHz).
    #[arg(long, value_name = "F.wav")]
    pub wav: Option<PathBuf>,
}

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let mut nes = load_rom(&args.rom)?;
    let mut audio = Vec::new();
    if args.wav.is_some() {
        nes.enable_audio(crate::audio::DEFAULT_SAMPLE_RATE);
    }
    let start = Instant::now();
    let mut instructions: u64 = 0;
    while nes.frame_count() < args.frames {
        nes.bus.ppu.frame_complete = false;
        while !nes.bus.ppu.frame_complete {
            nes.step();
            instructions += 1;
        }
        nes.take_audio(&mut audio);
    }
    let seconds = start.elapsed().as_secs_f64();
    if let Some(path) = &args.wav {
        crate::audio::wav::write_wav(path, crate::audio::DEFAULT_SAMPLE_RATE, &audio)?;
    }
    if let Some((pc, opcode)) = nes.jammed() {
        eprintln!("warning: CPU jammed by opcode ${opcode:02X} at ${pc:04X}");
    }
    println!(
        "frames={} instructions={} cycles={} fps={:.1} frame_hash={:016x} ram_hash={:016x}",
        nes.frame_count(),
        instructions,
        nes.cycles(),
        args.frames as f64 / seconds.max(1e-9),
        nes.frame_hash(),
        nes.ram_hash()
    );
    Ok(ExitCode::SUCCESS)
}
