//! Recorded CFGs on disk: RON with a format version, the ROM it came from,
//! and the disassembly of every instruction in it (captured when recorded,
//! because banked or self-modifying code cannot be disassembled later).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use emu::code_addr;
use emu::input_file::{shorten, shorten_to};
use gfc::Cfg;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Version of [`CfgFile`]'s shape; bumped on incompatible changes.
pub const CFG_FILE_VERSION: u32 = 1;

/// What a record's graph can be, by who writes it: `truth` (`profile`,
/// `cfg record`), `h90` (`sweep`), `sampled` (`profile`, `cfg build`,
/// `sweep`) and `edge_profile` (`profile`, `cfg build`).
pub const KINDS: [&str; 4] = ["truth", "h90", "sampled", "edge_profile"];

/// The largest CFG record read: 256 MiB. A record lists each instruction
/// of its blocks about twice (block list and disassembly), under 256 bytes
/// of pretty RON with its share of block and edge records; 256 MiB is a
/// million instructions, a quarter of a 4 MiB PRG ROM, which is more code
/// than any game executes.
pub const MAX_FILE: emu::input_file::SizeLimit = emu::input_file::SizeLimit {
    bytes: 256 << 20,
    what: "CFG records (256 MiB: a million instructions at 256 bytes each)",
};

/// Longest instruction text a record may hold, in characters: nesprof
/// writes a 6502 instruction's (`emu::disasm::plain`, at most 11: `LDA
/// ($12),Y`). Bounded because renderers repeat it: in a sampled graph,
/// whose blocks may overlap, one text can be drawn once per block.
pub const MAX_DISASM_CHARS: usize = 32;

/// Most instructions a frame can hold: an NTSC frame is 29 780.5 CPU
/// cycles (341 × 262 PPU dots / 3; an odd frame one dot less) and an
/// instruction takes at least 2, so 14 891 with a cycle to spare. Counts
/// read from a file (a record's, a stream trailer's) that claim more
/// instructions or transitions than their frames can run are wrong, and
/// their sums could overflow.
pub const MAX_INSTRUCTIONS_PER_FRAME: u64 = 14_891;

/// Largest PRG ROM a code address can name: the ROM loader's plain-notation
/// maximum (0xFFF units of 16 KiB).
const MAX_PRG_BYTES: usize = 0xFFF * 16 * 1024;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CfgFile {
    pub version: u32,
    /// What the graph is: `truth`, `h90` or `sampled`.
    pub kind: String,
    pub rom_name: String,
    /// FNV-1a 64 of the ROM file, hex.
    pub rom_hash: String,
    pub frames: u64,
    pub cfg: Cfg,
    /// Instruction text per address.
    pub disasm: BTreeMap<u32, String>,
    /// For a sampled hot CFG whose builder estimates it (the trace
    /// builder): per edge, the probability that it is in H90, so a reader
    /// knows which edges are sure. Absent from other records (and from
    /// records written before it existed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub confidence: Vec<EdgeConfidence>,
}

/// How sure a sampled hot CFG is of one of its edges.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EdgeConfidence {
    pub src: u32,
    pub dst: u32,
    /// The probability that the edge is in H90, given its estimated count
    /// and the estimates' standard errors (`gfc::trace`'s `hot`).
    pub p_h90: f64,
}

impl EdgeConfidence {
    /// The entries of `confidence` for `cfg`'s edges, in edge order.
    pub fn of(cfg: &Cfg, confidence: &std::collections::HashMap<(u32, u32), f64>) -> Vec<Self> {
        let mut out: Vec<EdgeConfidence> = cfg
            .edges()
            .iter()
            .filter_map(|e| {
                confidence.get(&(e.src, e.dst)).map(|&p| EdgeConfidence {
                    src: e.src,
                    dst: e.dst,
                    p_h90: p,
                })
            })
            .collect();
        out.sort_by_key(|c| (c.src, c.dst));
        out
    }
}

#[derive(Debug, Error)]
pub enum CfgFileError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not a CFG record: {problem}")]
    Parse { path: PathBuf, problem: String },
    #[error("{path}: CFG record version {found}, this nesprof reads version {CFG_FILE_VERSION}")]
    Version { path: PathBuf, found: u32 },
    /// Well-formed RON that no nesprof writes: the item and what is wrong.
    #[error("{path}: {problem}")]
    Invalid { path: PathBuf, problem: String },
}

