//! Symbol tables: the names NES developers give their code and memory, read
//! from the files their tools already write, so that blocks can be shown as
//! `main_loop+$4` instead of `$800F` or `03:A1F0`.
//!
//! This module owns the table (`Symbols`), what a code address means as a
//! place in the cartridge or console (`Location`), and how a code address is
//! described by the nearest label. One reader per file format sits beside it:
//! `dbg` (ld65 debug files, `--dbgfile`), `nl` (FCEUX name lists) and `mlb`
//! (Mesen label files). Each reader turns text into `Label`s; only this file
//! touches the file system.
//!
//! Labels are keyed by location, not by CPU address, because a CPU address
//! in $8000-$FFFF is ambiguous on banked boards: PRG ROM by its offset in the
//! PRG ROM (the same key `emu::code_addr::prg_offset` gives for banked code
//! addresses), internal RAM by its address modulo its 2 KiB mirror, PRG RAM by
//! its offset from $6000, and anything else (registers) by CPU address.
//!
//! How `describe` names an address without a label of its own: the nearest
//! label at or below it in the same region, as `label+$off` (hex, the 6502
//! convention, no padding), if that label reaches it. A label reaches to the
//! end of its extent when the file gives one (an ld65 segment, an FCEUX
//! `/size` array, a Mesen `start-end` range); otherwise, in PRG ROM, to the
//! end of its 16 KiB bank (FCEUX's bank, the `BB` of `BB:AAAA`, since code of
//! another bank is unrelated), and elsewhere to 256 bytes (past that the name
//! is more guess than help). Addresses no label reaches keep
//! `emu::code_addr::label`'s `$C123` / `03:A1F0`.
//!
//! Routines as the source declares them — ld65 `.proc` scopes, with what
//! they cover and the source line of their entry (`proc_scope.rs`) — are
//! kept beside the labels ([`Symbols::procs`]); the other formats have
//! none.
//!
//! When two labels name one location, a global label beats a cheap local
//! (`@loop`) and otherwise the first one read stays, so files given earlier
//! take precedence and a table built from the same files is always the same.
//!
//! Bounds: a file is read only up to its format's size limit ([`max_file`])
//! and refused if it holds a NUL byte (binary junk, never text these tools
//! write); names are cut to [`MAX_LABEL_CHARS`] with control characters
//! escaped as they are read; a file's labels go straight into a table
//! keyed by location, so memory follows the labels kept, not the lines
//! read. What a table holds, and what any view of its names costs, is then
//! linear in the files' sizes.

mod dbg;
mod fit;
mod location;
mod mlb;
mod nl;
mod proc_scope;

pub use fit::RomShape;
pub use location::{bounded_name, Label, Location, Region, MAX_LABEL_CHARS};
pub use proc_scope::ProcScope;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use emu::code_addr;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum SymbolError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: {problem}")]
    Parse {
        path: PathBuf,
        line: usize,
        problem: String,
    },
    /// A file that cannot be the ROM's (`fit.rs`).
    #[error("{path}: {problem}")]
    Mismatch { path: PathBuf, problem: String },
    #[error(
        "{path}: unknown symbol file type; nesprof reads ld65 debug files (.dbg), \
         FCEUX name lists (.nl) and Mesen label files (.mlb)"
    )]
    Format { path: PathBuf },
    #[error("{path}: binary data (a NUL byte at offset {offset}), not a text symbol file")]
    Binary { path: PathBuf, offset: usize },
}

/// A label in the table; its name is `names[name..name + name_len]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    name: usize,
    name_len: u16,
    local: bool,
    end: Option<u32>,
}

/// A label found for an address: its name and how far past it the address is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit<'a> {
    pub name: &'a str,
    pub offset: u32,
}

/// Labels of one program, keyed by location.
///
/// The names sit back to back in one string: a table of millions of short
/// labels (a 32 MiB label file of one-letter names) then costs some 40
/// bytes a label, where a `String` each cost 90 (the allocator's smallest
/// block is bigger than most names).
#[derive(Debug, Clone, Default)]
pub struct Symbols {
    prg_len: usize,
    entries: BTreeMap<Location, Entry>,
    names: String,
    /// `.proc` scopes of the debug files read, in reading order (a scope
    /// whose entry an earlier one has is left out).
    procs: Vec<ProcScope>,
    /// The ROM the files are checked against (`Symbols::for_rom`).
    rom: Option<RomShape>,
    /// One line per file that may not be the ROM's (`fit.rs`).
    notices: Vec<String>,
}

