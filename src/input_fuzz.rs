//! Fuzzing of the input parsers (issue 23): every file format a user hands
//! nesprof — iNES / NES 2.0 ROM images, FM2 movies, CFG records, workloads
//! lists, sample streams — is fed mutated copies of valid seed files, and
//! any panic, hang or broken error contract is a finding.
//!
//! Why not cargo-fuzz: it needs a nightly compiler (for `-Z sanitizer` and
//! the libFuzzer runtime), and this project builds with stable Rust only.
//! What it would add is coverage feedback; what it would find here — panics
//! on malformed input — a plain mutation fuzzer finds too in parsers this
//! small, because their branches hang off a few header bytes and keywords
//! that the seeds already reach and the mutations below (which know those
//! shapes: little-endian integers, lines, number tokens) perturb directly.
//! So this is a small, dependency-free equivalent, deterministic by seed so
//! a finding can be replayed from the command that found it.
//!
//! Mutations (one to four per input, on a random seed file or on an earlier
//! mutant that still parsed): bit flips; bytes set to interesting values;
//! 16/32-bit little-endian integers overwritten with boundary values;
//! truncation; deletion, insertion and duplication of chunks; splicing with
//! another seed; and for the text formats line edits (delete, duplicate,
//! swap, import from another seed), number tokens replaced by boundary
//! numbers, and syntax characters or a long run of text inserted.
//!
//! Each input runs on a worker thread under [`std::panic::catch_unwind`];
//! the caller waits at most the time budget for it, so a parser that loops
//! forever is reported as a hang instead of stalling the campaign (the stuck
//! worker is abandoned). Besides panics and hangs, the oracle checks the
//! error contract — a rejected input gets a one-line message of bounded
//! length — and what an accepted input may cost or claim:
//! - FM2: a parsed movie writes back to the same movie;
//! - workloads lists: the names give safe, distinct output files;
//! - CFG records (issue 42): the DOT of an accepted record is bounded by
//!   its instructions and edges (a long instruction text repeated per
//!   block would not be);
//! - sample streams (issue 42): an accepted stream is self-consistent
//!   (every batch of the header's N instructions, the trailer's counts the
//!   body's, sampled no more than executed), the batch-at-a-time reader
//!   gives what the whole-file parser gives, and both builders replay it;
//! - symbols (issue 42): every name is at most `MAX_LABEL_CHARS` printable
//!   characters, and the views that repeat names (a DOT of a fixed graph,
//!   the hot-block table) stay within a bound that does not grow with the
//!   input. The time budget bounds the work.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// Longest error message accepted: one line naming the file and the
/// problem, with any quoted field shortened.
pub const MAX_ERROR_CHARS: usize = 400;

/// Mutants are kept under this size, which every seed is far below.
const MAX_INPUT: usize = 1 << 20;

/// Mutants that still parse are kept (up to this many) as starting points:
/// they are valid inputs the seeds alone would not reach.
const POOL: usize = 256;

/// A parser under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// `emu::rom` header and image parse, `Cartridge::from_bytes`, power-on.
    Rom,
    /// `emu::movie::Movie::parse`, and the write-back round trip.
    Fm2,
    /// `profiler::cfg_file::CfgFile::parse` (RON, with validation).
    Cfg,
    /// The sweep's workloads RON (`sweep::workloads::parse`).
    Workloads,
    /// `profiler::stream::parse`.
    Stream,
    /// The symbol readers (`profiler::symbols`: ld65 .dbg, FCEUX .nl,
    /// Mesen .mlb), each given the same text, then labels looked up.
    Symbols,
}

impl Target {
    pub const ALL: [Target; 6] = [
        Target::Rom,
        Target::Fm2,
        Target::Cfg,
        Target::Workloads,
        Target::Stream,
        Target::Symbols,
    ];

