//! Sweeps across machines (issue 25): `sweep --shard I/N` on every shard and
//! `sweep merge` give the outputs of a single `sweep`, byte for byte, and a
//! merge of an incomplete or mixed set of shards is refused (exit 2, one
//! line).
//!
//! Wall time is not a result: the two places that show it, `timing.txt` and
//! the last line's `wall_s=`, are compared with their numbers masked (and
//! `timing.txt`'s first line, which says how the time was spent, skipped);
//! everything else must be identical.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn nesprof(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nesprof"))
        .args(args)
        .output()
        .expect("nesprof runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn ok(o: Output) -> Output {
    assert!(o.status.success(), "{}", text(&o.stderr));
    o
}

/// Exit 2 with one line on stderr containing `what`.
fn refused(o: Output, what: &str) {
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(what), "wanted {what:?} in {err}");
}

/// Every file under `dir` by relative path.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).unwrap().display().to_string();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Digits (and the points between them) replaced by `#`, spaces (padding
/// to the numbers' widths) removed.
fn mask_numbers(s: &str) -> String {
    let mut out = String::new();
    let mut in_number = false;
    for c in s.chars() {
        if c.is_ascii_digit() || (in_number && c == '.') {
            if !in_number {
                out.push('#');
            }
            in_number = true;
        } else {
            in_number = false;
            out.push(c);
        }
    }
    out.split_whitespace().collect()
}

/// The stdout with the last line's `wall_s=` value masked.
fn mask_wall(stdout: &str) -> String {
    stdout
        .lines()
        .map(|l| {
            l.split(' ')
                .map(|kv| {
                    if kv.starts_with("wall_s=") {
                        "wall_s=#"
                    } else {
                        kv
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `merged` holds exactly `single`'s files with the same bytes, but for
/// the wall times in timing.txt.
fn assert_same_outputs(single: &Path, merged: &Path) {
    let (a, b) = (files(single), files(merged));
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "the same files"
    );
    assert!(a.len() >= 10, "{:?}", a.keys());
    for (name, bytes) in &a {
        if name == "timing.txt" {
            let (x, y) = (text(bytes), text(&b[name]));
            assert_eq!(x.lines().count(), y.lines().count());
            for (l, m) in x.lines().zip(y.lines()).skip(1) {
                assert_eq!(mask_numbers(l), mask_numbers(m));
            }
        } else {
            assert!(
                *bytes == b[name],
                "{name} differs between {} and {}",
                single.display(),
                merged.display()
            );
        }
    }
}

#[test]
fn merged_shards_equal_a_single_run() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("nesprof-shards-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = |p: &str| dir.join(p).display().to_string();
    // Four workloads (576 units): three short ones, one busy, and a missing
    // ROM that 3 shards split (units 144..288 straddle the 192 boundary),
    // as they split maze (288..432 around 384).
    let list = dir.join("w.ron");
    let r = root.display();
    std::fs::write(
        &list,
        format!(
            "(workloads: [\n\
             (name: \"cfgdemo\", rom: \"{r}/roms-test/cfgdemo.nes\", movie: \"{r}/movies/cfgdemo.fm2\", minutes: 0.1),\n\
             (name: \"absent\", rom: \"no/such.nes\"),\n\
             (name: \"maze\", rom: \"{r}/roms-test/maze.nes\", movie: \"{r}/movies/maze.fm2\", minutes: 0.1),\n\
             (name: \"swarm\", rom: \"{r}/roms-test/swarm.nes\", movie: \"{r}/movies/swarm.fm2\", minutes: 0.1),\n\
             ])"
        ),
    )
    .unwrap();
    let list = list.display().to_string();
    let sweep = |extra: &[&str]| {
        let mut args = vec!["sweep", "--workloads", &list];
        args.extend_from_slice(extra);
        nesprof(&args)
    };

    let single = ok(sweep(&["--out", &path("single")]));
    assert!(text(&single.stderr).contains("skipped: absent"));

    // 3 shards sharing one directory, merged from it.
    for i in 1..=3 {
        let o = ok(sweep(&[
            "--shard",
            &format!("{i}/3"),
            "--out",
            &path("shared"),
            "--jobs",
            "1",
        ]));
        let out = text(&o.stdout);
        assert_eq!(out.lines().count(), 1, "a shard prints its summary only");
        assert!(out.starts_with(&format!("shard={i}/3 units=192 ")), "{out}");
    }
    let merged = ok(nesprof(&[
        "sweep",
        "merge",
        &path("shared"),
        "--out",
        &path("merged3"),
    ]));
    assert_same_outputs(&dir.join("single"), &dir.join("merged3"));
    assert_eq!(
        mask_wall(&text(&single.stdout)),
        mask_wall(&text(&merged.stdout))
    );
    assert!(text(&single.stdout).contains("(thesis table 3)"));
    assert!(text(&merged.stderr).contains("skipped: absent"));

    // 5 shards in their own directories (other boundaries), merged from all.
    let mut dirs = Vec::new();
    for i in 1..=5 {
        ok(sweep(&[
            "--shard",
            &format!("{i}/5"),
            "--out",
            &path(&format!("five/{i}")),
        ]));
        dirs.push(path(&format!("five/{i}")));
    }
    let mut args = vec!["sweep", "merge"];
    args.extend(dirs.iter().map(String::as_str));
    let merged5 = path("merged5");
    args.extend(["--out", &merged5]);
    let merged = ok(nesprof(&args));
    assert_same_outputs(&dir.join("single"), &dir.join("merged5"));
    assert_eq!(
        mask_wall(&text(&single.stdout)),
        mask_wall(&text(&merged.stdout))
    );

    // Refused sets.
    let shard = |i: usize| path(&format!("shared/shard-{i}-of-3.ron"));
    let out = path("refused");
    let merge = |inputs: &[String]| {
        let mut args = vec!["sweep", "merge"];
        args.extend(inputs.iter().map(String::as_str));
        args.extend(["--out", &out]);
        nesprof(&args)
    };
    refused(merge(&[shard(1), shard(3)]), "missing shard(s) 2 of 3");
    refused(merge(&[path("shared"), shard(2)]), "shard 2/3 given twice");
    refused(
        merge(&[shard(1), dirs[1].clone()]),
        "not from the same split",
    );
    // Shard 2 of another sweep (another sampler interval).
    ok(sweep(&[
        "--shard",
        "2/3",
        "--interval-ms",
        "4",
        "--out",
        &path("other"),
    ]));
    refused(
        merge(&[shard(1), path("other"), shard(3)]),
        "not from the same sweep",
    );
    std::fs::write(dir.join("other/shard-2-of-3.ron"), "(format: 1, nonsense)").unwrap();
    refused(
        merge(&[shard(1), path("other"), shard(3)]),
        "not a shard file",
    );
    std::fs::create_dir_all(dir.join("empty")).unwrap();
    refused(merge(&[path("empty")]), "no shard files");
    assert!(!dir.join("refused/tables.md").exists());

    // Bad --shard values.
    for bad in ["0/3", "4/3", "3", "a/b", "1/0"] {
        refused(sweep(&["--shard", bad, "--out", &out]), "--shard");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
