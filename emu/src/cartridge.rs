//! The live cartridge: PRG ROM, PRG RAM, CHR ROM/RAM, nametable RAM (the
//! console's 2 KiB CIRAM, or 4 KiB on four-screen boards) and the mapper that
//! routes addresses into them through [`Banks`].

use std::path::Path;

use crate::access_log::AccessLog;
use crate::error::{EmuError, RomProblem};
use crate::mapper::{self, Banks, BoardSizes, Mapper, RamHalves, CHR_PAGE, PRG_PAGE};
use crate::pattern_rows::{PatternRows, PatternTable};
use crate::rom::{Header, Mirroring, RomImage};

pub struct Cartridge {
    pub header: Header,
    pub prg_rom: Vec<u8>,
    /// CHR ROM or RAM. Private: every write must also update
    /// `pattern_rows` (see [`Cartridge::fill_chr`]).
    chr: Vec<u8>,
    /// `chr` decoded for drawing (`pattern_rows.rs`).
    pattern_rows: PatternRows,
    pub chr_writable: bool,
    pub prg_ram: Vec<u8>,
    /// Private: every write must also count in `nametable_writes`.
    nametable_ram: Vec<u8>,
    /// Writes to nametable RAM so far: the PPU keeps a tile row's fetch
    /// results while this and the mapping stay the same (`ppu/tile_row.rs`).
    nametable_writes: u64,
    pub banks: Banks,
    mapper: Box<dyn Mapper>,
    watches_ppu_bus: bool,
    /// Whether PRG RAM's enable follows the PPU address bus (see
    /// [`crate::mapper::Mapper::prg_ram_follows_ppu`]).
    ram_follows_ppu: bool,
    /// See [`crate::mapper::Mapper::writes_reach_ppu`] (fixed per board).
    writes_reach_ppu: bool,
    /// The MMC6's RAM enables, when the board is one.
    ram_halves: Option<RamHalves>,
    bus_conflicts: bool,
    /// The code/data logger's data side, when a run asked for a `.cdl`
    /// (`access_log.rs`); `None` costs the hooks one branch each.
    pub access_log: Option<Box<AccessLog>>,
}

