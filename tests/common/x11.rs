//! X server helpers for the tests that open real windows (under Xvfb):
//! starting the server, finding nesprof's window, driving it with xdotool,
//! and reading back what `import` captured.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A child process stopped when the guard goes.
pub struct KillOnDrop(pub Child);

impl Drop for KillOnDrop {
    /// SIGTERM first, so Xvfb removes its lock file (a killed server leaves
    /// it, and the display number looks taken to every later run); SIGKILL
    /// if it has not gone within two seconds.
    fn drop(&mut self) {
        // SAFETY: kill(2) on the pid of our own child process.
        unsafe {
            libc::kill(self.0.id() as libc::pid_t, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts Xvfb with one screen of `geometry` (e.g. "1024x768x24") on a free
/// display number from `base` up (each test binary uses its own range, so
/// binaries running at once do not race for a display), waits until it
/// accepts clients, and returns it.
pub fn start_xvfb(base: usize, geometry: &str) -> (KillOnDrop, String) {
    for n in 0..20 {
        let display = format!(":{}", base + (std::process::id() as usize + n) % 100);
        let lock = format!("/tmp/.X{}-lock", &display[1..]);
        if Path::new(&lock).exists() {
            continue;
        }
        let child = Command::new("Xvfb")
            .args([
                display.as_str(),
                "-screen",
                "0",
                geometry,
                "-nolisten",
                "tcp",
                // Without it the server resets when its last client leaves
                // (the readiness probe below), refusing connections while
                // it does: the player then failed to open its window in
                // about one run in four.
                "-noreset",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb starts");
        let guard = KillOnDrop(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if Path::new(&lock).exists() {
                wait_for_server(&display);
                return (guard, display);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    panic!("could not start Xvfb");
}

/// Waits until the X server accepts clients (its lock file appears a little
/// before that, and a window opened too early fails).
fn wait_for_server(display: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let ok = Command::new("xdotool")
            .arg("getdisplaygeometry")
            .env("DISPLAY", display)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if ok {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("Xvfb on {display} does not accept clients");
}

/// `nesprof ARGS` started on `display` (stdout dropped, stderr kept for
/// failures), and the id of its window once it appeared.
pub fn play_in_window(display: &str, args: &[&str]) -> (KillOnDrop, String) {
    let child = Command::new(env!("CARGO_BIN_EXE_nesprof"))
        .args(args)
        .env("DISPLAY", display)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("play starts");
    let mut player = KillOnDrop(child);
    let window = find_window(display, &mut player);
    (player, window)
}

/// The id of nesprof's window on `display`, waiting up to 20 s; fails with
/// the player's stderr if it exits before the window appears.
pub fn find_window(display: &str, player: &mut KillOnDrop) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if let Ok(Some(status)) = player.0.try_wait() {
            let mut stderr = String::new();
            if let Some(mut e) = player.0.stderr.take() {
                let _ = e.read_to_string(&mut stderr);
            }
            panic!("play exited ({status}) before its window appeared: {stderr}");
        }
        let out = Command::new("xdotool")
            .args(["search", "--name", "nesprof"])
            .env("DISPLAY", display)
            .output()
            .expect("xdotool runs");
        if let Some(id) = String::from_utf8_lossy(&out.stdout).lines().next() {
            return id.trim().to_string();
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    panic!("the nesprof window did not appear");
}

/// Runs xdotool on `display`; whether it succeeded.
pub fn xdotool(display: &str, args: &[&str]) -> bool {
    Command::new("xdotool")
        .args(args)
        .env("DISPLAY", display)
        .status()
        .is_ok_and(|s| s.success())
}

/// Captures `window` into the PNG `path` with ImageMagick's `import`.
pub fn capture(display: &str, window: &str, path: &Path) {
    let status = Command::new("import")
        .args(["-window", window, path.to_str().unwrap()])
        .env("DISPLAY", display)
        .status()
        .expect("import runs");
    assert!(status.success(), "import failed");
}

/// A PNG as width, height and RGB pixels.
pub fn read_png(path: &Path) -> (usize, usize, Vec<[u8; 3]>) {
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

/// Waits for `player` to exit; its status and all it wrote to stderr.
pub fn wait_with_stderr(player: &mut KillOnDrop) -> (ExitStatus, String) {
    let status = player.0.wait().unwrap();
    let mut stderr = String::new();
    if let Some(mut e) = player.0.stderr.take() {
        e.read_to_string(&mut stderr).unwrap();
    }
    (status, stderr)
}
