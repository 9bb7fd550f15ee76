//! `nesprof movie`: FM2 tools. `movie gen` plays a game with a seeded input
//! bot (see `bot.rs`) and records it; `movie info` describes a movie and
//! checks it against a ROM.

mod bot;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use emu::movie::{self, Movie, MovieError};

use crate::emit::emit;
use crate::error::{printable, BadInput};
use crate::open::{checksum_warning, new_movie_header, power_on_for_recording, read_rom};
use crate::write_policy::WritePolicy;

pub use bot::{Bot, BotSettings};

#[derive(Debug, Args)]
pub struct MovieArgs {
    #[command(subcommand)]
    pub command: MovieCommand,
}

#[derive(Debug, Subcommand)]
pub enum MovieCommand {
    /// Record a movie of a seeded input bot playing the ROM.
    Gen(GenArgs),
    /// Print a movie's header and length, and check it against a ROM.
    Info(InfoArgs),
}

#[derive(Debug, Args)]
pub struct GenArgs {
    /// The iNES (.nes) file to play.
    pub rom: PathBuf,
    /// Seed of the bot's random choices: the same seed gives the same movie.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Length of the movie in frames (18000 = 5 minutes), 1 to 100000000.
    #[arg(long, default_value = "18000", value_parser = crate::options::frames())]
    pub frames: u64,
    /// Where to write the movie.
    #[arg(long, value_name = "F.fm2")]
    pub out: PathBuf,
    /// Tap Start (twice, ~12 frames apart) every this many frames, to get
    /// past animated title screens and restart finished games; 0 = never.
    /// Screens that stop changing get a Start tap regardless. 0 to 100000000.
    #[arg(long, default_value = "900", value_parser = crate::options::whole(0, crate::options::MAX_FRAMES))]
    pub start_every: u64,
}

#[derive(Debug, Args)]
pub struct InfoArgs {
    /// The movie.
    pub movie: PathBuf,
    /// Also check the movie's ROM checksum against this ROM.
    #[arg(long)]
    pub rom: Option<PathBuf>,
}

pub fn run(args: MovieArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        MovieCommand::Gen(args) => gen(args),
        MovieCommand::Info(args) => info(args),
    }
}

fn movie_error(e: MovieError) -> anyhow::Error {
    BadInput(e.to_string()).into()
}

fn gen(args: GenArgs) -> anyhow::Result<ExitCode> {
    crate::signals::install();
    WritePolicy::new()
        .input("ROM", &args.rom)
        .file("--out", &args.out)
        .check()?;
    crate::atomic::check(&args.out)?;
    let rom_bytes = read_rom(&args.rom)?;
    let mut nes = power_on_for_recording(&args.rom, &rom_bytes)?;
    let settings = BotSettings {
        seed: args.seed,
        start_every: args.start_every,
    };
    let mut bot = Bot::new(settings);
    // Line 0 stands for FCEUX's first dead frame, which takes no time here.
    let mut frames = vec![movie::FrameInput::default(); nes.frame_count() as usize];
    while nes.frame_count() < args.frames {
        let input = movie::FrameInput {
            commands: 0,
            ports: [bot.next_buttons(&nes), 0],
        };
        nes.apply_buttons(&input);
        frames.push(input);
        nes.run_frame();
        crate::signals::check()?;
    }
    frames.truncate(args.frames as usize);
    let comment = format!(
        "author nesprof movie gen --seed {} --frames {} --start-every {}",
        args.seed, args.frames, args.start_every
    );
    let movie = Movie {
        header: new_movie_header(&args.rom, &rom_bytes, args.seed, comment),
        frames,
    };
    crate::atomic::write_or_say(&args.out, movie.to_fm2())?;
    emit(&format!(
        "wrote {} ({} frames, seed {}) frame_hash={:016x} ram_hash={:016x}",
        args.out.display(),
        movie.frames.len(),
        args.seed,
        nes.frame_hash(),
        nes.ram_hash()
    ));
    Ok(ExitCode::SUCCESS)
}

fn info(args: InfoArgs) -> anyhow::Result<ExitCode> {
    let movie = Movie::load(&args.movie).map_err(movie_error)?;
    let h = &movie.header;
    emit(&format!(
        "file: {}",
        printable(&args.movie.display().to_string())
    ));
    emit(&format!("frames: {}", movie.frames.len()));
    emit(&format!("romFilename: {}", printable(&h.rom_filename)));
    emit(&format!(
        "romChecksum: {}",
        h.rom_checksum
            .map(|c| movie::format_checksum(&c))
            .unwrap_or_else(|| "(none)".into())
    ));
    emit(&format!("guid: {}", printable(&h.guid)));
    emit(&format!(
        "RAMInitOption: {} (seed {})",
        h.ram_init.option, h.ram_init.seed
    ));
    let resets = movie
        .frames
        .iter()
        .filter(|f| f.commands & movie::command::RESET != 0)
        .count();
    let powers = movie
        .frames
        .iter()
        .filter(|f| f.commands & movie::command::POWER != 0)
        .count();
    emit(&format!("commands: {resets} reset, {powers} power"));
    for c in &h.comments {
        emit(&format!("comment: {}", printable(c)));
    }
    if let Some(rom) = &args.rom {
        let bytes = read_rom(rom)?;
        match checksum_warning(&movie, &args.movie, rom, &bytes) {
            Some(w) => crate::notice::later(&w),
            None => emit(&format!(
                "checksum: matches {}",
                printable(&rom.display().to_string())
            )),
        }
    }
    Ok(ExitCode::SUCCESS)
}
