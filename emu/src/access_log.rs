//! The data side of a code/data log: which PRG-ROM bytes the program read as
//! data (and how), which CHR-ROM bytes the PPU drew or the CPU read through
//! $2007. The code side needs no recording of its own: the executed
//! instructions are in the flow counts (`flow_counts.rs`), and the
//! `profiler` crate's CDL writer (`profiler/src/cdl.rs`) combines both into
//! FCEUX's `.cdl` layout.
//!
//! What is recorded, and why exactly this (FCEUX's debugger, `debug.cpp`
//! `LogCDData`/`LogCDVectors`, `sound.cpp` `LogDPCM`, `ppu.cpp`, was the
//! reference for what each bit means):
//! - [`DATA`]: the byte an instruction reads as its operand (loads, compares,
//!   BIT, the unofficial read opcodes), the two bytes of a `JMP ($nnnn)`
//!   pointer, and interrupt and reset vectors. Dummy reads (the 6502's
//!   discarded reads at a not-yet-corrected address) are not data the
//!   program asked for and are left out, as FCEUX (which logs the one
//!   effective address per instruction) leaves them out; so is the read of a
//!   read-modify-write on ROM, which is a mapper register write in disguise.
//!   An OAM DMA from a ROM page reads ROM as data and is marked.
//! - [`INDIRECT_DATA`] with it: the read went through a pointer
//!   (`(zp,X)`, `(zp),Y`), as FCEUX marks those two modes.
//! - [`PCM`] with [`DATA`]: the DMC fetched the byte as a sample. FCEUX
//!   marks the whole sample range when playback starts; here each byte the
//!   DMC actually fetched is marked, which is the same for samples played to
//!   their end.
//! - The 8 KiB CPU windows ($8000, $A000, $C000, $E000) each data byte was
//!   read through, as a mask: the file has room for one window per byte
//!   ("when last accessed", FCEUX's help; FCEUX itself keeps the first), and
//!   "last" would depend on the order of events, which the code side (from
//!   counts) cannot know. The writer picks one deterministically.
//! - CHR [`CHR_DRAWN`]: pattern bytes the PPU fetched for a line it shows
//!   (0-239) with that layer on — both planes of every background tile row
//!   fetched while the background is on, and of every sprite row in use
//!   while sprites are on (the pre-render line's fetches are for line 0).
//!   The PPU fetches more than it draws, and those fetches are not marked:
//!   both layers' rows while only the other layer is on (it fetches
//!   whenever either is), the pre-render line's 32 background tiles (read
//!   at whatever VRAM address the CPU left, garbage), line 239's fetches
//!   for line 240 (two background tiles, the sprites in range), and empty
//!   sprite slots (tile $FF, made only for a mapper that watches the PPU
//!   bus), so the log is the same whichever of the PPU's exact paths ran a
//!   line. FCEUX's logger (`ppu.cpp`: `RENDER_LOG` under `ScreenON` /
//!   `SpriteON`) agrees, but for two things its PPU does not do: it draws
//!   no sprites on line 0, and it marks the sprites line 239 fetches for
//!   line 240 (README, "Code/data log").
//! - CHR [`CHR_READ`]: bytes the CPU read through $2007 (the byte the read
//!   fetches from CHR into the PPU's read buffer).
//!
//! Cost: the log hangs off the cartridge as an `Option`; the hooks test it
//! and call out of line only when it is attached. A data-reading
//! instruction tests the address first (zero-page operands drop the check
//! at compile time); the PPU marks both planes of a background tile row at
//! its second fetch. The whole-line paths (`ppu/line.rs`, where most tiles
//! are fetched) log nothing and are not taken while a log is attached
//! (`Ppu::run_dots` then runs tile by tile and dot by dot, which log): a
//! logged run is a little slower, an unlogged one pays no check per tile.
//! Measured unlogged with cachegrind, fff.nes 600 frames with its movie:
//! +1.1 % instructions on the translator, +0.9 % on the interpreter
//! (sprite rows, $2007 and tiles fetched dot by dot keep their checks).
//! A check per tile inside the whole-line loop had cost +7 % once the
//! compiler stopped inlining the loop the same way.

use crate::mapper::Banks;

/// PRG: read as data (FCEUX bit 1).
pub const DATA: u8 = 0x02;
/// PRG: read as data through a pointer (FCEUX bit 5).
pub const INDIRECT_DATA: u8 = 0x20;
/// PRG: fetched by the DMC as a sample (FCEUX bit 6).
pub const PCM: u8 = 0x40;
/// CHR: fetched by the PPU for rendering (FCEUX CHR bit 0).
pub const CHR_DRAWN: u8 = 0x01;
/// CHR: read by the CPU through $2007 (FCEUX CHR bit 1).
pub const CHR_READ: u8 = 0x02;

/// Per-byte access flags of one run's PRG ROM and CHR memory.
#[derive(Debug, Clone)]
pub struct AccessLog {
    prg: Vec<u8>,
    /// Bit `w` set: the byte was read as data through CPU window `w`.
    prg_windows: Vec<u8>,
    chr: Vec<u8>,
}

impl AccessLog {
    /// A log for `prg_len` bytes of PRG ROM and `chr_len` bytes of CHR
    /// memory, nothing marked.
    pub fn new(prg_len: usize, chr_len: usize) -> AccessLog {
        AccessLog {
            prg: vec![0; prg_len],
            prg_windows: vec![0; prg_len],
            chr: vec![0; chr_len],
        }
    }

    /// Flags per PRG-ROM byte ([`DATA`], [`INDIRECT_DATA`], [`PCM`]).
    pub fn prg(&self) -> &[u8] {
        &self.prg
    }

    /// Per PRG-ROM byte, the mask of CPU windows it was read through.
    pub fn prg_windows(&self) -> &[u8] {
        &self.prg_windows
    }

    /// Flags per CHR byte ([`CHR_DRAWN`], [`CHR_READ`]).
    pub fn chr(&self) -> &[u8] {
        &self.chr
    }

    /// A CPU-side access of `addr` with `flags`: marked if `addr` is PRG
    /// ROM under `banks`.
    #[inline(never)]
    pub fn prg_access(&mut self, banks: &Banks, addr: u16, flags: u8) {
        if addr < 0x8000 {
            return;
        }
        let window = (addr as usize >> 13) & 3;
        let offset = banks.prg[window] + (addr as usize & 0x1FFF);
        if let Some(f) = self.prg.get_mut(offset) {
            *f |= flags;
            self.prg_windows[offset] |= 1 << window;
        }
    }

    /// A PPU-side access of pattern address `addr` (below $2000) with
    /// `flags`, and of `addr + extra` too when `extra` is not 0 (a tile
    /// row's second plane).
    #[inline(never)]
    pub fn chr_access(&mut self, banks: &Banks, addr: u16, extra: u16, flags: u8) {
        self.chr_one(banks, addr, flags);
        if extra != 0 {
            self.chr_one(banks, addr.wrapping_add(extra), flags);
        }
    }

    fn chr_one(&mut self, banks: &Banks, addr: u16, flags: u8) {
        let addr = addr as usize & 0x3FFF;
        if addr >= 0x2000 {
            return;
        }
        let offset = banks.chr[addr >> 10] + (addr & 0x3FF);
        if let Some(f) = self.chr.get_mut(offset) {
            *f |= flags;
        }
    }
}
