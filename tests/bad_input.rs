//! Bad input, table-driven: each case is a command line a user could type
//! (bad numbers, unusable output paths, files that are not what they claim)
//! and must end with exit status 2 and exactly one line (at most 400 bytes)
//! on stderr, without a panic and within a time limit (a hang fails the case, it does not stall
//! the suite).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Longest any bad input may take to be refused.
const LIMIT: Duration = Duration::from_secs(20);

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A scratch directory with the odd files the cases point at.
fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nesprof-bad-input-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("a-directory")).unwrap();
    let fifo = dir.join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) on a NUL-terminated path we own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
    std::os::unix::fs::symlink(dir.join("nowhere/x"), dir.join("dangling")).unwrap();
    // Movies for maze: its real one, cut inside the header, with a junk
    // header line, with a 5 MB field, and one naming another ROM.
    let movie = std::fs::read_to_string(repo().join("movies/maze.fm2")).unwrap();
    let header_end = movie.find("\n|").expect("input lines");
    std::fs::write(dir.join("truncated.fm2"), &movie[..header_end / 2]).unwrap();
    std::fs::write(
        dir.join("junk.fm2"),
        movie.replacen("\n", "\n!! not a header line !!\n", 1),
    )
    .unwrap();
    let long = format!("comment {}", "x".repeat(5 << 20));
    std::fs::write(
        dir.join("long.fm2"),
        movie
            .replacen("\n", &format!("\n{long}\n"), 1)
            .replacen("version 3", "version 3x", 1),
    )
    .unwrap();
    let other = std::fs::read_to_string(repo().join("movies/swarm.fm2")).unwrap();
    std::fs::write(dir.join("other-rom.fm2"), other).unwrap();
    // CFG records: an unknown kind, a dangling edge, a block ending before
    // it starts (from a real record of cfgdemo).
    let cfg = std::fs::read_to_string(repo().join("fuzz/corpus/cfg/cfgdemo_truth.ron")).unwrap();
    std::fs::write(
        dir.join("kind.ron"),
        cfg.replacen("kind: \"truth\"", "kind: \"magic\"", 1),
    )
    .unwrap();
    std::fs::write(
        dir.join("backwards.ron"),
        cfg.replacen("end: 32790", "end: 32700", 1),
    )
    .unwrap();
    let edges = cfg.find("edges:").expect("an edge list");
    let dangling = format!(
        "{}{}",
        &cfg[..edges],
        cfg[edges..].replacen("32790", "1234", 1)
    );
    std::fs::write(dir.join("dangling.ron"), dangling).unwrap();
    // Workloads: a number out of range, and not RON at all.
    std::fs::write(
        dir.join("minutes.ron"),
        "(workloads: [(name: \"m\", rom: \"roms-test/maze.nes\", minutes: 1e300)])",
    )
    .unwrap();
    std::fs::write(dir.join("garbage.ron"), [0xFFu8, 0xFE, 0, 1, 2]).unwrap();
    dir
}

/// Runs nesprof with `args`, killing it at [`LIMIT`]: (exit code, stderr),
/// or an error saying it hung.
fn run(args: &[String]) -> Result<(Option<i32>, String), String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_nesprof"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nesprof starts");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("still running after {LIMIT:?}"));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Ok((status.code(), reader.join().unwrap_or_default()))
}

