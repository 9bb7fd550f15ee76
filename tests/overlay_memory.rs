//! The overlay's memory view (`play --overlay --memory`, key M; issue 26).
//!
//! - Headless (`--overlay-view memory`, since no key can be pressed):
//!   tracker's panel shows the RAM heat map — every one of its 2048 cells
//!   drawn in the map's colours, reads green and writes red — and list rows
//!   below it; fff, whose cartridge has PRG RAM and uses it, gets the WRAM
//!   map too. Without `--memory` the view is a one-line hint and the run
//!   ends normally.
//! - Under Xvfb: M (pressed with xdotool) switches a live window from the
//!   graph to the memory view and back. Needs Xvfb, xdotool and ImageMagick
//!   (`scripts/test.sh` installs them).
//!
//! A cell is recognised by its colour: `profiler::memory::heat_map_rgb`
//! gives every cell blue 24 and at least 64 in red (written) or green
//! (read), the same in all its pixels but the grid line on its right and
//! bottom edges; nothing else in the panel is drawn that way.

mod common;

use std::path::Path;
use std::time::Duration;

use common::panel::{nesprof, repo, temp_dir, Image, BG, SCALE, TEXT_DIM};
use common::tools::require;
use common::x11::{capture, play_in_window, start_xvfb, wait_with_stderr, xdotool};

use nesprof::play::overlay::memory::{MapPlace, MemoryLayout};
use nesprof::play::overlay::panel::Layout;

/// Heat-map cells drawn at `place`: (cells, read cells, written cells).
fn heat_cells(img: &Image, place: &MapPlace) -> (usize, usize, usize) {
    let (mut cells, mut read, mut written) = (0, 0, 0);
    // The interior of a cell, without the grid line drawn from 3 pixels up.
    let inner = if place.cell > 2 {
        place.cell - 1
    } else {
        place.cell
    };
    for row in 0..place.rows {
        for col in 0..place.cols {
            let (x, y) = (place.x + col * place.cell, place.y + row * place.cell);
            let p = img.panel(x, y);
            let uniform = (0..inner).all(|dy| (0..inner).all(|dx| img.panel(x + dx, y + dy) == p));
            if uniform && p[2] == 24 && (p[0] >= 64 || p[1] >= 64 || p == [0, 0, 24]) {
                cells += 1;
                read += (p[1] >= 64) as usize;
                written += (p[0] >= 64) as usize;
            }
        }
    }
    (cells, read, written)
}

/// Lit pixels (not background) in the panel's rows `y0..y1`, right of the
/// rule along its left edge.
fn lit(img: &Image, layout: &Layout, y0: i32, y1: i32) -> usize {
    let rule = (layout.scale / 2).max(1);
    (y0..y1)
        .flat_map(|y| (rule..layout.width).map(move |x| (x, y)))
        .filter(|&(x, y)| img.panel(x, y) != BG)
        .count()
}

