//! The CLI contract of DESIGN.md: last-line formats, exit codes, error messages.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

fn nesprof(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nesprof"))
        .args(args)
        .output()
        .expect("nesprof runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn nestest() -> String {
    common::roms_root()
        .join("cpu/nestest/nestest.nes")
        .display()
        .to_string()
}

fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let path = std::env::temp_dir().join(format!("nesprof-cli-{}-{name}", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Splits `key=value key=value` into pairs.
fn fields(line: &str) -> Vec<(String, String)> {
    line.split_whitespace()
        .map(|kv| {
            let (k, v) = kv
                .split_once('=')
                .unwrap_or_else(|| panic!("`{kv}` is not key=value"));
            (k.to_string(), v.to_string())
        })
        .collect()
}

#[test]
fn run_prints_the_contract_line() {
    let out = nesprof(&["run", &nestest(), "--frames", "10"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let last = text.lines().last().expect("output");
    let f = fields(last);
    let keys: Vec<&str> = f.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        keys,
        [
            "frames",
            "instructions",
            "cycles",
            "fps",
            "frame_hash",
            "ram_hash"
        ]
    );
    assert_eq!(f[0].1, "10");
    assert!(f[1].1.parse::<u64>().unwrap() > 0);
    // 10 NTSC frames are about 298,000 CPU cycles.
    let cycles: u64 = f[2].1.parse().unwrap();
    assert!((290_000..310_000).contains(&cycles), "cycles={cycles}");
    assert!(f[3].1.parse::<f64>().unwrap() > 0.0);
    for (_, hash) in &f[4..] {
        assert_eq!(hash.len(), 16);
        assert!(hash
            .chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
    }
}

#[test]
fn run_is_deterministic() {
    let a = stdout(&nesprof(&["run", &nestest(), "--frames", "30"]));
    let b = stdout(&nesprof(&["run", &nestest(), "--frames", "30"]));
    let strip = |s: &str| {
        fields(s.lines().last().unwrap())
            .into_iter()
            .filter(|(k, _)| k != "fps")
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&a), strip(&b));
}

/// `run --regions` (issue 47): every choice of hot regions gives the run
/// line of a run without them (fps aside), the guided ones from the
/// sampler's live hot CFG and from `profile`'s truth.ron; the sampled
/// guide's regions are the same from run to run (it takes the hot CFG at
/// fixed frames); the options that go together are checked.
#[test]
fn hot_regions_change_no_result() {
    let rom = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("roms-test/plasma.nes");
    let movie = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("movies/plasma.fm2");
    let (rom, movie) = (rom.to_str().unwrap(), movie.to_str().unwrap());
    let out = std::env::temp_dir().join(format!("nesprof-regions-{}", std::process::id()));
    let profiled = nesprof(&[
        "profile",
        rom,
        "--movie",
        movie,
        "--frames",
        "300",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(profiled.status.success(), "{}", stderr(&profiled));
    let truth = out.join("truth.ron");
    let run = |extra: &[&str]| {
        let mut args = vec!["run", rom, "--movie", movie, "--frames", "300"];
        args.extend_from_slice(extra);
        let o = nesprof(&args);
        assert!(o.status.success(), "{extra:?}: {}", stderr(&o));
        let line: Vec<_> = fields(stdout(&o).lines().last().unwrap())
            .into_iter()
            .filter(|(k, _)| k != "fps")
            .collect();
        let regions = stderr(&o)
            .lines()
            .find(|l| l.starts_with("regions:"))
            .map(str::to_string);
        (line, regions)
    };
    let (plain, none) = run(&[]);
    assert_eq!(none, None);
    let sampled = run(&["--regions", "sampled"]);
    for extra in [
        &["--regions", "net"][..],
        &["--regions", "sampled", "--interval-ms", "30"],
        &[
            "--regions",
            "exact",
            "--regions-from",
            truth.to_str().unwrap(),
        ],
    ] {
        let (line, regions) = run(extra);
        assert_eq!(line, plain, "{extra:?}");
        let regions = regions.unwrap_or_else(|| panic!("{extra:?}: no regions line"));
        assert!(!regions.contains(" ops=0 "), "{extra:?}: {regions}");
    }
    assert_eq!(sampled.0, plain);
    assert_eq!(
        sampled,
        run(&["--regions", "sampled"]),
        "the sampled guide differs between runs"
    );
    for bad in [
        &["--regions", "exact"][..],
        &[
            "--regions",
            "net",
            "--regions-from",
            truth.to_str().unwrap(),
        ],
        &["--interval-ms", "30"],
        &["--regions", "net", "--engine", "interp"],
        &[
            "--regions",
            "exact",
            "--regions-from",
            out.join("frames.csv").to_str().unwrap(),
        ],
    ] {
        let mut args = vec!["run", rom, "--frames", "2"];
        args.extend_from_slice(bad);
        assert_eq!(nesprof(&args).status.code(), Some(2), "{bad:?}");
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn trace_matches_nestest_log() {
    let out = nesprof(&["trace", &nestest(), "--nestest", "--instructions", "50"]);
    assert!(out.status.success());
    let log = std::fs::read_to_string(common::roms_root().join("cpu/nestest/nestest.log")).unwrap();
    let want: Vec<&str> = log.lines().take(50).collect();
    let text = stdout(&out);
    let got: Vec<&str> = text.lines().collect();
    assert_eq!(got, want);
}

#[test]
fn bad_roms_exit_2_with_a_clear_message() {
    let cases: [(&str, Vec<u8>, &str); 4] = [
        (
            "magic.nes",
            b"this is not a ROM at all".to_vec(),
            "bad magic",
        ),
        (
            "short.nes",
            b"NES\x1A\x02".to_vec(),
            "shorter than the 16-byte iNES header",
        ),
        (
            "truncated.nes",
            {
                let mut v = b"NES\x1A\x02\x01\x00\x00".to_vec();
                v.resize(16 + 1000, 0);
                v
            },
            "truncated",
        ),
        (
            "mmc5.nes",
            {
                let mut v = b"NES\x1A\x02\x01\x50\x00".to_vec();
                v.resize(16 + 2 * 16384 + 8192, 0);
                v
            },
            "mapper 5 (MMC5) is not supported",
        ),
    ];
    for (name, bytes, message) in cases {
        let path = temp_file(name, &bytes);
        for cmd in ["run", "trace"] {
            let out = nesprof(&[cmd, path.to_str().unwrap()]);
            assert_eq!(out.status.code(), Some(2), "{cmd} {name}");
            let err = stderr(&out);
            assert!(err.contains(message), "{cmd} {name}: {err}");
            assert!(
                err.contains(path.file_name().unwrap().to_str().unwrap()),
                "names the file: {err}"
            );
            assert!(!err.contains("panicked"), "{err}");
        }
        std::fs::remove_file(&path).ok();
    }
    let missing = nesprof(&["run", "/nonexistent/rom.nes"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("/nonexistent/rom.nes"));
}

#[test]
fn bad_arguments_exit_2() {
    assert_eq!(nesprof(&["run"]).status.code(), Some(2));
    assert_eq!(
        nesprof(&["run", &nestest(), "--frames", "lots"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        nesprof(&["test", &nestest(), "--protocol", "telepathy"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(nesprof(&["frobnicate"]).status.code(), Some(2));
    // An output file that cannot be created is a bad argument too.
    let unwritable = nesprof(&[
        "run",
        &nestest(),
        "--frames",
        "2",
        "--screenshot",
        "/nonexistent-dir/shot.png",
    ]);
    assert_eq!(unwritable.status.code(), Some(2));
    assert!(stderr(&unwritable).contains("/nonexistent-dir/shot.png"));
}

#[test]
fn every_subcommand_has_help() {
    for cmd in [
        &["run"][..],
        &["test"],
        &["trace"],
        &["play"],
        &["profile"],
        &["sweep"],
        &["movie"],
        &["cfg"],
        &["cfg", "record"],
        &["cfg", "dot"],
        &["cfg", "diff"],
    ] {
        let cmd = cmd.join(" ");
        let mut args: Vec<&str> = cmd.split(' ').collect();
        args.push("--help");
        let out = nesprof(&args);
        assert!(out.status.success(), "{cmd} --help");
        assert!(stdout(&out).contains("Usage"), "{cmd} --help");
    }
}

/// Issue 43: the help names the default builder (the trace builder), not
/// GFCGaussiano alone, and points only at documents the repository has.
#[test]
fn help_names_the_default_builder_and_documents_in_the_repository() {
    let top = stdout(&nesprof(&["--help"]));
    assert!(top.contains("trace builder"), "{top}");
    assert!(!top.contains("feeds the GFCGaussiano"), "{top}");
    let profile = stdout(&nesprof(&["profile", "--help"]));
    assert!(profile.contains("trace builder"), "{profile}");
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for cmd in [
        &["--help"][..],
        &["profile", "--help"],
        &["sweep", "--help"],
    ] {
        let text = stdout(&nesprof(cmd));
        assert!(!text.contains("DESIGN.md"), "{cmd:?} names DESIGN.md");
        for word in text.split(|c: char| c.is_whitespace() || c == '(' || c == ')') {
            if let Some(doc) = word.strip_prefix("docs/") {
                let doc = doc.trim_end_matches([',', '.', ';', ':']);
                assert!(repo.join("docs").join(doc).is_file(), "{cmd:?}: docs/{doc}");
            }
        }
    }
    assert!(stdout(&nesprof(&["sweep", "--help"])).contains("docs/metrics.md"));
}

#[test]
fn test_reports_pass_fail_and_totals() {
    let root = common::roms_root();
    let good = root
        .join("cpu/cpu_reset/registers.nes")
        .display()
        .to_string();
    let out = nesprof(&["test", &good, &nestest()]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(text.contains("PASS cpu/cpu_reset/registers.nes"), "{text}");
    assert!(text.contains("PASS cpu/nestest/nestest.nes"), "{text}");
    assert_eq!(text.lines().last(), Some("2 passed, 0 failed"));

    // Too few frames to finish: reported as FAIL, exit 1.
    let out = nesprof(&["test", &good, "--max-frames", "5"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.starts_with("FAIL cpu/cpu_reset/registers.nes: "),
        "{text}"
    );
    assert_eq!(text.lines().last(), Some("0 passed, 1 failed"));
}

#[test]
fn cfg_record_dot_and_diff() {
    let rom = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("roms-test/cfgdemo.nes");
    let rom = rom.display().to_string();
    let dir = std::env::temp_dir().join(format!("nesprof-cli-cfg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = |name: &str| dir.join(name).display().to_string();
    let (interp, translate, dot) = (path("i.ron"), path("t.ron"), path("t.dot"));

    let out = nesprof(&[
        "cfg", "record", &rom, "--frames", "60", "--engine", "interp", "--out", &interp,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let line = stdout(&out);
    let f = fields(line.lines().last().unwrap());
    let keys: Vec<&str> = f.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        keys,
        [
            "frames",
            "instructions",
            "blocks",
            "edges",
            "edges_h90",
            "fps",
            "frame_hash"
        ]
    );
    assert_eq!(f[0].1, "60");
    assert_eq!(f[2].1, "9", "cfgdemo has nine blocks");

    let out = nesprof(&[
        "cfg", "record", &rom, "--frames", "60", "--out", &translate, "--dot", &dot,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&dot).unwrap();
    assert!(text.starts_with("digraph cfg {"), "{text}");
    assert!(
        text.contains("$8016-$801A"),
        "blocks labelled by address range: {text}"
    );
    let out = nesprof(&["cfg", "diff", &interp, &translate]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).starts_with("identical: 9 blocks"));

    // A shorter run has smaller counts: reported, exit 1.
    let short = path("short.ron");
    let out = nesprof(&["cfg", "record", &rom, "--frames", "30", "--out", &short]);
    assert!(out.status.success());
    let out = nesprof(&["cfg", "diff", &interp, &short]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("edge counts that differ"),
        "{}",
        stdout(&out)
    );

    let out = nesprof(&["cfg", "dot", &translate]);
    assert!(out.status.success());
    assert!(stdout(&out).contains("digraph"));

    let bad = temp_file("bad.ron", b"not a record");
    let out = nesprof(&["cfg", "dot", &bad.display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("not a CFG record"),
        "{}",
        stderr(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Graphviz reads the DOT that `cfg record --dot` writes.
#[test]
fn cfg_dot_parses_in_graphviz() {
    common::tools::require(&["dot"]);
    let rom = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("roms-test/cfgdemo.nes");
    let dir = std::env::temp_dir().join(format!("nesprof-cli-dot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (ron, dot) = (dir.join("t.ron"), dir.join("t.dot"));
    let out = nesprof(&[
        "cfg",
        "record",
        &rom.display().to_string(),
        "--frames",
        "60",
        "--out",
        &ron.display().to_string(),
        "--dot",
        &dot.display().to_string(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let svg = Command::new("dot")
        .args(["-Tsvg", "-o", "/dev/null"])
        .arg(&dot)
        .output()
        .expect("graphviz's `dot` runs");
    assert!(svg.status.success(), "{}", stderr(&svg));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sweep_writes_tables_csv_and_plots() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("nesprof-cli-sweep-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // A workloads file with one short workload and one whose ROM is missing.
    std::fs::create_dir_all(&dir).unwrap();
    let list = dir.join("w.ron");
    std::fs::write(
        &list,
        format!(
            "(workloads: [\n  (name: \"cfgdemo\", rom: \"{0}/roms-test/cfgdemo.nes\", \
             movie: \"{0}/movies/cfgdemo.fm2\", minutes: 0.1),\n  \
             (name: \"absent\", rom: \"no/such.nes\"),\n])",
            root.display()
        ),
    )
    .unwrap();
    let out_dir = dir.join("out");
    let out = nesprof(&[
        "sweep",
        "--workloads",
        &list.display().to_string(),
        "--out",
        &out_dir.display().to_string(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("skipped: absent"), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("(thesis table 3)"), "{text}");
    assert!(text.contains("(thesis table 4)"), "{text}");
    let f = fields(text.lines().last().unwrap());
    let keys: Vec<&str> = f.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        keys,
        [
            "workloads",
            "configs",
            "skipped",
            "failed",
            "best",
            "best_mean_similarity",
            "thesis_best_mean_similarity",
            "wall_s",
            "busy",
            "degenerate",
            "busy_gfc_similarity",
            "busy_trace_similarity",
            "busy_trace_hot_precision",
            "busy_trace_overlap"
        ]
    );
    assert_eq!(f[0].1, "1");
    assert_eq!(f[1].1, "144");
    assert_eq!(f[2].1, "1");
    let csv = std::fs::read_to_string(out_dir.join("sweep.csv")).unwrap();
    assert_eq!(
        csv.lines().count(),
        1 + 144 + 1,
        "header, one row per config, one for the trace builder"
    );
    for svg in [
        "heatmap_similarity.svg",
        "heatmap_similarity_h99.svg",
        "similarity_vs_sampled.svg",
    ] {
        let text = std::fs::read_to_string(out_dir.join(svg)).unwrap();
        assert!(text.contains("<svg"), "{svg}");
    }

    // Bad input: exit 2 with the file and line named.
    let bad = dir.join("bad.ron");
    std::fs::write(
        &bad,
        "(workloads: [\n  (name: \"x\", rom: \"x.nes\", minutes: -1.0),\n])",
    )
    .unwrap();
    let out = nesprof(&["sweep", "--workloads", &bad.display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("bad.ron:2:"), "{}", stderr(&out));
    let out = nesprof(&["sweep", "--minutes", "0"]);
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `cfg build` replays a profile's sample stream and prints the same last
/// line as the live `profile`, for both builders; the line's fields are
/// DESIGN.md's, in order, then the appended ones.
#[test]
fn cfg_build_replays_the_live_profile_line() {
    let dir = std::env::temp_dir().join(format!("nesprof-cli-build-{}", std::process::id()));
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let rom = repo.join("roms-test/maze.nes");
    let movie = repo.join("movies/maze.fm2");
    for builder in ["trace", "gfc"] {
        let out_dir = dir.join(builder);
        let live = nesprof(&[
            "profile",
            &rom.display().to_string(),
            "--movie",
            &movie.display().to_string(),
            "--frames",
            "900",
            "--builder",
            builder,
            "--out",
            &out_dir.display().to_string(),
        ]);
        assert!(live.status.success(), "{}", stderr(&live));
        let live_line = stdout(&live).lines().last().unwrap().to_string();
        let keys: Vec<String> = fields(&live_line).into_iter().map(|(k, _)| k).collect();
        assert_eq!(
            keys,
            [
                "similarity",
                "precision",
                "weighted",
                "overlap",
                "sampled_pct",
                "edges_g",
                "edges_h90",
                "frame_hash",
                "similarity99",
                "edges_h99",
                "hot_precision"
            ]
        );
        assert!(out_dir.join("edge_profile.ron").exists());
        let replayed = nesprof(&[
            "cfg",
            "build",
            &out_dir.join("samples.bin").display().to_string(),
            "--truth",
            &out_dir.join("truth.ron").display().to_string(),
            "--builder",
            builder,
        ]);
        assert!(replayed.status.success(), "{}", stderr(&replayed));
        assert_eq!(
            stdout(&replayed).lines().last().unwrap(),
            live_line,
            "{builder}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `cfg build` refuses what is not a sample stream and a CFG record, with
/// exit 2 and one line, and never waits on a FIFO.
#[test]
fn cfg_build_refuses_bad_inputs() {
    let dir = std::env::temp_dir().join(format!("nesprof-cli-build-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let junk = temp_file("junk.bin", b"not a stream");
    let record = dir.join("truth.ron");
    std::fs::write(&record, "(version: 1)").unwrap();
    let d = dir.display().to_string();
    let f = fifo.display().to_string();
    let j = junk.display().to_string();
    let r = record.display().to_string();
    for (samples, truth) in [(&d, &r), (&f, &r), (&j, &r), (&j, &f), (&j, &d)] {
        let out = nesprof(&["cfg", "build", samples, "--truth", truth]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{samples} {truth}: {}",
            stderr(&out)
        );
        assert_eq!(stderr(&out).trim().lines().count(), 1, "{}", stderr(&out));
    }
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&junk);
}

/// Issue 23: inputs that would block, never end or exhaust memory are
/// refused at once, naming the file and the limit; a movie recorded with
/// another ROM is an error unless `--ignore-rom-mismatch`.
#[test]
fn unbounded_and_mismatched_inputs_exit_2() {
    let start = std::time::Instant::now();
    let maze = "roms-test/maze.nes";
    let cwd = env!("CARGO_MANIFEST_DIR");
    let in_repo = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_nesprof"))
            .current_dir(cwd)
            .args(args)
            .output()
            .unwrap()
    };
    for args in [
        &["run", "/dev/zero"][..],
        &["run", maze, "--movie", "/dev/zero"],
        &["movie", "info", "/dev/zero"],
        &["sweep", "--workloads", "/dev/zero"],
    ] {
        let out = in_repo(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(err.contains("/dev/zero: not a regular file"), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    assert!(start.elapsed() < std::time::Duration::from_secs(20));

    // One byte over the ROM limit (a sparse file: no disk space used).
    let dir = std::env::temp_dir().join(format!("nesprof-cli-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let huge = dir.join("huge.nes");
    let file = std::fs::File::create(&huge).unwrap();
    file.set_len(emu::rom::MAX_FILE.bytes + 1).unwrap();
    drop(file);
    let out = nesprof(&["run", huge.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "{}-byte limit for ROM images",
            emu::rom::MAX_FILE.bytes
        )),
        "{err}"
    );

    // A movie cut off inside its header: an error naming the line.
    let cut = dir.join("cut.fm2");
    std::fs::write(&cut, "version 3\nemuVersion 100\nromFilename maz").unwrap();
    let out = in_repo(&["run", maze, "--movie", cut.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("cut.fm2:3: the file ends inside the header"),
        "{}",
        stderr(&out)
    );

    // Another ROM's movie.
    let args = ["run", maze, "--movie", "movies/snake.fm2", "--frames", "2"];
    let out = in_repo(&args);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("base64:NMUELut0DFwwie9+6YBuzQ==") && err.contains("--ignore-rom-mismatch"),
        "{err}"
    );
    let out = in_repo(&[&args[..], &["--ignore-rom-mismatch"]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).starts_with("warning: movies/snake.fm2 was recorded with ROM snake"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `trace` reads a movie, starts at a frame and names the code: the trace
/// of frames 100 and 101 is the tail of the trace of frames 99 to 101,
/// each frame introduced by its line, the NMI entries marked and the
/// labels of the `.dbg` beside the ROM printed where the PC reaches them.
#[test]
fn trace_a_window_of_a_movie_with_names() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let rom = repo.join("roms-test/breakout.nes");
    let movie = repo.join("movies/breakout.fm2");
    let trace = |from: &str, frames: &str| {
        let out = nesprof(&[
            "trace",
            rom.to_str().unwrap(),
            "--movie",
            movie.to_str().unwrap(),
            "--from-frame",
            from,
            "--frames",
            frames,
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout(&out)
    };
    let two = trace("100", "2");
    let three = trace("99", "3");
    let frame_lines = |s: &str| {
        s.lines()
            .filter(|l| l.starts_with("; frame"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(frame_lines(&two), ["; frame 100", "; frame 101"]);
    assert_eq!(
        frame_lines(&three),
        ["; frame 99", "; frame 100", "; frame 101"]
    );
    // Label lines mark where the named place changes, so they depend on
    // what came before: compare the instructions and frame lines.
    let code = |s: &str| {
        s.lines()
            .filter(|l| !l.ends_with(':'))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let at = three.find("; frame 100").unwrap();
    let (alone, after) = (code(&two), code(&three[at..]));
    let first_difference = alone.iter().zip(&after).position(|(a, b)| a != b);
    assert!(
        alone.len() == after.len() && first_difference.is_none(),
        "frame 100 traced alone ({} lines) and after 99 ({} lines) differ at line {:?}",
        alone.len(),
        after.len(),
        first_difference
    );
    assert_eq!(
        two.lines().filter(|l| *l == "; NMI").count(),
        2,
        "one NMI a frame"
    );
    assert!(two.lines().any(|l| l == "nmi:"), "the NMI handler's label");
    let instructions = two
        .lines()
        .filter(|l| !l.starts_with(';') && !l.ends_with(':'));
    assert!(instructions.clone().count() > 1000);
    assert!(
        instructions.clone().all(|l| l.contains(" CYC:")),
        "nestest.log lines"
    );
}

/// AccuracyCoin through the CLI: found through its own manifest, judged by
/// its result bytes, its verdict line followed by one table line per test
/// (tests/accuracy_coin.rs holds the counts).
#[test]
fn test_judges_accuracy_coin_with_its_table() {
    let dir = common::roms_root().join("accuracy/AccuracyCoin");
    let out = nesprof(&["test", &dir.display().to_string(), "--engine", "interp"]);
    let text = stdout(&out);
    let verdict = text
        .lines()
        .find(|l| l.contains("accuracy/AccuracyCoin/AccuracyCoin.nes"))
        .unwrap_or_else(|| panic!("no verdict line:\n{text}"));
    assert!(verdict.contains(" of 141 tests passed"), "{verdict}");
    let table = text.lines().filter(|l| l.starts_with("  $04")).count();
    assert_eq!(table, 141, "{text}");
    assert!(text.contains("ROM is not writable"), "{text}");
    let code = if verdict.starts_with("PASS") { 0 } else { 1 };
    assert_eq!(out.status.code(), Some(code));
}

/// `cfg build` on a profile's samples.bin rebuilds the profile's hot CFG
/// and prints its metric line: the stream keeps what the live builder had,
/// the taken branch targets too (issue 44), which decide its blocks.
#[test]
fn cfg_build_rebuilds_the_profiles_hot_cfg() {
    let repo = env!("CARGO_MANIFEST_DIR");
    let dir = std::env::temp_dir().join(format!("nesprof-cli-{}-rebuild", std::process::id()));
    let (live, again) = (dir.join("live"), dir.join("again"));
    // yun: a sampled branch there was never taken, so the blocks differ
    // without the stream's taken targets (as on fff).
    let rom = common::roms_root()
        .join("games/yun.nes")
        .display()
        .to_string();
    let movie = format!("{repo}/movies/yun.fm2");
    let out = nesprof(&[
        "profile",
        &rom,
        "--movie",
        &movie,
        "--frames",
        "1800",
        "--out",
        live.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let samples = live.join("samples.bin");
    let truth = live.join("truth.ron");
    let rebuilt = nesprof(&[
        "cfg",
        "build",
        samples.to_str().unwrap(),
        "--truth",
        truth.to_str().unwrap(),
        "--out",
        again.to_str().unwrap(),
    ]);
    assert!(rebuilt.status.success(), "{}", stderr(&rebuilt));
    let read = |d: &PathBuf| {
        profiler::cfg_file::CfgFile::read(&d.join("hot_cfg.ron")).expect("a hot CFG record")
    };
    let (a, b) = (read(&live), read(&again));
    assert!(a.cfg.num_edges() > 20);
    assert_eq!(
        ron::to_string(&a.cfg).unwrap(),
        ron::to_string(&b.cfg).unwrap(),
        "the rebuilt hot CFG differs"
    );
    assert_eq!(a.confidence, b.confidence);
    let last = |o: &Output| stdout(o).lines().last().unwrap_or_default().to_string();
    let metrics = |l: String| {
        l.split(" frame_hash")
            .next()
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(metrics(last(&out)), metrics(last(&rebuilt)));
    std::fs::remove_dir_all(&dir).ok();
}
