//! report.html in a real browser (issues 25 and 43): `nesprof profile`
//! writes the page, headless Chromium opens it from disk; the page must log
//! nothing to the console (its own script, the hot CFG's viewer, included),
//! load nothing from elsewhere, and show the hot CFG readably: the viewer
//! opens at the graph's natural size on the hottest block, so the blocks'
//! text is as tall on screen as the layout made it (not a 4000-point-wide
//! graph squeezed to the page), and the fill of hot blocks covers a good
//! part of the screenshot. The page must not be wider than the window with
//! long labels (the memory tables wrap them), the bars have a legend, and
//! ram.png has its address axes around the 64 x 32 cells. Both layouts are
//! tried: Graphviz's, and the built-in one used when `dot` is not installed.

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

/// A Mesen label file naming tracker's PRG ROM and RAM with one long label
/// each (no space to break at): every block and variable then has a long
/// name, as in a game whose labels are qualified (`main::oam_full+$12`).
fn long_labels(dir: &Path) -> PathBuf {
    let path = dir.join("long.mlb");
    let name = "a_label_much_longer_than_any_column_of_a_table_should_be_made_to_hold";
    std::fs::write(
        &path,
        format!("P:0000-7FFF:code_{name}\nR:0000-07FF:ram_{name}\n"),
    )
    .unwrap();
    path
}

/// Profiles tracker (with --memory and long labels) into `out`, with `dot`
/// on the PATH or not.
fn profile(out: &Path, with_dot: bool) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_nesprof"));
    cmd.arg("profile")
        .arg(repo("roms-test/tracker.nes"))
        .arg("--movie")
        .arg(repo("movies/tracker.fm2"))
        .args(["--frames", "900", "--memory", "--symbols"])
        .arg(long_labels(out.parent().unwrap()))
        .arg("--out")
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

/// What a probe appended to a copy of `page` measures once the page's own
/// script has run, read back from Chromium's dump of the DOM: the page's
/// scroll and client widths, and the viewer's `data-scale` and
/// `data-text-px`.
struct Probe {
    scroll_width: f64,
    client_width: f64,
    scale: f64,
    text_px: f64,
}

fn probe(page: &Path, dir: &Path) -> Probe {
    let html = std::fs::read_to_string(page).unwrap();
    let script = "<script>(function () {
  var d = document.documentElement, box = document.getElementById('hot-cfg');
  document.body.setAttribute('data-probe', [d.scrollWidth, d.clientWidth,
    box.getAttribute('data-scale'), box.getAttribute('data-text-px')].join(' '));
})();</script></body>";
    let probed = dir.join("probe.html");
    std::fs::write(&probed, html.replace("</body>", script)).unwrap();
    let mut cmd = Command::new("chromium");
    cmd.args([
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--window-size=1200,1400",
        "--dump-dom",
    ])
    .arg(format!(
        "--user-data-dir={}",
        dir.join("probe-profile").display()
    ))
    .arg(format!("file://{}", probed.display()));
    let out = cmd.output().expect("chromium runs");
    let dom = String::from_utf8_lossy(&out.stdout);
    let at = dom.find("data-probe=\"").expect("the probe ran") + "data-probe=\"".len();
    let values: Vec<f64> = dom[at..at + dom[at..].find('"').unwrap()]
        .split(' ')
        .map(|v| v.parse().unwrap_or(f64::NAN))
        .collect();
    Probe {
        scroll_width: values[0],
        client_width: values[1],
        scale: values[2],
        text_px: values[3],
    }
}

/// Width and height of a PNG file.
fn png_size(path: &Path) -> (u32, u32) {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let reader = decoder.read_info().unwrap();
    let info = reader.info();
    (info.width, info.height)
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
        // The frame time first: the budget chart, the routine table.
        let frame_time = html
            .find("<h2>Frame time</h2>")
            .expect("no frame-time section");
        assert!(frame_time < html.find("<h2>Hot CFG</h2>").unwrap());
        assert!(html.contains(">budget 29780</text>"), "no budget line");
        assert!(html.contains("<h2>Routines</h2>"), "no routine table");
        for needle in ["src=\"http", "href=\"http", "<link", "<script src"] {
            assert!(!html.contains(needle), "the page fetches: {needle}");
        }
        assert!(
            html.contains("<iframe id=\"flame\"") && html.contains("data:image/svg+xml;base64,"),
            "no flame graph in the page"
        );
        let browser_dir = out.join("browser");
        std::fs::create_dir_all(&browser_dir).unwrap();
        let (console, _) = open_in_browser(&page, &browser_dir);
        assert!(
            console.is_empty(),
            "{layout}: console output:\n{}",
            console.join("\n")
        );
        // The graph as it opens, on a copy of the page without the
        // frame-time sections above it (the screenshot shows the top of
        // the page).
        let graph_page = out.join("graph-only.html");
        let cut = html.find("<h2>Frame time</h2>").unwrap();
        let end = html.find("<h2>Hot CFG</h2>").unwrap();
        std::fs::write(&graph_page, format!("{}{}", &html[..cut], &html[end..])).unwrap();
        let graph_dir = out.join("browser-graph");
        std::fs::create_dir_all(&graph_dir).unwrap();
        let (console, shot) = open_in_browser(&graph_page, &graph_dir);
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
        // Readable: at the layout's natural size, on the hottest block,
        // whose first line of text is at least 10 px tall on screen (both
        // layouts use 10-11 pt/px monospace).
        let p = probe(&page, &browser_dir);
        assert!(
            (p.scale - 1.0).abs() < 1e-3,
            "{layout}: the viewer opens at scale {}",
            p.scale
        );
        assert!(
            p.text_px >= 10.0,
            "{layout}: the hot CFG's text is {} px tall on screen",
            p.text_px
        );
        assert!(
            p.scroll_width <= p.client_width,
            "{layout}: the page is {} px wide in a {} px window (a table overflows)",
            p.scroll_width,
            p.client_width
        );
        assert!(html.contains("class=\"legend\""), "the bars have no legend");
        assert!(html.contains("data-node=\""), "no block links to the CFG");
        // The sprite page (tracker's `oam`, $0200-$02FF: written by the
        // program, read only by OAM DMA) is not dead, and is named so.
        let memory: profiler::memory::MemoryReport =
            ron::from_str(&std::fs::read_to_string(out.join("memory.ron")).unwrap()).unwrap();
        assert_eq!(memory.oam_dma, vec![(0x0200, 0x02FF)]);
        assert!(
            memory.dead.iter().all(|&(a, b)| b < 0x0200 || a > 0x02FF),
            "{:?}",
            memory.dead
        );
        let report = std::fs::read_to_string(out.join("report.txt")).unwrap();
        assert!(
            report.contains("read only by OAM DMA"),
            "report.txt does not say which page OAM DMA reads"
        );
        // ram.png: the 512 x 256 cells and the axes around them.
        let (w, h) = png_size(&out.join("ram.png"));
        assert!(w > 512 + 32 && h > 256 + 16, "ram.png is {w} x {h}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