    /// The name used on the command line and for the corpus directory.
    pub fn name(self) -> &'static str {
        match self {
            Target::Rom => "rom",
            Target::Fm2 => "fm2",
            Target::Cfg => "cfg",
            Target::Workloads => "workloads",
            Target::Stream => "stream",
            Target::Symbols => "symbols",
        }
    }

    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }

    fn is_text(self) -> bool {
        matches!(
            self,
            Target::Fm2 | Target::Cfg | Target::Workloads | Target::Symbols
        )
    }

    /// Runs the parser on `input`. `Err` is a broken contract other than a
    /// panic (a bad error message, a failed round trip).
    pub fn run(self, input: &[u8]) -> Result<(), String> {
        let text = || String::from_utf8_lossy(input);
        let message = match self {
            Target::Rom => {
                let _ = emu::rom::Header::parse(input);
                let _ = emu::movie::rom_checksum(input);
                match emu::Cartridge::from_bytes(input) {
                    Ok(cart) => {
                        let _ = emu::Nes::new(cart);
                        None
                    }
                    Err(e) => Some(e.to_string()),
                }
            }
            Target::Fm2 => match emu::movie::Movie::parse(&text(), "fuzz.fm2") {
                Ok(movie) => {
                    let again = emu::movie::Movie::parse(&movie.to_fm2(), "again.fm2")
                        .map_err(|e| format!("a parsed movie, written back, fails: {e}"))?;
                    if again != movie {
                        return Err("a parsed movie, written back, reads differently".into());
                    }
                    None
                }
                Err(e) => Some(e.to_string()),
            },
            Target::Cfg => match profiler::cfg_file::CfgFile::parse(&text(), Path::new("fuzz.ron"))
            {
                Ok(record) => {
                    record_dot_bounded(&record)?;
                    None
                }
                Err(e) => Some(e.to_string()),
            },
            Target::Workloads => match crate::sweep::workloads::parse(
                &text(),
                Path::new("fuzz.ron"),
                Path::new("/base"),
                &crate::sweep::workloads::Roots {
                    roms: "/roms".into(),
                    corpus: "/corpus".into(),
                },
            ) {
                Ok(list) => {
                    workload_files_are_safe(&list)?;
                    None
                }
                Err(e) => Some(e.to_string()),
            },
            Target::Stream => match profiler::stream::parse(input, Path::new("fuzz.bin")) {
                Ok(stream) => {
                    stream_consistent(&stream, input)?;
                    None
                }
                Err(e) => Some(e.to_string()),
            },
            Target::Symbols => {
                let mut first_error = None;
                for (name, prg_len) in [
                    ("fuzz.dbg", 0x8000),
                    ("fuzz.dbg", 0x20000),
                    ("fuzz.nes.3.nl", 0x20000),
                    ("fuzz.nes.ram.nl", 0x4000),
                    ("fuzz.mlb", 0x40000),
                ] {
                    let mut symbols = profiler::symbols::Symbols::new(prg_len);
                    match symbols.load_text(&text(), Path::new(name)) {
                        Ok(_) => symbols_bounded(&symbols)?,
                        Err(e) => {
                            first_error.get_or_insert(e.to_string());
                        }
                    }
                }
                first_error
            }
        };
        match message {
            Some(m) if m.contains('\n') => Err(format!("error message has several lines: {m:?}")),
            Some(m) if m.chars().count() > MAX_ERROR_CHARS => Err(format!(
                "error message of {} chars: {:?}…",
                m.chars().count(),
                m.chars().take(120).collect::<String>()
            )),
            _ => Ok(()),
        }
    }
}

/// The Workloads target's oracle for an accepted list: the files the sweep
/// writes for its workloads (`cfg/<name>.<suffix>.ron`, see
/// `sweep::workloads::record_file`) are each one plain file in `cfg/`
/// (no separator, not hidden, no control character, short enough for its
/// temporary `.NAME.PID.tmp` to fit in 255 bytes) and no two are one file,
/// even on a case-insensitive file system. Checked here from the paths
/// themselves, not with the parser's own name check.
fn workload_files_are_safe(list: &[crate::sweep::Workload]) -> Result<(), String> {
    let mut seen = std::collections::HashMap::new();
    for w in list {
        for suffix in crate::sweep::workloads::RECORD_SUFFIXES {
            let path = crate::sweep::workloads::record_file(&w.name, suffix);
            let file = path.strip_prefix("cfg/").unwrap_or("");
            let temporary = format!(".{file}.{}.tmp", u32::MAX);
            let unsafe_file = file.is_empty()
                || file.contains(['/', '\\'])
                || file.starts_with('.')
                || file.chars().any(char::is_control)
                || temporary.len() > 255;
            if unsafe_file {
                return Err(format!(
                    "accepted workload name {:?} gives the unsafe output path {:?}",
                    emu::input_file::shorten(&w.name),
                    emu::input_file::shorten(&path)
                ));
            }
            if let Some(other) = seen.insert(path.to_lowercase(), w.name.clone()) {
                return Err(format!(
                    "accepted workload names {:?} and {:?} share the output file {:?}",
                    emu::input_file::shorten(&other),
                    emu::input_file::shorten(&w.name),
                    emu::input_file::shorten(&path)
                ));
            }
        }
    }
    Ok(())
}

