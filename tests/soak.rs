//! Soak: memory is bounded by the code and the configuration, not by the
//! run's length (issue 42, class 4). `run --wav`, `profile` and `profile
//! --memory` each run a bundled game for a few emulated hours (its movie
//! lasts five minutes; the game then keeps running with no input), and the
//! peak resident memory of the long run must stay within 10 % of the same
//! command's after one emulated minute, plus a fixed slack for what
//! legitimately varies from run to run (see [`SLACK_KIB`]).
//!
//! `profile` samples at six times the default batch rate (X = 0.5 ms)
//! with short batches (N = 4): six times the batches the builder and the
//! sample stream handle per emulated second, for about the default's
//! stream size (530 MB an emulated hour, removed after each run).
//!
//! The peak is the child's own (`wait4`'s `ru_maxrss`), so the test's
//! threads and the other tests do not count; the soaks run one at a time
//! (see `assert_flat`). Memory only: nothing here
//! depends on how fast the machine is, only how long the test takes (the
//! `run --wav` test 73 s on two cores busy with other builds; `profile`
//! runs about as fast). `NESPROF_SOAK_HOURS` sets the long runs' emulated
//! hours (default 2).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Held by each soak while it runs (see [`assert_flat`]).
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Frames in an emulated minute (60 frames a second, as the CLI counts).
const MINUTE: u64 = 3600;

/// What may differ between two runs of one command whatever their length,
/// KiB: the allocator's arenas and the threads' stacks are touched as the
/// threads happen to need them, and a table that grows by doubling (hash
/// maps, vectors) as the last of the code is found can add its size once.
/// Measured: `run --wav` of breakout peaked at 6.7-6.8 MB from 1 to 120
/// emulated minutes; the engines' recorders and the builders alone
/// (`examples/memory_growth.rs`) grew by under 0.3 MB from 10 to 60 or
/// 120 minutes on tracker and fff (the builders' whole process under 9.3
/// MB).
const SLACK_KIB: u64 = 4 * 1024;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The long runs' length in frames.
fn long_frames() -> u64 {
    let hours: f64 = std::env::var("NESPROF_SOAK_HOURS")
        .ok()
        .map(|h| h.parse().expect("NESPROF_SOAK_HOURS is a number of hours"))
        .unwrap_or(2.0);
    assert!(hours > 0.0, "NESPROF_SOAK_HOURS above 0");
    (hours * 60.0 * MINUTE as f64) as u64
}

/// A directory of its own for one run's outputs.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nesprof-soak-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `nesprof ARGS` to completion; its peak resident memory in KiB.
/// Panics, with its stderr, if it fails.
fn peak_kib(args: &[String], dir: &Path) -> u64 {
    let stderr_path = dir.join("stderr.txt");
    let child = Command::new(env!("CARGO_BIN_EXE_nesprof"))
        .args(args)
        .current_dir(repo())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&stderr_path).unwrap())
        .spawn()
        .expect("nesprof starts");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet waited for (`child` is only
    // dropped, never waited on, afterwards); the pointers are to locals.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4: {}", std::io::Error::last_os_error());
    drop(child);
    let exited_0 = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    assert!(
        exited_0,
        "nesprof {} failed ({status:#x}): {}",
        args.join(" "),
        std::fs::read_to_string(&stderr_path).unwrap_or_default()
    );
    // Linux reports ru_maxrss in KiB.
    usage.ru_maxrss as u64
}

/// Runs the command `args(frames, out)` makes for one emulated minute and
/// for [`long_frames`], and checks the long run's peak against the short
/// one's: within 10 % plus `slack_kib`.
fn assert_flat(name: &str, slack_kib: u64, args: impl Fn(u64, &Path) -> Vec<String>) {
    // One soak at a time: each run's background threads (the feeder, the
    // frame-time accounting) fall further behind the emulation, and fill
    // more of their bounded buffers, when the other soaks' long runs share
    // the two cores, and the harness overlaps one test's long run with
    // another's short one. Run alone, the short and the long run of a
    // command meet the same machine, which is what comparing them needs.
    let _alone = SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = scratch(name);
    let short = peak_kib(&args(MINUTE, &dir), &dir);
    let long_frames = long_frames();
    let long = peak_kib(&args(long_frames, &dir), &dir);
    let _ = std::fs::remove_dir_all(&dir);
    let limit = short + short / 10 + slack_kib;
    eprintln!(
        "soak {name}: peak {short} KiB at {MINUTE} frames, {long} KiB at {long_frames} \
         (limit {limit} KiB)"
    );
    assert!(
        long <= limit,
        "{name}: memory grows with the run's length: peak {short} KiB after one emulated \
         minute, {long} KiB after {long_frames} frames (limit: 110 % + {slack_kib} KiB = \
         {limit} KiB)"
    );
}

/// The workload: a bundled game with a movie.
const ROM: &str = "roms-test/breakout.nes";
const MOVIE: &str = "movies/breakout.fm2";

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

#[test]
fn run_wav_memory_does_not_grow_with_the_run() {
    assert_flat("run-wav", SLACK_KIB, |frames, dir| {
        let mut args = strings(&["run", ROM, "--movie", MOVIE, "--frames"]);
        args.push(frames.to_string());
        args.push("--wav".into());
        args.push(dir.join("out.wav").to_string_lossy().into_owned());
        args
    });
}

/// `profile`'s arguments for `frames` frames into `dir`, at a high rate.
fn profile_args(frames: u64, dir: &Path, extra: &[&str]) -> Vec<String> {
    let mut args = strings(&["profile", ROM, "--movie", MOVIE, "--frames"]);
    args.push(frames.to_string());
    args.extend(strings(&["--interval-ms", "0.5", "--batch", "4", "--out"]));
    args.push(dir.join("out").to_string_lossy().into_owned());
    args.extend(strings(extra));
    args
}

/// `profile`'s frame-time accounting runs on a thread of its own, and the
/// events it has not yet taken add their own bound
/// ([`profiler::frame_profile::recorder::MAX_IN_FLIGHT_BYTES`]), as do the
/// sample batches queued for the feeder and those waiting to be queued
/// ([`profiler::feeder::MAX_QUEUED_BYTES`],
/// [`profiler::feeder::MAX_UNSENT_BYTES`]): how much of them a run reaches
/// depends on how far those threads fall behind, which depends on the load
/// on the machine.
fn profile_slack_kib() -> u64 {
    let bounded = profiler::frame_profile::recorder::MAX_IN_FLIGHT_BYTES
        + profiler::feeder::MAX_QUEUED_BYTES
        + profiler::feeder::MAX_UNSENT_BYTES;
    SLACK_KIB + bounded as u64 / 1024
}

#[test]
fn profile_memory_does_not_grow_with_the_run() {
    assert_flat("profile", profile_slack_kib(), |frames, dir| {
        profile_args(frames, dir, &[])
    });
}

/// With `--memory` too: the recorder's log buffers
/// ([`emu::memory_log::MAX_LOG_BYTES`]) are resident from the start, so
/// however far its worker thread falls behind they add nothing later.
#[test]
fn profile_with_memory_does_not_grow_with_the_run() {
    assert_flat("profile-memory", profile_slack_kib(), |frames, dir| {
        profile_args(frames, dir, &["--memory"])
    });
}