/// Largest ld65 debug file read: 64 MiB. ld65 lists every file, line,
/// span, scope and symbol; a big game's file is a few MB, and a cc65 C
/// program with its C symbols and types some times that.
pub const MAX_DBG_FILE: emu::input_file::SizeLimit = emu::input_file::SizeLimit {
    bytes: 64 << 20,
    what: "ld65 debug files (64 MiB: big games' are a few MB)",
};

/// Largest FCEUX name list read: 32 MiB. A file covers one 16 KiB bank (or
/// the RAM below $8000), one line per address: 16 Ki lines of a name and a
/// comment of up to 1000 characters (FCEUX's `NL_MAX_MULTILINE_COMMENT_LEN`)
/// are 17 MB.
pub const MAX_NL_FILE: emu::input_file::SizeLimit = emu::input_file::SizeLimit {
    bytes: 32 << 20,
    what: "FCEUX name lists (32 MiB: one 16 KiB bank, a line per address)",
};

/// Largest Mesen label file read: 32 MiB, a label and a 1000-character
/// comment for every byte of a 32 KiB window of code, or a short label for
/// each of a million addresses; exports of whole games are well under 1 MB.
pub const MAX_MLB_FILE: emu::input_file::SizeLimit = emu::input_file::SizeLimit {
    bytes: 32 << 20,
    what: "Mesen label files (32 MiB: a game's export is under 1 MB)",
};

/// Bytes per PRG bank as FCEUX counts them (and `code_addr::label` shows).
const BANK: u32 = 0x4000;
/// How far a label without a known extent reaches outside PRG ROM.
const REACH_OUTSIDE_PRG: u32 = 0x100;

impl Symbols {
    /// An empty table for a board with `prg_len` bytes of PRG ROM.
    pub fn new(prg_len: usize) -> Symbols {
        Symbols {
            prg_len,
            entries: BTreeMap::new(),
            names: String::new(),
            procs: Vec::new(),
            rom: None,
            notices: Vec::new(),
        }
    }

    /// An empty table for the ROM `rom`: the files loaded into it are
    /// checked against it (`fit.rs`): one that cannot map onto it is
    /// refused, one that may be another game's leaves a notice.
    pub fn for_rom(rom: RomShape) -> Symbols {
        Symbols {
            rom: Some(rom.clone()),
            ..Symbols::new(rom.prg_len)
        }
    }