impl Cartridge {
    pub fn load(path: &Path) -> Result<Cartridge, EmuError> {
        let bytes = std::fs::read(path).map_err(|source| EmuError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Cartridge::from_bytes(&bytes).map_err(|problem| EmuError::bad_rom(path, problem))
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Cartridge, RomProblem> {
        let rom = RomImage::parse(bytes)?;
        Cartridge::from_image(rom)
    }

    pub fn from_image(rom: RomImage) -> Result<Cartridge, RomProblem> {
        let header = rom.header.clone();
        let (mut chr, chr_writable) = if rom.chr_rom.is_empty() {
            (vec![0u8; header.chr_ram_len.max(8 * 1024)], true)
        } else {
            (rom.chr_rom.clone(), false)
        };
        // NES 2.0 can describe sizes that are not whole banks; pad so every
        // bank offset the mappers compute stays inside the memory.
        let mut prg_rom = rom.prg_rom.clone();
        prg_rom.resize(prg_rom.len().next_multiple_of(PRG_PAGE), 0);
        chr.resize(chr.len().next_multiple_of(CHR_PAGE).max(8 * 1024), 0);
        // Every board gets at least 8 KiB at $6000: test ROMs report through it.
        let prg_ram_len = (header.prg_ram_len + header.prg_nvram_len).max(8 * 1024);
        let sizes = BoardSizes {
            prg_rom: prg_rom.len(),
            chr: chr.len(),
            prg_ram: prg_ram_len,
        };
        let mapper = mapper::create(&rom, sizes)?;
        let nametable_len = if header.mirroring == Mirroring::FourScreen {
            4096
        } else {
            2048
        };
        let mut prg_ram = vec![0u8; prg_ram_len];
        if let Some(trainer) = &rom.trainer {
            prg_ram[0x1000..0x1200].copy_from_slice(trainer);
        }
        let watches_ppu_bus = mapper.watches_ppu_bus();
        let writes_reach_ppu = mapper.writes_reach_ppu();
        let bus_conflicts = mapper.bus_conflicts();
        let pattern_rows = PatternRows::decode(&chr);
        let mut cart = Cartridge {
            header,
            prg_rom,
            chr,
            pattern_rows,
            chr_writable,
            prg_ram,
            nametable_ram: vec![0u8; nametable_len],
            nametable_writes: 0,
            banks: Banks::new(),
            mapper,
            watches_ppu_bus,
            ram_follows_ppu: false,
            writes_reach_ppu,
            ram_halves: None,
            bus_conflicts,
            access_log: None,
        };
        cart.power_on();
        Ok(cart)
    }

    pub fn power_on(&mut self) {
        self.banks.set_mirroring(self.header.mirroring);
        self.mapper.power_on(&mut self.banks);
        if let Some(m) = self.mapper.board_mirroring() {
            self.banks.set_mirroring(m);
        }
        self.refresh_mapper_flags();
    }

    pub fn reset(&mut self) {
        self.mapper.reset(&mut self.banks);
        self.refresh_mapper_flags();
    }

    /// CPU read of $4020-$FFFF; `None` means nothing drives the bus (open bus).
    #[inline]
    pub fn cpu_read(&self, addr: u16) -> Option<u8> {
        if addr >= 0x8000 {
            Some(self.prg_rom_read(addr))
        } else if addr >= 0x6000 {
            if let Some(halves) = &self.ram_halves {
                return halves.read(addr, &self.prg_ram);
            }
            if self.ram_follows_ppu && self.mapper.prg_ram_closed_by_ppu() {
                return None;
            }
            self.banks
                .prg_ram
                .map(|base| self.prg_ram[(base + (addr as usize & 0x1FFF)) % self.prg_ram.len()])
        } else {
            None
        }
    }

    /// The 8 KiB of PRG RAM the CPU reads at $6000-$7FFF now, when that is
    /// one plain slice of it (`None` for split or closed windows, or none
    /// mapped: read those through [`Cartridge::cpu_read`]).
    pub fn prg_ram_window(&self) -> Option<&[u8]> {
        if self.ram_halves.is_some()
            || (self.ram_follows_ppu && self.mapper.prg_ram_closed_by_ppu())
        {
            return None;
        }
        let base = self.banks.prg_ram?;
        self.prg_ram.get(base..base + 0x2000)
    }

    /// A read of $8000-$FFFF: PRG ROM under the current banks. No mapper
    /// here has read side effects.
    #[inline(always)]
    pub fn prg_rom_read(&self, addr: u16) -> u8 {
        self.prg_rom[self.banks.prg[(addr as usize >> 13) & 3] + (addr as usize & 0x1FFF)]
    }

    /// A data access of CPU address `addr` with `flags` (see
    /// `access_log.rs`), logged if a log is attached.
    #[inline(always)]
    pub fn log_prg(&mut self, addr: u16, flags: u8) {
        // The address first: for zero-page operands the compiler knows it
        // is below $8000 and drops the whole check.
        if addr < 0x8000 {
            return;
        }
        if let Some(log) = self.access_log.as_deref_mut() {
            log.prg_access(&self.banks, addr, flags);
        }
    }

    /// A PPU access of pattern address `addr` (and `addr + extra` when
    /// `extra` is not 0) with `flags`, logged if a log is attached.
    #[inline(always)]
    pub fn log_chr(&mut self, addr: u16, extra: u16, flags: u8) {
        if let Some(log) = self.access_log.as_deref_mut() {
            log.chr_access(&self.banks, addr, extra, flags);
        }
    }

    #[inline]
    pub fn cpu_write(&mut self, addr: u16, value: u8, cycle: u64) {
        if let (0x6000..=0x7FFF, Some(halves)) = (addr, self.ram_halves) {
            halves.write(addr, value, &mut self.prg_ram);
        } else if (0x6000..0x8000).contains(&addr)
            && self.banks.prg_ram_writable
            && !(self.ram_follows_ppu && self.mapper.prg_ram_closed_by_ppu())
        {
            if let Some(base) = self.banks.prg_ram {
                let len = self.prg_ram.len();
                self.prg_ram[(base + (addr as usize & 0x1FFF)) % len] = value;
            }
        }
        let value = if addr >= 0x8000 && self.bus_conflicts {
            value & self.cpu_read(addr).unwrap_or(0xFF)
        } else {
            value
        };
        self.mapper.cpu_write(addr, value, &mut self.banks, cycle);
        if addr >= 0x8000 {
            self.refresh_mapper_flags();
        }
    }

    /// Re-reads what the mapper wants of the bus; a register write can
    /// change it (MMC1 on SNROM, see `m001_sxrom`).
    fn refresh_mapper_flags(&mut self) {
        self.watches_ppu_bus = self.mapper.watches_ppu_bus();
        self.ram_follows_ppu = self.mapper.prg_ram_follows_ppu();
        self.ram_halves = self.mapper.prg_ram_halves();
    }

    /// Whether a CPU write to $8000-$FFFF must see the PPU caught up first
    /// ([`crate::mapper::Mapper::writes_reach_ppu`]).
    #[inline(always)]
    pub fn writes_reach_ppu(&self) -> bool {
        self.writes_reach_ppu
    }

    /// Whether a CPU access to PRG RAM must see the PPU caught up first.
    #[inline(always)]
    pub fn ram_follows_ppu(&self) -> bool {
        self.ram_follows_ppu
    }

    /// PPU read of $0000-$3EFF (pattern tables and nametables).
    #[inline(always)]
    pub fn ppu_read(&self, addr: u16) -> u8 {
        let addr = addr as usize & 0x3FFF;
        if addr < 0x2000 {
            self.chr[self.banks.chr[addr >> 10] + (addr & 0x3FF)]
        } else {
            self.nametable_ram[self.banks.nametables[(addr >> 10) & 3] + (addr & 0x3FF)]
        }
    }

    #[inline]
    pub fn ppu_write(&mut self, addr: u16, value: u8) {
        let addr = addr as usize & 0x3FFF;
        if addr < 0x2000 {
            if self.chr_writable {
                let offset = self.banks.chr[addr >> 10] + (addr & 0x3FF);
                self.chr[offset] = value;
                self.pattern_rows.update(&self.chr, offset);
            }
        } else {
            self.nametable_ram[self.banks.nametables[(addr >> 10) & 3] + (addr & 0x3FF)] = value;
            self.nametable_writes += 1;
        }
    }

    /// The decoded rows of the pattern table at PPU address `base` ($0000
    /// or $1000) through the banks mapped now.
    #[inline(always)]
    pub fn pattern_table(&self, base: u16) -> PatternTable<'_> {
        let first = (base as usize >> 10) & 4;
        let c = &self.banks.chr;
        self.pattern_rows
            .table([c[first], c[first + 1], c[first + 2], c[first + 3]])
    }

    /// Nametable `which` (0-3, as PPU address bits 10-11 select it) under
    /// the current mirroring: 1 KiB, tiles then attributes.
    #[inline(always)]
    pub fn nametable(&self, which: usize) -> &[u8; 0x400] {
        let base = self.banks.nametables[which & 3];
        self.nametable_ram[base..base + 0x400]
            .try_into()
            .expect("nametables are 1 KiB")
    }

    /// Writes to nametable RAM so far (any change of its contents counts).
    #[inline(always)]
    pub fn nametable_writes(&self) -> u64 {
        self.nametable_writes
    }

    /// Lets `fill` write the whole of nametable RAM (a movie's power-on
    /// RAM contents).
    pub fn fill_nametables(&mut self, fill: impl FnOnce(&mut [u8])) {
        fill(&mut self.nametable_ram);
        self.nametable_writes += 1;
    }

    /// CHR ROM or RAM, as the board holds it.
    pub fn chr(&self) -> &[u8] {
        &self.chr
    }

    /// Lets `fill` write the whole of CHR memory (a movie's power-on RAM
    /// contents), then decodes it again.
    pub fn fill_chr(&mut self, fill: impl FnOnce(&mut [u8])) {
        fill(&mut self.chr);
        self.pattern_rows = PatternRows::decode(&self.chr);
    }

    /// Reports the PPU address bus to mappers that count A12 edges.
    #[inline]
    pub fn ppu_bus(&mut self, addr: u16, dot: u64) {
        if self.watches_ppu_bus {
            self.mapper.ppu_bus(addr, dot);
        }
    }

    /// Whether the mapper listens to the PPU bus (and may raise IRQs from it).
    #[inline(always)]
    pub fn watches_ppu(&self) -> bool {
        self.watches_ppu_bus
    }

    /// See [`crate::mapper::Mapper::a12_rise_filter_dots`].
    #[inline]
    pub fn a12_rise_filter_dots(&self) -> u64 {
        self.mapper.a12_rise_filter_dots()
    }

    /// See [`crate::mapper::Mapper::ppu_dots_before_irq`].
    #[inline]
    pub fn ppu_dots_before_irq(&self) -> u32 {
        self.mapper.ppu_dots_before_irq()
    }

    /// See [`crate::mapper::Mapper::a12_rises_before_irq`].
    #[inline]
    pub fn a12_rises_before_irq(&self) -> Option<u32> {
        self.mapper.a12_rises_before_irq()
    }

    #[inline]
    pub fn irq(&self) -> bool {
        self.mapper.irq()
    }

    /// The battery-backed PRG RAM, if the board has a battery.
    pub fn battery_ram(&self) -> Option<&[u8]> {
        self.header.battery.then_some(&self.prg_ram[..])
    }

    /// Restores battery-backed PRG RAM from a save file's bytes. A save of
    /// the wrong size is rejected rather than half-applied.
    pub fn load_battery_ram(&mut self, bytes: &[u8]) -> Result<(), String> {
        if !self.header.battery {
            return Err("this cartridge has no battery".into());
        }
        if bytes.len() != self.prg_ram.len() {
            return Err(format!(
                "save is {} bytes, the cartridge's RAM is {}",
                bytes.len(),
                self.prg_ram.len()
            ));
        }
        self.prg_ram.copy_from_slice(bytes);
        Ok(())
    }

    /// Reads without side effects, for debuggers and disassembly.
    pub fn peek(&self, addr: u16) -> Option<u8> {
        self.cpu_read(addr)
    }
}
