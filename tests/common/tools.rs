//! External programs some tests run (Xvfb, ImageMagick, Graphviz, cc65,
//! Chromium).
//!
//! A test that needs one asks [`require`] first. When a program is missing
//! the test fails with a message that starts `CANNOT RUN:` and names the
//! Debian package, so it is never silently skipped: cargo's summary counts
//! it, and `scripts/test.sh` (the README's test command, which installs the
//! packages when it can) lists such tests apart from real failures.

use std::process::Command;

/// The Debian package that provides each program the tests run.
const PACKAGES: &[(&str, &str)] = &[
    ("Xvfb", "xvfb"),
    ("xdotool", "xdotool"),
    ("import", "imagemagick"),
    ("dot", "graphviz"),
    ("ca65", "cc65"),
    ("ld65", "cc65"),
    ("make", "make"),
    ("chromium", "chromium"),
];

/// Whether `tool` is on the PATH.
pub fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// Fails the test, saying it cannot run and which packages it needs, unless
/// every one of `tools` is on the PATH.
pub fn require(tools: &[&str]) {
    let missing: Vec<&str> = tools.iter().copied().filter(|t| !have(t)).collect();
    if missing.is_empty() {
        return;
    }
    let mut packages: Vec<&str> = missing
        .iter()
        .map(|t| {
            PACKAGES
                .iter()
                .find(|(tool, _)| tool == t)
                .map_or(*t, |(_, package)| package)
        })
        .collect();
    packages.dedup();
    panic!(
        "CANNOT RUN: this test needs {} (not on PATH): apt-get install {}, or run \
         scripts/test.sh, which installs what the tests need",
        missing
            .iter()
            .map(|t| format!("`{t}`"))
            .collect::<Vec<_>>()
            .join(", "),
        packages.join(" ")
    );
}