    /// The lines, one per file, saying that a file loaded may not be the
    /// ROM's (`warning: ...`, or `note: ...` when only the names differ);
    /// taken, so each is said once.
    pub fn take_notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notices)
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn prg_len(&self) -> usize {
        self.prg_len
    }

    /// The `.proc` scopes of the debug files read (none from other
    /// formats), in reading order.
    pub fn procs(&self) -> &[ProcScope] {
        &self.procs
    }

    /// Reads `path`, choosing the reader by its extension (`.dbg`, `.nl`,
    /// `.mlb`), and returns how many labels it added (labels at locations
    /// already named are not counted). A file over its format's size limit
    /// ([`max_file`]) or holding a NUL byte is refused before it is parsed.
    pub fn load(&mut self, path: &Path) -> Result<usize, SymbolError> {
        let format = Format::of(path)?;
        let io = |source| SymbolError::Io {
            path: path.to_owned(),
            source,
        };
        let bytes = emu::input_file::read_limited(path, format.max_file()).map_err(io)?;
        if let Some(at) = bytes.iter().position(|&b| b == 0) {
            return Err(SymbolError::Binary {
                path: path.to_owned(),
                offset: at,
            });
        }
        // FCEUX writes ASCII, Mesen UTF-8; a stray byte in a comment is no
        // reason to refuse a file.
        self.load_format(format, &String::from_utf8_lossy(&bytes), path)
    }

    /// As [`Symbols::load`], for the text of a file named `path` (whose
    /// extension, and for a name list whose name, say how to read it).
    pub fn load_text(&mut self, text: &str, path: &Path) -> Result<usize, SymbolError> {
        self.load_format(Format::of(path)?, text, path)
    }

    /// Whether the labels just read (`file`) can be the ROM's
    /// (`fit.rs`): refused with an error, or a notice kept.
    fn check_fit(
        &mut self,
        format: Format,
        file: &Symbols,
        layout: Option<&dbg::Layout>,
        path: &Path,
    ) -> Result<(), SymbolError> {
        let Some(rom) = self.rom.as_ref() else {
            return Ok(());
        };
        let labels: Vec<Label> = file
            .entries
            .iter()
            .map(|(&location, entry)| Label {
                location,
                name: file.name(entry).to_owned(),
                end: entry.end,
                local: entry.local,
            })
            .collect();
        let fit = match (format, layout) {
            (Format::Dbg, Some(layout)) => fit::dbg(&labels, layout, rom),
            (Format::Nl, _) => fit::other(&labels, nl::rom_name(path), rom),
            _ => fit::other(&labels, None, rom),
        };
        let rom_name = rom.file_name.clone();
        match fit {
            fit::Fit::Refuse(problem) => {
                return Err(SymbolError::Mismatch {
                    path: path.to_owned(),
                    problem,
                })
            }
            fit::Fit::Warn(why) => self.notices.push(format!(
                "warning: {}: may not be {rom_name}'s, its labels may name the wrong code: {why}",
                path.display()
            )),
            fit::Fit::Note(hint) => self.notices.push(format!(
                "note: {}: {hint}, not {rom_name}; if that is another game, its labels name the wrong code",
                path.display()
            )),
            fit::Fit::Fits => {}
        }
        Ok(())
    }

    fn load_format(
        &mut self,
        format: Format,
        text: &str,
        path: &Path,
    ) -> Result<usize, SymbolError> {
        // The file's labels go into a table of their own, which keeps one
        // per location as they come (a file of a million lines naming one
        // address holds one label), and join this table only if the whole
        // file reads. Adding the file's winner at each location gives what
        // adding its labels one by one would (see `add`).
        let mut file = Symbols::new(self.prg_len);
        let mut add = |label: Label| {
            file.add(label);
        };
        let mut procs = Vec::new();
        let parsed = match format {
            Format::Dbg => dbg::read_with_procs(
                text,
                self.prg_len,
                &mut add,
                Some(&mut |p: ProcScope| procs.push(p)),
            )
            .map(Some),
            Format::Nl => {
                nl::read(text, nl::file_kind(path), self.prg_len, &mut add).map(|()| None)
            }
            Format::Mlb => mlb::read(text, self.prg_len, &mut add).map(|()| None),
        };
        let layout = parsed.map_err(|e| SymbolError::Parse {
            path: path.to_owned(),
            line: e.line,
            problem: e.problem,
        })?;
        self.check_fit(format, &file, layout.as_ref(), path)?;
        for p in procs {
            if self.procs.iter().all(|q| q.entry != p.entry) {
                self.procs.push(p);
            }
        }
        if self.entries.is_empty() {
            // The first file: the table is the file's.
            let added = file.len();
            self.entries = file.entries;
            self.names = file.names;
            return Ok(added);
        }
        let mut added = 0;
        for (&location, entry) in &file.entries {
            added +=
                usize::from(self.add_named(location, file.name(entry), entry.end, entry.local));
        }
        Ok(added)
    }

    /// The symbol files next to the ROM that the tools write by default:
    /// `<stem>.dbg` (ld65 `--dbgfile`), `<stem>.mlb` (Mesen's export) and
    /// `<rom file name>.*.nl` (FCEUX: `game.nes.0.nl`, `game.nes.ram.nl`),
    /// read in that order. Returns the table and the files read (none found
    /// is an empty table, not an error; a found file that does not parse is
    /// an error, so a broken symbol file is not silently ignored).
    pub fn discover(
        rom_path: &Path,
        prg_len: usize,
    ) -> Result<(Symbols, Vec<PathBuf>), SymbolError> {
        Symbols::new(prg_len).discover_beside(rom_path)
    }

    /// As [`Symbols::discover`], into this table (and so checked against its
    /// ROM, [`Symbols::for_rom`]).
    pub fn discover_beside(self, rom_path: &Path) -> Result<(Symbols, Vec<PathBuf>), SymbolError> {
        let mut symbols = self;
        let mut read = Vec::new();
        for path in discover_paths(rom_path) {
            symbols.load(&path)?;
            read.push(path);
        }
        Ok((symbols, read))
    }

    /// Adds one label (its name bounded as [`bounded_name`] says); false if
    /// its location already has a label that stays (see the module comment
    /// for which wins).
    pub fn add(&mut self, label: Label) -> bool {
        self.add_named(
            label.location,
            &bounded_name(&label.name),
            label.end,
            label.local,
        )
    }

    /// `add` for a name already bounded.
    fn add_named(&mut self, location: Location, name: &str, end: Option<u32>, local: bool) -> bool {
        let wins = match self.entries.get(&location) {
            None => true,
            Some(old) => old.local && !local,
        };
        if wins {
            // A replaced name's bytes stay behind in `names`: a location is
            // replaced at most once (a local by a global).
            let entry = Entry {
                name: self.names.len(),
                name_len: name.len() as u16,
                local,
                end,
            };
            self.names.push_str(name);
            self.entries.insert(location, entry);
        }
        wins
    }

    fn name(&self, entry: &Entry) -> &str {
        &self.names[entry.name..entry.name + entry.name_len as usize]
    }

    /// Where code address `code` is (see `emu::code_addr`).
    pub fn location(&self, code: u32) -> Location {
        match code_addr::prg_offset(code) {
            Some(offset) => Location::prg(offset as u32),
            None => Location::of_cpu(code as u16, self.prg_len),
        }
    }

    /// The label exactly at `code`, if any.
    pub fn name_at(&self, code: u32) -> Option<&str> {
        self.name_at_location(self.location(code))
    }

    pub fn name_at_location(&self, location: Location) -> Option<&str> {
        self.entries.get(&location).map(|e| self.name(e))
    }

    /// The nearest label at or below `code` that reaches it.
    pub fn lookup(&self, code: u32) -> Option<Hit<'_>> {
        self.nearest(self.location(code), false)
    }

    /// As `lookup`, skipping cheap locals: the routine `code` is in, for
    /// per-function views such as flame graphs.
    pub fn lookup_global(&self, code: u32) -> Option<Hit<'_>> {
        self.nearest(self.location(code), true)
    }

    /// `label`, `label+$off`, or `emu::code_addr::label(code)` when no label
    /// reaches `code`.
    pub fn describe(&self, code: u32) -> String {
        describe_hit(self.lookup(code), code)
    }

    /// As `describe`, by the nearest global label.
    pub fn describe_global(&self, code: u32) -> String {
        describe_hit(self.lookup_global(code), code)
    }

    /// Every label with its location, in location order.
    pub fn iter(&self) -> impl Iterator<Item = (Location, &str)> + '_ {
        self.entries.iter().map(|(l, e)| (*l, self.name(e)))
    }

    fn nearest(&self, at: Location, global_only: bool) -> Option<Hit<'_>> {
        let floor = Location {
            region: at.region,
            addr: 0,
        };
        let (loc, entry) = self
            .entries
            .range(floor..=at)
            .rev()
            .find(|(_, e)| !(global_only && e.local))?;
        let reaches = match entry.end {
            Some(end) => at.addr < end,
            None if at.region == Region::PrgRom => loc.addr / BANK == at.addr / BANK,
            None => at.addr - loc.addr < REACH_OUTSIDE_PRG,
        };
        reaches.then_some(Hit {
            name: self.name(entry),
            offset: at.addr - loc.addr,
        })
    }
}

