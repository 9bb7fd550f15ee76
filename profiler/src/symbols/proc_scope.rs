//! Routines as the assembler source declares them: an ld65 `.proc` scope
//! (`ProcScope`), with the places its code covers and the source line of
//! its entry. Read from debug files by `dbg/procs.rs`; the frame-time
//! profile (`frame_profile::routines`) turns them into routine entries.

use super::location::Location;

/// One `.proc` scope of a debug file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcScope {
    /// Qualified as in ca65 source (`outer::inner`), bounded and printable
    /// like labels ([`super::MAX_LABEL_CHARS`]).
    pub name: String,
    /// Where the routine starts: the place of the `.proc`'s own label.
    pub entry: Location,
    /// The CPU address the linker placed the entry at (its run address):
    /// with `entry` it gives the entry's code address on banked boards.
    pub entry_cpu: u16,
    /// What the scope's spans cover: (start, end exclusive) in the start's
    /// region, in the file's order (spans the machine cannot run, CHR ROM
    /// or the header, left out).
    pub ranges: Vec<(Location, u32)>,
    /// `file:line` of the entry's instruction, from the file's line info
    /// (bounded like names), if the file has it.
    pub source: Option<String>,
}

impl ProcScope {
    /// Whether `at` lies in one of the scope's ranges.
    pub fn covers(&self, at: Location) -> bool {
        self.ranges.iter().any(|&(start, end)| {
            start.region == at.region && start.addr <= at.addr && at.addr < end
        })
    }
}
