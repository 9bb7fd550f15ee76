//! The live hot-CFG overlay (`nesprof play --overlay`, issue 9).
//!
//! - Under Xvfb: fountain (a bundled roms-test program; it also runs code
//!   from RAM, so the RAM band shows) replays its movie with `--overlay
//!   --truth` for 600 frames in a real window. It samples on emulated time:
//!   in a paced window the wall trigger yields about one batch per frame, as
//!   many as the machine's speed allows, so the graph 6 s in could be a
//!   handful of blocks; on emulated time it is the same on every machine and
//!   the thresholds below mean something. (The headless test runs the wall
//!   trigger.) The window is captured with
//!   ImageMagick's `import` twice: the panel must show edges (arc pixels in
//!   the graph area away from the node column) and its text must change
//!   between the captures; then O (pressed with xdotool) must shrink the
//!   window to the game alone (issue 43: it used to blank the panel and keep
//!   its room), and O again grow it back with the graph drawn.
//!   Needs Xvfb, xdotool and ImageMagick (`scripts/test.sh` installs them).
//! - Headless: `--headless --frames N --screenshot F.png` writes the same
//!   window image (game + panel) and a summary line.
//! - Bad arguments are refused with exit code 2, never a panic.

mod common;

use std::path::Path;
use std::time::Duration;

use common::panel::{nesprof, repo, rgb, temp_dir, Image, BG, SCALE, TEXT_DIM};
use common::tools::require;
use common::x11::{capture, find_window, play_in_window, start_xvfb, wait_with_stderr, xdotool};

use nesprof::play::overlay::colors;
use nesprof::play::overlay::panel::Layout;

/// Panel-relative rectangles of the window image at [`SCALE`].
struct Panel {
    layout: Layout,
    x0: usize,
}

impl Panel {
    fn new() -> Panel {
        Panel {
            layout: Layout::new(SCALE),
            x0: 256 * SCALE,
        }
    }

    fn size(&self) -> (usize, usize) {
        (self.x0 + self.layout.width as usize, 240 * SCALE)
    }

    /// Pixels of arcs: non-background pixels in the graph area, away from
    /// the node column in its middle (node bars and the PC box are at most
    /// 4·scale pixels from it), from the node ticks at its left edge and the
    /// note at its bottom, and not in the dim text colour (the hint shown
    /// while the panel is hidden).
    fn arc_pixels(&self, img: &Image) -> usize {
        let (gx, gy, gw, gh) = self.layout.graph_rect();
        let axis = gx + gw / 2;
        let keep_out = 5 * SCALE as i32;
        let mut n = 0;
        for y in gy..gy + gh - 10 * SCALE as i32 {
            for x in gx + 3 * SCALE as i32..gx + gw {
                let p = img.at(self.x0 + x as usize, y as usize);
                if (x - axis).abs() > keep_out && p != BG && p != TEXT_DIM {
                    n += 1;
                }
            }
        }
        n
    }

    /// The status text lines (above the legend), as pixels.
    fn text(&self, img: &Image) -> Vec<[u8; 3]> {
        let l = &self.layout;
        let mut out = Vec::new();
        for y in l.text_y..l.legend_y {
            for x in l.pad..l.width - l.pad {
                out.push(img.at(self.x0 + x as usize, y as usize));
            }
        }
        out
    }
}

fn capture_image(display: &str, window: &str, path: &Path) -> Image {
    capture(display, window, path);
    Image::read(path)
}

/// Presses and releases `key` in `window`.
fn press(display: &str, window: &str, key: &str) {
    for args in [
        &["windowfocus", window][..],
        &["keydown", "--window", window, key],
    ] {
        assert!(xdotool(display, args), "xdotool {args:?} failed");
    }
    std::thread::sleep(Duration::from_millis(200));
    // The window is gone by now (O replaces it), and the key is really down
    // (xdotool presses keys in the focused window through XTEST): released
    // the same way, or it would auto-repeat.
    assert!(xdotool(display, &["keyup", key]), "xdotool keyup failed");
}

