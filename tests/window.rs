//! `nesprof play` in a real window: under Xvfb, play a game for a few seconds,
//! capture the window with ImageMagick's `import`, and check the game's
//! pixels are on screen by comparing with the headless rendering.
//! Needs Xvfb, xdotool and ImageMagick (`scripts/test.sh` installs them).

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use common::tools::require;
use common::x11::{self, play_in_window, read_png, start_xvfb};

const SCALE: usize = 3;

#[test]
fn play_shows_the_game_in_a_window() {
    require(&["Xvfb", "xdotool", "import"]);
    let rom = common::roms_root().join("games/croom.nes");
    let dir = std::env::temp_dir().join(format!("nesprof-window-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = env!("CARGO_BIN_EXE_nesprof");

    // Reference: the title screen rendered headless.
    let reference: PathBuf = dir.join("reference.png");
    let status = Command::new(exe)
        .args([
            "run",
            rom.to_str().unwrap(),
            "--frames",
            "240",
            "--screenshot",
            reference.to_str().unwrap(),
        ])
        .status()
        .unwrap();
    assert!(status.success());

    let (_xvfb, display) = start_xvfb(140, "1024x768x24");
    let (_player, window) = play_in_window(
        &display,
        &["play", rom.to_str().unwrap(), "--frames", "900"],
    );
    // About 4 seconds in, the (static) title screen is up.
    std::thread::sleep(Duration::from_secs(4));
    let capture = dir.join("capture.png");
    x11::capture(&display, &window, &capture);

    let (w, h, captured) = read_png(&capture);
    assert_eq!((w, h), (256 * SCALE, 240 * SCALE), "window size");
    let (rw, _, expected) = read_png(&reference);
    assert_eq!(rw, 256);
    let mut matching = 0;
    let mut non_black = 0;
    for y in 0..240 {
        for x in 0..256 {
            let got = captured[(y * SCALE + 1) * w + x * SCALE + 1];
            let want = expected[y * 256 + x];
            if got == want {
                matching += 1;
            }
            if got != [0, 0, 0] {
                non_black += 1;
            }
        }
    }
    let total = 256 * 240;
    println!(
        "window capture: {matching}/{total} pixels match the headless frame, {non_black} non-black"
    );
    assert!(non_black > 1000, "the window shows (almost) nothing");
    assert!(
        matching * 100 >= total * 98,
        "only {matching}/{total} pixels match"
    );
    std::fs::remove_dir_all(&dir).ok();
}
