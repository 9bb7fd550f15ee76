//! Code addresses: how the profilers name an instruction's location, so that
//! two PRG-ROM banks mapped at the same CPU address are two places, not one.
//!
//! A code address is a `u32`:
//! - below `0x10000` it is the CPU address itself: RAM, PRG RAM, and PRG ROM
//!   on boards with at most 32 KiB of it (nothing is ever switched there), so
//!   NROM output reads exactly as it did before banks were told apart;
//! - otherwise, for PRG ROM on a larger board, the low 16 bits are the CPU
//!   address and the high bits name the PRG-ROM offset:
//!   `((prg_offset + 0x10000 - cpu) << 3) | cpu`.
//!
//! Why that shape: `prg_offset - cpu` is the same for every byte of one 8 KiB
//! page and for consecutive pages mapped consecutively (the usual 16 and
//! 32 KiB banks), so adding an instruction's length to its code address gives
//! the next instruction's, as with CPU addresses, and both truth and builders
//! keep their fall-through arithmetic. The sum is a multiple of 8 KiB (the
//! page's offset and the CPU address agree in their low 13 bits) and at least
//! 8 KiB, so the shift leaves the low 16 bits free and the result is never
//! below `0x10000`. A 4 MiB ROM still fits in 27 bits.

use crate::mapper::banks::Banks;

/// Largest PRG ROM whose code keeps plain CPU addresses (NROM's 32 KiB).
const UNBANKED_PRG: usize = 0x8000;

/// The mapping from CPU addresses to code addresses for the PRG banks in
/// effect, refreshed lazily when the mapper's generation moves on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeMap {
    /// False for boards with at most 32 KiB of PRG ROM: every code address
    /// is the CPU address.
    banked: bool,
    /// High bits per 8 KiB window ($8000, $A000, $C000, $E000).
    high: [u32; 4],
    /// `Banks::prg_generation` that `high` was computed for.
    generation: u32,
}

impl Default for CodeMap {
    fn default() -> Self {
        CodeMap::plain()
    }
}

impl CodeMap {
    /// The identity mapping (code addresses are CPU addresses).
    pub const fn plain() -> CodeMap {
        CodeMap {
            banked: false,
            high: [0; 4],
            generation: 0,
        }
    }

    /// The mapping for a board with `prg_len` bytes of PRG ROM, banked as in
    /// `banks` now.
    pub fn new(prg_len: usize, banks: &Banks) -> CodeMap {
        let mut map = CodeMap {
            banked: prg_len > UNBANKED_PRG,
            high: [0; 4],
            generation: banks.prg_generation,
        };
        map.refresh(banks);
        map
    }

    fn refresh(&mut self, banks: &Banks) {
        self.generation = banks.prg_generation;
        if self.banked {
            for (w, high) in self.high.iter_mut().enumerate() {
                let cpu = 0x8000 + w * 0x2000;
                *high = ((banks.prg[w] + 0x10000 - cpu) as u32) << 3;
            }
        }
    }

    /// Whether PRG-ROM code addresses name their bank (more than 32 KiB of
    /// PRG ROM).
    pub fn banked(&self) -> bool {
        self.banked
    }

    /// The code address of `pc` under the banks mapped now.
    #[inline(always)]
    pub fn key(&mut self, banks: &Banks, pc: u16) -> u32 {
        if !self.banked || pc < 0x8000 {
            return pc as u32;
        }
        if banks.prg_generation != self.generation {
            self.refresh(banks);
        }
        self.high[(pc >> 13) as usize & 3] | pc as u32
    }

    /// The high bits of the code addresses in the 8 KiB window holding `pc`
    /// (0 where code addresses are CPU addresses): a translated block, which
    /// never spans two windows, keeps them so that its counts need no map.
    #[inline]
    pub fn high_bits(&mut self, banks: &Banks, pc: u16) -> u32 {
        self.key(banks, pc) & !0xFFFF
    }
}

/// The code address of `pc` on a board with `prg_len` bytes of PRG ROM banked
/// as in `banks` (without a cached map: for the translator, once per block).
pub fn code_address(prg_len: usize, banks: &Banks, pc: u16) -> u32 {
    CodeMap::new(prg_len, banks).key(banks, pc)
}

