//! X server helpers for the tests that open real windows (under Xvfb).

use std::path::Path;
use std::process::{Child, Command, Stdio};
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
/// binaries running at once do not race for a display), and returns it.
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
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb starts");
        let guard = KillOnDrop(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if Path::new(&lock).exists() {
                return (guard, display);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    panic!("could not start Xvfb");
}
