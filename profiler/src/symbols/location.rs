//! Where a label points: a region of the machine's memory and an address
//! in it (`Location`), the label read from a file (`Label`), and a reader's
//! complaint about one line (`LineError`). Shared by the table (`mod.rs`)
//! and the three readers, which import it and nothing else of each other.

use std::borrow::Cow;

/// Which memory a location is in. The order is the table's sort order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Region {
    /// PRG ROM; the address is the offset in PRG ROM (no iNES header).
    PrgRom,
    /// The console's 2 KiB of internal RAM ($0000-$07FF, mirrored to $1FFF).
    Ram,
    /// PRG RAM / work RAM / save RAM; the address is the offset from $6000.
    Wram,
    /// Any other CPU address (PPU/APU registers, mapper registers), and
    /// $8000-$FFFF on banked boards when the bank is unknown.
    Cpu,
}

/// A place a label can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    pub region: Region,
    pub addr: u32,
}

impl Location {
    pub const fn prg(offset: u32) -> Location {
        Location {
            region: Region::PrgRom,
            addr: offset,
        }
    }

    /// Internal RAM at CPU address `cpu` (any mirror).
    pub const fn ram(cpu: u32) -> Location {
        Location {
            region: Region::Ram,
            addr: cpu & 0x7FF,
        }
    }

    /// PRG RAM at `offset` from $6000.
    pub const fn wram(offset: u32) -> Location {
        Location {
            region: Region::Wram,
            addr: offset,
        }
    }

    pub const fn cpu(cpu: u32) -> Location {
        Location {
            region: Region::Cpu,
            addr: cpu,
        }
    }

    /// Where CPU address `cpu` is on a board with `prg_len` bytes of PRG ROM
    /// when nothing says which bank is mapped: PRG ROM only on boards with at
    /// most 32 KiB of it (nothing is switched there; NROM-128's 16 KiB appear
    /// twice, at $8000 and $C000).
    pub fn of_cpu(cpu: u16, prg_len: usize) -> Location {
        let cpu32 = cpu as u32;
        match cpu {
            0x0000..=0x1FFF => Location::ram(cpu32),
            // The PPU's eight registers repeat every 8 bytes up to $3FFF.
            0x2000..=0x3FFF => Location::cpu(cpu32 & 0x2007),
            0x6000..=0x7FFF => Location::wram(cpu32 - 0x6000),
            0x8000..=0xFFFF if prg_len > 0 && prg_len <= 0x8000 => {
                Location::prg((cpu as usize - 0x8000) as u32 % prg_len as u32)
            }
            _ => Location::cpu(cpu32),
        }
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.region {
            Region::PrgRom => write!(f, "PRG:{:05X}", self.addr),
            Region::Ram => write!(f, "RAM:{:04X}", self.addr),
            Region::Wram => write!(f, "WRAM:{:04X}", self.addr),
            Region::Cpu => write!(f, "${:04X}", self.addr),
        }
    }
}

/// Longest label name kept, in characters. FCEUX keeps at most 30
/// characters of a name-list name (`NL_MAX_NAME_LEN` in its debugger) and
/// ca65 identifiers are rarely longer; 128 leaves room for an ld65 name
/// qualified by three scopes (`scope::inner::loop@again`). Every table
/// column, DOT box and overlay line that shows a label is then bounded:
/// unbounded names made the hot-block table's padding panic (a
/// 65,535-character label) and one 5 MB label a 535 MB DOT.
pub const MAX_LABEL_CHARS: usize = 128;

/// `name` as the table keeps it: control characters escaped (a name is
/// printed on terminals and in reports) and, when longer than
/// [`MAX_LABEL_CHARS`], its first 127 characters and `…`. Reads at most
/// that much of `name`, however long it is, and borrows it when it is
/// already so.
pub fn bounded_name(name: &str) -> Cow<'_, str> {
    let clean = name.len() <= MAX_LABEL_CHARS && !name.chars().any(emu::input_file::needs_escape);
    if clean {
        Cow::Borrowed(name)
    } else {
        Cow::Owned(emu::input_file::shorten_to(name, MAX_LABEL_CHARS - 1))
    }
}

/// `text` from a file quoted in a reader's complaint: shortened and
/// escaped ([`emu::input_file::shorten`]), so a complaint stays one short
/// line whatever the line it quotes.
pub(crate) fn quoted(text: &str) -> String {
    format!("\"{}\"", emu::input_file::shorten(text))
}

/// One label as a reader found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub location: Location,
    pub name: String,
    /// End (exclusive, in the same region) of what the label covers, when
    /// the file says.
    pub end: Option<u32>,
    /// A cheap local (`@loop`), shown under its global's name.
    pub local: bool,
}

/// A reader's complaint: the 1-based line and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LineError {
    pub line: usize,
    pub problem: String,
}

impl LineError {
    pub(crate) fn new(line: usize, problem: impl Into<String>) -> LineError {
        LineError {
            line,
            problem: problem.into(),
        }
    }
}
