//! Routines, not labels: what a routine is, for the exact accounting and
//! for the sampled estimates alike. A routine is named by its entry's code
//! address (`emu::code_addr`).
//!
//! **Entries.** When the symbol files hold ld65 `.proc` scopes
//! (`symbols::ProcScope`), each scope is a routine: its entry is the
//! scope's label, and every address its spans cover is the routine's (the
//! innermost scope's, where scopes nest). Code outside every scope, and
//! every program without scopes, gets its routines from the run: the
//! targets of `JSR`, the NMI, IRQ and BRK handlers, the reset handler (the
//! root, given by the caller), the targets of an `RTS` used as a jump and
//! of `JMP (indirect)` — each learned as the exact accounting meets it
//! ([`Routines::enter`]). A target inside a scope is that scope's routine
//! (a second entry point of a `.proc` is the `.proc`).
//!
//! **Address to routine** (what the sampled side needs: it sees
//! addresses, not calls): [`Routines::owner_of`], the scope covering the
//! address, else the entry whose reach holds it as read from the code
//! (`extents.rs`), else [`Routines::routine_of`]: the nearest known entry
//! at or below it in the same bank with no scope between them. "The same
//! bank": for a banked code address the same mapped window group and
//! 16 KiB PRG bank (`code_addr`'s high bits and FCEUX's bank number); for
//! a plain one the same region (RAM, registers, PRG RAM, or one 16 KiB
//! half of $8000–$FFFF), as `Symbols::describe` reaches. With scopes it is
//! exact for the code they cover; without, the reading of the code agrees
//! with the exact side's calls for the code a routine reaches by branches
//! and jumps, and neither reading does for code one routine reaches by
//! falling into another's entry (the exact side follows the call).
//!
//! A scope's entry code address is its run address on boards of up to
//! 32 KiB of PRG ROM, and on larger ones the code address of its PRG
//! offset mapped where the linker placed it (`code_addr`'s formula with
//! that run address), which is the one the engines give when the bank is
//! mapped there. A scope whose offset and run address disagree modulo
//! 8 KiB (no window maps it there) is left out.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use emu::code_addr;
use emu::cpu::opcodes::OPCODES;
use emu::int_hash::IntMap;

use super::extents;
use crate::symbols::{Location, Region, Symbols};

/// One routine that a `.proc` scope declares.
#[derive(Debug, Clone)]
struct Proc {
    entry: u32,
    name: String,
    source: Option<String>,
}

/// The routines of a program (see the module doc).
#[derive(Debug, Clone)]
pub struct Routines {
    prg_len: usize,
    /// The reset handler's routine: the root of the main program.
    root: u32,
    /// Disjoint pieces of the scopes' extents, innermost scope on top:
    /// start → (end, index in `procs`).
    pieces: BTreeMap<Location, (u32, u32)>,
    procs: Vec<Proc>,
    /// Scope entries' code addresses → index in `procs`.
    proc_entries: BTreeMap<u32, u32>,
    /// Entries learned from the run (outside every scope).
    learned: BTreeSet<u32>,
    /// Names for entries outside scopes.
    symbols: Option<Arc<Symbols>>,
    /// PRG ROM, to tell `JMP (indirect)` from `JMP` absolute.
    prg: Option<Arc<[u8]>>,
    /// The owners of the code the entries reach (`extents.rs`), as of
    /// the last [`Routines::refresh_owners`], which also adds the calls
    /// the code shows to `learned`.
    owners: IntMap<u32, u32>,
    /// Whether entries (or banks) came since the owners were read.
    owners_stale: bool,
    /// Possible entries read from PRG ROM's bytes alone
    /// ([`Routines::add_candidates`]), sorted, each with whether a sample
    /// ran at it.
    candidates: Vec<(u32, bool)>,
    /// The banks (code-address high bits) the code seen in each 8 KiB
    /// window of $8000-$FFFF came from ([`Routines::note_code`]).
    window_banks: [WindowBank; 4],
}

/// Which banks a window's code has been seen in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WindowBank {
    Unseen,
    One(u32),
    Many,
}

/// The bank an address's nearest entry must share (see the module doc).
fn bank(code: u32) -> (u32, u32) {
    match code_addr::prg_offset(code) {
        Some(offset) => (code & !0xFFFF, (offset / 0x4000) as u32),
        None => (
            0,
            match code {
                0x0000..=0x1FFF => 0,
                0x2000..=0x5FFF => 1,
                0x6000..=0x7FFF => 2,
                0x8000..=0xBFFF => 3,
                _ => 4,
            },
        ),
    }
}