/// The CPU address part of a code address.
#[inline]
pub const fn cpu_address(code: u32) -> u16 {
    code as u16
}

/// The PRG-ROM offset of a banked code address (`None` for a plain one, or
/// for a value no board maps).
pub const fn prg_offset(code: u32) -> Option<usize> {
    if code < 0x10000 {
        return None;
    }
    let base = ((code & !0xFFFF) >> 3) as usize;
    // Never below for addresses made here (the high bits hold at least
    // 0x10000 - cpu); checked for ones read from files, which may be anything.
    (base + (code & 0xFFFF) as usize).checked_sub(0x10000)
}

/// The code address `len` bytes after `code` (straight-line flow), wrapping
/// in the CPU's 16-bit space as the PC does.
#[inline]
pub const fn advance(code: u32, len: u16) -> u32 {
    (code & !0xFFFF) | (code as u16).wrapping_add(len) as u32
}

/// How people read a code address: `$C123` for a plain one, `BB:AAAA` for
/// banked PRG ROM, with BB the 16 KiB bank number (as FCEUX's debugger and
/// name-list files count banks) and AAAA the CPU address. Code in RAM
/// (`$0000`–`$1FFF`) and PRG RAM (`$6000`–`$7FFF`) carries no extra tag:
/// its address range is the region tag, neither is banked on the boards we
/// emulate, and a tag would change every NROM output that names RAM code.
pub fn label(code: u32) -> String {
    match prg_offset(code) {
        None => format!("${code:04X}"),
        Some(offset) => format!("{:02X}:{:04X}", offset / 0x4000, code & 0xFFFF),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn banks_with(prg: [usize; 4]) -> Banks {
        let mut b = Banks::new();
        b.prg = prg;
        b
    }

    #[test]
    fn small_boards_keep_cpu_addresses() {
        let banks = banks_with([0, 0x2000, 0x4000, 0x6000]);
        let mut map = CodeMap::new(0x8000, &banks);
        assert_eq!(map.key(&banks, 0xC123), 0xC123);
        assert_eq!(map.key(&banks, 0x0300), 0x0300);
        assert_eq!(label(0xC123), "$C123");
    }

    #[test]
    fn banked_addresses_name_the_prg_offset() {
        // UxROM-like: bank 3 at $8000, the last of 8 banks fixed at $C000.
        let banks = banks_with([0xC000, 0xE000, 0x1C000, 0x1E000]);
        let mut map = CodeMap::new(0x20000, &banks);
        let a = map.key(&banks, 0x8010);
        let b = map.key(&banks, 0xC010);
        assert!(a >= 0x10000 && b >= 0x10000);
        assert_eq!(prg_offset(a), Some(0xC010));
        assert_eq!(prg_offset(b), Some(0x1C010));
        assert_eq!(cpu_address(a), 0x8010);
        assert_eq!(label(a), "03:8010");
        assert_eq!(label(b), "07:C010");
        // Falling through from one page of a 16 KiB bank to the next.
        assert_eq!(advance(map.key(&banks, 0x9FFF), 1), map.key(&banks, 0xA000));
        // Code in RAM keeps its CPU address.
        assert_eq!(map.key(&banks, 0x0700), 0x0700);
    }

    #[test]
    fn the_same_address_in_two_banks_is_two_places() {
        let mut banks = banks_with([0, 0x2000, 0x1C000, 0x1E000]);
        let mut map = CodeMap::new(0x20000, &banks);
        let before = map.key(&banks, 0x8000);
        banks.prg[0] = 0x4000;
        banks.prg_generation += 1;
        let after = map.key(&banks, 0x8000);
        assert_ne!(before, after);
        assert_eq!(prg_offset(after), Some(0x4000));
    }

    #[test]
    fn one_page_at_two_windows_is_two_places() {
        // MMC3 can map one 8 KiB page at $8000 or $A000.
        let banks = banks_with([0x4000, 0x4000, 0x1C000, 0x1E000]);
        let mut map = CodeMap::new(0x20000, &banks);
        let at_8000 = map.key(&banks, 0x8000);
        let at_a000 = map.key(&banks, 0xA000);
        assert_ne!(at_8000, at_a000);
        assert_eq!(prg_offset(at_8000), prg_offset(at_a000));
    }
}
