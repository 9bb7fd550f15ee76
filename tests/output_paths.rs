//! What a run may write (issue 42): an output that would land on an input,
//! on another output, among an output directory's set, or in a directory
//! another command's results or another run occupy, is refused before the
//! run with exit 2 and one line — and nothing on disk changes. Also: the
//! directory lock, stale temporaries, and a directory that cannot be written
//! found before the run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn nesprof(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nesprof"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// Every file under `dir` (symlinks as their target's path), by relative name.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let name = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let kind = entry.file_type().unwrap();
            if kind.is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                out.insert(name, target.to_string_lossy().into_owned().into_bytes());
            } else if kind.is_dir() {
                out.insert(format!("{name}/"), Vec::new());
                walk(root, &path, out);
            } else {
                out.insert(name, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nesprof-paths-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

#[test]
fn outputs_on_inputs_or_on_each_other_are_refused_and_nothing_changes() {
    let dir = scratch("refused");
    let d = |name: &str| s(&dir.join(name));
    std::fs::copy(repo().join("roms-test/maze.nes"), dir.join("R.nes")).unwrap();
    std::fs::copy(repo().join("movies/maze.fm2"), dir.join("M.fm2")).unwrap();
    std::os::unix::fs::symlink(dir.join("R.nes"), dir.join("link.nes")).unwrap();
    std::fs::hard_link(dir.join("R.nes"), dir.join("hard.nes")).unwrap();
    let ok = |args: &[String]| {
        let out = nesprof(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    // A profile's results, a sweep's results and a CFG record to aim at.
    let frames = || ["--frames".to_string(), "30".to_string()];
    ok(&[
        vec!["profile".into(), d("R.nes"), "--out".into(), d("P")],
        frames().to_vec(),
    ]
    .concat());
    ok(&[
        "sweep".into(),
        d("R.nes"),
        "--minutes".into(),
        "0.02".into(),
        "--jobs".into(),
        "1".into(),
        "--out".into(),
        d("S"),
    ]);
    ok(&[
        vec![
            "cfg".into(),
            "record".into(),
            d("R.nes"),
            "--out".into(),
            d("C.ron"),
        ],
        frames().to_vec(),
    ]
    .concat());
    std::fs::write(dir.join("mine.txt"), "the user's").unwrap();
    #[rustfmt::skip]
    let cases: Vec<Vec<String>> = vec![
        vec!["movie".into(), "gen".into(), d("R.nes"), "--out".into(), d("R.nes")],
        vec!["movie".into(), "gen".into(), d("R.nes"), "--out".into(), d("link.nes")],
        vec!["movie".into(), "gen".into(), d("R.nes"), "--out".into(), d("hard.nes")],
        vec!["movie".into(), "gen".into(), d("R.nes"), "--out".into(), format!("{}/../{}/R.nes", d("P"), dir.file_name().unwrap().to_str().unwrap())],
        vec!["run".into(), d("R.nes"), "--screenshot".into(), d("R.nes")],
        vec!["run".into(), d("R.nes"), "--movie".into(), d("M.fm2"), "--wav".into(), d("M.fm2")],
        vec!["run".into(), d("R.nes"), "--screenshot".into(), d("x"), "--wav".into(), d("x")],
        vec!["profile".into(), d("R.nes"), "--cdl".into(), d("R.nes"), "--out".into(), d("Q")],
        vec!["profile".into(), d("R.nes"), "--out".into(), d("Q"), "--cdl".into(), d("Q")],
        vec!["profile".into(), d("R.nes"), "--out".into(), d("P"), "--cdl".into(), d("P/samples.bin")],
        vec!["profile".into(), d("R.nes"), "--out".into(), d("S")],
        vec!["profile".into(), d("R.nes"), "--out".into(), s(&dir)],
        vec!["cfg".into(), "record".into(), d("R.nes"), "--movie".into(), d("M.fm2"), "--out".into(), d("M.fm2")],
        vec!["cfg".into(), "record".into(), d("R.nes"), "--out".into(), d("y"), "--dot".into(), d("y")],
        vec!["cfg".into(), "dot".into(), d("C.ron"), "--out".into(), d("C.ron")],
        vec!["cfg".into(), "build".into(), d("P/samples.bin"), "--truth".into(), d("P/truth.ron"), "--out".into(), d("P")],
        vec!["cfg".into(), "build".into(), d("P/samples.bin"), "--truth".into(), d("P/truth.ron"), "--out".into(), d("S")],
        vec!["play".into(), d("R.nes"), "--record".into(), d("R.nes")],
        vec!["sweep".into(), "merge".into(), d("S"), "--out".into(), d("P")],
        vec!["sweep".into(), d("R.nes"), "--out".into(), d("P")],
    ];
    let before = tree(&dir);
    let mut failures = Vec::new();
    for args in &cases {
        let out = nesprof(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let lines = stderr.trim_end().lines().count();
        if out.status.code() != Some(2) || lines != 1 || stderr.contains("panicked") {
            failures.push(format!("{args:?}: {} {stderr:?}", out.status));
        }
        let after = tree(&dir);
        if after != before {
            let changed: Vec<&String> = after
                .keys()
                .chain(before.keys())
                .filter(|n| after.get(*n) != before.get(*n))
                .collect();
            failures.push(format!("{args:?} changed {changed:?}"));
            break;
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_second_run_into_a_busy_directory_is_refused() {
    let dir = scratch("lock");
    let rom = s(&repo().join("roms-test/tracker.nes"));
    let out = s(&dir.join("out"));
    let mut first = Command::new(env!("CARGO_BIN_EXE_nesprof"))
        .args(["profile", &rom, "--minutes", "60", "--out", &out])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Until the first run has taken the lock (its progress shows it running).
    let start = Instant::now();
    while !dir.join("out/.nesprof-lock").exists() && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    let second = nesprof(&[
        "profile".into(),
        rom.clone(),
        "--frames".into(),
        "10".into(),
        "--out".into(),
        out.clone(),
    ]);
    let _ = first.kill();
    let _ = first.wait();
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("another nesprof run"), "{stderr}");
    // Killed, the first run released the lock (and left temporaries, which
    // the next run removes).
    let third = nesprof(&[
        "profile".into(),
        rom,
        "--frames".into(),
        "10".into(),
        "--out".into(),
        out,
    ]);
    assert!(
        third.status.success(),
        "{}",
        String::from_utf8_lossy(&third.stderr)
    );
    let leftovers: Vec<String> = tree(&dir)
        .into_keys()
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unwritable_output_directory_is_refused_before_the_run() {
    // /proc/1 exists and is a directory in which nothing can be created,
    // even by root (a read-only permission bit would not stop root).
    let rom = s(&repo().join("roms-test/tracker.nes"));
    for args in [
        vec![
            "profile".to_string(),
            rom.clone(),
            "--minutes".into(),
            "600".into(),
            "--out".into(),
            "/proc/1".into(),
        ],
        vec![
            "sweep".to_string(),
            rom.clone(),
            "--minutes".into(),
            "600".into(),
            "--out".into(),
            "/proc/1".into(),
        ],
        vec![
            "run".to_string(),
            rom.clone(),
            "--frames".into(),
            "10000000".into(),
            "--wav".into(),
            "/proc/1/x.wav".into(),
        ],
    ] {
        let start = Instant::now();
        let out = nesprof(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        // Refused at once, not after 600 emulated minutes (a generous bound:
        // the run itself would take minutes).
        assert!(start.elapsed() < Duration::from_secs(30), "{args:?}");
    }
}