/// The code address of a scope's entry at PRG-ROM place `entry`, linked
/// to run at CPU address `cpu` (see the module doc).
fn entry_code(entry: Location, cpu: u16, prg_len: usize) -> Option<u32> {
    match entry.region {
        Region::PrgRom if prg_len > 0x8000 => {
            let high = entry.addr as i64 + 0x10000 - cpu as i64;
            (cpu >= 0x8000 && high >= 0x2000 && high % 0x2000 == 0)
                .then_some(((high as u32) << 3) | cpu as u32)
        }
        _ => Some(cpu as u32),
    }
}

impl Routines {
    /// The routines of a program without symbols, on a board with
    /// `prg_len` bytes of PRG ROM, whose reset handler starts at code
    /// address `reset`.
    pub fn new(prg_len: usize, reset: u32) -> Routines {
        let mut r = Routines {
            prg_len,
            root: reset,
            pieces: BTreeMap::new(),
            procs: Vec::new(),
            proc_entries: BTreeMap::new(),
            learned: BTreeSet::new(),
            symbols: None,
            prg: None,
            owners: IntMap::default(),
            owners_stale: true,
            candidates: Vec::new(),
            window_banks: [WindowBank::Unseen; 4],
        };
        r.root = r.enter(reset);
        r
    }

    /// As [`Routines::new`], with the scopes of `symbols` and its labels
    /// for naming the other routines (a copy is kept).
    pub fn with_symbols(symbols: &Symbols, reset: u32) -> Routines {
        let prg_len = symbols.prg_len();
        let mut r = Routines::new(prg_len, reset);
        r.learned.clear();
        // Larger ranges first, so that nested scopes paint over them; at
        // equal size the later scope (the inner one) wins.
        let mut ranges = Vec::new();
        for p in symbols.procs() {
            let Some(entry) = entry_code(p.entry, p.entry_cpu, prg_len) else {
                continue;
            };
            if r.proc_entries.contains_key(&entry) {
                continue;
            }
            let index = r.procs.len() as u32;
            r.proc_entries.insert(entry, index);
            r.procs.push(Proc {
                entry,
                name: p.name.clone(),
                source: p.source.clone(),
            });
            for &(start, end) in &p.ranges {
                if end > start.addr {
                    ranges.push((end - start.addr, index, start, end));
                }
            }
        }
        ranges.sort_by_key(|&(size, index, _, _)| (std::cmp::Reverse(size), index));
        for (_, index, start, end) in ranges {
            r.paint(start, end, index);
        }
        r.symbols = Some(Arc::new(symbols.clone()));
        r.root = r.enter(reset);
        r
    }

    /// With PRG ROM `prg` (the cartridge's, without header): `JMP
    /// (indirect)` is then told from `JMP` absolute by its opcode. Without
    /// it every `JMP` is taken for absolute.
    pub fn with_prg(mut self, prg: Arc<[u8]>) -> Routines {
        self.prg = Some(prg);
        self
    }

    /// Makes `[start, end)` scope `index`'s, over what was there.
    fn paint(&mut self, start: Location, end: u32, index: u32) {
        let region = start.region;
        let at = |addr| Location { region, addr };
        // A piece reaching into the range from below keeps its head (and
        // its tail past the range, if it covers all of it).
        if let Some((&s, &(e, i))) = self.pieces.range(..start).next_back() {
            if s.region == region && e > start.addr {
                self.pieces.insert(s, (start.addr, i));
                if e > end {
                    self.pieces.insert(at(end), (e, i));
                }
            }
        }
        let inside: Vec<Location> = self.pieces.range(start..at(end)).map(|(&s, _)| s).collect();
        for s in inside {
            let (e, i) = self.pieces.remove(&s).expect("listed");
            if e > end {
                self.pieces.insert(at(end), (e, i));
            }
        }
        self.pieces.insert(start, (end, index));
    }

    /// The scope covering code address `code`, if any: its index.
    fn scope_index(&self, code: u32) -> Option<u32> {
        if self.pieces.is_empty() {
            return None;
        }
        let at = self.location(code);
        let (s, &(e, i)) = self.pieces.range(..=at).next_back()?;
        (s.region == at.region && at.addr < e).then_some(i)
    }