/// Instructions per block of [`fixed_graph`].
const FIXED_BLOCK: u32 = 16;

/// A graph with blocks where labels usually are (PRG ROM at $8000 and
/// $C000 and in a bank, RAM code at $0600, PRG RAM at $6000), each of
/// [`FIXED_BLOCK`] one-byte instructions, and its disassembly: what a
/// symbol table's names are drawn on.
fn fixed_graph() -> (gfc::Cfg, std::collections::BTreeMap<u32, String>) {
    let mut cfg = gfc::Cfg::new();
    let mut disasm = std::collections::BTreeMap::new();
    let entries = [0x0600, 0x6000, 0x8000, 0xC000, 0xFFF0, 0x1_8000];
    for entry in entries {
        let mut block = gfc::Block::new(entry, 1);
        block.instrs = (entry..entry + FIXED_BLOCK).collect();
        block.end = entry + FIXED_BLOCK;
        block.count = 1;
        for &pc in &block.instrs {
            disasm.insert(pc, "NOP".to_string());
        }
        cfg.insert_block(block);
    }
    for pair in entries.windows(2) {
        cfg.add_edge(pair[0], pair[1], 1);
    }
    (cfg, disasm)
}

/// An accepted symbol table names nothing longer than the bound, prints
/// nothing raw, and the DOT and table views of [`fixed_graph`] with it stay
/// as small as the bound on names makes them, whatever the input's size.
fn symbols_bounded(symbols: &profiler::symbols::Symbols) -> Result<(), String> {
    use profiler::symbols::MAX_LABEL_CHARS;
    for (location, name) in symbols.iter() {
        if name.chars().count() > MAX_LABEL_CHARS || name.chars().any(emu::input_file::needs_escape)
        {
            return Err(format!(
                "label at {location} is not a bounded printable name: {:?}",
                emu::input_file::shorten_to(name, 120)
            ));
        }
    }
    // `name+$FFFFFFFF` at most.
    let longest = MAX_LABEL_CHARS + 10;
    for code in [0x0000, 0x0600, 0x6000, 0x8000, 0xFFFA, 0x1_8000, 0xFFF_FFFF] {
        for named in [symbols.describe(code), symbols.describe_global(code)] {
            if named.chars().count() > longest {
                return Err(format!(
                    "{code:#x} described in {} characters",
                    named.chars().count()
                ));
            }
        }
    }
    let (cfg, disasm) = fixed_graph();
    let dot = profiler::dot::render(&cfg, Some(&cfg), &disasm, "fuzz", Some(symbols));
    // Each instruction line at most a label line (escaped: 4 bytes a
    // character at most, doubled backslashes) and its text; a block's
    // first line its range and label; some fixed lines.
    let per_instruction = 2 * (4 * MAX_LABEL_CHARS + 8) + 40;
    let per_block = 2 * (4 * longest) + 80;
    let bound = cfg.num_blocks() * (FIXED_BLOCK as usize * per_instruction + per_block) + 1000;
    if dot.len() > bound {
        return Err(format!(
            "DOT of a fixed graph is {} bytes (bound {bound})",
            dot.len()
        ));
    }
    let name = |code: u32| symbols.describe(code);
    let tally = profiler::sink::SampleTally::default();
    let rows = profiler::hot_blocks::block_rows(&cfg, &cfg, &tally, &name);
    let table = profiler::hot_blocks::text(&rows, "block", rows.len());
    if let Some(line) = table
        .lines()
        .find(|l| l.chars().count() > profiler::hot_blocks::MAX_NAME_COLUMN + 60)
    {
        return Err(format!(
            "hot-block table line of {} characters",
            line.chars().count()
        ));
    }
    Ok(())
}

