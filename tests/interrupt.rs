//! Interrupted and failing runs: SIGINT and SIGTERM at random moments of
//! `profile` and `sweep` leave the output directory holding the previous
//! run's files untouched or the new run's files whole (compared with an
//! uninterrupted run of the same command), never a mix and never a
//! temporary; a file-size limit (a full disk) makes the run fail with an
//! error and no truncated file under a final name; `play --record` saves a
//! readable movie on SIGTERM and SIGHUP; a sweep stopped once keeps the
//! workloads it finished, stopped twice keeps the previous outputs.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use common::tools::require;
use common::x11::{find_window, start_xvfb, KillOnDrop};
use rand::{RngExt, SeedableRng};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nesprof-interrupt-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every file under `dir`, by relative name.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let name = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.insert(name, std::fs::read(&path).unwrap_or_default());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn nesprof() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_nesprof"));
    c.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

/// Waits for `child` at most a minute (a hang fails the test).
fn wait(child: &mut std::process::Child) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("still running a minute after the signal");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Files whose content depends on the machine's speed (wall times), so they
/// are compared by presence only.
fn timed(name: &str) -> bool {
    matches!(
        name,
        "report.txt" | "report.html" | "timing.txt" | "tables.md" | ".nesprof-lock"
    )
}

/// What an interrupted run may leave besides the old or the new set.
enum Partial {
    /// Nothing else: the old set or the new one (a sweep).
    Never,
    /// A whole set for the frames run, marked as interrupted, after exit
    /// status 130 (`profile`, as `perf record` does on its first Ctrl-C):
    /// its sample stream rebuilds (`cfg build`) to the same metrics.
    Profile,
}

/// Whether `now` is a whole interrupted profile (see [`Partial::Profile`]).
fn whole_interrupted_profile(
    now: &BTreeMap<String, Vec<u8>>,
    new: &BTreeMap<String, Vec<u8>>,
    out: &Path,
) -> bool {
    let report = String::from_utf8_lossy(now.get("report.txt").map_or(&[][..], |r| r));
    if !now.keys().eq(new.keys()) || !report.contains("(interrupted:") {
        return false;
    }
    let rebuilt = Command::new(env!("CARGO_BIN_EXE_nesprof"))
        .arg("cfg")
        .arg("build")
        .arg(out.join("samples.bin"))
        .arg("--truth")
        .arg(out.join("truth.ron"))
        .output()
        .unwrap();
    rebuilt.status.success()
}

/// Runs `args` (writing into `--out dir`, appended) interrupted by `signal`
/// after random delays, several times, and checks the directory after each.
fn interrupt_at_random(tag: &str, args: &[&str], old_args: &[&str], seed: u64, partial: Partial) {
    let dir = scratch(tag);
    let out = dir.join("out");
    let reference = dir.join("reference");
    let run = |args: &[&str], out: &Path| {
        let status = nesprof().args(args).arg("--out").arg(out).status().unwrap();
        assert!(status.success(), "{args:?} failed");
        files(out)
    };
    let new = run(args, &reference);
    let start = Instant::now();
    run(args, &dir.join("timing-probe"));
    let duration = start.elapsed();
    let old = run(old_args, &out);
    assert_ne!(
        old.iter().filter(|(n, _)| !timed(n)).collect::<Vec<_>>(),
        new.iter().filter(|(n, _)| !timed(n)).collect::<Vec<_>>(),
        "the old and new runs must differ"
    );
    let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(seed);
    let (mut kept, mut replaced, mut partials) = (0, 0, 0);
    for round in 0..8 {
        let signal = if round % 2 == 0 {
            libc::SIGINT
        } else {
            libc::SIGTERM
        };
        // Anywhere from the start to a little past the uninterrupted run's end.
        let delay = duration.mul_f64(rng.random_range(0.0..1.2));
        let mut child = nesprof().args(args).arg("--out").arg(&out).spawn().unwrap();
        std::thread::sleep(delay);
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(child.id() as libc::pid_t, signal) };
        let status = wait(&mut child);
        let now = files(&out);
        let temporaries: Vec<&String> = now.keys().filter(|n| n.ends_with(".tmp")).collect();
        assert!(
            temporaries.is_empty(),
            "round {round}: temporaries left: {temporaries:?}"
        );
        let is = |set: &BTreeMap<String, Vec<u8>>| {
            now.keys().eq(set.keys()) && now.iter().all(|(n, b)| timed(n) || set.get(n) == Some(b))
        };
        if is(&old) {
            kept += 1;
        } else if is(&new) {
            replaced += 1;
        } else if matches!(partial, Partial::Profile)
            && status.code() == Some(130)
            && whole_interrupted_profile(&now, &new, &out)
        {
            partials += 1;
        } else {
            panic!(
                "round {round} (signal {signal} after {delay:?}, {status}): neither the old nor the new outputs: {:?}",
                now.keys().collect::<Vec<_>>()
            );
        }
        if !is(&old) {
            // Restore the old set for the next round.
            let _ = std::fs::remove_dir_all(&out);
            run(old_args, &out);
        }
    }
    eprintln!("{tag}: 8 interruptions, {kept} kept the old outputs, {partials} wrote the frames run, {replaced} finished first");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn profile_interrupted_keeps_old_or_new_outputs() {
    let rom = repo().join("roms-test/maze.nes");
    let rom = rom.to_str().unwrap();
    interrupt_at_random(
        "profile",
        &["profile", rom, "--frames", "3000", "--seed", "2"],
        &["profile", rom, "--frames", "600", "--seed", "1"],
        0x5eed_0001,
        Partial::Profile,
    );
}