    fn location(&self, code: u32) -> Location {
        match code_addr::prg_offset(code) {
            Some(offset) => Location::prg(offset as u32),
            None => Location::of_cpu(code as u16, self.prg_len),
        }
    }

    /// Whether the symbol files gave scopes.
    pub fn has_scopes(&self) -> bool {
        !self.procs.is_empty()
    }

    /// The root routine: the reset handler's.
    pub fn root(&self) -> u32 {
        self.root
    }

    /// The routine of the code at `pc` (see the module doc), `None` for
    /// code before every known entry of its bank.
    pub fn routine_of(&self, pc: u32) -> Option<u32> {
        if let Some(i) = self.scope_index(pc) {
            return Some(self.procs[i as usize].entry);
        }
        let &entry = self.learned.range(..=pc).next_back()?;
        if bank(entry) != bank(pc) {
            return None;
        }
        if !self.pieces.is_empty() {
            // A scope between the entry and `pc` ends the entry's reach.
            let (from, to) = (self.location(entry), self.location(pc));
            if from.region == to.region && self.pieces.range(from..=to).next().is_some() {
                return None;
            }
        }
        Some(entry)
    }

    /// The routine that owns the code at `pc`, as the sampled side reads
    /// it: the scope covering it, else the entry whose reach holds it
    /// (`extents.rs`, as of the last [`Routines::refresh_owners`]), else
    /// [`Routines::routine_of`].
    pub fn owner_of(&self, pc: u32) -> Option<u32> {
        if let Some(i) = self.scope_index(pc) {
            return Some(self.procs[i as usize].entry);
        }
        match self.owners.get(&pc) {
            Some(&entry) => Some(entry),
            None => self.routine_of(pc),
        }
    }

    /// Reads the entries' reach again if entries came since the last
    /// time (a walk over the code they reach: call it after adding a
    /// batch's entries, not per address).
    pub fn refresh_owners(&mut self) {
        if !self.owners_stale {
            return;
        }
        self.owners_stale = false;
        let entries: Vec<u32> = self.learned.iter().copied().collect();
        // Into another window of a banked board: where only one bank has
        // been seen there, that one.
        let resolve = |from: u32, to: u16| {
            extents::same_window(from, to).or_else(|| {
                let banked = code_addr::prg_offset(from).is_some() && to >= 0x8000;
                match self.window_banks[(to as usize >> 13) & 3] {
                    WindowBank::One(high) if banked => Some(high | to as u32),
                    _ => None,
                }
            })
        };
        let boundary = |code: u32| self.scope_index(code).is_some();
        let byte = |code: u32| self.prg_byte(code);
        let mut read = extents::read(&entries, boundary, byte, resolve);
        // Candidates in code the reading reached (an instruction's first
        // byte or its operand) are operands or data that look like a
        // call: left out. The others, once a sample ran at them, are
        // code reached another way (a jump table the samples have not
        // shown yet): taken. (One that never ran may be data, or start in
        // the middle of an instruction of code the reading cannot reach.)
        let mut covered: IntMap<u32, ()> = IntMap::default();
        for &code in read.owner.keys() {
            let len = byte(code).map_or(1, |op| OPCODES[op as usize].byte_len());
            for i in 0..len as u16 {
                covered.insert(code_addr::advance(code, i), ());
            }
        }
        let more: Vec<u32> = self
            .candidates
            .iter()
            .filter(|&&(c, ran)| ran && !covered.contains_key(&c) && !boundary(c))
            .map(|&(c, _)| c)
            .collect();
        if !more.is_empty() {
            let roots: Vec<u32> = entries.iter().chain(&more).copied().collect();
            read = extents::read(&roots, boundary, byte, resolve);
        }
        // The calls the reading found are entries (and learned ones stay
        // learned: the code may not say how they are reached).
        self.learned.extend(read.entries);
        self.owners = read.owner;
    }

    /// Possible entries read from the bytes alone (every `JSR abs` that
    /// PRG ROM's bytes could hold): [`Routines::refresh_owners`] takes
    /// those outside the code it reaches from the known entries at which
    /// a sample ran ([`Routines::note_code`]).
    pub fn add_candidates(&mut self, candidates: impl IntoIterator<Item = u32>) {
        self.candidates
            .extend(candidates.into_iter().map(|c| (c, false)));
        self.candidates.sort_unstable();
        self.candidates.dedup_by_key(|c| c.0);
    }