/// An accepted record's DOT is bounded by what it lists: each instruction
/// drawn once per block listing it (at most `MAX_DISASM` characters of
/// text, escaped), a line per block and edge.
fn record_dot_bounded(record: &profiler::cfg_file::CfgFile) -> Result<(), String> {
    let instrs: usize = record.cfg.blocks().map(|b| b.instrs.len()).sum();
    let dot = profiler::dot::render(&record.cfg, None, &record.disasm, &record.rom_name, None);
    let bound = instrs * (2 * 4 * profiler::dot::MAX_DISASM + 20)
        + record.cfg.num_blocks() * 120
        + record.cfg.num_edges() * 120
        + 2 * 4 * profiler::dot::MAX_TITLE
        + 200;
    if dot.len() > bound {
        return Err(format!(
            "DOT of {instrs} instructions is {} bytes (bound {bound})",
            dot.len()
        ));
    }
    Ok(())
}

/// An accepted stream agrees with itself (see `profiler::stream::StreamReader`),
/// reads the same a batch at a time, and replays through every builder to
/// a finite `sampled_pct` of at most 100 %.
fn stream_consistent(stream: &profiler::stream::SampleStream, input: &[u8]) -> Result<(), String> {
    let h = &stream.header;
    if h.batch_len == 0 || !(h.interval_ms.is_finite() && h.interval_ms > 0.0) {
        return Err(format!(
            "accepted header: N = {}, X = {} ms",
            h.batch_len, h.interval_ms
        ));
    }
    if !(h.jitter_ms.is_finite() && h.jitter_ms >= 0.0) {
        return Err(format!("accepted jitter {} ms", h.jitter_ms));
    }
    let mut instructions = 0u64;
    for (i, batch) in stream.batches.iter().enumerate() {
        let n = batch.iter().filter(|s| s.len > 0).count();
        if n != h.batch_len {
            return Err(format!(
                "accepted batch {} of {n} instructions, N = {}",
                i + 1,
                h.batch_len
            ));
        }
        instructions += n as u64;
    }
    if let Some(t) = &stream.trailer {
        if t.batches != stream.batches.len() as u64
            || t.sampled_instructions != instructions
            || t.sampled_instructions > t.executed_instructions
            || t.dropped_batches > t.batches
        {
            return Err(format!(
                "accepted trailer {t:?} for {} batches of {instructions} instructions",
                stream.batches.len()
            ));
        }
        let pct = gfc::metrics::sampled_pct(t.sampled_instructions, t.executed_instructions);
        if !(pct.is_finite() && (0.0..=100.0).contains(&pct)) {
            return Err(format!("accepted stream gives sampled_pct {pct}"));
        }
    }
    let mut reader = profiler::stream::StreamReader::new(input, Path::new("fuzz.bin"))
        .map_err(|e| format!("the batch reader refuses what parse accepts: {e}"))?;
    let mut batch = Vec::new();
    let mut i = 0;
    while reader
        .next_into(&mut batch)
        .map_err(|e| format!("the batch reader refuses what parse accepts: {e}"))?
    {
        if stream.batches.get(i) != Some(&batch) {
            return Err(format!(
                "the batch reader reads batch {} differently",
                i + 1
            ));
        }
        i += 1;
    }
    if i != stream.batches.len() || reader.trailer() != stream.trailer.as_ref() {
        return Err("the batch reader ends differently".into());
    }
    for kind in gfc::BuilderKind::ALL {
        let each = stream.batches.iter().map(Ok::<_, ()>);
        let _ = profiler::session::replay_each(each, kind, gfc::THESIS_BEST);
    }
    Ok(())
}

/// What went wrong with one input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FindingKind {
    Panic,
    Hang,
    /// A broken contract: see [`Target::run`].
    Contract,
}

#[derive(Debug, Clone)]
pub struct Finding {
    pub kind: FindingKind,
    pub message: String,
    pub input: Vec<u8>,
}

/// A campaign's outcome.
#[derive(Debug, Clone)]
pub struct Report {
    pub target: Target,
    pub tried: u64,
    /// Inputs the parser accepted.
    pub accepted: u64,
    pub elapsed: Duration,
    pub findings: Vec<Finding>,
}

/// The seed files of `target` under `corpus_root` (`fuzz/corpus/<name>/`),
/// in name order.
pub fn load_corpus(corpus_root: &Path, target: Target) -> std::io::Result<Vec<Vec<u8>>> {
    let dir = corpus_root.join(target.name());
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    paths.retain(|p| p.is_file());
    paths.sort();
    paths.iter().map(std::fs::read).collect()
}