/// `play --headless` of `rom` with its movie for `frames` frames and
/// `extra` arguments: the summary line and the screenshot.
fn headless(rom: &Path, movie: &str, frames: u32, extra: &[&str], dir: &Path) -> (String, Image) {
    let shot = dir.join("shot.png");
    let frames = frames.to_string();
    let mut args = vec![
        "play",
        rom.to_str().unwrap(),
        "--movie",
        movie,
        "--overlay",
        "--headless",
        "--frames",
        &frames,
        "--screenshot",
        shot.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = nesprof(&args);
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {stdout}{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let summary = stdout.lines().last().unwrap_or_default().to_string();
    (summary, Image::read(&shot))
}

fn field(summary: &str, name: &str) -> Option<u64> {
    summary
        .split_whitespace()
        .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
        .and_then(|v| v.parse().ok())
}

#[test]
fn memory_view_shows_the_ram_heat_map_and_the_lists() {
    let dir = temp_dir("overlay-memory-tracker");
    let movie = repo().join("movies/tracker.fm2");
    let (summary, img) = headless(
        &repo().join("roms-test/tracker.nes"),
        movie.to_str().unwrap(),
        600,
        &["--memory", "--overlay-view", "memory"],
        &dir,
    );
    println!("{summary}");
    // tracker clears all of RAM at reset, and its NMI shares a dozen
    // variables with the main loop (report.txt's memory section).
    assert_eq!(field(&summary, "memory_bytes"), Some(2048), "{summary}");
    assert!(
        field(&summary, "memory_shared").unwrap_or(0) >= 5,
        "{summary}"
    );
    assert!(
        field(&summary, "memory_deps").unwrap_or(0) >= 100,
        "{summary}"
    );

    let layout = Layout::new(SCALE);
    let m = MemoryLayout::new(&layout, false);
    let (cells, read, written) = heat_cells(&img, &m.ram);
    println!("RAM map: {cells} cells, {read} read, {written} written");
    assert_eq!(cells, 64 * 32, "the whole RAM map is drawn");
    assert_eq!(written, 2048, "every byte was written (cleared at reset)");
    // About seven rows of 64 (the song, the VM's registers and buffers).
    assert!(read > 300, "{read} cells read");
    // Titles and rows under the map: the shared variables (tracker's .dbg
    // names them) and the heaviest dependences.
    let list = lit(&img, &layout, m.list_y, layout.band_y + layout.band_h);
    assert!(list > 3000, "list rows: {list} lit pixels");
    assert!(m.wram.is_none());
    // No WRAM map: tracker's board has no PRG RAM.
    let below = lit(&img, &layout, m.ram.y + m.ram.h() + 2, m.list_y);
    assert_eq!(below, 0, "something drawn between the map and the list");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn memory_view_shows_wram_when_the_game_uses_it() {
    let dir = temp_dir("overlay-memory-fff");
    let fff = common::roms_root().join("games/fff.nes");
    let movie = repo().join("movies/fff.fm2");
    let (summary, img) = headless(
        &fff,
        movie.to_str().unwrap(),
        900,
        &["--memory", "--overlay-view", "memory"],
        &dir,
    );
    println!("{summary}");
    assert!(
        field(&summary, "memory_bytes").unwrap_or(0) > 2048,
        "{summary}"
    );
    let m = MemoryLayout::new(&Layout::new(SCALE), true);
    let wram = m.wram.expect("a WRAM map fits at scale 3");
    let (cells, read, written) = heat_cells(&img, &wram);
    println!("WRAM map: {cells} cells, {read} read, {written} written");
    assert_eq!(cells, 128 * 64, "the whole WRAM map is drawn");
    // 900 frames in, fff reads its PRG RAM (a few hundred bytes).
    assert!(read > 50, "{read} read, {written} written");
    let (ram, _, _) = heat_cells(&img, &m.ram);
    assert_eq!(ram, 64 * 32);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn without_memory_the_view_is_a_hint() {
    let dir = temp_dir("overlay-memory-hint");
    let movie = repo().join("movies/tracker.fm2");
    let (summary, img) = headless(
        &repo().join("roms-test/tracker.nes"),
        movie.to_str().unwrap(),
        120,
        &["--overlay-view", "memory"],
        &dir,
    );
    assert!(field(&summary, "memory_bytes").is_none(), "{summary}");
    let layout = Layout::new(SCALE);
    let m = MemoryLayout::new(&layout, false);
    assert_eq!(heat_cells(&img, &m.ram).0, 0, "a heat map without --memory");
    // One line of dim text at the top of the band, nothing under it.
    let glyph = 8 * layout.text_scale;
    let hint = (layout.band_y..layout.band_y + glyph)
        .flat_map(|y| (0..layout.width).map(move |x| (x, y)))
        .filter(|&(x, y)| img.panel(x, y) == TEXT_DIM)
        .count();
    assert!(hint > 200, "hint: {hint} pixels");
    let rest = lit(
        &img,
        &layout,
        layout.band_y + glyph + 1,
        layout.band_y + layout.band_h,
    );
    assert_eq!(rest, 0);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn m_switches_a_window_to_the_memory_view_and_back() {
    require(&["Xvfb", "xdotool", "import"]);
    let dir = temp_dir("overlay-memory-window");
    let (_xvfb, display) = start_xvfb(440, "1600x900x24");
    let (mut player, window) = play_in_window(
        &display,
        &[
            "play",
            repo().join("roms-test/tracker.nes").to_str().unwrap(),
            "--movie",
            repo().join("movies/tracker.fm2").to_str().unwrap(),
            "--overlay",
            "--memory",
            "--mute",
            "--frames",
            "720",
            "--scale",
            &SCALE.to_string(),
        ],
    );
    let m = MemoryLayout::new(&Layout::new(SCALE), false);
    let press = |key: &str| {
        assert!(
            xdotool(&display, &["windowfocus", &window]),
            "xdotool failed"
        );
        for action in ["keydown", "keyup"] {
            assert!(
                xdotool(&display, &[action, "--window", &window, key]),
                "xdotool failed"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    };
    let cells = |name: &str| {
        let path = dir.join(name);
        capture(&display, &window, &path);
        heat_cells(&Image::read(&path), &m.ram).0
    };

    std::thread::sleep(Duration::from_secs(2));
    let graph = cells("graph.png");
    press("m");
    // A refresh is asked for at once; the worker takes a millisecond or two.
    std::thread::sleep(Duration::from_millis(1500));
    let memory = cells("memory.png");
    press("m");
    std::thread::sleep(Duration::from_millis(500));
    let back = cells("back.png");
    println!("heat-map cells: graph {graph}, after M {memory}, after M again {back}");
    assert_eq!(graph, 0, "the graph view shows a heat map");
    assert_eq!(memory, 64 * 32, "M did not show the RAM heat map");
    assert_eq!(back, 0, "M again did not go back to the graph");

    let (status, stderr) = wait_with_stderr(&mut player);
    assert!(status.success(), "play failed: {status}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn help_names_the_memory_options() {
    let help = String::from_utf8_lossy(&nesprof(&["play", "--help"]).stdout).to_string();
    for flag in [
        "--memory",
        "--memory-lifetime",
        "--memory-bursts",
        "--overlay-view",
        "M memory view",
    ] {
        assert!(help.contains(flag), "play --help lacks {flag}");
    }
}