    /// Notes that code at code address `pc` ran (a sample's): the bank
    /// it came from tells the reading of the code (`extents.rs`) which
    /// bank a jump into its window reaches, while only one has been seen;
    /// a candidate entry there is an instruction's start.
    pub fn note_code(&mut self, pc: u32) {
        if let Ok(i) = self.candidates.binary_search_by_key(&pc, |c| c.0) {
            if !self.candidates[i].1 {
                self.candidates[i].1 = true;
                // One inside the code read is left out at any reading: no
                // need to read again for it (most candidates a sample runs
                // at are such, and a reading walks all the code).
                if !self.owners.contains_key(&pc) {
                    self.owners_stale = true;
                }
            }
        }
        if code_addr::prg_offset(pc).is_none() {
            return;
        }
        let high = pc & !0xFFFF;
        let w = &mut self.window_banks[(pc as u16 as usize >> 13) & 3];
        let now = match *w {
            WindowBank::Unseen => WindowBank::One(high),
            WindowBank::One(h) if h == high => return,
            WindowBank::One(_) | WindowBank::Many => WindowBank::Many,
        };
        if now != *w {
            *w = now;
            self.owners_stale = true;
        }
    }

    /// The scope routine covering `code`, if any.
    pub fn scope_of(&self, code: u32) -> Option<u32> {
        self.scope_index(code).map(|i| self.procs[i as usize].entry)
    }

    /// Whether `code` is a known routine entry (a scope's or a learned
    /// one).
    pub fn is_entry(&self, code: u32) -> bool {
        self.proc_entries.contains_key(&code) || self.learned.contains(&code)
    }

    /// The routine that a call, interrupt or dispatch to `target` enters:
    /// the scope covering it, else `target` itself, learned as an entry.
    pub fn enter(&mut self, target: u32) -> u32 {
        match self.scope_of(target) {
            Some(entry) => entry,
            None => {
                if self.learned.insert(target) {
                    self.owners_stale = true;
                }
                target
            }
        }
    }

    /// Adds `code` as an entry (outside scopes; inside one it is that
    /// scope's already). For a sampled profile without the exact one, the
    /// call targets its samples show.
    pub fn add_entry(&mut self, code: u32) {
        self.enter(code);
    }

    /// Whether the symbol files name code address `code`.
    pub fn is_labelled(&self, code: u32) -> bool {
        self.symbols
            .as_deref()
            .is_some_and(|s| s.name_at(code).is_some())
    }

    /// Every known entry, in code-address order.
    pub fn entries(&self) -> impl Iterator<Item = u32> + '_ {
        let mut all: Vec<u32> = self
            .proc_entries
            .keys()
            .chain(self.learned.iter())
            .copied()
            .collect();
        all.sort_unstable();
        all.dedup();
        all.into_iter()
    }

    /// Whether the instruction at code address `pc` is `JMP (indirect)`
    /// (false when the code is not known: RAM, or no PRG given).
    pub fn is_indirect_jump(&self, pc: u32) -> bool {
        self.prg_byte(pc) == Some(0x6C)
    }

    /// The PRG ROM byte at code address `code` (`None` for code outside
    /// PRG ROM, or without the PRG given).
    pub fn prg_byte(&self, code: u32) -> Option<u8> {
        let prg = self.prg.as_deref()?;
        let offset = match code_addr::prg_offset(code) {
            Some(offset) => offset,
            None if code >= 0x8000 && !prg.is_empty() => (code as usize - 0x8000) % prg.len(),
            None => return None,
        };
        prg.get(offset).copied()
    }

    /// How the routine entered at `entry` is named: its scope's name, else
    /// the label at the entry, else the nearest global label reaching it
    /// (`label+$off`), else its address (`emu::code_addr::label`).
    pub fn name(&self, entry: u32) -> String {
        if let Some(&i) = self.proc_entries.get(&entry) {
            return self.procs[i as usize].name.clone();
        }
        match &self.symbols {
            Some(s) => match s.name_at(entry) {
                Some(name) => name.to_owned(),
                None => s.describe_global(entry),
            },
            None => code_addr::label(entry),
        }
    }

    /// The source `file:line` of a scope routine's entry, if known.
    pub fn source(&self, entry: u32) -> Option<&str> {
        let &i = self.proc_entries.get(&entry)?;
        self.procs[i as usize].source.as_deref()
    }
}

