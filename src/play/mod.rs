//! `nesprof play`: the game in a window (minifb), paced to 60.0988 Hz, with
//! keyboard input on controller 1. P pauses, F advances one frame while
//! paused, F12 saves a screenshot, Esc quits.
//!
//! `--overlay` adds the live hot-CFG panel beside the game (`overlay/`): the
//! sampler runs (on emulated time unless `--trigger wall`, the thesis'
//! real-time timer), the feeder thread grows the graph, and the panel draws
//! its latest snapshot every frame. O hides it, C switches count / recency
//! colours, 1–4 restart the graph with a parameter preset, R restarts it.
//! `--truth` adds live metrics against the exact CFG of the same run;
//! `--memory` records the memory-dependence profile too, which M shows in
//! place of the graph.
//! `--headless --frames N --screenshot F.png` renders the same window image
//! without a display (no window, audio, pacing or battery save).
//!
//! Why emulated time by default, also in a window: in a window paced to
//! 60 Hz the emulation runs in bursts (a frame's work takes a millisecond or
//! two, then it waits), the wall timer's requests during the wait collapse
//! into one, and a game gets about one batch per frame, taken as the frame's
//! work starts. The trace builder, the default, counts what it samples, and
//! samples all taken at one point of the frame are not the frame's profile.
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
use emu::ppu::{palette, HEIGHT, WIDTH};
use emu::sampling::Trigger;
use emu::Nes;
use minifb::{Key, KeyRepeat, Window, WindowOptions};

pub use keys::KeyMap;
use overlay::Overlay;
use pacing::Pacer;
use profiler::session::ProfileSettings;

use crate::emit::emit;
use crate::error::BadInput;
use crate::open::{load_replay, load_rom};
use crate::screenshot;

/// What to play and how: `nesprof play`'s options (see `cli/play.rs`).
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub rom: PathBuf,
    /// Window scale factor (each NES pixel becomes N×N).
    pub scale: u32,
    /// Key bindings overriding the defaults (see [`KeyMap::parse`]).
    pub keys: String,
    /// Quit after this many frames.
    pub frames: Option<u64>,
    pub mute: bool,
    /// Replay this FCEUX movie; the keyboard is ignored until it ends.
    pub movie: Option<PathBuf>,
    /// Replay it even if it was recorded with another ROM.
    pub ignore_rom_mismatch: bool,
    /// Record the keyboard input into this FCEUX movie.
    pub record: Option<PathBuf>,
    /// Show the live hot CFG beside the game.
    pub overlay: bool,
    /// With the overlay: live metrics against the exact CFG.
    pub truth: bool,
    /// With the overlay: what starts a batch (default: emulated time).
    pub trigger: Option<Trigger>,
    /// With the overlay: the hot-CFG builder drawn.
    pub builder: gfc::BuilderKind,
    /// With the overlay: record the memory profile, with this lifetime in
    /// instructions (`Some(None)`: none), for the memory view.
    pub memory: Option<Option<u64>>,
    /// With `memory`: (on, period, warm-up) frames of bursty recording.
    pub memory_bursts: Option<(u32, u32, Option<u32>)>,
    /// With the overlay: what the graph area shows first.
    pub overlay_view: overlay::PanelView,
    /// No window, audio or pacing: `frames` frames as fast as possible.
    pub headless: bool,
    /// Write the window image to this PNG at the end.
    pub screenshot: Option<PathBuf>,
    /// With the overlay: label files (`--symbols`).
    pub symbols: crate::symbol_files::SymbolArgs,
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

fn profile_settings(args: &Options) -> ProfileSettings {
    let trigger = args.trigger.unwrap_or(Trigger::Emulated);
    ProfileSettings {
        trigger,
        builder: args.builder,
        memory: args.memory,
        memory_bursts: args.memory_bursts.map(|(on, period, _)| (on, period)),
        memory_warmup: args.memory_bursts.and_then(|(_, _, warmup)| warmup),
        ..ProfileSettings::default()
    }
}

/// `--headless`: the frames as fast as possible, then the window image.
fn run_headless(
    args: &Options,
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
        if let Some(o) = overlay.as_mut() {
            o.before_frame(&mut nes);
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
    scale_into(
        &screenshot::frame_rgb(&nes, &table),
        scale,
        &mut buffer,
        stride,
    );
    if let Some(o) = overlay.as_mut() {
        o.settle(&mut nes);
        o.draw(&mut buffer, stride, WIDTH * scale, &nes);
        emit(&o.summary(&nes));
    }
    if let Some(path) = &args.screenshot {
        screenshot::write_png(path, stride, HEIGHT * scale, &buffer)?;
        crate::notice::later(&format!("screenshot: {}", path.display()));
    }
    Ok(ExitCode::SUCCESS)
}

/// CPU time used by the calling thread so far. Wall-clock time of the
/// panel's work also counts any time the thread sat preempted, which on a
/// loaded machine is most of the spikes; CPU time is what the panel costs.
fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes the timespec we pass it.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0;
    if ok {
        Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
    } else {
        Duration::ZERO
    }
}

