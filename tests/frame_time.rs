//! The frame-time profile (issue 43) through the CLI: a program whose
//! routines' calls and cycles were counted by hand, the accounting's
//! identities on the busy workloads and games, both engines writing the
//! same files, the sampler-only run, and the windows.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(path)
        .display()
        .to_string()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("nesprof-frame-time-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn nesprof(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_nesprof"))
        .args(args)
        .output()
        .expect("nesprof runs");
    assert!(
        o.status.success(),
        "nesprof {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A CSV file's rows as header → field maps (our files quote no field
/// these tests read).
fn rows(path: &Path) -> Vec<HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    lines
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split(',').map(str::to_string))
                .collect()
        })
        .collect()
}

fn num(row: &HashMap<String, String>, key: &str) -> u64 {
    row[key]
        .parse()
        .unwrap_or_else(|_| panic!("{key} = {:?}", row[key]))
}

fn profile(rom: &str, movie: Option<&str>, out: &Path, extra: &[&str]) {
    let mut args = vec!["profile", rom];
    if let Some(m) = movie {
        args.extend(["--movie", m]);
    }
    let out = out.display().to_string();
    args.extend(["--out", &out]);
    args.extend(extra);
    nesprof(&args);
}

/// Every row: the classes add up to the frame's cycles.
fn check_identity(frames: &[HashMap<String, String>], what: &str) {
    for r in frames {
        let parts: u64 = ["busy", "idle", "nmi", "irq", "oam_dma", "dmc_dma"]
            .iter()
            .map(|k| num(r, k))
            .sum();
        assert_eq!(parts, num(r, "cycles"), "{what}: frame {}", r["frame"]);
    }
}

