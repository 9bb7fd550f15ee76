//! report.html in a real browser (issue 25): `nesprof profile` writes the
//! page, headless Chromium opens it from disk; the page must log nothing to
//! the console (no error, no warning: it has no script of its own, and the
//! flame graph's runs in its frame), load nothing from elsewhere, and its
//! screenshot must show the hot CFG: the fill of hot blocks covers a good
//! part of the picture. Both layouts are tried: Graphviz's, and the
//! built-in one used when `dot` is not installed.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// Runs `command`, killing it after `limit`; returns its stderr.
fn run_with_limit(mut command: Command, limit: Duration) -> (bool, String) {
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start");
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut s);
        s
    });
    let start = Instant::now();
    let ok = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.success();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{command:?} did not finish in {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    (ok, reader.join().unwrap())
}

/// Profiles tracker into `out`, with `dot` on the PATH or not.
fn profile(out: &Path, with_dot: bool) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_nesprof"));
    cmd.arg("profile")
        .arg(repo("roms-test/tracker.nes"))
        .arg("--movie")
        .arg(repo("movies/tracker.fm2"))
        .args(["--frames", "900", "--out"])
        .arg(out);
    if !with_dot {
        // An empty PATH: nesprof finds no `dot` and lays the graph out itself.
        cmd.env("PATH", out.parent().unwrap().join("empty-path"));
    }
    let (ok, stderr) = run_with_limit(cmd, Duration::from_secs(120));
    assert!(ok, "profile failed: {stderr}");
}

/// Opens `page` in headless Chromium; returns the console lines it logged
/// and the screenshot's path.
fn open_in_browser(page: &Path, dir: &Path) -> (Vec<String>, PathBuf) {
    let shot = dir.join("screenshot.png");
    let mut cmd = Command::new("chromium");
    cmd.args([
        "--headless=new",
        // Root in a container has no user namespace for the sandbox.
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--window-size=1200,1400",
        "--enable-logging=stderr",
        "--v=0",
    ])
    .arg(format!("--user-data-dir={}", dir.join("profile").display()))
    .arg(format!("--screenshot={}", shot.display()))
    .arg(format!("file://{}", page.display()));
    let (ok, stderr) = run_with_limit(cmd, Duration::from_secs(120));
    assert!(ok, "chromium failed: {stderr}");
    let console = stderr
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect();
    (console, shot)
}

/// Share of the screenshot's pixels in the hot-block fill (#ffe0b0).
fn hot_fill_share(png_path: &Path) -> f64 {
    let decoder = png::Decoder::new(std::fs::File::open(png_path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    assert!(channels >= 3, "{:?}", info.color_type);
    let pixels = buf[..info.buffer_size()].chunks(channels);
    let total = (info.width * info.height) as f64;
    let near = |a: u8, b: u8| a.abs_diff(b) <= 6;
    let hot = pixels
        .filter(|p| near(p[0], 0xff) && near(p[1], 0xe0) && near(p[2], 0xb0))
        .count();
    hot as f64 / total
}

#[test]
fn report_page_loads_cleanly_and_shows_the_graph() {
    common::tools::require(&["chromium", "dot"]);
    let dir = std::env::temp_dir().join(format!("nesprof-report-html-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("empty-path")).unwrap();
    for with_dot in [true, false] {
        let out = dir.join(if with_dot { "graphviz" } else { "builtin" });
        profile(&out, with_dot);
        let page = out.join("report.html");
        let html = std::fs::read_to_string(&page).unwrap();
        let layout = if with_dot {
            "Graphviz"
        } else {
            "built-in layout"
        };
        assert!(html.contains(layout), "{layout} not named in the page");
        for needle in ["src=\"http", "href=\"http", "<link", "<script src"] {
            assert!(!html.contains(needle), "the page fetches: {needle}");
        }
        assert!(
            html.contains("<iframe id=\"flame\"") && html.contains("data:image/svg+xml;base64,"),
            "no flame graph in the page"
        );
        let browser_dir = out.join("browser");
        std::fs::create_dir_all(&browser_dir).unwrap();
        let (console, shot) = open_in_browser(&page, &browser_dir);
        assert!(
            console.is_empty(),
            "{layout}: console output:\n{}",
            console.join("\n")
        );
        let share = hot_fill_share(&shot);
        assert!(
            share > 0.002,
            "{layout}: the screenshot {} shows little of the graph ({:.4} of its pixels are hot blocks)",
            shot.display(),
            share
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
