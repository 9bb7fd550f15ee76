//! `nesprof play`: the game in a window (minifb), paced to 60.0988 Hz, with
//! keyboard input on controller 1. P pauses, F advances one frame while
//! paused, F12 saves a screenshot, Esc quits.
//!
//! `--movie F` replays an FCEUX movie (the keyboard drives the game again
//! once the movie has ended); `--record F` records the keyboard into a movie
//! (see `record.rs`), and F9 there presses the console's reset button,
//! recorded as the movie's reset command. Both power the machine on as FCEUX does for movies and
//! leave battery saves alone, so what is recorded replays exactly.

mod battery;
mod keys;
mod pacing;
mod record;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use emu::ppu::{palette, HEIGHT, WIDTH};
use emu::Nes;
use minifb::{Key, KeyRepeat, Window, WindowOptions};

pub use keys::KeyMap;
use pacing::Pacer;

use crate::cli::{load_rom, movie, BadInput};
use crate::screenshot;

#[derive(Debug, Args)]
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
    /// Quit after this many frames (for scripted runs).
    #[arg(long)]
    pub frames: Option<u64>,
    /// No sound.
    #[arg(long)]
    pub mute: bool,
    /// Replay this FCEUX movie; the keyboard is ignored until it ends.
    #[arg(long, value_name = "F.fm2", conflicts_with = "record")]
    pub movie: Option<PathBuf>,
    /// Record the keyboard input into this FCEUX movie. It is written
    /// atomically every few seconds and when the window closes, also on Ctrl-C.
    #[arg(long, value_name = "F.fm2")]
    pub record: Option<PathBuf>,
}

/// Nearest-neighbour upscale of a frame into the window buffer.
fn scale_into(src: &[u32], scale: usize, dst: &mut [u32]) {
    let out_width = WIDTH * scale;
    for (y, row) in src.chunks_exact(WIDTH).enumerate() {
        let line_start = y * scale * out_width;
        let line = &mut dst[line_start..line_start + out_width];
        for (x, &pixel) in row.iter().enumerate() {
            line[x * scale..(x + 1) * scale].fill(pixel);
        }
        for copy in 1..scale {
            dst.copy_within(
                line_start..line_start + out_width,
                line_start + copy * out_width,
            );
        }
    }
}

fn screenshot_path() -> PathBuf {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    PathBuf::from(format!("nesprof-{stamp}.png"))
}

pub fn run(args: PlayArgs) -> anyhow::Result<ExitCode> {
    let keymap = KeyMap::parse(&args.keys).map_err(|e| BadInput(format!("--keys: {e}")))?;
    let mut replay = None;
    let mut recorder = None;
    let mut nes: Nes = if let Some(path) = &args.movie {
        let (nes, r, _) = movie::load_replay(&args.rom, path)?;
        replay = Some(r);
        nes
    } else if let Some(path) = &args.record {
        let (nes, r) = record::Recorder::start(&args.rom, path)?;
        recorder = Some(r);
        nes
    } else {
        load_rom(&args.rom)?
    };
    let mut battery = if replay.is_none() && recorder.is_none() {
        battery::BatterySave::open(&args.rom, &mut nes)
    } else {
        None
    };
    let interrupted = record::interrupt_flag();
    let scale = args.scale as usize;
    let title = format!(
        "nesprof - {}",
        args.rom
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default()
    );
    let mut window = Window::new(
        &title,
        WIDTH * scale,
        HEIGHT * scale,
        WindowOptions::default(),
    )
    .context("cannot open a window (is a display available? set DISPLAY or use `nesprof run`)")?;
    window.set_target_fps(0);

    // Audio: without a device (or with --mute) the game runs silent; the
    // emulator's resampling ratio follows the device queue's fill level.
    let mut audio =
        crate::audio::output::open_or_warn(crate::audio::DEFAULT_SAMPLE_RATE, args.mute);
    if let Some(out) = &audio {
        nes.enable_audio(out.sample_rate());
    }
    let rate_control = crate::audio::RateControl::default();
    let mut samples = Vec::new();

    let table = palette::rgb_table();
    let mut buffer = vec![0u32; WIDTH * scale * HEIGHT * scale];
    let mut pacer = Pacer::new(emu::nes::FRAME_HZ_NTSC);
    let mut paused = false;
    let mut fps_window = (Instant::now(), 0u32);

    while window.is_open()
        && !window.is_key_down(Key::Escape)
        && !interrupted.load(std::sync::atomic::Ordering::Relaxed)
    {
        if window.is_key_pressed(Key::P, KeyRepeat::No) {
            paused = !paused;
            pacer.reset();
        }
        let advance = !paused || window.is_key_pressed(Key::F, KeyRepeat::Yes);
        if advance {
            let keys = keymap.buttons(|k| window.is_key_down(k));
            match &replay {
                Some(r) if nes.frame_count() < r.len() => {
                    r.apply(&mut nes, r.len())
                        .map_err(|p| BadInput(format!("{}: {p}", args.rom.display())))?;
                }
                _ => nes.set_buttons(0, keys),
            }
            if let Some(rec) = recorder.as_mut() {
                if window.is_key_pressed(Key::F9, KeyRepeat::No) {
                    rec.reset(&mut nes)?;
                    nes.set_buttons(0, keys);
                }
                rec.frame(&nes, keys)?;
            }
            nes.run_frame();
            scale_into(&screenshot::frame_rgb(&nes, &table), scale, &mut buffer);
            samples.clear();
            nes.take_audio(&mut samples);
            if let Some(out) = audio.as_mut() {
                out.push(&samples);
                nes.set_audio_rate_ratio(rate_control.ratio(out.fill_ratio()));
            }
        }
        if window.is_key_pressed(Key::F12, KeyRepeat::No) {
            let path = screenshot_path();
            screenshot::save(&nes, &path)?;
            eprintln!("screenshot: {}", path.display());
        }
        window
            .update_with_buffer(&buffer, WIDTH * scale, HEIGHT * scale)
            .context("window update failed")?;

        if nes.frame_count().is_multiple_of(3600) {
            if let Some(save) = battery.as_mut() {
                save.write(&nes);
            }
        }
        fps_window.1 += 1;
        if fps_window.0.elapsed().as_secs_f64() >= 1.0 {
            let fps = fps_window.1 as f64 / fps_window.0.elapsed().as_secs_f64();
            window.set_title(&format!(
                "{title} - {fps:.1} fps{}",
                if paused { " (paused)" } else { "" }
            ));
            fps_window = (Instant::now(), 0);
        }
        if args.frames.is_some_and(|n| nes.frame_count() >= n) {
            break;
        }
        pacer.wait();
    }
    if let Some(save) = battery.as_mut() {
        save.write(&nes);
    }
    if let Some(rec) = recorder.as_mut() {
        rec.finish(&nes)?;
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upscale() {
        let src: Vec<u32> = (0..(WIDTH * HEIGHT) as u32).collect();
        let mut dst = vec![0; WIDTH * HEIGHT * 9];
        scale_into(&src, 3, &mut dst);
        assert_eq!(dst[0], 0);
        assert_eq!(dst[2], 0);
        assert_eq!(dst[3], 1);
        assert_eq!(dst[WIDTH * 3 * 2 + 4], 1);
        assert_eq!(dst[WIDTH * 3 * 3], WIDTH as u32);
    }
}
