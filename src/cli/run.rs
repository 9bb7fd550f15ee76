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
    /// CPU engine: the dynamic translator (default) or the interpreter; both
    /// give bit-identical runs.
    #[arg(long, value_enum, default_value_t = EngineArg::Translate)]
    pub engine: EngineArg,
    /// Write the last frame as a 256×240 PNG.
    #[arg(long, value_name = "F.png")]
    pub screenshot: Option<PathBuf>,
    /// Also write the run's audio to this file (16-bit mono PCM WAV, 48 kHz).
    #[arg(long, value_name = "F.wav")]
    pub wav: Option<PathBuf>,
}

/// The `--engine` values of DESIGN.md's CLI contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineArg {
    Interp,
    Translate,
}

impl From<EngineArg> for emu::nes::Engine {
    fn from(e: EngineArg) -> Self {
        match e {
            EngineArg::Interp => emu::nes::Engine::Interpreter,
            EngineArg::Translate => emu::nes::Engine::Translator,
        }
    }
}

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let mut nes = load_rom(&args.rom)?;
    nes.set_engine(args.engine.into());
    let mut audio = Vec::new();
    if args.wav.is_some() {
        nes.enable_audio(crate::audio::DEFAULT_SAMPLE_RATE);
    }
    let start = Instant::now();
    let start_retired = nes.retired;
    while nes.frame_count() < args.frames {
        nes.run_frame();
        nes.take_audio(&mut audio);
    }
    let instructions = nes.retired - start_retired;
    let seconds = start.elapsed().as_secs_f64();
    if let Some(path) = &args.screenshot {
        crate::screenshot::save(&nes, path)?;
    }
    if let Some(path) = &args.wav {
        crate::audio::wav::write_wav(path, crate::audio::DEFAULT_SAMPLE_RATE, &audio)?;
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