/// The repository's corpus directory.
pub fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus")
}

/// Fuzzes `target` with `count` inputs mutated from `corpus` (not empty),
/// each given at most `budget`. Stops early at a hang (its worker cannot be
/// stopped). `on_finding` sees each finding as it happens.
pub fn fuzz(
    target: Target,
    corpus: &[Vec<u8>],
    count: u64,
    seed: u64,
    budget: Duration,
    mut on_finding: impl FnMut(&Finding),
) -> Report {
    quiet_worker_panics();
    let start = Instant::now();
    let mut report = Report {
        target,
        tried: 0,
        accepted: 0,
        elapsed: Duration::ZERO,
        findings: Vec::new(),
    };
    if corpus.is_empty() {
        return report;
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut pool: Vec<Vec<u8>> = Vec::new();
    let (to_worker, inbox) = mpsc::channel::<Vec<u8>>();
    let (outbox, from_worker) = mpsc::channel::<(Vec<u8>, Result<(), Finding>)>();
    let worker = std::thread::Builder::new()
        .name(WORKER.into())
        .spawn(move || {
            for input in inbox {
                let result = match std::panic::catch_unwind(|| target.run(&input)) {
                    Ok(Ok(())) => Ok(()),
                    Ok(Err(message)) => Err(Finding {
                        kind: FindingKind::Contract,
                        message,
                        input: Vec::new(),
                    }),
                    Err(payload) => Err(Finding {
                        kind: FindingKind::Panic,
                        message: panic_message(&*payload),
                        input: Vec::new(),
                    }),
                };
                if outbox.send((input, result)).is_err() {
                    break;
                }
            }
        })
        .expect("spawn the fuzz worker");
    while report.tried < count {
        let from_pool = !pool.is_empty() && rng.random_range(0..4u8) == 0;
        let base = if from_pool {
            &pool[rng.random_range(0..pool.len())]
        } else {
            &corpus[rng.random_range(0..corpus.len())]
        };
        let input = mutate(target, base, corpus, &mut rng);
        report.tried += 1;
        if to_worker.send(input.clone()).is_err() {
            break;
        }
        match from_worker.recv_timeout(budget) {
            Ok((input, Ok(()))) => {
                report.accepted += u64::from(accepts(target, &input));
                if pool.len() < POOL {
                    pool.push(input);
                } else {
                    let at = rng.random_range(0..POOL);
                    pool[at] = input;
                }
            }
            Ok((input, Err(mut finding))) => {
                finding.input = input;
                on_finding(&finding);
                report.findings.push(finding);
            }
            Err(_) => {
                let finding = Finding {
                    kind: FindingKind::Hang,
                    message: format!("no result within {budget:?}"),
                    input,
                };
                on_finding(&finding);
                report.findings.push(finding);
                // The worker is stuck in the parser; leave it behind.
                report.elapsed = start.elapsed();
                return report;
            }
        }
    }
    drop(to_worker);
    let _ = worker.join();
    report.elapsed = start.elapsed();
    report
}

/// Whether the parser accepts `input` (for the campaign's statistics and
/// the pool: only inputs that parse are worth mutating further).
pub fn accepts(target: Target, input: &[u8]) -> bool {
    let text = || String::from_utf8_lossy(input);
    match target {
        Target::Rom => emu::Cartridge::from_bytes(input).is_ok(),
        Target::Fm2 => emu::movie::Movie::parse(&text(), "f").is_ok(),
        Target::Cfg => profiler::cfg_file::CfgFile::parse(&text(), Path::new("f")).is_ok(),
        Target::Workloads => crate::sweep::workloads::parse(
            &text(),
            Path::new("f"),
            Path::new("/b"),
            &crate::sweep::workloads::Roots {
                roms: "/r".into(),
                corpus: "/c".into(),
            },
        )
        .is_ok(),
        Target::Stream => profiler::stream::parse(input, Path::new("f")).is_ok(),
        Target::Symbols => ["f.dbg", "f.nes.0.nl", "f.mlb"].iter().any(|name| {
            profiler::symbols::Symbols::new(0x8000)
                .load_text(&text(), Path::new(name))
                .is_ok()
        }),
    }
}

const WORKER: &str = "input-fuzz-worker";

/// Panics on the fuzz worker are expected and reported as findings; keep
/// the default hook from printing each one. Other threads are unaffected.
fn quiet_worker_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if std::thread::current().name() != Some(WORKER) {
                previous(info);
            }
        }));
    });
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".into()
    }
}