/// The targets in $8000-$FFFF of every instruction `opcode abs` that PRG
/// ROM's bytes could hold (`$20` for `JSR`, `$4C` for `JMP`), as code
/// addresses with the banks mapped as they are now: a static reading of
/// the code, data bytes that look like one included.
pub fn static_targets(nes: &mut emu::Nes, prg: &[u8], opcode: u8) -> Vec<u32> {
    let mut targets = BTreeSet::new();
    for w in prg.windows(3) {
        if w[0] == opcode {
            let to = u16::from_le_bytes([w[1], w[2]]);
            if to >= 0x8000 {
                targets.insert(to);
            }
        }
    }
    targets.into_iter().map(|to| nes.code_address(to)).collect()
}

/// The code address an interrupt vector (`$FFFA` NMI, `$FFFC` reset)
/// points at, with the banks mapped as they are now.
pub fn vector_target(nes: &mut emu::Nes, at: u16) -> u32 {
    let cpu = u16::from_le_bytes([nes.peek(at), nes.peek(at.wrapping_add(1))]);
    nes.code_address(cpu)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbols::ProcScope;
    use std::path::Path;

    /// A `.dbg` of three procs: `outer` ($8000-$800F) holding `inner`
    /// ($8004-$8007), and `far` ($9000-$90FF) with a table in RODATA.
    fn symbols() -> Symbols {
        let dbg = "version\tmajor=2,minor=0\n\
file\tid=0,name=\"g.s\",size=1,mtime=0,mod=0\n\
line\tid=0,file=0,line=12,span=3\n\
seg\tid=0,name=\"CODE\",start=0x008000,size=0x2000,addrsize=absolute,type=ro,oname=\"g.nes\",ooffs=16\n\
seg\tid=1,name=\"RODATA\",start=0x00A000,size=0x100,addrsize=absolute,type=ro,oname=\"g.nes\",ooffs=8208\n\
span\tid=0,seg=0,start=0,size=16\n\
span\tid=1,seg=0,start=4,size=4\n\
span\tid=2,seg=0,start=0x1000,size=0x100\n\
span\tid=3,seg=0,start=4,size=1\n\
span\tid=4,seg=1,start=0,size=0x10\n\
scope\tid=1,name=\"outer\",type=scope,sym=0,span=0\n\
scope\tid=2,name=\"inner\",type=scope,parent=1,sym=1,span=1\n\
scope\tid=3,name=\"far\",type=scope,sym=2,span=2+4\n\
sym\tid=0,name=\"outer\",addrsize=absolute,scope=0,val=0x8000,seg=0,type=lab\n\
sym\tid=1,name=\"inner\",addrsize=absolute,scope=2,val=0x8004,seg=0,type=lab\n\
sym\tid=2,name=\"far\",addrsize=absolute,scope=0,val=0x9000,seg=0,type=lab\n\
sym\tid=3,name=\"loose\",addrsize=absolute,scope=0,val=0x9800,seg=0,type=lab\n";
        let mut s = Symbols::new(0x8000);
        s.load_text(dbg, Path::new("g.dbg")).unwrap();
        s
    }

    #[test]
    fn scopes_give_routines_innermost_first() {
        let r = Routines::with_symbols(&symbols(), 0x8000);
        assert!(r.has_scopes());
        assert_eq!(r.routine_of(0x8000), Some(0x8000));
        assert_eq!(r.routine_of(0x8003), Some(0x8000));
        assert_eq!(r.routine_of(0x8004), Some(0x8004));
        assert_eq!(r.routine_of(0x8007), Some(0x8004));
        assert_eq!(r.routine_of(0x8008), Some(0x8000));
        assert_eq!(r.routine_of(0x800F), Some(0x8000));
        assert_eq!(r.routine_of(0x90FF), Some(0x9000));
        // The table in RODATA is `far`'s.
        assert_eq!(r.routine_of(0xA00F), Some(0x9000));
        // Outside every scope, with no entry learned there.
        assert_eq!(r.routine_of(0x8010), None);
        assert_eq!(r.name(0x8004), "outer::inner");
        assert_eq!(r.source(0x8004), Some("g.s:12"));
        assert_eq!(r.source(0x8000), None);
        assert!(r.is_entry(0x9000) && !r.is_entry(0x9001));
        // The reset handler inside `outer` is `outer`.
        assert_eq!(r.root(), 0x8000);
    }

    #[test]
    fn targets_outside_scopes_are_learned_and_reach_up_to_the_next_scope() {
        let mut r = Routines::with_symbols(&symbols(), 0x8000);
        // A call into the middle of `far` is `far`.
        assert_eq!(r.enter(0x9010), 0x9000);
        assert!(!r.is_entry(0x9010));
        // A call to code outside scopes makes it an entry, named by its
        // label.
        assert_eq!(r.enter(0x9800), 0x9800);
        assert_eq!(r.name(0x9800), "loose");
        assert_eq!(r.routine_of(0x9805), Some(0x9800));
        // An entry's reach ends at the next scope: $8F00 is past `outer`
        // and below `far`, but an entry at $8010 does not reach past $9000.
        r.enter(0x8010);
        assert_eq!(r.routine_of(0x8F00), Some(0x8010));
        assert_eq!(r.routine_of(0x9100), None);
        assert_eq!(
            r.entries().collect::<Vec<_>>(),
            vec![0x8000, 0x8004, 0x8010, 0x9000, 0x9800]
        );
    }

    #[test]
    fn without_scopes_the_nearest_entry_in_the_bank() {
        let mut r = Routines::new(0x8000, 0xC000);
        assert!(!r.has_scopes());
        assert_eq!(r.root(), 0xC000);
        assert_eq!(r.routine_of(0xC123), Some(0xC000));
        // Another 16 KiB half: no entry there yet.
        assert_eq!(r.routine_of(0x8123), None);
        r.enter(0x8100);
        assert_eq!(r.routine_of(0x8123), Some(0x8100));
        assert_eq!(r.routine_of(0x80FF), None);
        // RAM code is its own bank.
        r.enter(0x0600);
        assert_eq!(r.routine_of(0x0700), Some(0x0600));
        assert_eq!(r.routine_of(0x7000), None);
        assert_eq!(r.name(0x8100), "$8100");
    }

    #[test]
    fn banked_scopes_get_the_code_address_of_their_bank() {
        // Bank 2 of a 128 KiB UxROM game, linked at $8000.
        let proc_ = ProcScope {
            name: "level_load".into(),
            entry: Location::prg(0x8123),
            entry_cpu: 0x8123,
            ranges: vec![(Location::prg(0x8123), 0x8200)],
            source: None,
        };
        let code = entry_code(proc_.entry, proc_.entry_cpu, 0x20000).unwrap();
        assert_eq!(code_addr::prg_offset(code), Some(0x8123));
        assert_eq!(code as u16, 0x8123);
        assert_eq!(code_addr::label(code), "02:8123");
        // What the engines give for $8150 with bank 2 at $8000.
        let mut banks = emu::mapper::banks::Banks::new();
        banks.prg = [0x8000, 0xA000, 0x1C000, 0x1E000];
        let pc = code_addr::code_address(0x20000, &banks, 0x8150);
        assert_eq!(code_addr::advance(code, 0x2D), pc);
        // An offset no window maps at that address is refused.
        assert_eq!(entry_code(Location::prg(0x8124), 0x8123, 0x20000), None);
        // Plain boards and RAM: the run address.
        assert_eq!(
            entry_code(Location::prg(0x10), 0xC010, 0x4000),
            Some(0xC010)
        );
        assert_eq!(
            entry_code(Location::ram(0x600), 0x0600, 0x20000),
            Some(0x600)
        );
    }

    #[test]
    fn indirect_jumps_by_opcode() {
        let mut prg = vec![0xEA; 0x4000];
        prg[0x10] = 0x6C;
        prg[0x20] = 0x4C;
        let r = Routines::new(0x4000, 0xC000).with_prg(prg.into());
        // NROM-128: $8010 and $C010 are one byte.
        assert!(r.is_indirect_jump(0x8010) && r.is_indirect_jump(0xC010));
        assert!(!r.is_indirect_jump(0xC020));
        assert!(!r.is_indirect_jump(0x0600));
        assert!(!Routines::new(0x4000, 0xC000).is_indirect_jump(0xC010));
    }
}
