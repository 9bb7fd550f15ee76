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
// Issue 42, classes 1, 7, 8 and 11 (symbol files, costly inputs, wrong
// inputs accepted, stderr hygiene). Its own scratch directory: the tests
// of this file run at once.
// ---------------------------------------------------------------------

/// A profile of maze (30 frames) to take a stream and records from, in
/// `dir/p`.
fn maze_profile(dir: &Path) -> PathBuf {
    let out = dir.join("p");
    let status = Command::new(env!("CARGO_BIN_EXE_nesprof"))
        .args(["profile", "--frames", "30", "--symbols", "none", "--out"])
        .arg(&out)
        .arg(repo().join("roms-test/maze.nes"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "profile of maze");
    out
}

/// The odd files of issue 42's classes, in a directory of their own.
fn scratch_42() -> PathBuf {
    use profiler::stream::{parse, StreamHeader, StreamTrailer, StreamWriter};
    let dir = std::env::temp_dir().join(format!("nesprof-bad-input-42-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let p = maze_profile(&dir);
    // Symbol files: two scopes parenting each other (with many symbols in
    // them: once 3.8 GB and 13 s), NUL bytes, a file far over the limit
    // (sparse: costs nothing to make).
    let mut dbg = String::from(
        "version\tmajor=2,minor=0\n\
seg\tid=0,name=\"CODE\",start=0x008000,size=0x4000,addrsize=absolute,type=ro,oname=\"maze.nes\",ooffs=16\n",
    );
    dbg += &format!("scope\tid=0,name=\"{}\",mod=0,parent=1\n", "A".repeat(500));
    dbg += &format!("scope\tid=1,name=\"{}\",mod=0,parent=0\n", "B".repeat(500));
    for i in 0..3000 {
        dbg += &format!(
            "sym\tid={i},name=\"s{i}\",addrsize=absolute,scope=0,val=0x8000,seg=0,type=lab\n"
        );
    }
    std::fs::write(dir.join("loop.dbg"), dbg).unwrap();
    std::fs::write(dir.join("nul.nes.0.nl"), vec![0u8; 1 << 20]).unwrap();
    std::fs::write(dir.join("nul.mlb"), b"P:0000:reset\n\0\0").unwrap();
    let huge = std::fs::File::create(dir.join("huge.nl")).unwrap();
    huge.set_len(250 << 20).unwrap();
    std::fs::write(dir.join("ok.mlb"), "P:0000:reset\n").unwrap();
    // The profile's truth claiming no frames: its counts are more than
    // one frame can run.
    let truth = std::fs::read_to_string(p.join("truth.ron")).unwrap();
    std::fs::write(
        dir.join("no-frames.ron"),
        truth.replacen("frames: 30,", "frames: 0,", 1),
    )
    .unwrap();

    // Streams: the profile's, altered. Written with the plain writer,
    // which checks nothing.
    let bytes = std::fs::read(p.join("samples.bin")).unwrap();
    let stream = parse(&bytes, Path::new("samples.bin")).unwrap();
    let trailer = stream.trailer.clone().unwrap();
    let write = |name: &str, header: &StreamHeader, trailer: &StreamTrailer, extra: &[u8]| {
        let mut w = StreamWriter::new(Vec::new(), header).unwrap();
        for b in &stream.batches {
            w.batch(b).unwrap();
        }
        let mut out = w.finish(trailer).unwrap();
        out.extend_from_slice(extra);
        std::fs::write(dir.join(name), out).unwrap();
    };
    let h = &stream.header;
    let t = &trailer;
    write(
        "more-batches.bin",
        h,
        &StreamTrailer {
            batches: t.batches + 5,
            ..t.clone()
        },
        b"",
    );
    write(
        "more-sampled.bin",
        h,
        &StreamTrailer {
            sampled_instructions: t.sampled_instructions * 2,
            ..t.clone()
        },
        b"",
    );
    // sampled > executed: `sampled_pct=1.8e21` once.
    write(
        "sampled-gt-executed.bin",
        h,
        &StreamTrailer {
            executed_instructions: 1,
            ..t.clone()
        },
        b"",
    );
    write(
        "dropped-gt-batches.bin",
        h,
        &StreamTrailer {
            dropped_batches: t.batches + 1,
            ..t.clone()
        },
        b"",
    );
    write(
        "executed-gt-frames.bin",
        h,
        &StreamTrailer {
            executed_instructions: u64::MAX / 2,
            ..t.clone()
        },
        b"",
    );
    write("junk-after.bin", h, t, b"junk");
    write(
        "n0.bin",
        &StreamHeader {
            batch_len: 0,
            ..h.clone()
        },
        t,
        b"",
    );
    write(
        "n-wrong.bin",
        &StreamHeader {
            batch_len: h.batch_len + 1,
            ..h.clone()
        },
        t,
        b"",
    );
    write(
        "interval-nan.bin",
        &StreamHeader {
            interval_ms: f64::NAN,
            ..h.clone()
        },
        t,
        b"",
    );
    write(
        "interval-neg.bin",
        &StreamHeader {
            interval_ms: -3.0,
            ..h.clone()
        },
        t,
        b"",
    );
    write(
        "jitter-inf.bin",
        &StreamHeader {
            jitter_ms: f64::INFINITY,
            ..h.clone()
        },
        t,
        b"",
    );
    // A ROM name with a newline and an escape sequence, for a record of
    // another ROM: the error quotes it.
    write(
        "rom-name.bin",
        &StreamHeader {
            rom_name: "evil\n\u{1b}[2J.nes".into(),
            rom_hash: "0123456789abcdef".into(),
            ..h.clone()
        },
        t,
        b"",
    );
    // A stray byte after the last batch (no trailer).
    let mut w = StreamWriter::new(Vec::new(), h).unwrap();
    for b in &stream.batches {
        w.batch(b).unwrap();
    }
    let mut stray = w.finish(t).unwrap();
    let trailer_len = 2 + 4 + ron::to_string(t).unwrap().len();
    stray.truncate(stray.len() - trailer_len);
    stray.push(0x42);
    std::fs::write(dir.join("stray.bin"), stray).unwrap();
    dir
}

#[test]
fn issue_42_bad_inputs_exit_2_with_one_line() {
    let dir = scratch_42();
    let d = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let s = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<String>>();
    let rom = repo().join("roms-test/maze.nes");
    let rom = rom.to_str().unwrap();
    let (samples, truth, hot, profile) = (
        d("p/samples.bin"),
        d("p/truth.ron"),
        d("p/hot_cfg.ron"),
        d("p/edge_profile.ron"),
    );
    let long_path = format!("{}/{}.mlb", dir.display(), "n".repeat(200));
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<String>)> = vec![
        // Class 7: inputs that cost far more than their size.
        ("dbg scopes in a loop", s(&["cfg", "dot", &truth, "--symbols", &d("loop.dbg")])),
        ("dbg scopes in a loop, profile", s(&["profile", rom, "--frames", "2", "--out", &d("o1"), "--symbols", &d("loop.dbg")])),
        ("nl of NUL bytes", s(&["cfg", "dot", &truth, "--symbols", &d("nul.nes.0.nl")])),
        ("mlb ending in NUL bytes", s(&["cfg", "dot", &truth, "--symbols", &d("nul.mlb")])),
        ("nl of 250 MB", s(&["cfg", "dot", &truth, "--symbols", &d("huge.nl")])),
        // Class 8: wrong inputs accepted as right.
        ("truth that is a sampled CFG", s(&["cfg", "build", &samples, "--truth", &hot])),
        ("truth that is an edge profile", s(&["cfg", "build", &samples, "--truth", &profile])),
        ("record counting more than its frames run", s(&["cfg", "dot", &d("no-frames.ron")])),
        ("trailer counts more batches", s(&["cfg", "build", &d("more-batches.bin"), "--truth", &truth])),
        ("trailer counts more samples", s(&["cfg", "build", &d("more-sampled.bin"), "--truth", &truth])),
        ("sampled above executed", s(&["cfg", "build", &d("sampled-gt-executed.bin"), "--truth", &truth])),
        ("dropped above batches", s(&["cfg", "build", &d("dropped-gt-batches.bin"), "--truth", &truth])),
        ("executed above what the frames run", s(&["cfg", "build", &d("executed-gt-frames.bin"), "--truth", &truth])),
        ("junk after the trailer", s(&["cfg", "build", &d("junk-after.bin"), "--truth", &truth])),
        ("stray byte after the batches", s(&["cfg", "build", &d("stray.bin"), "--truth", &truth])),
        ("header batch length 0", s(&["cfg", "build", &d("n0.bin"), "--truth", &truth])),
        ("header batch length not the batches'", s(&["cfg", "build", &d("n-wrong.bin"), "--truth", &truth])),
        ("header interval NaN", s(&["cfg", "build", &d("interval-nan.bin"), "--truth", &truth])),
        ("header interval negative", s(&["cfg", "build", &d("interval-neg.bin"), "--truth", &truth])),
        ("header jitter inf", s(&["cfg", "build", &d("jitter-inf.bin"), "--truth", &truth])),
        // Class 11: one line, after symbols were read and with control
        // characters from the file and the command line.
        ("bad stream after symbols", s(&["cfg", "build", &d("more-batches.bin"), "--truth", &truth, "--symbols", &d("ok.mlb")])),
        ("ROM name with a newline in a stream", s(&["cfg", "build", &d("rom-name.bin"), "--truth", &truth])),
        ("path with a newline", s(&["run", &d("new\nline\u{1b}[31m.nes")])),
        ("symbols path with a newline", s(&["cfg", "dot", &truth, "--symbols", &d("x\ny.mlb")])),
        ("argument with an escape", s(&["run", rom, "--engine", "\u{1b}[2Jjit\n"])),
        ("path of 600 characters", s(&["cfg", "dot", &truth, "--symbols", &format!("{long_path}/{}", "m".repeat(300))])),
    ];
    let mut failures = Vec::new();
    for (name, args) in &cases {
        match run(args) {
            Err(hang) => failures.push(format!("{name}: {hang}")),
            Ok((code, stderr)) => {
                let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
                let short = lines.first().is_some_and(|l| l.len() <= 400);
                // Printable: no control character but the line's end.
                let raw = stderr
                    .trim_end_matches('\n')
                    .chars()
                    .any(|c| c.is_control());
                if code != Some(2)
                    || lines.len() != 1
                    || !short
                    || raw
                    || stderr.contains("panicked")
                {
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

/// Inputs that are odd but fine work, at a cost bounded by the code: a
/// label of 70 000 characters (in a file given or found beside the ROM, of
/// each format) is cut and the profile's tables stay narrow; a 5 MB label
/// makes a DOT of kilobytes; an FM2 `romFilename` with an escape sequence
/// reaches stderr escaped; a warning before success is one line.
#[test]
fn issue_42_odd_inputs_work_within_bounds() {
    let dir = std::env::temp_dir().join(format!("nesprof-odd-input-42-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let rom = dir.join("maze.nes");
    std::fs::copy(repo().join("roms-test/maze.nes"), &rom).unwrap();
    let long = "L".repeat(70_000);
    let files = [
        ("maze.mlb", format!("P:0000:{long}\nP:00FC:{long}2\n")),
        ("maze.nes.0.nl", format!("$8000#{long}#\n$80FC#{long}x#\n")),
        (
            "maze.dbg",
            format!(
                "version\tmajor=2,minor=0\n\
seg\tid=0,name=\"CODE\",start=0x008000,size=0x4000,addrsize=absolute,type=ro,oname=\"maze.nes\",ooffs=16\n\
scope\tid=0,name=\"{long}\",mod=0\n\
sym\tid=0,name=\"{long}\",addrsize=absolute,scope=0,val=0x8000,seg=0,type=lab\n\
sym\tid=1,name=\"@{long}\",parent=0,addrsize=absolute,val=0x80FC,seg=0,type=lab\n"
            ),
        ),
    ];
    let nesprof = |args: &[&std::ffi::OsStr]| {
        let start = Instant::now();
        let o = Command::new(env!("CARGO_BIN_EXE_nesprof"))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            start.elapsed() < LIMIT,
            "{args:?} took {:?}",
            start.elapsed()
        );
        let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "{args:?}: {stderr}");
        for line in stderr.lines() {
            assert!(
                line.len() <= 400 && !line.chars().any(|c| c.is_control()),
                "{line:?}"
            );
        }
        stderr
    };
    let os = |s: &str| std::ffi::OsString::from(s);
    for (name, text) in &files {
        // Found beside the ROM (the file alone there), then given.
        std::fs::write(dir.join(name), text).unwrap();
        for given in [false, true] {
            let out = dir.join(format!("out-{name}-{given}"));
            let mut args = vec![
                os("profile"),
                rom.clone().into(),
                os("--frames"),
                os("30"),
                os("--out"),
                out.clone().into(),
            ];
            if given {
                args.extend([os("--symbols"), dir.join(name).into()]);
            }
            let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
            let stderr = nesprof(&args);
            assert!(
                stderr.contains("symbols: 2 labels from "),
                "{name}: {stderr}"
            );
            let report = std::fs::read_to_string(out.join("report.txt")).unwrap();
            let widest = report.lines().map(|l| l.chars().count()).max().unwrap();
            assert!(widest < 300, "{name}: report line of {widest} characters");
            assert!(report.contains('…'), "{name}: the label is cut");
            let dot = std::fs::metadata(out.join("hot_cfg.dot")).unwrap().len();
            assert!(dot < 64 << 10, "{name}: hot_cfg.dot of {dot} bytes");
        }
        std::fs::remove_file(dir.join(name)).unwrap();
    }
    // A 5 MB label, once a 535 MB DOT.
    let five = dir.join("five.mlb");
    std::fs::write(&five, format!("P:0000:{}\n", "L".repeat(5 << 20))).unwrap();
    let p = maze_profile(&dir);
    let dot = dir.join("five.dot");
    nesprof(&[
        os("cfg").as_os_str(),
        os("dot").as_os_str(),
        p.join("truth.ron").as_os_str(),
        os("--symbols").as_os_str(),
        five.as_os_str(),
        os("--out").as_os_str(),
        dot.as_os_str(),
    ]);
    let size = std::fs::metadata(&dot).unwrap().len();
    assert!(size < 256 << 10, "five.dot of {size} bytes");
    // A stream and a truth of different runs: replayed, with a warning.
    let other_run = dir.join("other-run.ron");
    let truth = std::fs::read_to_string(p.join("truth.ron")).unwrap();
    std::fs::write(&other_run, truth.replacen("frames: 30,", "frames: 31,", 1)).unwrap();
    let stderr = nesprof(&[
        os("cfg").as_os_str(),
        os("build").as_os_str(),
        p.join("samples.bin").as_os_str(),
        os("--truth").as_os_str(),
        other_run.as_os_str(),
    ]);
    assert!(
        stderr.contains("ran 30 frames") && stderr.contains("not the same run"),
        "{stderr}"
    );
    // Records of two kinds compared: the listing says which is which.
    let o = Command::new(env!("CARGO_BIN_EXE_nesprof"))
        .args(["cfg", "diff"])
        .arg(p.join("truth.ron"))
        .arg(p.join("hot_cfg.ron"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("truth.ron (truth)") && stdout.contains("hot_cfg.ron (sampled)"),
        "{stdout}"
    );
    // A movie naming its ROM with an escape sequence, replayed anyway.
    let movie = std::fs::read_to_string(repo().join("movies/maze.fm2"))
        .unwrap()
        .replacen("romFilename maze", "romFilename ma\u{1b}[2Jze\u{7}", 1)
        .replacen("JLalAXcy8GWmnvVDPo9YXg==", "AAECAwQFBgcICQoLDA0ODw==", 1);
    let fm2 = dir.join("escape.fm2");
    std::fs::write(&fm2, movie).unwrap();
    let stderr = nesprof(&[
        os("run").as_os_str(),
        rom.as_os_str(),
        os("--movie").as_os_str(),
        fm2.as_os_str(),
        os("--ignore-rom-mismatch").as_os_str(),
        os("--frames").as_os_str(),
        os("2").as_os_str(),
    ]);
    assert!(stderr.contains("ma\\x1b[2Jze\\x07"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
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