/// Byte values at format boundaries: zero, sign bits, all ones, the iNES
/// magic's `\x1A`, FM2 and RON syntax, digits.
const INTERESTING_BYTES: [u8; 18] = [
    0x00, 0x01, 0x7F, 0x80, 0xFF, 0xFE, 0x0F, 0xF0, 0x08, 0x1A, b'|', b'\n', b' ', b'0', b'9',
    b'(', b'"', b'-',
];

const INTERESTING_WORDS: [u32; 10] = [
    0,
    1,
    0x7F,
    0x80,
    0xFFFF,
    0xFFFE,
    0x8000,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFF,
];

/// Number tokens that sit on a parser's edges.
const INTERESTING_NUMBERS: [&str; 14] = [
    "0",
    "-1",
    "1",
    "2",
    "3",
    "255",
    "256",
    "65535",
    "65536",
    "4294967295",
    "4294967296",
    "99999999999999999999999",
    "1e308",
    "NaN",
];

/// Syntax fragments of the text formats.
const INTERESTING_TOKENS: [&str; 16] = [
    "|", "||", "(", ")", "[", "]", ",", ":", "\"", "\\", "0x", "\r", "\t", "…", "\u{0}", "Some(",
];

/// One mutant of `base`.
pub fn mutate(
    target: Target,
    base: &[u8],
    corpus: &[Vec<u8>],
    rng: &mut Xoshiro256PlusPlus,
) -> Vec<u8> {
    let mut v = base.to_vec();
    let rounds = rng.random_range(1..=4u8);
    for _ in 0..rounds {
        let kinds = if target.is_text() { 14 } else { 9 };
        match rng.random_range(0..kinds) {
            0 => {
                if !v.is_empty() {
                    let at = rng.random_range(0..v.len());
                    v[at] ^= 1 << rng.random_range(0..8u8);
                }
            }
            1 => {
                if !v.is_empty() {
                    let at = rng.random_range(0..v.len());
                    v[at] = INTERESTING_BYTES[rng.random_range(0..INTERESTING_BYTES.len())];
                }
            }
            2 => {
                let word = INTERESTING_WORDS[rng.random_range(0..INTERESTING_WORDS.len())];
                let width = if rng.random_range(0..2u8) == 0 { 2 } else { 4 };
                if v.len() >= width {
                    // Header fields sit early; aim there half the time.
                    let limit = if rng.random_range(0..2u8) == 0 {
                        v.len().min(32)
                    } else {
                        v.len()
                    };
                    let at = rng.random_range(0..=limit - width.min(limit));
                    let at = at.min(v.len() - width);
                    v[at..at + width].copy_from_slice(&word.to_le_bytes()[..width]);
                }
            }
            3 => {
                let at = rng.random_range(0..=v.len());
                v.truncate(at);
            }
            4 => {
                if !v.is_empty() {
                    let (at, len) = chunk(&v, rng);
                    v.drain(at..at + len);
                }
            }
            5 => {
                if !v.is_empty() {
                    let (from, len) = chunk(&v, rng);
                    let piece = v[from..from + len].to_vec();
                    let at = rng.random_range(0..=v.len());
                    v.splice(at..at, piece);
                }
            }
            6 => {
                let other = &corpus[rng.random_range(0..corpus.len())];
                let cut = rng.random_range(0..=v.len());
                let from = rng.random_range(0..=other.len());
                v.truncate(cut);
                v.extend_from_slice(&other[from..]);
            }
            7 => {
                let at = rng.random_range(0..=v.len());
                let len = rng.random_range(1..=16usize);
                let bytes: Vec<u8> = (0..len).map(|_| rng.random::<u8>()).collect();
                v.splice(at..at, bytes);
            }
            8 => {
                // Repeat a chunk many times: long lines, deep nesting.
                if !v.is_empty() {
                    let (from, len) = chunk(&v, rng);
                    let len = len.min(16);
                    let piece = v[from..from + len].repeat(rng.random_range(2..=512usize));
                    let at = rng.random_range(0..=v.len());
                    v.splice(at..at, piece);
                }
            }
            k => mutate_lines(k - 9, &mut v, corpus, rng),
        }
        if v.len() > MAX_INPUT {
            v.truncate(MAX_INPUT);
        }
    }
    v
}