#[test]
fn every_bad_input_exits_2_with_one_line() {
    let dir = scratch();
    let d = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let rom = repo().join("roms-test/maze.nes");
    let rom = rom.to_str().unwrap();
    let out = d("out");
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<String>)> = vec![
        // Numbers.
        ("batch above u64", vec!["profile".into(), rom.into(), "--batch".into(), "18446744073709551616".into()]),
        ("batch u64::MAX", vec!["profile".into(), rom.into(), "--batch".into(), "18446744073709551615".into()]),
        ("batch 2^32", vec!["profile".into(), rom.into(), "--batch".into(), "4294967296".into()]),
        ("batch 1e8", vec!["profile".into(), rom.into(), "--batch".into(), "100000000".into()]),
        ("batch 0", vec!["profile".into(), rom.into(), "--batch".into(), "0".into()]),
        ("sweep batch 1e8", vec!["sweep".into(), rom.into(), "--batch".into(), "100000000".into()]),
        ("jitter inf", vec!["profile".into(), rom.into(), "--jitter-ms".into(), "inf".into()]),
        ("jitter negative", vec!["profile".into(), rom.into(), "--jitter-ms=-1".into()]),
        ("minutes inf", vec!["profile".into(), rom.into(), "--minutes".into(), "inf".into()]),
        ("minutes 1e308", vec!["profile".into(), rom.into(), "--minutes".into(), "1e308".into()]),
        ("minutes nan", vec!["profile".into(), rom.into(), "--minutes".into(), "nan".into()]),
        ("sweep minutes nan", vec!["sweep".into(), rom.into(), "--minutes".into(), "NaN".into()]),
        ("interval 1e308", vec!["profile".into(), rom.into(), "--interval-ms".into(), "1e308".into()]),
        ("interval 0", vec!["profile".into(), rom.into(), "--interval-ms".into(), "0".into()]),
        ("interval text", vec!["profile".into(), rom.into(), "--interval-ms".into(), "three".into()]),
        ("sweep jobs 0", vec!["sweep".into(), rom.into(), "--jobs".into(), "0".into()]),
        ("run frames 0", vec!["run".into(), rom.into(), "--frames".into(), "0".into()]),
        ("run frames huge", vec!["run".into(), rom.into(), "--frames".into(), "99999999999999".into()]),
        ("trace instructions negative", vec!["trace".into(), rom.into(), "--instructions=-5".into()]),
        ("movie gen frames 0", vec!["movie".into(), "gen".into(), rom.into(), "--frames".into(), "0".into(), "--out".into(), d("m.fm2")]),
        ("config with 3 fields", vec!["profile".into(), rom.into(), "--builder".into(), "gfc".into(), "--config".into(), "1,2,3".into()]),
        ("unknown engine", vec!["run".into(), rom.into(), "--engine".into(), "jit".into()]),
        // Output paths.
        ("screenshot into a missing directory", vec!["run".into(), rom.into(), "--frames".into(), "2".into(), "--screenshot".into(), d("nowhere/x.png")]),
        ("screenshot onto a directory", vec!["run".into(), rom.into(), "--frames".into(), "2".into(), "--screenshot".into(), d("a-directory")]),
        ("screenshot onto a FIFO", vec!["run".into(), rom.into(), "--frames".into(), "2".into(), "--screenshot".into(), d("fifo")]),
        ("wav onto a device", vec!["run".into(), rom.into(), "--frames".into(), "2".into(), "--wav".into(), "/dev/null".into()]),
        ("wav onto a dangling symlink", vec!["run".into(), rom.into(), "--frames".into(), "2".into(), "--wav".into(), d("dangling")]),
        ("profile out is a device", vec!["profile".into(), rom.into(), "--frames".into(), "2".into(), "--out".into(), "/dev/null".into()]),
        ("sweep out is a FIFO", vec!["sweep".into(), rom.into(), "--minutes".into(), "0.01".into(), "--out".into(), d("fifo")]),
        ("cfg record out is a directory", vec!["cfg".into(), "record".into(), rom.into(), "--frames".into(), "2".into(), "--out".into(), d("a-directory")]),
        ("cdl onto a directory", vec!["profile".into(), rom.into(), "--frames".into(), "2".into(), "--out".into(), out.clone(), "--cdl".into(), d("a-directory")]),
        ("cdl onto a device", vec!["profile".into(), rom.into(), "--frames".into(), "2".into(), "--out".into(), out.clone(), "--cdl".into(), "/dev/null".into()]),
        // Issue 25/26 inputs and numbers.
        ("symbols file is a FIFO", vec!["profile".into(), rom.into(), "--frames".into(), "2".into(), "--out".into(), out.clone(), "--symbols".into(), d("fifo")]),
        ("symbols file is a directory", vec!["profile".into(), rom.into(), "--frames".into(), "2".into(), "--out".into(), out.clone(), "--symbols".into(), d("a-directory")]),
        ("symbols of an unknown format", vec!["profile".into(), rom.into(), "--frames".into(), "2".into(), "--out".into(), out.clone(), "--symbols".into(), d("junk.fm2")]),
        ("cfg dot ROM is a FIFO", vec!["cfg".into(), "dot".into(), repo().join("fuzz/corpus/cfg/cfgdemo_truth.ron").display().to_string(), "--rom".into(), d("fifo")]),
        ("cfg dot ROM is a movie", vec!["cfg".into(), "dot".into(), repo().join("fuzz/corpus/cfg/cfgdemo_truth.ron").display().to_string(), "--rom".into(), d("junk.fm2")]),
        ("memory lifetime 0", vec!["profile".into(), rom.into(), "--memory".into(), "--memory-lifetime".into(), "0".into()]),
        ("memory lifetime nan", vec!["profile".into(), rom.into(), "--memory".into(), "--memory-lifetime".into(), "nan".into()]),
        ("memory lifetime huge", vec!["profile".into(), rom.into(), "--memory".into(), "--memory-lifetime".into(), "99999999999999999999".into()]),
        ("memory bursts 0/10", vec!["profile".into(), rom.into(), "--memory".into(), "--memory-bursts".into(), "0/10".into()]),
        ("memory bursts inf", vec!["profile".into(), rom.into(), "--memory".into(), "--memory-bursts".into(), "inf".into()]),
        ("memory bursts on above period", vec!["profile".into(), rom.into(), "--memory".into(), "--memory-bursts".into(), "3/2".into()]),
        ("memory bursts warm-up too long", vec!["profile".into(), rom.into(), "--memory".into(), "--memory-bursts".into(), "3/10/8".into()]),
        ("truth bursts with a warm-up", vec!["profile".into(), rom.into(), "--truth-bursts".into(), "1/10/2".into()]),
        ("truth bursts 0/10", vec!["profile".into(), rom.into(), "--truth-bursts".into(), "0/10".into()]),
        ("memory bursts four parts", vec!["profile".into(), rom.into(), "--memory".into(), "--memory-bursts".into(), "1/10/2/3".into()]),
        ("play memory without overlay", vec!["play".into(), rom.into(), "--memory".into()]),
        ("play memory bursts without memory", vec!["play".into(), rom.into(), "--overlay".into(), "--memory-bursts".into(), "1/30".into()]),
        ("play memory bursts 0/10", vec!["play".into(), rom.into(), "--overlay".into(), "--memory".into(), "--memory-bursts".into(), "0/10".into()]),
        ("play memory bursts warm-up too long", vec!["play".into(), rom.into(), "--overlay".into(), "--memory".into(), "--memory-bursts".into(), "3/10/8".into()]),
        ("play memory lifetime 0", vec!["play".into(), rom.into(), "--overlay".into(), "--memory".into(), "--memory-lifetime".into(), "0".into()]),
        ("play overlay view unknown", vec!["play".into(), rom.into(), "--overlay".into(), "--overlay-view".into(), "sideways".into()]),
        ("play overlay view without overlay", vec!["play".into(), rom.into(), "--overlay-view".into(), "memory".into()]),
        ("shard 0/3", vec!["sweep".into(), "--shard".into(), "0/3".into(), "--out".into(), out.clone()]),
        ("shard nan", vec!["sweep".into(), "--shard".into(), "nan".into(), "--out".into(), out.clone()]),
        ("sweep merge of a FIFO", vec!["sweep".into(), "merge".into(), d("fifo"), "--out".into(), out.clone()]),
        ("sweep merge of an empty directory", vec!["sweep".into(), "merge".into(), d("a-directory"), "--out".into(), out.clone()]),
        ("movie gen out is a FIFO", vec!["movie".into(), "gen".into(), rom.into(), "--frames".into(), "2".into(), "--out".into(), d("fifo")]),
        ("play record onto a FIFO", vec!["play".into(), rom.into(), "--record".into(), d("fifo")]),
        // Input files.
        ("ROM is a directory", vec!["run".into(), d("a-directory")]),
        ("ROM is missing", vec!["run".into(), d("missing.nes")]),
        ("ROM is a FIFO", vec!["run".into(), d("fifo")]),
        ("ROM is /dev/zero", vec!["run".into(), "/dev/zero".into()]),
        ("movie is /dev/zero", vec!["run".into(), rom.into(), "--movie".into(), "/dev/zero".into()]),
        ("movie is a FIFO", vec!["run".into(), rom.into(), "--movie".into(), d("fifo")]),
        ("test movie is a FIFO", vec!["test".into(), rom.into(), "--movie".into(), d("fifo")]),
        ("workloads is a FIFO", vec!["sweep".into(), "--workloads".into(), d("fifo"), "--out".into(), out.clone()]),
        ("CFG is /dev/zero", vec!["cfg".into(), "dot".into(), "/dev/zero".into()]),
        ("samples are a FIFO", vec!["cfg".into(), "build".into(), d("fifo")]),
        ("samples are a CFG", vec!["cfg".into(), "build".into(), d("kind.ron")]),
        // File contents.
        ("movie cut inside its header", vec!["run".into(), rom.into(), "--movie".into(), d("truncated.fm2")]),
        ("movie with a junk header line", vec!["run".into(), rom.into(), "--movie".into(), d("junk.fm2")]),
        ("movie with a 5 MB field", vec!["run".into(), rom.into(), "--movie".into(), d("long.fm2")]),
        ("movie of another ROM", vec!["run".into(), rom.into(), "--movie".into(), d("other-rom.fm2")]),
        ("profile with a movie of another ROM", vec!["profile".into(), rom.into(), "--movie".into(), d("other-rom.fm2")]),
        ("CFG of an unknown kind", vec!["cfg".into(), "dot".into(), d("kind.ron")]),
        ("CFG with a dangling edge", vec!["cfg".into(), "dot".into(), d("dangling.ron")]),
        ("CFG block ending before it starts", vec!["cfg".into(), "dot".into(), d("backwards.ron")]),
        ("CFG diff of a bad CFG", vec!["cfg".into(), "diff".into(), d("kind.ron"), d("kind.ron")]),
        ("workloads minutes 1e300", vec!["sweep".into(), "--workloads".into(), d("minutes.ron"), "--out".into(), out.clone()]),
        ("workloads not RON", vec!["sweep".into(), "--workloads".into(), d("garbage.ron"), "--out".into(), out.clone()]),
        ("ROM that is a movie", vec!["run".into(), d("junk.fm2")]),
    ];
    let mut failures = Vec::new();
    for (name, args) in &cases {
        match run(args) {
            Err(hang) => failures.push(format!("{name}: {hang}")),
            Ok((code, stderr)) => {
                let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
                // One line, and a short one: a field of the input is shortened,
                // never echoed whole.
                let short = lines.first().is_some_and(|l| l.len() <= 400);
                if code != Some(2) || lines.len() != 1 || !short || stderr.contains("panicked") {
                    failures.push(format!("{name}: exit {code:?}, stderr {stderr:?}"));
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "{} of {} bad inputs not refused cleanly:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------
// Issue 42, the sweep's part: workload names that are not file names, and
// absurd numbers in a hand-edited shard file. Refused before any work:
// exit 2, one line, and no file written anywhere, inside `--out` or out.
// ---------------------------------------------------------------------

/// Every file and directory under `dir` (relative), but `skip`'s contents.
fn tree(dir: &Path, skip: &Path) -> std::collections::BTreeSet<PathBuf> {
    let mut out = std::collections::BTreeSet::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            out.insert(path.strip_prefix(dir).unwrap().to_path_buf());
            if path.is_dir() && path != skip {
                todo.push(path);
            }
        }
    }
    out
}

/// `text` with the first `field: VALUE,` line's value replaced.
fn set_first(text: &str, field: &str, value: &str) -> String {
    let key = format!(" {field}: ");
    let at = text
        .find(&key)
        .unwrap_or_else(|| panic!("no {field} in the shard"))
        + key.len();
    let end = at + text[at..].find(",\n").expect("a RON field line");
    format!("{}{value}{}", &text[..at], &text[end..])
}

#[test]
fn sweep_names_and_shard_values_are_refused_before_any_work() {
    let root = std::env::temp_dir().join(format!("nesprof-bad-sweep-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    // Deep enough that `../../../x` from out/cfg stays inside `root`,
    // where a file written by mistake would be seen.
    let work = root.join("a/b/c");
    std::fs::create_dir_all(&work).unwrap();
    // `--out` exists (the run may create it): only what is in it may change.
    let out = work.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let rom = |name: &str| {
        repo()
            .join(format!("roms-test/{name}.nes"))
            .display()
            .to_string()
    };
    let entry = |name: &str, rom: &str| format!("(name: {name:?}, rom: {rom:?}, minutes: 0.02)");
    let list = |entries: &[String]| format!("(workloads: [{}])", entries.join(", "));

    // A real shard of a short two-workload sweep: the template of the
    // hand-edited ones.
    let two = root.join("two.ron");
    std::fs::write(
        &two,
        list(&[
            entry("maze", &rom("maze")),
            entry("cfgdemo", &rom("cfgdemo")),
        ]),
    )
    .unwrap();
    let base = root.join("base");
    let made = Command::new(env!("CARGO_BIN_EXE_nesprof"))
        .args(["sweep", "--shard", "1/1", "--jobs", "1", "--workloads"])
        .arg(&two)
        .arg("--out")
        .arg(&base)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let shard = std::fs::read_to_string(base.join("shard-1-of-1.ron")).unwrap();

    let absolute = root.join("abs/x").display().to_string();
    let long = "y".repeat(250);
    let names = [
        "../../../x",
        absolute.as_str(),
        long.as_str(),
        "a\u{1b}[2Jb",
        "tab\there",
        "..",
        ".hidden",
        "a\\b",
    ];
    let mut cases: Vec<(String, Vec<String>)> = Vec::new();
    let mut add_ron = |label: String, text: String| {
        let file = root.join(format!("list-{}.ron", cases.len()));
        std::fs::write(&file, text).unwrap();
        let args = vec![
            "sweep".into(),
            "--workloads".into(),
            file.display().to_string(),
        ];
        cases.push((label, args));
    };
    for name in names {
        add_ron(
            format!("workloads name {name:?}"),
            list(&[entry(name, &rom("maze"))]),
        );
    }
    add_ron(
        "workloads names Maze and maze".into(),
        list(&[entry("Maze", &rom("maze")), entry("maze", &rom("maze"))]),
    );
    let mut shards: Vec<(String, String)> = names
        .iter()
        .map(|name| {
            (
                format!("shard name {name:?}"),
                shard.replace("name: \"maze\"", &format!("name: {name:?}")),
            )
        })
        .collect();
    shards.push((
        "shard names MAZE and maze".into(),
        shard.replace("name: \"cfgdemo\"", "name: \"MAZE\""),
    ));
    for (field, value) in [
        ("similarity", "inf"),
        ("similarity", "NaN"),
        ("similarity", "1e308"),
        ("similarity", "-0.5"),
        ("similarity", "1e50"),
        ("precision", "-inf"),
        ("overlap", "NaN"),
        ("sampled_pct", "1e50"),
        ("top_edge_pct", "-1.0"),
        ("sampled_instructions", "-5"),
        ("sampled_instructions", "18446744073709551615"),
        ("edges_h90", "1000000"),
        ("bins", "1000000000000"),
        ("secs", "18446744073709551615"),
        ("interval_ms", "inf"),
        ("minutes", "Some(NaN)"),
        ("threads", "0"),
    ] {
        shards.push((
            format!("shard {field}: {value}"),
            set_first(&shard, field, value),
        ));
    }
    for (i, (label, text)) in shards.into_iter().enumerate() {
        let dir = root.join(format!("shard-{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("shard-1-of-1.ron"), text).unwrap();
        let args = vec!["sweep".into(), "merge".into(), dir.display().to_string()];
        cases.push((label, args));
    }

    let before = tree(&root, &out);
    let mut failures = Vec::new();
    for (label, mut args) in cases {
        args.extend(["--out".into(), out.display().to_string()]);
        match run(&args) {
            Err(hang) => failures.push(format!("{label}: {hang}")),
            Ok((code, stderr)) => {
                let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
                let short = lines.first().is_some_and(|l| l.len() <= 400);
                if code != Some(2) || lines.len() != 1 || !short || stderr.contains("panicked") {
                    failures.push(format!("{label}: exit {code:?}, stderr {stderr:?}"));
                }
            }
        }
        let after = tree(&root, &out);
        if after != before {
            let new: Vec<_> = after.difference(&before).collect();
            failures.push(format!("{label}: wrote outside --out: {new:?}"));
        }
        if out.join("cfg").exists() || out.join("tables.md").exists() {
            failures.push(format!("{label}: wrote outputs although refused"));
        }
    }
    let _ = std::fs::remove_dir_all(&root);
    assert!(
        failures.is_empty(),
        "{} bad sweep inputs not refused cleanly:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