impl CfgFile {
    pub fn to_ron(&self) -> String {
        ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default())
            .expect("CFG records serialize")
    }

    /// Writes atomically (temporary file, then rename).
    pub fn write(&self, path: &Path) -> Result<(), CfgFileError> {
        let io = |source| CfgFileError::Io {
            path: path.to_path_buf(),
            source,
        };
        let tmp = path.with_extension("ron.tmp");
        std::fs::write(&tmp, self.to_ron()).map_err(io)?;
        std::fs::rename(&tmp, path).map_err(io)
    }

    /// Reads a record: a regular file of at most [`MAX_FILE`] bytes,
    /// parsed and checked by [`CfgFile::parse`].
    pub fn read(path: &Path) -> Result<CfgFile, CfgFileError> {
        let text = emu::input_file::read_limited_text(path, MAX_FILE).map_err(|source| {
            CfgFileError::Io {
                path: path.to_path_buf(),
                source,
            }
        })?;
        Self::parse(&text, path)
    }

    /// Parses a record and checks that its graph is one nesprof could have
    /// written (see [`CfgFile::validate`]).
    pub fn parse(text: &str, path: &Path) -> Result<CfgFile, CfgFileError> {
        // Check the version before the full shape, so an old or future file
        // gets a version error rather than a confusing field error.
        #[derive(Deserialize)]
        struct VersionOnly {
            version: u32,
        }
        let parse_err = |e: ron::error::SpannedError| CfgFileError::Parse {
            path: path.to_path_buf(),
            problem: shorten_to(&e.to_string(), 160),
        };
        let options = ron::Options::default();
        if let Ok(v) = options.from_str::<VersionOnly>(text) {
            if v.version != CFG_FILE_VERSION {
                return Err(CfgFileError::Version {
                    path: path.to_path_buf(),
                    found: v.version,
                });
            }
        }
        let file: CfgFile = options.from_str(text).map_err(parse_err)?;
        file.validate().map_err(|problem| CfgFileError::Invalid {
            path: path.to_path_buf(),
            problem,
        })?;
        Ok(file)
    }

    /// Checks what the RON shape cannot: a known `kind`; every address a
    /// code address (`emu::code_addr`) a ROM could have; each block's
    /// instructions non-empty, first at its entry, all before its end, and
    /// `entry < end`; every edge joining two blocks (but in an `edge_profile`,
    /// which keeps no blocks for some ends); and, for exact graphs
    /// (`truth`, `h90`), no block entry inside another block, because the
    /// recorder splits blocks at every entry (leader). Sampled graphs may
    /// overlap: the thesis' builder does not split. Counts are bounded by
    /// the record's frames ([`MAX_INSTRUCTIONS_PER_FRAME`]): a graph's
    /// transitions, and an exact graph's executed instructions (block
    /// counts times their lengths) and interrupts, are at most what
    /// `frames + 1` frames can run.
    pub fn validate(&self) -> Result<(), String> {
        if !KINDS.contains(&self.kind.as_str()) {
            return Err(format!(
                "kind {:?} is not one of {}",
                shorten(&self.kind),
                KINDS.join(", ")
            ));
        }
        let cfg = &self.cfg;
        for c in &self.confidence {
            if cfg.edge(c.src, c.dst).is_none() {
                return Err(format!(
                    "confidence for edge {:#x} -> {:#x}, which the graph does not have",
                    c.src, c.dst
                ));
            }
            if !(0.0..=1.0).contains(&c.p_h90) {
                return Err(format!(
                    "confidence {} for edge {:#x} -> {:#x} is not a probability",
                    c.p_h90, c.src, c.dst
                ));
            }
        }
        let mut inside: BTreeMap<u32, u32> = BTreeMap::new();
        for b in cfg.blocks() {
            let name = || format!("block {:#x}", b.entry);
            for &a in b.instrs.iter().chain([&b.entry]) {
                check_address(a).map_err(|p| format!("{}: {p}", name()))?;
            }
            if b.instrs.first() != Some(&b.entry) {
                return Err(format!(
                    "{}: its instruction list must start at its entry",
                    name()
                ));
            }
            if b.end <= b.entry || b.end - b.entry > 0x10000 {
                return Err(format!(
                    "{}: end {:#x} is not after its entry {:#x}",
                    name(),
                    b.end,
                    b.entry
                ));
            }
            if let Some(&a) = b.instrs.iter().find(|&&a| a < b.entry || a >= b.end) {
                return Err(format!(
                    "{}: instruction {} lies outside the block (entry {:#x}, end {:#x})",
                    name(),
                    code_addr::label(a),
                    b.entry,
                    b.end
                ));
            }
            for &a in &b.instrs[1..] {
                inside.insert(a, b.entry);
            }
        }
        if self.kind == "truth" || self.kind == "h90" {
            for b in cfg.blocks() {
                if let Some(&outer) = inside.get(&b.entry) {
                    return Err(format!(
                        "block {} starts inside block {} (an exact graph splits blocks at every entry)",
                        code_addr::label(b.entry),
                        code_addr::label(outer)
                    ));
                }
            }
        }
        // An edge profile counts transitions between addresses it keeps no
        // block for; every other graph describes both ends of its edges.
        for e in cfg.edges() {
            for end in [e.src, e.dst] {
                check_address(end)
                    .map_err(|p| format!("edge {:#x} -> {:#x}: {p}", e.src, e.dst))?;
                if self.kind != "edge_profile" && cfg.block(end).is_none() {
                    return Err(format!(
                        "edge {} -> {}: {} is not a block",
                        code_addr::label(e.src),
                        code_addr::label(e.dst),
                        code_addr::label(end)
                    ));
                }
            }
        }
        let most = (self.frames as u128 + 1) * MAX_INSTRUCTIONS_PER_FRAME as u128;
        let too_many = |what: &str, n: u128| {
            Err(format!(
                "{n} {what} in {} frames (at most {MAX_INSTRUCTIONS_PER_FRAME} instructions a frame)",
                self.frames
            ))
        };
        let transitions: u128 = cfg.edges().iter().map(|e| e.count as u128).sum();
        if transitions > most {
            return too_many("transitions", transitions);
        }
        if self.kind == "truth" || self.kind == "h90" {
            let executed: u128 = cfg
                .blocks()
                .map(|b| b.count as u128 * b.instrs.len() as u128)
                .sum();
            if executed > most {
                return too_many("executed instructions", executed);
            }
            let interrupts: u128 = cfg.interrupts().values().map(|&n| n as u128).sum();
            if interrupts > most {
                return too_many("interrupts", interrupts);
            }
        }
        for &handler in cfg.interrupts().keys() {
            check_address(handler).map_err(|p| format!("interrupt handler {handler:#x}: {p}"))?;
        }
        for (&a, text) in &self.disasm {
            check_address(a).map_err(|p| format!("disassembly entry {a:#x}: {p}"))?;
            if text.chars().count() > MAX_DISASM_CHARS
                || text.chars().any(emu::input_file::needs_escape)
            {
                return Err(format!(
                    "disassembly of {} is not an instruction's text: {:?} (at most {MAX_DISASM_CHARS} printable characters)",
                    code_addr::label(a),
                    shorten(text)
                ));
            }
        }
        Ok(())
    }
}

