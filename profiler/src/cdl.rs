//! FCEUX code/data logs (`.cdl`): what a run executed and read, in the
//! format FCEUX's Code/Data Logger loads, built from the flow counts (the
//! code) and the emulator's access log (`emu::access_log`: the data).
//!
//! The format (FCEUX help, "Code/Data Logger"; the same table heads
//! `CodeDataLogger.cpp` in FCEUX's source): one byte per PRG-ROM byte, then
//! one per CHR-ROM byte (none for CHR RAM), no header.
//! - PRG byte, bits `xPdcAADC`: C (0x01) executed as code; D (0x02) read as
//!   data; AA (0x0C) the 8 KiB CPU window the byte was mapped at, $8000 = 0
//!   … $E000 = 3; c (0x10) executed as the destination of an indirect jump
//!   (`JMP ($nnnn)`); d (0x20) read as data through a pointer
//!   (`LDA ($nn),Y`, `($nn,X)`); P (0x40) fetched by the DMC as a sample;
//!   x (0x80) unused.
//! - CHR byte, bits `xxxxxxRD`: D (0x01) fetched by the PPU to draw; R
//!   (0x02) read by the CPU through $2007.
//!
//! Choices, following FCEUX's logger (`debug.cpp` `LogCDData`) where it
//! has one:
//! - Every byte of an executed instruction is code, operands included, each
//!   with its own window (FCEUX loops over the instruction's size).
//! - The c bit goes on every byte of each instruction a `JMP ($nnnn)`
//!   transferred to (FCEUX's `indirectnext` marks the next instruction's
//!   bytes). FCEUX sets it only if that instruction was not logged before;
//!   here it is set whenever it happened, so the file does not depend on the
//!   order in which code was first reached.
//! - AA: FCEUX's help says "when last accessed" and its code keeps the
//!   window of the first access. A byte reached through more than one window
//!   (NROM-128's mirror, one MMC3 page at two windows) gets the highest
//!   window it was accessed through, code or data: a rule that does not
//!   depend on the order of accesses, which the counts do not keep. Usually
//!   there is one.
//! - Code running from RAM or PRG RAM has no PRG-ROM byte and is not in the
//!   file; nor is code of an instruction that straddles two 8 KiB windows
//!   mapped to non-consecutive pages (its bytes after the boundary are taken
//!   from the page that follows in the ROM).
//! - What counts as data, PCM and CHR use is the access log's business; see
//!   `emu/src/access_log.rs`.

use emu::access_log::AccessLog;
use emu::code_addr;
use emu::FlowCounts;

/// PRG: executed as code.
pub const CODE: u8 = 0x01;
/// PRG: executed as the destination of an indirect jump.
pub const INDIRECT_CODE: u8 = 0x10;
/// PRG: where the 8 KiB window number sits (bits 2-3).
pub const WINDOW_SHIFT: u32 = 2;

/// `JMP ($nnnn)`.
const JMP_INDIRECT: u8 = 0x6C;

/// The sizes of the file's two parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CdlSizes {
    /// PRG ROM as the iNES header gives it.
    pub prg: usize,
    /// CHR ROM as the header gives it; 0 for CHR RAM (no CHR part).
    pub chr: usize,
}

impl CdlSizes {
    /// The sizes of `cart`'s ROMs (no CHR part on a CHR-RAM board).
    pub fn of(cart: &emu::Cartridge) -> CdlSizes {
        CdlSizes {
            prg: cart.header.prg_rom_len,
            chr: if cart.chr_writable {
                0
            } else {
                cart.header.chr_rom_len
            },
        }
    }
}

/// The PRG-ROM offset of code address `code` on a board whose (padded) PRG
/// ROM is `prg_len` bytes, if it is PRG ROM.
fn prg_offset(code: u32, prg_len: usize) -> Option<usize> {
    let cpu = code_addr::cpu_address(code);
    if cpu < 0x8000 || prg_len == 0 {
        return None;
    }
    match code_addr::prg_offset(code) {
        Some(offset) => Some(offset),
        // A plain code address: the CPU address on a board of at most
        // 32 KiB, where $8000 onwards mirrors the ROM.
        None => Some((cpu as usize - 0x8000) % prg_len),
    }
}

/// The `.cdl` bytes of a run: `counts` for the code, `log` for the data
/// (recorded over the same stretch of the run), `sizes` from the header.
pub fn build(counts: &FlowCounts, log: &AccessLog, sizes: CdlSizes) -> Vec<u8> {
    let prg_len = log.prg().len();
    let mut flags = log.prg().to_vec();
    let mut windows = log.prg_windows().to_vec();
    let mark = |code: u32, bits: u8, flags: &mut [u8], windows: &mut [u8]| {
        for i in 0..counts.length(code) as u16 {
            let byte = code_addr::advance(code, i);
            let cpu = code_addr::cpu_address(byte);
            let Some(offset) = prg_offset(byte, prg_len) else {
                continue;
            };
            if let Some(f) = flags.get_mut(offset) {
                *f |= bits;
                windows[offset] |= 1 << ((cpu >> 13) & 3);
            }
        }
    };
    for (code, _) in counts.executed_addresses() {
        mark(code, CODE, &mut flags, &mut windows);
        if counts.opcode(code) == JMP_INDIRECT {
            for (target, _) in counts.transfers_from(code) {
                mark(target, CODE | INDIRECT_CODE, &mut flags, &mut windows);
            }
        }
    }
    let mut out = Vec::with_capacity(sizes.prg + sizes.chr);
    for offset in 0..sizes.prg {
        let f = flags.get(offset).copied().unwrap_or(0);
        let w = windows.get(offset).copied().unwrap_or(0);
        let window = if w == 0 {
            0
        } else {
            7 - w.leading_zeros() as u8
        };
        let aa = if f == 0 { 0 } else { window << WINDOW_SHIFT };
        out.push(f | aa);
    }
    out.extend((0..sizes.chr).map(|i| log.chr().get(i).copied().unwrap_or(0)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_addresses_mirror_small_roms() {
        assert_eq!(prg_offset(0xC010, 0x4000), Some(0x0010));
        assert_eq!(prg_offset(0x8010, 0x8000), Some(0x0010));
        assert_eq!(prg_offset(0x0700, 0x8000), None);
    }
}