#[test]
fn sweep_interrupted_keeps_old_or_new_outputs() {
    let rom = repo().join("roms-test/maze.nes");
    let rom = rom.to_str().unwrap();
    interrupt_at_random(
        "sweep",
        &["sweep", rom, "--minutes", "0.5", "--jobs", "2"],
        &["sweep", rom, "--minutes", "0.1", "--jobs", "2"],
        0x5eed_0002,
        Partial::Never,
    );
}

/// A sweep of three workloads on one thread, in list order: cfgdemo (a
/// second), maze (an emulated hour, still running when the test signals),
/// swarm (never started). Returns the workloads file.
fn three_workloads(dir: &Path) -> PathBuf {
    let entry = |name: &str, minutes: &str| {
        format!(
            "(name: \"{name}\", rom: \"{}\", minutes: {minutes})",
            repo().join(format!("roms-test/{name}.nes")).display()
        )
    };
    let list = dir.join("three.ron");
    std::fs::write(
        &list,
        format!(
            "(workloads: [{}, {}, {}])",
            entry("cfgdemo", "0.02"),
            entry("maze", "60.0"),
            entry("swarm", "0.02")
        ),
    )
    .unwrap();
    list
}

/// A running nesprof whose stderr lines arrive on `lines` as they come and
/// whose stdout is collected.
struct Running {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
    stdout: std::thread::JoinHandle<String>,
}

impl Running {
    fn start(args: &[&str], list: &Path, out: &Path) -> Running {
        use std::io::{BufRead, Read};
        let mut child = Command::new(env!("CARGO_BIN_EXE_nesprof"))
            .args(args)
            .args(["--jobs", "1", "--workloads"])
            .arg(list)
            .arg("--out")
            .arg(out)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                let _ = tx.send(line);
            }
        });
        let mut out_pipe = child.stdout.take().unwrap();
        let stdout = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = out_pipe.read_to_string(&mut text);
            text
        });
        Running {
            child,
            lines,
            stdout,
        }
    }

    /// Waits for the stderr line `wanted` (a minute at most: a hang fails),
    /// returning the lines so far.
    fn wait_for(&mut self, wanted: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            match self.lines.recv_timeout(Duration::from_secs(60)) {
                Ok(line) if line == wanted => return seen,
                Ok(line) => seen.push(line),
                Err(e) => {
                    let _ = self.child.kill();
                    panic!("no line {wanted:?} ({e}); stderr so far: {seen:#?}");
                }
            }
        }
    }

    fn signal(&self, signal: libc::c_int) {
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(self.child.id() as libc::pid_t, signal) };
    }

    /// Waits for the end: (status, the rest of stderr, stdout).
    fn finish(mut self) -> (ExitStatus, Vec<String>, String) {
        let status = wait(&mut self.child);
        let rest = self.lines.iter().collect();
        (status, rest, self.stdout.join().unwrap())
    }
}

