//! The bundled workload movies (`movies/`) and movie replay end to end:
//! every movie is at least 5 minutes, named after its ROM, and replays to the
//! same final frame and RAM every time; `run --movie` reports bad movies and
//! ROM mismatches as DESIGN.md and issue 23 ask; a recording made with `play --record`
//! replays to the same frame.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use common::tools::require;
use common::x11::{play_in_window, start_xvfb, wait_with_stderr, xdotool};

use emu::movie::{Movie, Replay};

/// Five minutes at 60 frames per second, as in the thesis' experiments.
const MIN_FRAMES: usize = 18_000;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// (ROM, movie) for every program in roms-test/ and every game in
/// ../shared/roms/games/: each must have `movies/<stem>.fm2`.
fn workloads() -> Vec<(PathBuf, PathBuf)> {
    let mut roms = Vec::new();
    for dir in [repo().join("roms-test"), common::roms_root().join("games")] {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            // The dep_* programs (memory-dependence fixtures) and frametime
            // (the frame-time profile's hand-counted program) read no input
            // and run the same loop forever, not workloads: no movie.
            let fixture = path.file_stem().is_some_and(|s| {
                let s = s.to_string_lossy();
                s.starts_with("dep_") || s == "frametime"
            });
            if path.extension().is_some_and(|e| e == "nes") && !fixture {
                roms.push(path);
            }
        }
    }
    roms.sort();
    assert_eq!(roms.len(), 17, "8 roms-test programs + 9 games: {roms:?}");
    roms.into_iter()
        .map(|rom| {
            let stem = rom.file_stem().unwrap().to_string_lossy().into_owned();
            (rom, repo().join("movies").join(format!("{stem}.fm2")))
        })
        .collect()
}

/// Replays the whole movie; returns (frames, frame hash, RAM hash).
fn replay(rom: &Path, movie_path: &Path) -> (u64, u64, u64) {
    let movie = Movie::load(movie_path).unwrap();
    let replay = Replay::new(&std::fs::read(rom).unwrap(), &movie).unwrap();
    let mut nes = replay.power_on().unwrap();
    let end = replay.len();
    while nes.frame_count() < end {
        replay.apply(&mut nes, end).unwrap();
        if nes.frame_count() >= end {
            break;
        }
        nes.run_frame();
    }
    (nes.frame_count(), nes.frame_hash(), nes.ram_hash())
}

