//! Where code bytes live, and which of the writable ones hold code the
//! translator decoded. The bus owns a [`CodeWatch`]: the translator marks the
//! bytes it decodes from RAM or PRG RAM, the bus notes every write to a
//! marked byte as the CPU makes it, and the translator takes the list of
//! written bytes to invalidate the blocks covering them. The bus knows
//! nothing of blocks, and the translator does not watch the bus.

/// Where a code byte lives. Blocks are keyed by physical location, so bank
/// switching needs no invalidation: the same CPU address under another
/// mapping is simply another key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CodeKey {
    /// Console RAM, mirrors folded ($0000-$07FF).
    Ram(u16),
    /// Cartridge PRG RAM, by offset.
    PrgRam(u32),
    /// Cartridge PRG ROM, by offset.
    PrgRom(u32),
}

/// The "holds translated code" marks of RAM and PRG RAM, and the marked
/// bytes written since the translator last looked.
#[derive(Debug, Clone)]
pub struct CodeWatch {
    /// One mark per byte of console RAM.
    ram: Vec<bool>,
    /// One mark per byte of PRG RAM (empty until code is decoded from it).
    prg_ram: Vec<bool>,
    /// Marked bytes written since [`CodeWatch::take_writes`].
    writes: Vec<CodeKey>,
}

impl CodeWatch {
    /// Marks for `ram_len` bytes of console RAM, none set.
    pub fn new(ram_len: usize) -> CodeWatch {
        CodeWatch {
            ram: vec![false; ram_len],
            prg_ram: Vec::new(),
            writes: Vec::new(),
        }
    }

    /// Sets or clears the mark of a RAM or PRG RAM byte (PRG RAM being
    /// `prg_ram_len` bytes); writes to marked bytes are noted.
    pub fn set_mark(&mut self, key: CodeKey, marked: bool, prg_ram_len: usize) {
        match key {
            CodeKey::Ram(a) => self.ram[a as usize & 0x7FF] = marked,
            CodeKey::PrgRam(o) => {
                if self.prg_ram.len() != prg_ram_len {
                    self.prg_ram = vec![false; prg_ram_len];
                }
                if let Some(m) = self.prg_ram.get_mut(o as usize) {
                    *m = marked;
                }
            }
            CodeKey::PrgRom(_) => {}
        }
    }

    /// Whether RAM byte `index` ($0000-$07FF) holds translated code.
    #[inline(always)]
    pub fn ram_marked(&self, index: usize) -> bool {
        self.ram[index]
    }

    /// Whether any PRG RAM byte was ever marked (most boards: never).
    #[inline(always)]
    pub fn watches_prg_ram(&self) -> bool {
        !self.prg_ram.is_empty()
    }

    /// Whether PRG RAM byte `offset` holds translated code.
    #[inline(always)]
    pub fn prg_ram_marked(&self, offset: usize) -> bool {
        self.prg_ram.get(offset).copied().unwrap_or(false)
    }

    /// Notes a write to a marked byte.
    #[inline(always)]
    pub fn note_write(&mut self, key: CodeKey) {
        self.writes.push(key);
    }

    /// Whether translated code was overwritten since the last
    /// [`CodeWatch::take_writes`].
    #[inline(always)]
    pub fn written(&self) -> bool {
        !self.writes.is_empty()
    }

    /// Forgets the writes noted (no translator to tell).
    pub fn clear_writes(&mut self) {
        self.writes.clear();
    }

    /// The marked bytes written since the last call, swapped into `into`
    /// (cleared first), whose buffer takes the list's place: both keep
    /// their capacity. (Taking the list left an empty one behind, which
    /// the next write allocated again; fff, whose code rewrites its own
    /// RAM routines, spent 1 % of its instructions on that.)
    pub fn take_writes(&mut self, into: &mut Vec<CodeKey>) {
        into.clear();
        std::mem::swap(&mut self.writes, into);
    }
}
