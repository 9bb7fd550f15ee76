//! `--symbols` through the command line (issue 25): a bundled program built
//! with `ld65 --dbgfile` shows its labels out of the box in report.txt,
//! report.html, DOT and the overlay; `--symbols none` gives the plain
//! address output; given files in each tool's format are read; a bad one is
//! refused with exit code 2.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo(path: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(path)
        .display()
        .to_string()
}

fn nesprof(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nesprof"))
        .args(args)
        .output()
        .expect("nesprof runs")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nesprof-symbols-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn profile(out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "profile".to_string(),
        repo("roms-test/tracker.nes"),
        "--movie".into(),
        repo("movies/tracker.fm2"),
        "--frames".into(),
        "600".into(),
        "--out".into(),
        out.display().to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = nesprof(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

#[test]
fn bundled_programs_show_their_labels() {
    let dir = temp_dir("profile");
    let labelled = dir.join("labelled");
    let o = profile(&labelled, &[]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("tracker.dbg"), "{stderr}");
    let report = read(&labelled.join("report.txt"));
    // tracker's bytecode interpreter (roms-test/tracker.s) runs most.
    assert!(report.contains("hottest labels"), "{report}");
    assert!(report.contains(" vm_next"), "{report}");
    let dot = read(&labelled.join("hot_cfg.dot"));
    assert!(dot.contains("$0600-$0611  vm_next  ×"), "{dot}");
    let html = read(&labelled.join("report.html"));
    assert!(html.contains("<td>vm_next</td>"), "no function table");

    let plain = dir.join("plain");
    profile(&plain, &["--symbols", "none"]);
    let report = read(&plain.join("report.txt"));
    assert!(!report.contains("vm_next") && !report.contains("hottest labels"));
    let plain_dot = read(&plain.join("hot_cfg.dot"));
    assert!(plain_dot.contains("[label=\"$0600-$0611  ×"), "{plain_dot}");
    // Labels are additions: removing them gives the plain DOT back.
    let stripped: String = dot
        .lines()
        .filter(|l| !l.is_empty())
        .map(strip_labels)
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(stripped, plain_dot.lines().collect::<Vec<_>>().join("\n"));

    // The records rendered again by `cfg dot`, with the ROM to find the
    // labels beside it, or with the .dbg named.
    let truth = labelled.join("truth.ron").display().to_string();
    for extra in [
        vec!["--rom", &repo("roms-test/tracker.nes")],
        vec!["--symbols", &repo("roms-test/tracker.dbg")],
    ] {
        let mut args = vec!["cfg", "dot", truth.as_str()];
        args.extend(extra.iter().copied());
        let o = nesprof(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(String::from_utf8_lossy(&o.stdout).contains("  vm_next  ×"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The DOT text of a block line with its labels taken out: the label after
/// the address range, and `name:` lines inside.
fn strip_labels(line: &str) -> String {
    let Some(start) = line.find("[label=\"") else {
        return line.to_string();
    };
    let body_start = start + "[label=\"".len();
    let end = line[body_start..]
        .find("\", ")
        .map_or(line.len(), |e| body_start + e);
    let body = &line[body_start..end];
    let parts: Vec<&str> = body.split("\\l").collect();
    let mut kept = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        if i == 0 {
            // `$0600-$0611  vm_next  ×N` → `$0600-$0611  ×N`
            let (range, rest) = p.split_once("  ").unwrap_or((p, ""));
            let count = rest.rfind('×').map_or(rest, |k| &rest[k..]);
            kept.push(if rest.is_empty() {
                range.to_string()
            } else {
                format!("{range}  {count}")
            });
        } else if !p.ends_with(':') {
            kept.push(p.to_string());
        }
    }
    format!(
        "{}{}{}",
        &line[..body_start],
        kept.join("\\l"),
        &line[end..]
    )
}

#[test]
fn symbol_files_of_each_format_are_read_and_bad_ones_refused() {
    let dir = temp_dir("formats");
    // tracker's vm_next is at $0600 in RAM (copied there at reset).
    let nl = dir.join("tracker.nes.ram.nl");
    std::fs::write(&nl, "$0600#fceux_next#from a name list\n").unwrap();
    let mlb = dir.join("tracker.mlb");
    std::fs::write(&mlb, "R:0612:mesen_operand:from Mesen\n").unwrap();
    let truth_dir = dir.join("run");
    profile(&truth_dir, &["--symbols", "none"]);
    let truth = truth_dir.join("truth.ron").display().to_string();
    let o = nesprof(&[
        "cfg",
        "dot",
        &truth,
        "--symbols",
        &nl.display().to_string(),
        "--symbols",
        &mlb.display().to_string(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let dot = String::from_utf8_lossy(&o.stdout);
    assert!(dot.contains("$0600-$0611  fceux_next  ×"), "{dot}");
    assert!(dot.contains("$0612-$061B  mesen_operand  ×"), "{dot}");

    let bad = dir.join("bad.mlb");
    std::fs::write(&bad, "P:zz:oops\n").unwrap();
    let other = dir.join("labels.txt");
    std::fs::write(&other, "whatever\n").unwrap();
    for file in [&bad, &other, &dir.join("missing.dbg")] {
        let o = nesprof(&[
            "cfg",
            "dot",
            &truth,
            "--symbols",
            &file.display().to_string(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{}", file.display());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_overlay_labels_the_pc_and_hot_nodes() {
    let dir = temp_dir("overlay");
    let shot = |name: &str, extra: &[&str]| {
        let path = dir.join(name);
        let mut args = vec![
            "play".to_string(),
            repo("roms-test/tracker.nes"),
            "--movie".into(),
            repo("movies/tracker.fm2"),
            "--overlay".into(),
            "--headless".into(),
            "--frames".into(),
            "300".into(),
            "--screenshot".into(),
            path.display().to_string(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = nesprof(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        (
            std::fs::read(&path).unwrap(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (labelled, stderr) = shot("labelled.png", &[]);
    assert!(stderr.contains("tracker.dbg"), "{stderr}");
    let (plain, stderr) = shot("plain.png", &["--symbols", "none"]);
    assert!(!stderr.contains("symbols:"), "{stderr}");
    assert_ne!(labelled, plain, "labels changed nothing in the panel");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 43: another game's symbol file was applied silently, its names
/// then labelling the wrong code. `profile tracker.nes --symbols F` with
/// files that are not tracker's: a one-line notice when the file may be
/// another game's, exit 2 when its labels cannot map onto the ROM.
#[test]
fn another_games_symbol_file_is_noticed_or_refused() {
    let dir = temp_dir("mismatch");
    let run = |name: &str, file: &Path| {
        let args = [
            "profile".to_string(),
            repo("roms-test/tracker.nes"),
            "--frames".into(),
            "30".into(),
            "--out".into(),
            dir.join(name).display().to_string(),
            "--symbols".into(),
            file.display().to_string(),
        ];
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = nesprof(&args);
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let notices = |stderr: &str| -> Vec<String> {
        stderr
            .lines()
            .filter(|l| l.starts_with("warning:") || l.starts_with("note:"))
            .map(str::to_owned)
            .collect()
    };
    let tracker_dbg = read(Path::new(&repo("roms-test/tracker.dbg")));

    // Its own file: nothing to say.
    let (code, stderr) = run("own", Path::new(&repo("roms-test/tracker.dbg")));
    assert_eq!(code, Some(0), "{stderr}");
    assert!(notices(&stderr).is_empty(), "{stderr}");

    // fountain's: the same board and the same reset code (roms-test/common),
    // so only the name the .dbg gives its output tells.
    let (code, stderr) = run("fountain", Path::new(&repo("roms-test/fountain.dbg")));
    assert_eq!(code, Some(0), "{stderr}");
    let said = notices(&stderr);
    assert_eq!(said.len(), 1, "{stderr}");
    assert!(
        said[0].starts_with("note: ") && said[0].contains("fountain.dbg"),
        "{said:?}"
    );
    assert!(
        said[0].contains("written for fountain.nes, not tracker.nes"),
        "{said:?}"
    );

    // A 16 KiB build (its vectors end the PRG ROM at 16 KiB): a warning.
    let small = dir.join("small.dbg");
    let vectors = "oname=\"tracker.nes\",ooffs=32778";
    assert!(tracker_dbg.contains(vectors));
    std::fs::write(
        &small,
        tracker_dbg.replace(vectors, "oname=\"tracker.nes\",ooffs=16394"),
    )
    .unwrap();
    let (code, stderr) = run("small", &small);
    assert_eq!(code, Some(0), "{stderr}");
    let said = notices(&stderr);
    assert_eq!(said.len(), 1, "{stderr}");
    assert!(
        said[0].starts_with("warning: ") && said[0].contains("small.dbg"),
        "{said:?}"
    );
    assert!(
        said[0].contains("its PRG ROM ends at 16 KiB (the vectors' segment), the ROM has 32 KiB"),
        "{said:?}"
    );

    // A 128 KiB build whose code sits in its last bank: refused.
    let big = dir.join("big.dbg");
    let code_seg = "oname=\"tracker.nes\",ooffs=16\n";
    assert!(tracker_dbg.contains(code_seg));
    std::fs::write(
        &big,
        tracker_dbg.replace(code_seg, "oname=\"big.nes\",ooffs=114704\n"),
    )
    .unwrap();
    // FCEUX's list for a bank tracker does not have, Mesen's PRG offset
    // past its end: refused too.
    let nl = dir.join("tracker.nes.5.nl");
    std::fs::write(&nl, "$8000#far_away#\n").unwrap();
    let mlb = dir.join("big.mlb");
    std::fs::write(&mlb, "P:12000:far_away\n").unwrap();
    for (name, file) in [("big", &big), ("nl", &nl), ("mlb", &mlb)] {
        let (code, stderr) = run(name, file);
        assert_eq!(code, Some(2), "{name}: {stderr}");
        let lines: Vec<&str> = stderr.trim().lines().collect();
        assert_eq!(lines.len(), 1, "{stderr}");
        assert!(
            lines[0].contains("past the ROM's 32 KiB of PRG ROM"),
            "{name}: {stderr}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