/// The overlay's work in one frame (batches handed over, a new snapshot
/// copied and laid out, the panel drawn), in wall-clock and CPU time.
#[derive(Default, Clone, Copy)]
struct PanelTime {
    wall: Duration,
    cpu: Duration,
}

impl PanelTime {
    /// Runs `f`, adding its cost.
    fn measure<T>(&mut self, f: impl FnOnce() -> T) -> T {
        let (wall, cpu) = (Instant::now(), thread_cpu_time());
        let out = f();
        self.cpu += thread_cpu_time().saturating_sub(cpu);
        self.wall += wall.elapsed();
        out
    }
}

/// Late frames of a windowed session (frames whose work overran the 60 Hz
/// period, so the pacer found the deadline already past) and, with the
/// overlay, what the panel cost each frame; reported on stderr at exit, so
/// a session with and without `--overlay` can be compared.
#[derive(Default)]
struct FrameStats {
    frames: u64,
    late: u64,
    /// Late frames that would have been on time without the panel's work
    /// (overshoot no larger than the panel's wall-clock time that frame).
    late_from_panel: u64,
    panels: u32,
    wall_total: Duration,
    wall_max: Duration,
    cpu_total: Duration,
    cpu_max: Duration,
    /// Frames whose panel work took over [`PANEL_BUDGET`] of CPU time.
    cpu_over: u32,
}

/// The panel's time budget per frame (issue 9), an eighth of a 60 Hz frame.
const PANEL_BUDGET: Duration = Duration::from_millis(2);

impl FrameStats {
    /// A frame ended, `late` past its deadline, the panel having taken
    /// `panel`.
    fn frame(&mut self, late: Duration, panel: PanelTime) {
        self.frames += 1;
        if !late.is_zero() {
            self.late += 1;
            if late <= panel.wall {
                self.late_from_panel += 1;
            }
        }
    }

    fn panel(&mut self, t: PanelTime) {
        self.panels += 1;
        self.wall_total += t.wall;
        self.wall_max = self.wall_max.max(t.wall);
        self.cpu_total += t.cpu;
        self.cpu_max = self.cpu_max.max(t.cpu);
        if t.cpu > PANEL_BUDGET {
            self.cpu_over += 1;
        }
    }

