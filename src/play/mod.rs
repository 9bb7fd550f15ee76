//! `nesprof play`: the game in a window (minifb), paced to 60.0988 Hz, with
//! keyboard input on controller 1. P pauses, F advances one frame while
//! paused, F12 saves a screenshot, Esc quits.
//!
//! `--overlay` adds the live hot-CFG panel beside the game (`overlay/`): the
//! sampler runs (wall-clock trigger, as in the thesis, unless `--trigger
//! emulated`), the builder thread grows the graph, and the panel draws its
//! latest snapshot every frame. O hides it, C switches count / recency
//! colours, 1–4 restart the graph with a parameter preset, R restarts it.
//! `--truth` adds live metrics against the exact CFG of the same run.
//! `--headless --frames N --screenshot F.png` renders the same window image
//! without a display (no window, audio, pacing or battery save); there the
//! trigger defaults to emulated time, since an unpaced run would otherwise
//! sample a different share of the game than a live session does.
//!
//! `--movie F` replays an FCEUX movie (the keyboard drives the game again
//! once the movie has ended); `--record F` records the keyboard into a movie
//! (see `record.rs`), and F9 there presses the console's reset button,
//! recorded as the movie's reset command. Both power the machine on as FCEUX does for movies and
//! leave battery saves alone, so what is recorded replays exactly.

mod battery;
mod keys;
pub mod overlay;
mod pacing;
mod record;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;
use emu::ppu::{palette, HEIGHT, WIDTH};
use emu::Nes;
use minifb::{Key, KeyRepeat, Window, WindowOptions};

pub use keys::KeyMap;
use overlay::Overlay;
use pacing::Pacer;
use profiler::session::{ProfileSettings, TriggerKind};

use crate::cli::profile::TriggerArg;
use crate::cli::{emit, load_rom, movie, BadInput};
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
    /// Show the live hot CFG beside the game (keys: O hide, C colouring,
    /// 1-4 parameter preset, R reset).
    #[arg(long)]
    pub overlay: bool,
    /// With --overlay: live similarity, precision and weighted against the
    /// exact CFG recorded in the same run (updated about once a second).
    #[arg(long, requires = "overlay")]
    pub truth: bool,
    /// With --overlay: what starts a sample batch. Default: wall (a real-time
    /// timer, as in the thesis) in a window, emulated with --headless.
    #[arg(long, value_enum, requires = "overlay")]
    pub trigger: Option<TriggerArg>,
    /// No window, audio or pacing: run --frames N as fast as possible (for
    /// tests and documentation; pair with --screenshot).
    #[arg(long, requires = "frames", conflicts_with = "record")]
    pub headless: bool,
    /// Write the window image (game, and panel with --overlay) to this PNG
    /// at the end.
    #[arg(long, value_name = "F.png")]
    pub screenshot: Option<PathBuf>,
}

/// Nearest-neighbour upscale of a frame into the left of the window buffer,
/// whose rows are `stride` pixels.
fn scale_into(src: &[u32], scale: usize, dst: &mut [u32], stride: usize) {
    let out_width = WIDTH * scale;
    for (y, row) in src.chunks_exact(WIDTH).enumerate() {
        let line_start = y * scale * stride;
        let line = &mut dst[line_start..line_start + out_width];
        for (x, &pixel) in row.iter().enumerate() {
            line[x * scale..(x + 1) * scale].fill(pixel);
        }
        for copy in 1..scale {
            dst.copy_within(
                line_start..line_start + out_width,
                line_start + copy * stride,
            );
        }
    }
}

fn profile_settings(args: &PlayArgs) -> ProfileSettings {
    let trigger = args.trigger.unwrap_or(if args.headless {
        TriggerArg::Emulated
    } else {
        TriggerArg::Wall
    });
    ProfileSettings {
        trigger: match trigger {
            TriggerArg::Wall => TriggerKind::Wall,
            TriggerArg::Emulated => TriggerKind::Emulated,
        },
        ..ProfileSettings::default()
    }
}