/// Like `perf record`, a sweep stopped by Ctrl-C writes the outputs of the
/// workloads that finished, exactly as a sweep of those alone writes them
/// (tables.md adds a note naming the interrupted ones), reports the rest as
/// interrupted, and exits with status 130.
#[test]
fn sweep_interrupted_keeps_its_finished_workloads() {
    let dir = scratch("sweep-keep");
    let list = three_workloads(&dir);
    let (out, reference) = (dir.join("out"), dir.join("reference"));
    let status = nesprof()
        .args(["sweep", "--only", "cfgdemo", "--jobs", "1", "--workloads"])
        .arg(&list)
        .arg("--out")
        .arg(&reference)
        .status()
        .unwrap();
    assert!(status.success());

    let mut run = Running::start(&["sweep"], &list, &out);
    run.wait_for("done: cfgdemo");
    run.signal(libc::SIGINT);
    let (status, stderr, stdout) = run.finish();
    assert_eq!(status.code(), Some(130), "{stderr:#?}");
    let last = stderr.last().map_or("", String::as_str);
    assert_eq!(
        last,
        format!(
            "interrupted: wrote the outputs of the 1 finished workload(s) to {}; not finished: \"maze\", \"swarm\"",
            out.display()
        )
    );
    for name in ["maze", "swarm"] {
        let line =
            format!("interrupted: {name} (stopped before its emulation and replays finished)");
        assert!(stderr.contains(&line), "{stderr:#?}");
    }
    assert!(
        stdout.trim_end().ends_with(" interrupted=2") && stdout.contains("workloads=1 "),
        "{stdout}"
    );

    let (got, want) = (files(&out), files(&reference));
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>()
    );
    assert!(got.contains_key("cfg/cfgdemo.h90.ron"));
    for (name, bytes) in &want {
        match name.as_str() {
            "timing.txt" => {
                let timing = String::from_utf8_lossy(&got[name]);
                assert!(
                    timing.contains("maze               interrupted: stopped by a signal"),
                    "{timing}"
                );
            }
            "tables.md" => {
                let note =
                    "**Interrupted**: a signal stopped this sweep before 2 of its workloads \
                            finished; they are not in these tables: `maze`, `swarm`.\n\n";
                let tables = String::from_utf8_lossy(&got[name]);
                assert!(tables.contains(note), "{tables}");
                assert_eq!(tables.replacen(note, "", 1).as_bytes(), &bytes[..]);
            }
            _ => assert!(
                got[name] == *bytes,
                "{name} differs from a sweep of cfgdemo alone"
            ),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A second signal abandons the finished workloads' outputs: the previous
/// set stays as it was, with no temporary. (Both signals are sent while the
/// sweep is stopped, SIGINT then SIGTERM, so that they arrive as two.)
#[test]
fn sweep_interrupted_twice_keeps_the_previous_outputs() {
    let dir = scratch("sweep-twice");
    let list = three_workloads(&dir);
    let out = dir.join("out");
    let status = nesprof()
        .args([
            "sweep",
            "--only",
            "cfgdemo,swarm",
            "--jobs",
            "1",
            "--workloads",
        ])
        .arg(&list)
        .arg("--out")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let previous = files(&out);

    let mut run = Running::start(&["sweep"], &list, &out);
    run.wait_for("done: cfgdemo");
    run.signal(libc::SIGSTOP);
    run.signal(libc::SIGINT);
    run.signal(libc::SIGTERM);
    run.signal(libc::SIGCONT);
    let (status, stderr, _) = run.finish();
    assert_eq!(status.code(), Some(130), "{stderr:#?}");
    assert!(
        stderr.iter().any(|l| l.starts_with("interrupted again")),
        "{stderr:#?}"
    );
    assert!(files(&out) == previous, "the previous outputs changed");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A shard stopped by Ctrl-C writes its file with the finished workloads
/// and the others marked interrupted; `sweep merge` refuses it (exit 2,
/// one line naming the file and what is missing), writing nothing.
#[test]
fn an_interrupted_shard_is_written_incomplete_and_not_merged() {
    let dir = scratch("sweep-shard");
    let list = three_workloads(&dir);
    let shards = dir.join("shards");
    let mut run = Running::start(&["sweep", "--shard", "1/1"], &list, &shards);
    run.wait_for("done: cfgdemo");
    run.signal(libc::SIGINT);
    let (status, stderr, stdout) = run.finish();
    assert_eq!(status.code(), Some(130), "{stderr:#?}");
    assert!(stdout.trim_end().ends_with(" interrupted=2"), "{stdout}");
    let file = shards.join("shard-1-of-1.ron");
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text.matches("outcome: Interrupted").count(), 2);
    assert_eq!(text.matches("outcome: Ran(").count(), 1);

    let merged = dir.join("merged");
    let o = Command::new(env!("CARGO_BIN_EXE_nesprof"))
        .args(["sweep", "merge"])
        .arg(&shards)
        .arg("--out")
        .arg(&merged)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!(
            "{}: incomplete shard 1/1: interrupted before workload(s) \"maze\", \"swarm\" finished",
            file.display()
        )),
        "{err}"
    );
    assert!(!merged.join("tables.md").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A file-size limit stands in for a full disk: writes past it fail with
/// EFBIG (SIGXFSZ is ignored, as a shell's `trap '' XFSZ` leaves it for the
/// program it runs). The run must fail, say so, and leave the previous
/// outputs as they were, with no temporary.
#[test]
fn a_full_disk_fails_cleanly() {
    let dir = scratch("full");
    let out = dir.join("out");
    let rom = repo().join("roms-test/maze.nes");
    let bin = env!("CARGO_BIN_EXE_nesprof");
    let status = nesprof()
        .args(["profile", rom.to_str().unwrap(), "--frames", "60", "--out"])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let old = files(&out);
    // 400 blocks of 512 bytes: the truth fits, the sample stream of 3000
    // frames (megabytes) does not.
    let script = format!(
        "ulimit -f 400; trap '' XFSZ; exec '{bin}' profile '{}' --frames 3000 --out '{}'",
        rom.display(),
        out.display()
    );
    let result = Command::new("sh")
        .args(["-c", &script])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(!result.status.success(), "the run did not fail: {stderr}");
    assert!(
        stderr.contains("cannot write") && !stderr.contains("panicked"),
        "{stderr}"
    );
    let now = files(&out);
    let changed: Vec<&String> = now
        .keys()
        .chain(old.keys())
        .filter(|n| !timed(n) && now.get(*n) != old.get(*n))
        .collect();
    assert!(
        changed.is_empty(),
        "the previous outputs changed: {changed:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `play --record` under Xvfb, stopped by SIGTERM or SIGHUP (the terminal
/// closing) after a random time: the movie is saved and readable.
#[test]
fn play_record_survives_sigterm_and_sighup() {
    require(&["Xvfb"]);
    let rom = repo().join("roms-test/maze.nes");
    let dir = scratch("play");
    let (_xvfb, display) = start_xvfb(260, "640x480x24");
    let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(0x5eed_0003);
    for signal in [libc::SIGTERM, libc::SIGHUP, libc::SIGINT] {
        let movie = dir.join(format!("rec-{signal}.fm2"));
        let child = nesprof()
            .args(["play", rom.to_str().unwrap(), "--mute", "--record"])
            .arg(&movie)
            .env("DISPLAY", &display)
            .spawn()
            .unwrap();
        let mut player = KillOnDrop(child);
        find_window(&display, &mut player);
        std::thread::sleep(Duration::from_millis(rng.random_range(200..1500)));
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(player.0.id() as libc::pid_t, signal) };
        let status = wait(&mut player.0);
        assert!(status.success(), "signal {signal}: {status}");
        let parsed = emu::movie::Movie::load(&movie)
            .unwrap_or_else(|e| panic!("signal {signal}: the recording does not load: {e}"));
        assert!(
            !parsed.frames.is_empty(),
            "signal {signal}: no frames recorded"
        );
        let leftovers: Vec<String> = files(&dir)
            .into_keys()
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A second signal while an interrupted `profile` writes the frames it ran
/// abandons them: the previous set stays (unless the first signal's set was
/// already in place), never a mix, no temporary.
#[test]
fn a_second_signal_keeps_the_previous_profile() {
    let dir = scratch("second");
    let out = dir.join("out");
    let rom = repo().join("roms-test/tracker.nes");
    let movie = repo().join("movies/tracker.fm2");
    let rom = rom.to_str().unwrap();
    let movie = movie.to_str().unwrap();
    let status = nesprof()
        .args(["profile", rom, "--frames", "60", "--out"])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let old = files(&out);
    let (mut kept, mut written) = (0, 0);
    for round in 0..4 {
        let mut child = nesprof()
            .args(["profile", rom, "--movie", movie, "--out"])
            .arg(&out)
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(700 + 150 * round));
        for _ in 0..2 {
            // SAFETY: kill(2) on our own child's pid.
            unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
            std::thread::sleep(Duration::from_millis(5));
        }
        let status = wait(&mut child);
        assert_eq!(status.code(), Some(130), "round {round}");
        let now = files(&out);
        assert!(
            now.keys().all(|n| !n.ends_with(".tmp")),
            "round {round}: temporaries left: {:?}",
            now.keys().collect::<Vec<_>>()
        );
        let same = |a: &BTreeMap<String, Vec<u8>>, b: &BTreeMap<String, Vec<u8>>| {
            a.keys().eq(b.keys()) && a.iter().all(|(n, x)| timed(n) || b.get(n) == Some(x))
        };
        if same(&now, &old) {
            kept += 1;
        } else {
            assert!(
                whole_interrupted_profile(&now, &old, &out),
                "round {round}: neither the previous set nor a whole interrupted one"
            );
            written += 1;
            let _ = std::fs::remove_dir_all(&out);
            let status = nesprof()
                .args(["profile", rom, "--frames", "60", "--out"])
                .arg(&out)
                .status()
                .unwrap();
            assert!(status.success());
        }
    }
    eprintln!("second signal: {kept} kept the previous set, {written} had finished writing first");
    assert!(
        kept > 0,
        "no second signal was ever in time: the test tests nothing"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every command that writes files stops cleanly on SIGINT, SIGTERM or
/// SIGHUP: exit 130, one line saying so, no output under its final name and
/// no temporary.
#[test]
fn every_writing_command_stops_cleanly_on_a_signal() {
    let dir = scratch("commands");
    let rom = repo().join("roms-test/tracker.nes");
    let rom = rom.to_str().unwrap();
    let d = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let cases: Vec<(Vec<String>, String)> = vec![
        (
            vec![
                "cfg".into(),
                "record".into(),
                rom.into(),
                "--frames".into(),
                "2000000".into(),
                "--out".into(),
                d("cfg.ron"),
            ],
            d("cfg.ron"),
        ),
        (
            vec![
                "movie".into(),
                "gen".into(),
                rom.into(),
                "--frames".into(),
                "2000000".into(),
                "--out".into(),
                d("m.fm2"),
            ],
            d("m.fm2"),
        ),
        (
            vec![
                "run".into(),
                rom.into(),
                "--frames".into(),
                "2000000".into(),
                "--wav".into(),
                d("a.wav"),
            ],
            d("a.wav"),
        ),
    ];
    for (i, (args, output)) in cases.iter().enumerate() {
        let signal = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP][i % 3];
        let mut child = Command::new(env!("CARGO_BIN_EXE_nesprof"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(500));
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(child.id() as libc::pid_t, signal) };
        let status = wait(&mut child);
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
        assert_eq!(status.code(), Some(130), "{args:?}: {status} {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr:?}");
        assert!(stderr.contains("interrupted"), "{args:?}: {stderr}");
        assert!(!Path::new(output).exists(), "{args:?}: {output} written");
        let leftovers: Vec<String> = files(&dir)
            .into_keys()
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{args:?}: {leftovers:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
