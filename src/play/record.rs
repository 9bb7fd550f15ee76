//! `play --record`: the keyboard input of every frame, kept as an FCEUX movie.
//! The machine powers on as FCEUX does for a movie, so `--movie` (or `run
//! --movie`) replays the recording to the same frames. The file is written
//! atomically (temporary file, fsync, rename) every 10 s of play and when
//! the window closes; Ctrl-C, SIGTERM and SIGHUP (the terminal closing) close
//! the window the same way (see `crate::signals`), so the recording is kept.

use std::path::{Path, PathBuf};

use emu::movie::{FrameInput, Movie};
use emu::Nes;

use crate::error::BadInput;
use crate::open::{new_movie_header, power_on_for_recording, read_rom};

/// Frames between saves while recording (10 s).
const SAVE_EVERY_FRAMES: u64 = 600;

pub struct Recorder {
    path: PathBuf,
    movie: Movie,
    last_saved: usize,
}

impl Recorder {
    /// Powers the ROM on for recording into `path`.
    pub fn start(rom: &Path, path: &Path) -> anyhow::Result<(Nes, Recorder)> {
        let rom_bytes = read_rom(rom)?;
        let nes = power_on_for_recording(rom, &rom_bytes)?;
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        let header = new_movie_header(
            rom,
            &rom_bytes,
            stamp,
            "author nesprof play --record".into(),
        );
        let recorder = Recorder {
            path: path.to_path_buf(),
            movie: Movie {
                header,
                // Frames already counted at power-on take no time: empty lines.
                frames: vec![FrameInput::default(); nes.frame_count() as usize],
            },
            last_saved: 0,
        };
        // Fail now, not minutes into play, if the file cannot be written.
        recorder.save()?;
        Ok((nes, recorder))
    }

    /// Records `buttons` as the input of the frame about to run.
    pub fn frame(&mut self, nes: &Nes, buttons: u8) -> anyhow::Result<()> {
        let frame = nes.frame_count() as usize;
        self.movie.frames.resize(frame, FrameInput::default());
        self.movie.frames.push(FrameInput {
            commands: 0,
            ports: [buttons, 0],
        });
        if self.movie.frames.len() >= self.last_saved + SAVE_EVERY_FRAMES as usize {
            self.save()?;
            self.last_saved = self.movie.frames.len();
        }
        Ok(())
    }

    /// Presses reset before the frame about to run, as a movie's reset
    /// command does: that frame takes no time (FCEUX's timing, see
    /// `emu::movie`), and the next frame's input follows on the next line.
    pub fn reset(&mut self, nes: &mut Nes) -> anyhow::Result<()> {
        let frame = nes.frame_count() as usize;
        self.movie.frames.resize(frame, FrameInput::default());
        self.movie.frames.push(FrameInput {
            commands: emu::movie::command::RESET,
            ports: [0, 0],
        });
        nes.movie_reset();
        Ok(())
    }

    fn save(&self) -> anyhow::Result<()> {
        crate::atomic::write(&self.path, self.movie.to_fm2()).map_err(|e| {
            BadInput(format!(
                "--record: cannot write {}: {e}",
                self.path.display()
            ))
            .into()
        })
    }

    /// Saves the recording and reports where the machine ended, in the
    /// terms of `run`'s summary line, so a replay can be checked against it.
    pub fn finish(&mut self, nes: &Nes) -> anyhow::Result<()> {
        // Frames after the last recorded one never ran: the movie ends there.
        self.movie.frames.truncate(nes.frame_count() as usize);
        self.save()?;
        self.last_saved = self.movie.frames.len();
        eprintln!(
            "{}",
            crate::notice::line(&format!(
                "recorded {} frames to {}: frames={} frame_hash={:016x} ram_hash={:016x}",
                self.movie.frames.len(),
                self.path.display(),
                nes.frame_count(),
                nes.frame_hash(),
                nes.ram_hash()
            ))
        );
        Ok(())
    }
}