fn describe_hit(hit: Option<Hit<'_>>, code: u32) -> String {
    match hit {
        Some(Hit { name, offset: 0 }) => name.to_owned(),
        Some(Hit { name, offset }) => format!("{name}+${offset:X}"),
        None => code_addr::label(code),
    }
}

#[derive(Clone, Copy)]
enum Format {
    Dbg,
    Nl,
    Mlb,
}

/// The size limit of the symbol file `path` (by its extension), if it
/// names a format nesprof reads.
pub fn max_file(path: &Path) -> Option<emu::input_file::SizeLimit> {
    Format::of(path).ok().map(Format::max_file)
}

impl Format {
    fn max_file(self) -> emu::input_file::SizeLimit {
        match self {
            Format::Dbg => MAX_DBG_FILE,
            Format::Nl => MAX_NL_FILE,
            Format::Mlb => MAX_MLB_FILE,
        }
    }

    /// The format a file's extension names.
    fn of(path: &Path) -> Result<Format, SymbolError> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("dbg") => Ok(Format::Dbg),
            Some("nl") => Ok(Format::Nl),
            Some("mlb") => Ok(Format::Mlb),
            _ => Err(SymbolError::Format {
                path: path.to_owned(),
            }),
        }
    }
}

/// The files `Symbols::discover` reads for `rom_path`, in reading order.
pub fn discover_paths(rom_path: &Path) -> Vec<PathBuf> {
    let dir = match rom_path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => PathBuf::from("."),
    };
    let mut found = Vec::new();
    if let Some(stem) = rom_path.file_stem() {
        for ext in ["dbg", "mlb"] {
            let mut name = stem.to_owned();
            name.push(".");
            name.push(ext);
            let path = dir.join(name);
            if path.is_file() {
                found.push(path);
            }
        }
    }
    if let Some(file_name) = rom_path.file_name().and_then(|n| n.to_str()) {
        let prefix = format!("{file_name}.");
        let mut nl: Vec<PathBuf> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
            .filter(|e| {
                e.file_name().to_str().is_some_and(|n| {
                    n.starts_with(&prefix)
                        && n.len() > prefix.len() + 3
                        && n.to_ascii_lowercase().ends_with(".nl")
                })
            })
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect();
        nl.sort();
        found.extend(nl);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(location: Location, name: &str, end: Option<u32>, local: bool) -> Label {
        Label {
            location,
            name: name.to_owned(),
            end,
            local,
        }
    }

    /// A scratch directory removed when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(tag: &str) -> TempDir {
            let dir =
                std::env::temp_dir().join(format!("nesprof-symbols-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn describes_by_the_nearest_label_that_reaches() {
        let mut s = Symbols::new(0x8000);
        s.add(label(Location::prg(0x000F), "main_loop", None, false));
        s.add(label(Location::prg(0x3FF0), "near_end", None, false));
        s.add(label(Location::ram(0x600), "occ_set", Some(0x628), false));
        s.add(label(Location::ram(0x300), "vars", None, false));
        assert_eq!(s.describe(0x800F), "main_loop");
        assert_eq!(s.describe(0x8013), "main_loop+$4");
        assert_eq!(s.describe(0x8010 + 0x1A), "main_loop+$1B");
        // Below the first label, and past a 16 KiB bank edge: no name.
        assert_eq!(s.describe(0x8000), "$8000");
        assert_eq!(s.describe(0xC002), "$C002");
        assert_eq!(s.describe(0xBFFF), "near_end+$F");
        // A known extent ends the reach; without one, 256 bytes outside ROM.
        assert_eq!(s.describe(0x0627), "occ_set+$27");
        assert_eq!(s.describe(0x0628), "$0628");
        assert_eq!(s.describe(0x03FF), "vars+$FF");
        assert_eq!(s.describe(0x0400), "$0400");
        // RAM mirrors.
        assert_eq!(s.name_at(0x0E00), Some("occ_set"));
        assert_eq!(s.len(), 4);
    }

    #[test]
    fn nrom_128_mirrors_and_banked_codes() {
        let mut s = Symbols::new(0x4000);
        s.add(label(Location::prg(0x10), "entry", None, false));
        assert_eq!(s.name_at(0x8010), Some("entry"));
        assert_eq!(s.name_at(0xC010), Some("entry"));
        // On a banked board a plain $8010 is not a PRG place; the code
        // address of offset 0x10 mapped at $8000 is.
        let mut s = Symbols::new(0x20000);
        s.add(label(Location::prg(0x10), "entry", None, false));
        let code = ((0x10000u32 - 0x8000) << 3) | 0x8010;
        assert_eq!(s.name_at(code), Some("entry"));
        assert_eq!(s.name_at(0x8010), None);
        // Falls back to the bank:address form when nothing reaches.
        let far = ((0x1C000u32 + 0x10000 - 0xC000) << 3) | 0xC000;
        assert_eq!(s.describe(far), "07:C000");
    }

    #[test]
    fn globals_beat_locals_and_first_read_wins() {
        let mut s = Symbols::new(0x8000);
        assert!(s.add(label(Location::prg(0x20), "f@loop", None, true)));
        assert!(s.add(label(Location::prg(0x20), "g", None, false)));
        assert!(!s.add(label(Location::prg(0x20), "h", None, false)));
        assert!(!s.add(label(Location::prg(0x20), "f@again", None, true)));
        assert_eq!(s.name_at(0x8020), Some("g"));
        s.add(label(Location::prg(0x10), "f", None, false));
        s.add(label(Location::prg(0x18), "f@inner", None, true));
        assert_eq!(s.describe(0x801A), "f@inner+$2");
        assert_eq!(s.describe_global(0x801A), "f+$A");
        let hit = s.lookup_global(0x801A).unwrap();
        assert_eq!((hit.name, hit.offset), ("f", 0xA));
        let all: Vec<(Location, &str)> = s.iter().collect();
        assert_eq!(all[0], (Location::prg(0x10), "f"));
    }

    #[test]
    fn load_picks_the_reader_and_reports_file_and_line() {
        let dir = TempDir::new("load");
        let mlb = dir.0.join("x.MLB");
        std::fs::write(&mlb, "P:0010:entry\nP:0020:second\n").unwrap();
        let mut s = Symbols::new(0x8000);
        assert_eq!(s.load(&mlb).unwrap(), 2);
        assert_eq!(
            s.load(&mlb).unwrap(),
            0,
            "labels already there are not counted"
        );

        let bad = dir.0.join("x.nl");
        std::fs::write(&bad, "$8000#ok#\n$80Z0#bad#\n").unwrap();
        let msg = s.load(&bad).unwrap_err().to_string();
        assert!(msg.contains("x.nl:2:"), "{msg}");

        let other = dir.0.join("x.sym");
        std::fs::write(&other, "").unwrap();
        let msg = s.load(&other).unwrap_err().to_string();
        assert!(
            msg.contains(".dbg") && msg.contains(".nl") && msg.contains(".mlb"),
            "{msg}"
        );

        let missing = dir.0.join("none.dbg");
        let msg = s.load(&missing).unwrap_err().to_string();
        assert!(msg.contains("none.dbg"), "{msg}");
    }

    #[test]
    fn refuses_binary_junk_and_files_over_their_limit() {
        let dir = TempDir::new("junk");
        let nul = dir.0.join("game.nes.0.nl");
        std::fs::write(&nul, b"$8000#ok#\n\0\0\0").unwrap();
        let mut s = Symbols::new(0x8000);
        let msg = s.load(&nul).unwrap_err().to_string();
        assert!(
            msg.contains("game.nes.0.nl") && msg.contains("NUL byte at offset 10"),
            "{msg}"
        );
        assert!(s.is_empty(), "nothing of a refused file is kept");
        // Over the limit: refused by its size, before it is read.
        let big = dir.0.join("big.mlb");
        let file = std::fs::File::create(&big).unwrap();
        file.set_len(MAX_MLB_FILE.bytes + 1).unwrap();
        let start = std::time::Instant::now();
        let msg = s.load(&big).unwrap_err().to_string();
        assert!(msg.contains("limit for Mesen label files"), "{msg}");
        assert!(start.elapsed() < std::time::Duration::from_millis(500));
        assert_eq!(max_file(&big), Some(MAX_MLB_FILE));
        assert_eq!(max_file(Path::new("x.DBG")), Some(MAX_DBG_FILE));
    }

    /// A label of any length costs the table at most `MAX_LABEL_CHARS`
    /// characters, through any reader or `add`; a file that names one place
    /// a million times keeps one label; a parse error keeps none.
    #[test]
    fn names_are_bounded_and_files_kept_whole_or_not_at_all() {
        let long = "w".repeat(100_000);
        let mut s = Symbols::new(0x8000);
        s.load_text(&format!("P:0010:{long}\n"), Path::new("a.mlb"))
            .unwrap();
        s.add(label(Location::prg(0x20), &long, None, false));
        s.add(label(Location::prg(0x30), "bell\x07", None, false));
        for (_, name) in s.iter() {
            assert!(name.chars().count() <= MAX_LABEL_CHARS, "{name}");
        }
        assert_eq!(s.name_at(0x8030), Some("bell\\x07"));
        assert!(s.describe(0x8015).chars().count() <= MAX_LABEL_CHARS + 3);

        let many = "$8000#same#\n".repeat(1_000_000);
        let mut s = Symbols::new(0x8000);
        assert_eq!(s.load_text(&many, Path::new("g.nes.0.nl")).unwrap(), 1);
        assert_eq!(s.len(), 1);

        let broken = "P:0010:kept_if_whole\nP:zz:bad\n";
        assert!(s.load_text(broken, Path::new("b.mlb")).is_err());
        assert_eq!(s.len(), 1, "a file that fails to parse adds nothing");
    }

    /// The file's winners joined to the table give what adding every label
    /// one by one gives (first read wins, a global beats a local).
    #[test]
    fn a_file_joins_the_table_as_its_labels_one_by_one() {
        let dbg = "version\tmajor=2,minor=0\n\
seg\tid=0,name=\"CODE\",start=0x008000,size=0x0100,addrsize=absolute,type=ro,oname=\"p.nes\",ooffs=16\n\
sym\tid=0,name=\"@l\",parent=1,addrsize=absolute,val=0x8000,seg=0,type=lab\n\
sym\tid=1,name=\"g\",addrsize=absolute,val=0x8002,seg=0,type=lab\n\
sym\tid=2,name=\"h\",addrsize=absolute,val=0x8000,seg=0,type=lab\n\
sym\tid=3,name=\"i\",addrsize=absolute,val=0x8000,seg=0,type=lab\n";
        for earlier in [None, Some(("e", true)), Some(("e", false))] {
            let mut whole = Symbols::new(0x8000);
            let mut one_by_one = Symbols::new(0x8000);
            if let Some((name, local)) = earlier {
                whole.add(label(Location::prg(0), name, None, local));
                one_by_one.add(label(Location::prg(0), name, None, local));
            }
            whole.load_text(dbg, Path::new("p.dbg")).unwrap();
            let mut labels = Vec::new();
            dbg::read(dbg, 0x8000, &mut |l| labels.push(l)).unwrap();
            for l in labels {
                one_by_one.add(l);
            }
            let a: Vec<_> = whole.iter().collect();
            let b: Vec<_> = one_by_one.iter().collect();
            assert_eq!(a, b, "{earlier:?}");
        }
    }

    /// `.proc` scopes come with a debug file's labels; a second file's
    /// scope at an entry already known is left out.
    #[test]
    fn procs_are_kept_from_debug_files() {
        let dbg = "version\tmajor=2,minor=0\n\
seg\tid=0,name=\"CODE\",start=0x008000,size=0x0100,addrsize=absolute,type=ro,oname=\"p.nes\",ooffs=16\n\
span\tid=0,seg=0,start=0,size=4\n\
scope\tid=1,name=\"f\",type=scope,sym=0,span=0\n\
sym\tid=0,name=\"f\",addrsize=absolute,scope=0,val=0x8000,seg=0,type=lab\n";
        let mut s = Symbols::new(0x8000);
        s.load_text("P:0010:from_mesen\n", Path::new("a.mlb"))
            .unwrap();
        assert!(s.procs().is_empty());
        s.load_text(dbg, Path::new("p.dbg")).unwrap();
        s.load_text(&dbg.replace("\"f\"", "\"g\""), Path::new("q.dbg"))
            .unwrap();
        assert_eq!(s.procs().len(), 1);
        assert_eq!(s.procs()[0].name, "f");
        assert_eq!(s.procs()[0].ranges, vec![(Location::prg(0), 4)]);
    }

    #[test]
    fn discover_finds_what_the_tools_write() {
        let dir = TempDir::new("discover");
        let rom = dir.0.join("game.nes");
        std::fs::write(&rom, b"").unwrap();
        std::fs::write(dir.0.join("game.nes.0.nl"), "$8010#from_fceux#\n").unwrap();
        std::fs::write(dir.0.join("game.nes.ram.nl"), "$0300#ram_var#\n").unwrap();
        std::fs::write(
            dir.0.join("game.mlb"),
            "P:0010:from_mesen\nP:0020:mesen_only\n",
        )
        .unwrap();
        std::fs::write(dir.0.join("other.nes.0.nl"), "$8030#not_ours#\n").unwrap();
        let (s, read) = Symbols::discover(&rom, 0x8000).unwrap();
        let names: Vec<String> = read
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["game.mlb", "game.nes.0.nl", "game.nes.ram.nl"]);
        // The Mesen file is read first, so it names $8010.
        assert_eq!(s.name_at(0x8010), Some("from_mesen"));
        assert_eq!(s.name_at(0x8020), Some("mesen_only"));
        assert_eq!(s.name_at(0x0300), Some("ram_var"));
        assert_eq!(s.name_at(0x8030), None);

        let empty = TempDir::new("discover-none");
        let (s, read) = Symbols::discover(&empty.0.join("x.nes"), 0x8000).unwrap();
        assert!(s.is_empty() && read.is_empty());
    }

    fn roms_test() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../roms-test")
    }

    /// The committed debug file of every roms-test program names the
    /// addresses ld65's own label file (`<name>.lbl`) lists, and the ROM's
    /// reset and NMI vectors land on `reset` and `nmi`.
    #[test]
    fn committed_roms_test_debug_files_resolve_their_labels() {
        let dir = roms_test();
        let mut checked = 0;
        for program in [
            "cfgdemo",
            "snake",
            "breakout",
            "fountain",
            "maze",
            "swarm",
            "plasma",
            "tracker",
            "dep_counter",
            "dep_buffer",
            "dep_dead",
        ] {
            let rom = std::fs::read(dir.join(format!("{program}.nes"))).unwrap();
            let prg_len = rom[4] as usize * 0x4000;
            let (s, read) =
                Symbols::discover(&dir.join(format!("{program}.nes")), prg_len).unwrap();
            assert_eq!(read, [dir.join(format!("{program}.dbg"))]);
            let vector = |at: usize| {
                let i = 16 + prg_len - 6 + at;
                u16::from_le_bytes([rom[i], rom[i + 1]]) as u32
            };
            assert_eq!(s.name_at(vector(0)), Some("nmi"), "{program}");
            assert_eq!(s.name_at(vector(2)), Some("reset"), "{program}");

            let lbl = std::fs::read_to_string(dir.join(format!("{program}.lbl"))).unwrap();
            let mut by_addr: BTreeMap<u32, Vec<&str>> = BTreeMap::new();
            for line in lbl.lines() {
                let mut f = line.split_whitespace();
                let (Some("al"), Some(addr), Some(name)) = (f.next(), f.next(), f.next()) else {
                    panic!("{program}.lbl: odd line {line:?}");
                };
                // `__RAMCODE_LOAD__` and the like are the linker's, which
                // the debug file lists only as imports (no value).
                if name.starts_with(".__") {
                    continue;
                }
                let addr = u32::from_str_radix(addr, 16).unwrap();
                by_addr
                    .entry(addr)
                    .or_default()
                    .push(name.trim_start_matches('.'));
            }
            for (addr, names) in &by_addr {
                let ours = s
                    .name_at(*addr)
                    .unwrap_or_else(|| panic!("{program}: no label at ${addr:04X} ({names:?})"));
                // Ours are qualified (`owner@local`, `scope::name`).
                let short = ours.rsplit("::").next().unwrap();
                let short = short.find('@').map_or(short, |i| &short[i..]);
                assert!(
                    names.contains(&short),
                    "{program} ${addr:04X}: {ours} not in {names:?}"
                );
                checked += 1;
            }
        }
        assert!(checked > 1000, "only {checked} labels checked");
    }

    #[test]
    fn ram_code_is_named_by_its_run_address() {
        let (s, _) = Symbols::discover(&roms_test().join("snake.nes"), 0x8000).unwrap();
        assert_eq!(s.name_at(0x0600), Some("occ_set"));
        assert_eq!(s.name_at(0x061B), Some("occ_rmw"));
        assert_eq!(s.describe(0x061D), "occ_rmw+$2");
        assert_eq!(s.name_at(0x0615), Some("occ_write@mask_ready"));
        // The bytes that hold RAMCODE in ROM are not code labels.
        assert_eq!(s.location(0x0600).region, Region::Ram);
    }
}