#[test]
fn every_workload_has_a_five_minute_movie_for_its_rom() {
    let mut problems = Vec::new();
    for (rom, path) in workloads() {
        let Ok(movie) = Movie::load(&path) else {
            problems.push(format!("{}: missing or unreadable", path.display()));
            continue;
        };
        if movie.frames.len() < MIN_FRAMES {
            problems.push(format!("{}: {} frames", path.display(), movie.frames.len()));
        }
        let sum = emu::movie::rom_checksum(&std::fs::read(&rom).unwrap()).unwrap();
        if movie.header.rom_checksum != Some(sum) {
            problems.push(format!(
                "{}: romChecksum is not {}'s",
                path.display(),
                rom.display()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every movie, replayed three times (on two threads), ends on the same frame
/// hash and RAM hash.
#[test]
fn every_movie_replays_identically_three_times() {
    let jobs: Vec<(PathBuf, PathBuf)> = workloads()
        .into_iter()
        .flat_map(|w| std::iter::repeat_n(w, 3))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((rom, movie)) = jobs.get(i) else {
                    break;
                };
                let outcome = replay(rom, movie);
                results.lock().unwrap().push((movie.clone(), outcome));
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort();
    let mut failures = Vec::new();
    for runs in results.chunks(3) {
        let name = runs[0]
            .0
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let (frames, frame_hash, ram_hash) = runs[0].1;
        println!("{name}: frames={frames} frame_hash={frame_hash:016x} ram_hash={ram_hash:016x}");
        if runs.iter().any(|r| r.1 != runs[0].1) {
            failures.push(format!(
                "{name}: {:?}",
                runs.iter().map(|r| r.1).collect::<Vec<_>>()
            ));
        }
        if frames as usize != Movie::load(&runs[0].0).unwrap().frames.len() {
            failures.push(format!("{name}: stopped at frame {frames}"));
        }
    }
    assert_eq!(results.len(), 3 * 17);
    assert!(
        failures.is_empty(),
        "not deterministic:\n{}",
        failures.join("\n")
    );
}

fn nesprof(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nesprof"))
        .args(args)
        .output()
        .expect("nesprof runs")
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nesprof-movies-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn summary(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn run_with_a_movie_runs_to_its_end_or_to_frames() {
    let rom = repo().join("roms-test/maze.nes");
    let movie = repo().join("movies/maze.fm2");
    let out = nesprof(&[
        "run",
        rom.to_str().unwrap(),
        "--movie",
        movie.to_str().unwrap(),
        "--frames",
        "700",
    ]);
    assert!(out.status.success());
    assert!(
        summary(&out).starts_with("frames=700 "),
        "{}",
        summary(&out)
    );
    // The same prefix replayed by the generator's own bot gives the same
    // frame: `movie gen` of 700 frames with the movie's settings.
    let dir = temp_dir("gen");
    let short = dir.join("maze700.fm2");
    let gen = nesprof(&[
        "movie",
        "gen",
        rom.to_str().unwrap(),
        "--seed",
        "1",
        "--frames",
        "700",
        "--start-every",
        "300",
        "--out",
        short.to_str().unwrap(),
    ]);
    assert!(
        gen.status.success(),
        "{}",
        String::from_utf8_lossy(&gen.stderr)
    );
    let gen_line = summary(&gen);
    let hashes = |line: &str| {
        line.split_whitespace()
            .filter(|f| f.contains("_hash="))
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(hashes(&gen_line), hashes(&summary(&out)), "gen: {gen_line}");
    // Without --frames the movie runs to its end.
    let full = nesprof(&[
        "run",
        rom.to_str().unwrap(),
        "--movie",
        short.to_str().unwrap(),
    ]);
    assert!(
        summary(&full).starts_with("frames=700 "),
        "{}",
        summary(&full)
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_movies_and_mismatches_exit_2_naming_file_and_line() {
    let dir = temp_dir("bad");
    let rom = repo().join("roms-test/snake.nes");
    let good = std::fs::read_to_string(repo().join("movies/snake.fm2")).unwrap();
    let broken = good.replacen("|0|........|........||", "|0|.......|........||", 1);
    let path = dir.join("broken.fm2");
    std::fs::write(&path, broken).unwrap();
    let out = nesprof(&[
        "run",
        rom.to_str().unwrap(),
        "--movie",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    let first_input_line = good.lines().position(|l| l.starts_with('|')).unwrap() + 1;
    assert!(
        err.contains(&format!("broken.fm2:{first_input_line}: port0")),
        "{err}"
    );

    // A movie for another ROM: an error naming both checksums (issue 23);
    // with --ignore-rom-mismatch, a warning naming both, then it plays.
    let other = repo().join("roms-test/breakout.nes");
    let snake = repo().join("movies/snake.fm2");
    let args = [
        "run",
        other.to_str().unwrap(),
        "--movie",
        snake.to_str().unwrap(),
        "--frames",
        "60",
    ];
    let out = nesprof(&args);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("snake.fm2") && err.contains("breakout.nes") && err.contains("checksum"),
        "{err}"
    );
    let out = nesprof(&[&args[..], &["--ignore-rom-mismatch"]].concat());
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("snake.fm2") && err.contains("breakout.nes") && err.contains("romChecksum"),
        "{err}"
    );

    let out = nesprof(&[
        "run",
        rom.to_str().unwrap(),
        "--movie",
        dir.join("none.fm2").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).ok();
}

/// Plays maze in a window with keys pressed through xdotool (F9 = reset),
/// recording; the recording replayed headless ends on the frame and RAM the
/// window showed.
#[test]
fn a_recording_replays_to_the_same_frame() {
    require(&["Xvfb", "xdotool"]);
    let dir = temp_dir("rec");
    let rom = repo().join("roms-test/maze.nes");
    let recording = dir.join("rec.fm2");
    let (_xvfb, display) = start_xvfb(240, "1024x768x24");
    let (mut player, window) = play_in_window(
        &display,
        &[
            "play",
            rom.to_str().unwrap(),
            "--record",
            recording.to_str().unwrap(),
            "--frames",
            "420",
        ],
    );
    // Wait for the window, then press Start and steer.
    xdotool(&display, &["windowfocus", &window]);
    std::thread::sleep(Duration::from_millis(1500));
    for (key, ms) in [
        ("Return", 300),
        ("Left", 800),
        ("Up", 600),
        ("x", 200),
        ("Right", 700),
    ] {
        xdotool(&display, &["keydown", "--window", &window, key]);
        std::thread::sleep(Duration::from_millis(ms));
        xdotool(&display, &["keyup", "--window", &window, key]);
        std::thread::sleep(Duration::from_millis(150));
    }
    let (status, stderr) = wait_with_stderr(&mut player);
    assert!(status.success());
    let reported = stderr
        .lines()
        .find(|l| l.starts_with("recorded "))
        .unwrap_or_else(|| panic!("no recording report in: {stderr}"))
        .to_string();
    let movie = Movie::load(&recording).unwrap();
    let pressed = movie.frames.iter().filter(|f| f.ports[0] != 0).count();
    assert!(
        pressed > 30,
        "the keys were not recorded ({pressed} frames with buttons)"
    );
    let out = nesprof(&[
        "run",
        rom.to_str().unwrap(),
        "--movie",
        recording.to_str().unwrap(),
    ]);
    let line = summary(&out);
    for field in line
        .split_whitespace()
        .filter(|f| f.starts_with("frames=") || f.contains("_hash="))
    {
        assert!(
            reported.contains(field),
            "replay `{line}` vs window `{reported}`"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