#[test]
fn hand_counted_routines() {
    let dir = temp_dir("hand");
    let rom = repo("roms-test/frametime.nes");
    let mut files = Vec::new();
    for engine in ["interp", "translate"] {
        let out = dir.join(engine);
        profile(
            &rom,
            None,
            &out,
            &["--from-frame", "10", "--frames", "60", "--engine", engine],
        );
        files.push((
            std::fs::read(out.join("frames.csv")).unwrap(),
            std::fs::read(out.join("routines.csv")).unwrap(),
        ));
        let routines = rows(&out.join("routines.csv"));
        let by_name = |n: &str| {
            routines
                .iter()
                .find(|r| r["routine"] == n)
                .unwrap_or_else(|| panic!("no routine {n}"))
        };
        // roms-test/frametime.s counts these: (routine, cycles per call).
        for (name, per_call) in [
            ("work", 57),
            ("dispatch", 16),
            ("by_rts", 32),
            ("caller_tail", 8),
            ("tail_target", 22),
            ("nmi", 18),
        ] {
            let r = by_name(name);
            assert_eq!(num(r, "calls"), 60, "{engine}: {name}'s calls");
            for k in ["min_cycles_per_call", "max_cycles_per_call"] {
                assert_eq!(num(r, k), per_call, "{engine}: {name}'s {k}");
            }
            assert_eq!(
                num(r, "exclusive_cycles"),
                60 * per_call,
                "{engine}: {name}"
            );
            assert_eq!(num(r, "median_cycles_per_frame"), per_call);
        }
        // Tail call and RTS trick: the caller keeps only its own cycles.
        assert_eq!(num(by_name("caller_tail"), "inclusive_cycles"), 60 * 8);
        assert_eq!(num(by_name("dispatch"), "inclusive_cycles"), 60 * 16);
        let frames = rows(&out.join("frames.csv"));
        assert_eq!(frames.len(), 60);
        assert_eq!(frames[0]["frame"], "10");
        check_identity(&frames, engine);
        for r in &frames {
            // One NMI a frame, nested in no routine; no input read.
            assert_eq!(num(r, "nmi"), 18, "frame {}", r["frame"]);
            assert_eq!(r["lag"], "1");
            // wait_nmi's loop: whole iterations of 6 cycles.
            assert_eq!(num(r, "idle") % 6, 0);
            assert!(num(r, "idle") > 29_000);
        }
    }
    assert!(files[0] == files[1], "the engines' files differ");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The bundled busy workloads and three games: per frame the classes add
/// up to the cycles, the frames add up to the run's cycles, and both
/// engines write byte-identical files.
#[test]
fn accounting_adds_up_and_engines_agree() {
    let roms = common::roms_root();
    let mut runs: Vec<(String, String, String)> = ["swarm", "plasma", "tracker"]
        .iter()
        .map(|n| {
            (
                n.to_string(),
                repo(&format!("roms-test/{n}.nes")),
                repo(&format!("movies/{n}.fm2")),
            )
        })
        .collect();
    for game in ["fff", "yun", "novathesquirrel"] {
        let rom = roms.join(format!("games/{game}.nes"));
        assert!(rom.exists(), "{} is missing", rom.display());
        runs.push((
            game.to_string(),
            rom.display().to_string(),
            repo(&format!("movies/{game}.fm2")),
        ));
    }
    let dir = temp_dir("sums");
    const FRAMES: &str = "600";
    for (name, rom, movie) in &runs {
        let mut files = Vec::new();
        for engine in ["interp", "translate"] {
            let out = dir.join(format!("{name}-{engine}"));
            profile(
                rom,
                Some(movie),
                &out,
                &["--frames", FRAMES, "--engine", engine],
            );
            files.push((
                std::fs::read(out.join("frames.csv")).unwrap(),
                std::fs::read(out.join("routines.csv")).unwrap(),
            ));
        }
        assert!(files[0].0 == files[1].0, "{name}: frames.csv differs");
        assert!(files[0].1 == files[1].1, "{name}: routines.csv differs");
        let frames = rows(&dir.join(format!("{name}-translate/frames.csv")));
        check_identity(&frames, name);
        // The run's cycles: `run`'s count at the end less at the start.
        let cycles_at = |frames: &str| -> u64 {
            let line = nesprof(&["run", rom, "--movie", movie, "--frames", frames]);
            let field = line
                .split_whitespace()
                .find_map(|kv| kv.strip_prefix("cycles="))
                .expect("cycles=");
            field.parse().unwrap()
        };
        let total: u64 = frames.iter().map(|r| num(r, "cycles")).sum();
        assert_eq!(total, cycles_at(FRAMES) - cycles_at("1"), "{name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--no-truth`: no exact side, the same frames and lag (known from the
/// machine's counters), every estimate inside its interval; and a window
/// (`--from-frame`) gives the whole run's rows for its frames.
#[test]
fn sampler_alone_and_windows() {
    let dir = temp_dir("window");
    let (rom, movie) = (repo("roms-test/tracker.nes"), repo("movies/tracker.fm2"));
    let full = dir.join("full");
    profile(&rom, Some(&movie), &full, &["--frames", "400"]);
    let sampled = dir.join("sampled");
    profile(
        &rom,
        Some(&movie),
        &sampled,
        &["--frames", "400", "--no-truth"],
    );
    assert!(!sampled.join("truth.ron").exists());
    let exact_rows = rows(&full.join("frames.csv"));
    let sampled_rows = rows(&sampled.join("frames.csv"));
    assert_eq!(exact_rows.len(), sampled_rows.len());
    assert!(!sampled_rows[0].contains_key("busy"));
    for (e, s) in exact_rows.iter().zip(&sampled_rows) {
        assert_eq!(e["frame"], s["frame"]);
        assert_eq!(e["cycles"], s["cycles"]);
        assert_eq!(e["lag"], s["lag"], "frame {}", e["frame"]);
    }
    for r in rows(&sampled.join("routines.csv")) {
        let v: f64 = r["sampled_pct_of_busy"].parse().unwrap();
        let lo: f64 = r["sampled_pct_low"].parse().unwrap();
        let hi: f64 = r["sampled_pct_high"].parse().unwrap();
        assert!(lo <= v && v <= hi, "{}", r["routine"]);
    }

    let window = dir.join("window");
    profile(
        &rom,
        Some(&movie),
        &window,
        &["--from-frame", "300", "--frames", "50"],
    );
    let window_rows = rows(&window.join("frames.csv"));
    assert_eq!(window_rows.len(), 50);
    let by_frame: HashMap<&str, &HashMap<String, String>> = exact_rows
        .iter()
        .map(|r| (r["frame"].as_str(), r))
        .collect();
    for w in &window_rows {
        let f = by_frame[w["frame"].as_str()];
        for k in ["cycles", "idle", "oam_dma", "dmc_dma", "lag"] {
            assert_eq!(w[k], f[k], "frame {}: {k}", w["frame"]);
        }
        let work = |r: &HashMap<String, String>| num(r, "busy") + num(r, "nmi") + num(r, "irq");
        assert_eq!(work(w), work(f), "frame {}", w["frame"]);
    }
    assert_eq!(window_rows[0]["frame"], "300");

    // --start-at: from the first time the PC reaches a label, mid-frame.
    let label = dir.join("label");
    profile(
        &rom,
        Some(&movie),
        &label,
        &["--start-at", "play_init", "--frames", "20"],
    );
    let label_rows = rows(&label.join("frames.csv"));
    assert_eq!(label_rows.len(), 20, "the partial frame and 19 more");
    let first = &label_rows[0];
    assert!(num(first, "cycles") < 29_780, "a partial first frame");
    check_identity(&label_rows, "start-at");
    let report = std::fs::read_to_string(label.join("report.txt")).unwrap();
    assert!(report.contains("from play_init"), "{report}");
    let _ = std::fs::remove_dir_all(&dir);
}