    fn report(&self) -> String {
        let mut line = format!("pacing: {} frames, {} late", self.frames, self.late);
        if self.panels > 0 {
            let ms = |d: Duration| d.as_secs_f64() * 1000.0;
            let n = self.panels as f64;
            line.push_str(&format!(
                " ({} because of the overlay); overlay per frame: CPU {:.3} ms mean, \
                 {:.3} ms max, {} of {} frames over 2 ms; wall clock {:.3} ms mean, {:.3} ms max",
                self.late_from_panel,
                ms(self.cpu_total) / n,
                ms(self.cpu_max),
                self.cpu_over,
                self.panels,
                ms(self.wall_total) / n,
                ms(self.wall_max),
            ));
        }
        line
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

/// How long O must be up in a window made anew before it counts again:
/// longer than X's auto-repeat delay (660 ms by default), so a held O
/// repeats into the new window while it is still ignored.
const REOPEN_SETTLE: Duration = Duration::from_millis(800);

/// A window of `width` × `height` pixels, paced by the caller.
fn open_window(title: &str, width: usize, height: usize) -> anyhow::Result<Window> {
    let mut window = Window::new(title, width, height, WindowOptions::default())
        .map_err(|e| BadInput(no_window_message(&e.to_string())))?;
    window.set_target_fps(0);
    Ok(window)
}

/// The one line `play` exits with (code 2) when it cannot open a window.
fn no_window_message(cause: &str) -> String {
    let unset = |var: &str| std::env::var_os(var).is_none_or(|v| v.is_empty());
    let why = if unset("DISPLAY") && unset("WAYLAND_DISPLAY") {
        "there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set)".to_string()
    } else {
        cause.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    format!(
        "cannot open a window: {why}; without a display use `nesprof play --headless \
         --frames N --screenshot F.png` or `nesprof run`"
    )
}

pub fn run(args: Options) -> anyhow::Result<ExitCode> {
    let keymap = KeyMap::parse(&args.keys).map_err(|e| BadInput(format!("--keys: {e}")))?;
    crate::write_policy::WritePolicy::new()
        .input("ROM", &args.rom)
        .maybe_input("--movie", args.movie.as_ref())
        .inputs("--symbols", &args.symbols.files)
        .maybe_file("--screenshot", args.screenshot.as_ref())
        .maybe_file("--record", args.record.as_ref())
        .check()?;
    for path in args.screenshot.iter().chain(&args.record) {
        crate::atomic::check(path)?;
    }
    let mut replay = None;
    let mut recorder = None;
    let mut nes: Nes = if let Some(path) = &args.movie {
        let (nes, r, _) = load_replay(&args.rom, path, args.ignore_rom_mismatch)?;
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
    let symbols = if args.overlay {
        crate::symbol_files::load(&args.symbols, Some((&args.rom, nes.cartridge())))?
    } else {
        None
    };
    let mut overlay = args.overlay.then(|| {
        let mut o = Overlay::new(
            &mut nes,
            &profile_settings(&args),
            args.truth,
            scale,
            symbols,
        );
        o.set_panel_view(args.overlay_view);
        o
    });
    if args.headless {
        return run_headless(&args, nes, replay, overlay);
    }
    let mut battery = if replay.is_none() && recorder.is_none() {
        battery::BatterySave::open(&args.rom, &mut nes)
    } else {
        None
    };
    // Ctrl-C, SIGTERM and SIGHUP end the loop as closing the window does,
    // so a recording is saved.
    crate::signals::install();
    let panel_width = overlay.as_ref().map_or(0, |o| o.width());
    let mut stride = WIDTH * scale + panel_width;
    let title = format!(
        "nesprof - {}",
        args.rom
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default()
    );
    let mut window = open_window(&title, stride, HEIGHT * scale)?;

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
    let mut pacer = Pacer::new(emu::clock::FRAME_HZ_NTSC);
    let mut paused = false;
    let mut fps_window = (Instant::now(), 0u32);
    let mut stats = FrameStats::default();
    // When O last made the window anew (see REOPEN_SETTLE).
    let mut reopened: Option<Instant> = None;

    while window.is_open() && !window.is_key_down(Key::Escape) && !crate::signals::stop_requested()
    {
        if window.is_key_pressed(Key::P, KeyRepeat::No) {
            paused = !paused;
            pacer.reset();
        }
        if let Some(o) = overlay.as_mut() {
            // A window made anew knows nothing of the O still held that
            // made it: the key's first auto-repeat would be a fresh press
            // to it and toggle again. O waits until it has been up for a
            // while in the new window.
            if let Some(since) = reopened {
                if window.is_key_down(Key::O) {
                    reopened = Some(Instant::now());
                } else if since.elapsed() > REOPEN_SETTLE {
                    reopened = None;
                }
            }
            for (key, action) in keys::OVERLAY {
                if action == overlay::Action::Toggle && reopened.is_some() {
                    continue;
                }
                if window.is_key_pressed(key, KeyRepeat::No) {
                    o.apply(action, &mut nes);
                }
            }
            // O hid or showed the panel: the window becomes the game alone,
            // or the game and the panel. minifb cannot resize a window, so
            // one of the new size takes the old one's place (where minifb
            // puts new windows: its get_position is off on X11, twice the
            // position without a window manager, so it is not carried over).
            let width = WIDTH * scale + o.width();
            if width != stride {
                window = open_window(&title, width, HEIGHT * scale)?;
                reopened = Some(Instant::now());
                stride = width;
                buffer = vec![0u32; stride * HEIGHT * scale];
                scale_into(
                    &screenshot::frame_rgb(&nes, &table),
                    scale,
                    &mut buffer,
                    stride,
                );
            }
        }
        // The overlay's share of this frame: handing over batches, copying
        // and laying out a new snapshot, drawing.
        let mut panel_time = PanelTime::default();
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
            if let Some(o) = overlay.as_mut() {
                o.before_frame(&mut nes);
            }
            nes.run_frame();
            if let Some(o) = overlay.as_mut() {
                panel_time.measure(|| o.after_frame(&mut nes));
            }
            scale_into(
                &screenshot::frame_rgb(&nes, &table),
                scale,
                &mut buffer,
                stride,
            );
            samples.clear();
            nes.take_audio(&mut samples);
            if let Some(out) = audio.as_mut() {
                out.push(&samples);
                nes.set_audio_rate_ratio(rate_control.ratio(out.fill_ratio()));
            }
        }
        if let Some(o) = overlay.as_mut() {
            panel_time.measure(|| o.draw(&mut buffer, stride, WIDTH * scale, &nes));
            stats.panel(panel_time);
        }
        if window.is_key_pressed(Key::F12, KeyRepeat::No) {
            let path = screenshot_path();
            save_window_or_frame(&nes, &buffer, stride, scale, stride > WIDTH * scale, &path)?;
            eprintln!(
                "{}",
                crate::notice::line(&format!("screenshot: {}", path.display()))
            );
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
        stats.frame(pacer.wait(), panel_time);
    }
    if let Some(path) = &args.screenshot {
        save_window_or_frame(&nes, &buffer, stride, scale, stride > WIDTH * scale, path)?;
        crate::notice::later(&format!("screenshot: {}", path.display()));
    }
    eprintln!("{}", stats.report());
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