/// Whether `a` is a code address some ROM could have: a CPU address, or
/// banked PRG ROM (CPU part in $8000-$FFFF) at an offset inside the largest
/// PRG ROM. (Sample streams hold the same addresses.)
pub fn check_address(a: u32) -> Result<(), String> {
    if a < 0x10000 {
        return Ok(());
    }
    if a & 0xFFFF < 0x8000 {
        return Err(format!(
            "address {a:#x} names a PRG ROM bank but CPU address {:#06x} is not in ROM",
            a & 0xFFFF
        ));
    }
    match code_addr::prg_offset(a) {
        Some(offset) if offset < MAX_PRG_BYTES => Ok(()),
        _ => Err(format!(
            "address {a:#x} is not in any PRG ROM (largest: {MAX_PRG_BYTES} bytes)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> CfgFile {
        let mut cfg = Cfg::new();
        cfg.insert_block(gfc::Block::new(0x8000, 2));
        cfg.add_edge(0x8000, 0x8000, 3);
        CfgFile {
            version: CFG_FILE_VERSION,
            kind: "truth".into(),
            rom_name: "x.nes".into(),
            rom_hash: "0123456789abcdef".into(),
            frames: 60,
            cfg,
            disasm: BTreeMap::from([(0x8000, "JMP $8000".to_string())]),
            confidence: Vec::new(),
        }
    }

    #[test]
    fn confidences_round_trip_and_are_checked() {
        let mut f = sample();
        f.kind = "sampled".into();
        f.confidence = vec![EdgeConfidence {
            src: 0x8000,
            dst: 0x8000,
            p_h90: 0.75,
        }];
        let back = CfgFile::parse(&f.to_ron(), Path::new("x.ron")).expect("round trip");
        assert_eq!(back.confidence, f.confidence);
        // Records without it still read.
        assert!(!sample().to_ron().contains("confidence"));
        f.confidence[0].p_h90 = 1.5;
        let e = CfgFile::parse(&f.to_ron(), Path::new("x.ron")).unwrap_err();
        assert!(e.to_string().contains("not a probability"), "{e}");
        f.confidence[0] = EdgeConfidence {
            src: 0x8000,
            dst: 0x8002,
            p_h90: 0.5,
        };
        let e = CfgFile::parse(&f.to_ron(), Path::new("x.ron")).unwrap_err();
        assert!(e.to_string().contains("does not have"), "{e}");
    }

    #[test]
    fn round_trips_and_checks_its_version() {
        let path = Path::new("x.ron");
        let text = sample().to_ron();
        let back = CfgFile::parse(&text, path).unwrap();
        assert_eq!(back.cfg, sample().cfg);
        assert_eq!(back.to_ron(), text);
        let future = text.replacen(&format!("version: {CFG_FILE_VERSION}"), "version: 7", 1);
        let err = CfgFile::parse(&future, path).unwrap_err().to_string();
        assert!(err.contains("version 7"), "{err}");
        let err = CfgFile::parse("(version: 1, kind: 3)", path).unwrap_err();
        assert!(matches!(err, CfgFileError::Parse { .. }), "{err}");
    }

    fn problem(f: &CfgFile) -> String {
        CfgFile::parse(&f.to_ron(), Path::new("g.ron"))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn rejects_graphs_nesprof_never_writes() {
        let mut f = sample();
        f.kind = "hot".into();
        let e = problem(&f);
        assert!(
            e.starts_with("g.ron: kind \"hot\" is not one of truth"),
            "{e}"
        );

        let mut f = sample();
        f.cfg.add_edge(0x8000, 0x9000, 1);
        let e = problem(&f);
        assert_eq!(e, "g.ron: edge $8000 -> $9000: $9000 is not a block");

        let mut f = sample();
        f.cfg.block_mut(0x8000).unwrap().end = 0x7FFF;
        let e = problem(&f);
        assert!(
            e.starts_with("g.ron: block 0x8000: end 0x7fff is not after"),
            "{e}"
        );

        let mut f = sample();
        f.cfg.block_mut(0x8000).unwrap().instrs = vec![0x8000, 0x8004];
        let e = problem(&f);
        assert!(e.contains("instruction $8004 lies outside"), "{e}");

        // Counts no run of its frames could make (and whose sums overflow).
        let mut f = sample();
        f.cfg.insert_block(gfc::Block::new(0x8002, 1));
        f.cfg.add_edge(0x8000, 0x8002, u64::MAX);
        let e = problem(&f);
        assert!(e.contains("transitions in 60 frames"), "{e}");
        let mut f = sample();
        f.cfg.block_mut(0x8000).unwrap().count = 61 * MAX_INSTRUCTIONS_PER_FRAME + 1;
        let e = problem(&f);
        assert!(e.contains("executed instructions in 60 frames"), "{e}");
        f.kind = "sampled".into();
        CfgFile::parse(&f.to_ron(), Path::new("g.ron")).unwrap();

        // Disassembly that is no instruction's: too long, or a control
        // character (it is drawn in DOT and printed by `cfg dot`).
        for text in ["x".repeat(MAX_DISASM_CHARS + 1), "LDA \u{1b}[2J".into()] {
            let mut f = sample();
            f.disasm.insert(0x8000, text);
            let e = problem(&f);
            assert!(e.contains("disassembly of $8000 is not"), "{e}");
            assert!(e.len() < 200, "{e}");
        }

        let mut f = sample();
        f.cfg.insert_block(gfc::Block::new(0x1_8000, 2));
        let e = problem(&f);
        assert!(
            e.starts_with("g.ron: block 0x18000: address 0x18000 is not in any PRG ROM"),
            "{e}"
        );

        // Overlap: an exact graph splits blocks at every entry.
        let mut f = sample();
        let b = f.cfg.block_mut(0x8000).unwrap();
        b.instrs = vec![0x8000, 0x8002];
        b.end = 0x8004;
        f.cfg.insert_block(gfc::Block::new(0x8002, 2));
        let e = problem(&f);
        assert!(e.contains("block $8002 starts inside block $8000"), "{e}");
        f.kind = "sampled".into();
        CfgFile::parse(&f.to_ron(), Path::new("g.ron")).unwrap();
    }

    #[test]
    fn every_snapshot_record_is_valid() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/snapshots");
        let mut n = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "ron") {
                CfgFile::read(&path).unwrap();
                n += 1;
            }
        }
        assert!(n > 0);
    }

    #[cfg(unix)]
    #[test]
    fn refuses_a_device() {
        let e = CfgFile::read(Path::new("/dev/zero"))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "/dev/zero: not a regular file (a device, FIFO or directory could block or never end)"
        );
    }
}
