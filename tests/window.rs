//! `nesprof play` in a real window: under Xvfb, play a game for a few seconds,
//! capture the window with ImageMagick's `import`, and check the game's
//! pixels are on screen by comparing with the headless rendering.
//! Needs Xvfb, xdotool and ImageMagick (`.ci/run` installs them).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::x11::{start_xvfb, KillOnDrop};

const SCALE: usize = 3;

fn require(tool: &str) {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        found,
        "`{tool}` is needed for the window test (apt-get install xvfb xdotool imagemagick)"
    );
}

fn find_window(display: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        let out = Command::new("xdotool")
            .args(["search", "--name", "nesprof"])
            .env("DISPLAY", display)
            .output()
            .expect("xdotool runs");
        let text = String::from_utf8_lossy(&out.stdout);
        if let Some(id) = text.lines().next() {
            return id.trim().to_string();
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    panic!("the nesprof window did not appear");
}

fn read_png(path: &Path) -> (usize, usize, Vec<[u8; 3]>) {
    let mut decoder = png::Decoder::new(std::fs::File::open(path).expect("png exists"));
    // ImageMagick writes indexed or grey PNGs when few colours are used.
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("png data");
    let channels = info.color_type.samples();
    let pixels = buf[..info.buffer_size()]
        .chunks_exact(channels)
        .map(|p| {
            if channels < 3 {
                [p[0], p[0], p[0]]
            } else {
                [p[0], p[1], p[2]]
            }
        })
        .collect();
    (info.width as usize, info.height as usize, pixels)
}

#[test]
fn play_shows_the_game_in_a_window() {
    for tool in ["Xvfb", "xdotool", "import"] {
        require(tool);
    }
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
    let player = Command::new(exe)
        .args(["play", rom.to_str().unwrap(), "--frames", "900"])
        .env("DISPLAY", &display)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("play starts");
    let _player = KillOnDrop(player);
    let window = find_window(&display);
    // About 4 seconds in, the (static) title screen is up.
    std::thread::sleep(Duration::from_secs(4));
    let capture = dir.join("capture.png");
    let status = Command::new("import")
        .args(["-window", &window, capture.to_str().unwrap()])
        .env("DISPLAY", &display)
        .status()
        .expect("import runs");
    assert!(status.success(), "import failed");

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