/// A random chunk of `v` (not empty): start and length.
fn chunk(v: &[u8], rng: &mut Xoshiro256PlusPlus) -> (usize, usize) {
    let at = rng.random_range(0..v.len());
    let len = rng.random_range(1..=(v.len() - at).min(64));
    (at, len)
}

/// Line- and token-level edits of a text format.
fn mutate_lines(kind: u8, v: &mut Vec<u8>, corpus: &[Vec<u8>], rng: &mut Xoshiro256PlusPlus) {
    let mut lines: Vec<Vec<u8>> = v.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    let pick = |rng: &mut Xoshiro256PlusPlus, n: usize| rng.random_range(0..n);
    match kind {
        0 => {
            let at = pick(rng, lines.len());
            lines.remove(at);
        }
        1 => {
            let at = pick(rng, lines.len());
            let line = lines[at].clone();
            lines.insert(pick(rng, lines.len() + 1), line);
        }
        2 => {
            let (a, b) = (pick(rng, lines.len()), pick(rng, lines.len()));
            lines.swap(a, b);
        }
        3 => {
            let other = &corpus[pick(rng, corpus.len())];
            let other_lines: Vec<&[u8]> = other.split(|&b| b == b'\n').collect();
            let line = other_lines[pick(rng, other_lines.len())].to_vec();
            lines.insert(pick(rng, lines.len() + 1), line);
        }
        _ => {
            // Replace a number, or insert a token or a long run of text.
            let at = pick(rng, lines.len());
            let line = &mut lines[at];
            let digits: Vec<usize> = (0..line.len())
                .filter(|&i| line[i].is_ascii_digit())
                .collect();
            if !digits.is_empty() && rng.random_range(0..2u8) == 0 {
                let start = digits[pick(rng, digits.len())];
                let end = (start..line.len())
                    .find(|&i| !line[i].is_ascii_digit())
                    .unwrap_or(line.len());
                let number = INTERESTING_NUMBERS[pick(rng, INTERESTING_NUMBERS.len())];
                line.splice(start..end, number.bytes());
            } else {
                let insert: Vec<u8> = if rng.random_range(0..4u8) == 0 {
                    vec![b'A'; rng.random_range(100..=5000usize)]
                } else {
                    INTERESTING_TOKENS[pick(rng, INTERESTING_TOKENS.len())]
                        .bytes()
                        .collect()
                };
                let pos = rng.random_range(0..=line.len());
                line.splice(pos..pos, insert);
            }
        }
    }
    *v = lines.join(&b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutation_is_deterministic_by_seed() {
        let corpus = vec![b"version 3\n|0|........|........||\n".to_vec()];
        let run = |seed| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
            (0..50)
                .map(|_| mutate(Target::Fm2, &corpus[0], &corpus, &mut rng))
                .collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
    }

    /// The Workloads oracle finds what the parser must never accept.
    #[test]
    fn unsafe_or_shared_workload_files_are_findings() {
        let list = |names: &[&str]| -> Vec<crate::sweep::Workload> {
            names
                .iter()
                .map(|n| crate::sweep::Workload {
                    name: n.to_string(),
                    rom: "x.nes".into(),
                    movie: None,
                    minutes: None,
                    ignore_rom_mismatch: false,
                })
                .collect()
        };
        for bad in [
            &["../../x"][..],
            &["/abs/x"],
            &[".hidden"],
            &["a\u{1b}b"],
            &[&"x".repeat(230)],
            &["Maze", "maze"],
        ] {
            assert!(workload_files_are_safe(&list(bad)).is_err(), "{bad:?}");
        }
        assert!(
            workload_files_are_safe(&list(&["maze", "a..b", "Pac | Man", &"x".repeat(200)]))
                .is_ok()
        );
    }

    #[test]
    fn fuzz_runs_the_requested_count() {
        let corpus = vec![b"NES\x1a".to_vec()];
        let report = fuzz(Target::Rom, &corpus, 50, 1, Duration::from_secs(5), |_| {});
        assert_eq!(report.tried, 50);
        assert!(report.findings.is_empty(), "{:?}", report.findings);
    }
}