/// The size of `window` as X sees it.
fn window_size(display: &str, window: &str) -> (usize, usize) {
    let out = std::process::Command::new("xdotool")
        .args(["getwindowgeometry", "--shell", window])
        .env("DISPLAY", display)
        .output()
        .expect("xdotool runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |name: &str| -> usize {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{name}=")))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {name} in `{text}`"))
    };
    (field("WIDTH"), field("HEIGHT"))
}

#[test]
fn overlay_in_a_window_shows_edges_and_live_text() {
    require(&["Xvfb", "xdotool", "import"]);
    let dir = temp_dir("overlay-window");
    let (_xvfb, display) = start_xvfb(340, "1600x900x24");
    let (mut player, window) = play_in_window(
        &display,
        &[
            "play",
            repo().join("roms-test/fountain.nes").to_str().unwrap(),
            "--movie",
            repo().join("movies/fountain.fm2").to_str().unwrap(),
            "--overlay",
            "--truth",
            "--trigger",
            "emulated",
            "--mute",
            "--frames",
            "900",
            "--scale",
            &SCALE.to_string(),
        ],
    );
    let panel = Panel::new();

    // 900 frames are 15 s at 60 Hz: look at about 3 s and 6 s in.
    std::thread::sleep(Duration::from_secs(3));
    let first = capture_image(&display, &window, &dir.join("first.png"));
    std::thread::sleep(Duration::from_secs(3));
    let second = capture_image(&display, &window, &dir.join("second.png"));
    assert_eq!((first.w, first.h), panel.size(), "window size");

    let game_lit = (0..240 * SCALE)
        .flat_map(|y| (0..256 * SCALE).map(move |x| (x, y)))
        .filter(|&(x, y)| second.at(x, y) != [0, 0, 0])
        .count();
    let (arcs_first, arcs_second) = (panel.arc_pixels(&first), panel.arc_pixels(&second));
    let (text_first, text_second) = (panel.text(&first), panel.text(&second));
    let text_changed = text_first
        .iter()
        .zip(&text_second)
        .filter(|(a, b)| a != b)
        .count();
    let text_lit = text_second.iter().filter(|&&p| p != BG).count();
    println!(
        "overlay window: game {game_lit} lit pixels; arc pixels {arcs_first} then {arcs_second}; \
         status text {text_lit} lit pixels, {text_changed} changed"
    );
    assert!(game_lit > 10_000, "the game is not on screen");
    assert!(
        arcs_second > 300,
        "the graph area shows no edges ({arcs_second} arc pixels)"
    );
    assert!(text_lit > 1000, "the panel shows no text");
    assert!(
        text_changed > 50,
        "the panel's text did not change in 3 s ({text_changed} pixels)"
    );

    // O: the window shrinks to the game alone (a new window of that size
    // takes the old one's place)...
    press(&display, &window, "o");
    // O counts again 800 ms after it is up in the new window.
    std::thread::sleep(Duration::from_millis(1200));
    let window = find_window(&display, &mut player);
    let game_only = (256 * SCALE, 240 * SCALE);
    assert_eq!(
        window_size(&display, &window),
        game_only,
        "O did not shrink the window"
    );
    let hidden = capture_image(&display, &window, &dir.join("hidden.png"));
    assert_eq!((hidden.w, hidden.h), game_only);
    let game_lit = (0..240 * SCALE)
        .flat_map(|y| (0..256 * SCALE).map(move |x| (x, y)))
        .filter(|&(x, y)| hidden.at(x, y) != [0, 0, 0])
        .count();
    assert!(game_lit > 10_000, "the game is not in the shrunk window");
    // ...and O again grows it back, the graph drawn.
    press(&display, &window, "o");
    // O counts again 800 ms after it is up in the new window.
    std::thread::sleep(Duration::from_millis(1200));
    let window = find_window(&display, &mut player);
    assert_eq!(
        window_size(&display, &window),
        panel.size(),
        "O did not grow the window back"
    );
    let shown = capture_image(&display, &window, &dir.join("shown.png"));
    let arcs_shown = panel.arc_pixels(&shown);
    println!("after O, O: {arcs_shown} arc pixels");
    assert!(
        arcs_shown > 300,
        "the graph is not back ({arcs_shown} arc pixels)"
    );

    let (status, stderr) = wait_with_stderr(&mut player);
    assert!(status.success(), "play failed: {status}");
    let report = stderr
        .lines()
        .find(|l| l.starts_with("pacing: "))
        .unwrap_or_else(|| panic!("no pacing report in: {stderr}"));
    println!("{report}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn headless_screenshot_has_game_and_panel() {
    let dir = temp_dir("overlay-headless");
    let shot = dir.join("overlay.png");
    let rom = repo().join("roms-test/fountain.nes");
    let movie = repo().join("movies/fountain.fm2");
    let out = nesprof(&[
        "play",
        rom.to_str().unwrap(),
        "--movie",
        movie.to_str().unwrap(),
        "--overlay",
        "--truth",
        "--headless",
        "--frames",
        "600",
        "--screenshot",
        shot.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = stdout.lines().last().unwrap_or_default();
    println!("{summary}");
    let field = |name: &str| -> f64 {
        summary
            .split_whitespace()
            .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
            .unwrap_or_else(|| panic!("no {name} in `{summary}`"))
            .parse()
            .unwrap()
    };
    assert_eq!(field("frames"), 600.0);
    assert!(field("batches") > 1000.0);
    assert!(field("edges") >= 10.0);
    assert!(field("drawn_edges") >= 10.0);
    assert_eq!(field("dropped"), 0.0);
    assert!(field("similarity") > 0.0 && field("precision") > 0.5);

    let img = Image::read(&shot);
    let panel = Panel::new();
    assert_eq!((img.w, img.h), panel.size());
    let arcs = panel.arc_pixels(&img);
    assert!(arcs > 300, "{arcs} arc pixels");
    assert!(panel.text(&img).iter().filter(|&&p| p != BG).count() > 1000);

    // The wall trigger (the thesis' real-time timer) feeds the graph too.
    let out = nesprof(&[
        "play",
        rom.to_str().unwrap(),
        "--movie",
        movie.to_str().unwrap(),
        "--overlay",
        "--trigger",
        "wall",
        "--headless",
        "--frames",
        "300",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    println!("wall: {stdout}");
    let batches: u64 = stdout
        .split_whitespace()
        .find_map(|kv| kv.strip_prefix("batches="))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no batches in `{stdout}`"));
    // How many depends on how long the unpaced run takes on this host (the
    // trigger is a real-time timer), so only that it fed the graph.
    let blocks: u64 = stdout
        .split_whitespace()
        .find_map(|kv| kv.strip_prefix("blocks="))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    assert!(batches >= 1 && blocks > 0, "{stdout}");

    // Without --overlay the image is the scaled game alone.
    let plain = dir.join("plain.png");
    let out = nesprof(&[
        "play",
        rom.to_str().unwrap(),
        "--headless",
        "--frames",
        "60",
        "--scale",
        "2",
        "--screenshot",
        plain.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let img = Image::read(&plain);
    assert_eq!((img.w, img.h), (512, 480));
    std::fs::remove_dir_all(&dir).ok();
}

/// The panel of `nesprof play fountain --overlay --headless` after 600
/// frames with `extra` arguments.
fn fountain_panel(dir: &Path, name: &str, extra: &[&str]) -> Image {
    let shot = dir.join(name);
    let rom = repo().join("roms-test/fountain.nes");
    let movie = repo().join("movies/fountain.fm2");
    let mut args = vec![
        "play",
        rom.to_str().unwrap(),
        "--movie",
        movie.to_str().unwrap(),
        "--overlay",
        "--headless",
        "--frames",
        "600",
        "--screenshot",
        shot.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = nesprof(&args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Image::read(&shot)
}

/// How many panel pixels of `(x, y, w, h)` satisfy `f`.
fn count_in(img: &Image, (x, y, w, h): (i32, i32, i32, i32), f: impl Fn([u8; 3]) -> bool) -> usize {
    (y..y + h)
        .flat_map(|yy| (x..x + w).map(move |xx| (xx, yy)))
        .filter(|&(xx, yy)| f(img.panel(xx, yy)))
        .count()
}

/// Issue 43: with the trace builder the panel showed GFCGaussiano's legend
/// (`count λ=5`) and an empty address strip, the PC's label was cut, and
/// blocks without a label had no name at all.
#[test]
fn trace_builder_panel_has_its_own_legend_strip_and_names() {
    let dir = temp_dir("overlay-trace-panel");
    let l = Layout::new(SCALE);
    let white = rgb(colors::THRESHOLD);
    let pc = rgb(colors::PC);
    let legend = (0, l.legend_y, l.width, l.line_height);
    let strip = (l.strip_x, l.band_y, l.strip_w, l.band_h);
    let empty = [BG, rgb(colors::STRIP_EMPTY)];
    // The seventh status line: the PC's label, with symbols.
    let label_line = (0, l.text_y + 6 * l.line_height, l.width, l.line_height);
    // The graph's right quarter, where the hottest nodes are named.
    let (gx, gy, gw, gh) = l.graph_rect();
    let names = (gx + gw * 3 / 4, gy, gw / 4, gh);

    let trace = fountain_panel(&dir, "trace.png", &[]);
    let gfc = fountain_panel(&dir, "gfc.png", &["--builder", "gfc"]);
    let bare = fountain_panel(&dir, "bare.png", &["--symbols", "none"]);

    // λ (white tick and text) only on GFCGaussiano's legend.
    let lambda = |img: &Image| count_in(img, legend, |p| p == white);
    println!(
        "legend λ pixels: trace {} gfc {}",
        lambda(&trace),
        lambda(&gfc)
    );
    assert_eq!(lambda(&trace), 0, "the trace builder's legend shows λ");
    assert!(lambda(&gfc) > 20, "GFCGaussiano's legend lost λ");
    // The strip shows the trace builder's blocks.
    let lit = count_in(&trace, strip, |p| !empty.contains(&p));
    println!("strip: {lit} lit pixels");
    assert!(
        lit > 50,
        "the trace builder's strip is empty ({lit} pixels)"
    );
    // The PC's label on a line of its own with symbols, not without.
    let label = |img: &Image| count_in(img, label_line, |p| p == pc);
    println!(
        "PC label pixels: {} / without symbols {}",
        label(&trace),
        label(&bare)
    );
    assert!(label(&trace) > 20 && label(&bare) == 0);
    // Nodes are named without symbols too (by their address).
    let named = count_in(&bare, names, |p| p == TEXT_DIM);
    println!("node names without symbols: {named} pixels");
    assert!(named > 100, "blocks with no label show no address");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_overlay_arguments_are_refused() {
    let rom = repo().join("roms-test/fountain.nes");
    let rom = rom.to_str().unwrap();
    for args in [
        vec!["play", rom, "--truth"],
        vec!["play", rom, "--trigger", "wall"],
        vec!["play", rom, "--overlay", "--trigger", "sometimes"],
        vec!["play", rom, "--headless"],
        vec!["play", rom, "--headless", "--frames", "x"],
        vec![
            "play",
            "/nonexistent.nes",
            "--overlay",
            "--headless",
            "--frames",
            "1",
        ],
    ] {
        let out = nesprof(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    let help = String::from_utf8_lossy(&nesprof(&["play", "--help"]).stdout).to_string();
    for flag in [
        "--overlay",
        "--truth",
        "--trigger",
        "--headless",
        "--screenshot",
    ] {
        assert!(help.contains(flag), "play --help lacks {flag}");
    }
}