/// `--headless`: the frames as fast as possible, then the window image.
fn run_headless(
    args: &PlayArgs,
    mut nes: Nes,
    replay: Option<emu::movie::Replay>,
    mut overlay: Option<Overlay>,
) -> anyhow::Result<ExitCode> {
    let frames = args.frames.unwrap_or(0);
    let scale = args.scale as usize;
    while nes.frame_count() < frames {
        if let Some(r) = &replay {
            r.apply(&mut nes, frames)
                .map_err(|p| BadInput(format!("{}: {p}", args.rom.display())))?;
            if nes.frame_count() >= frames {
                break;
            }
        }
        nes.run_frame();
        if let Some(o) = overlay.as_mut() {
            o.after_frame(&mut nes);
        }
    }
    let panel_width = overlay.as_ref().map_or(0, |o| o.layout().width as usize);
    let stride = WIDTH * scale + panel_width;
    let mut buffer = vec![0u32; stride * HEIGHT * scale];
    let table = palette::rgb_table();
    scale_into(&screenshot::frame_rgb(&nes, &table), scale, &mut buffer, stride);
    if let Some(o) = overlay.as_mut() {
        o.settle(&mut nes);
        o.draw(&mut buffer, stride, WIDTH * scale, &nes);
        emit(&o.summary(&nes));
    }
    if let Some(path) = &args.screenshot {
        screenshot::write_png(path, stride, HEIGHT * scale, &buffer)?;
        eprintln!("screenshot: {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Panel draw times and late frames of a windowed session, reported at exit.
#[derive(Default)]
struct FrameStats {
    frames: u64,
    late: u64,
    draws: u32,
    draw_total: Duration,
    draw_max: Duration,
}

impl FrameStats {
    fn report(&self) -> String {
        let mean = self.draw_total.as_secs_f64() * 1000.0 / self.draws.max(1) as f64;
        format!(
            "overlay: {} frames, panel drawn {} times in {:.3} ms mean ({:.3} ms max); {} frames late",
            self.frames,
            self.draws,
            mean,
            self.draw_max.as_secs_f64() * 1000.0,
            self.late
        )
    }
}

fn screenshot_path() -> PathBuf {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    PathBuf::from(format!("nesprof-{stamp}.png"))
}

/// A screenshot: the whole window image with the overlay (what is on
/// screen), else the game at its native 256×240.
fn save_window_or_frame(
    nes: &Nes,
    buffer: &[u32],
    stride: usize,
    scale: usize,
    overlay: bool,
    path: &Path,
) -> anyhow::Result<()> {
    if overlay {
        screenshot::write_png(path, stride, HEIGHT * scale, buffer)
    } else {
        screenshot::save(nes, path)
    }
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
    let scale = args.scale as usize;
    let mut overlay = args
        .overlay
        .then(|| Overlay::new(&mut nes, &profile_settings(&args), args.truth, scale));
    if args.headless {
        return run_headless(&args, nes, replay, overlay);
    }
    let mut battery = if replay.is_none() && recorder.is_none() {
        battery::BatterySave::open(&args.rom, &mut nes)
    } else {
        None
    };
    let interrupted = record::interrupt_flag();
    let panel_width = overlay.as_ref().map_or(0, |o| o.layout().width as usize);
    let stride = WIDTH * scale + panel_width;
    let title = format!(
        "nesprof - {}",
        args.rom
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default()
    );
    let mut window = Window::new(&title, stride, HEIGHT * scale, WindowOptions::default())
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
    let mut buffer = vec![0u32; stride * HEIGHT * scale];
    let mut pacer = Pacer::new(emu::nes::FRAME_HZ_NTSC);
    let mut paused = false;
    let mut fps_window = (Instant::now(), 0u32);
    let mut stats = FrameStats::default();

    while window.is_open()
        && !window.is_key_down(Key::Escape)
        && !interrupted.load(std::sync::atomic::Ordering::Relaxed)
    {
        if window.is_key_pressed(Key::P, KeyRepeat::No) {
            paused = !paused;
            pacer.reset();
        }
        if let Some(o) = overlay.as_mut() {
            for (key, action) in keys::OVERLAY {
                if window.is_key_pressed(key, KeyRepeat::No) {
                    o.apply(action, &mut nes);
                }
            }
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
            if let Some(o) = overlay.as_mut() {
                o.after_frame(&mut nes);
            }
            scale_into(&screenshot::frame_rgb(&nes, &table), scale, &mut buffer, stride);
            samples.clear();
            nes.take_audio(&mut samples);
            if let Some(out) = audio.as_mut() {
                out.push(&samples);
                nes.set_audio_rate_ratio(rate_control.ratio(out.fill_ratio()));
            }
        }
        if let Some(o) = overlay.as_mut() {
            let start = Instant::now();
            o.draw(&mut buffer, stride, WIDTH * scale, &nes);
            let took = start.elapsed();
            stats.draws += 1;
            stats.draw_total += took;
            stats.draw_max = stats.draw_max.max(took);
        }
        if window.is_key_pressed(Key::F12, KeyRepeat::No) {
            let path = screenshot_path();
            save_window_or_frame(&nes, &buffer, stride, scale, overlay.is_some(), &path)?;
            eprintln!("screenshot: {}", path.display());
        }
        window
            .update_with_buffer(&buffer, stride, HEIGHT * scale)
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
        stats.frames += 1;
        if pacer.wait() {
            stats.late += 1;
        }
    }
    if let Some(path) = &args.screenshot {
        save_window_or_frame(&nes, &buffer, stride, scale, overlay.is_some(), path)?;
        eprintln!("screenshot: {}", path.display());
    }
    if overlay.is_some() {
        eprintln!("{}", stats.report());
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
        scale_into(&src, 3, &mut dst, WIDTH * 3);
        assert_eq!(dst[0], 0);
        assert_eq!(dst[2], 0);
        assert_eq!(dst[3], 1);
        assert_eq!(dst[WIDTH * 3 * 2 + 4], 1);
        assert_eq!(dst[WIDTH * 3 * 3], WIDTH as u32);
        // With a panel to the right, rows are longer than the game.
        let stride = WIDTH * 3 + 100;
        let mut wide = vec![7; stride * HEIGHT * 3];
        scale_into(&src, 3, &mut wide, stride);
        assert_eq!(wide[stride * 3], WIDTH as u32);
        assert_eq!(wide[WIDTH * 3], 7);
    }
}
