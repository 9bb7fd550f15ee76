//! Every code address a conditional branch was ever taken to: the leaders
//! the ground truth has and samples cannot prove.
//!
//! The truth cuts a block at the target of a *taken* branch. A sampler sees
//! a branch's target in its operand but, for a branch taken once in
//! thousands of executions, almost never sees it taken; the hot-CFG builder
//! then has to guess, and either guess is wrong on some game (issue 44:
//! cutting at every sampled branch's target splits blocks the truth keeps
//! whole when the branch never ran taken; not cutting keeps whole blocks the
//! truth splits). The engines know: the interpreter marks the target each
//! time it takes a branch (only while the set is attached), the translator
//! when it links a block whose branch was taken to the block at its target
//! (a link is made once and then followed, so this costs nothing per run)
//! and when a chain of blocks ends right after a taken branch.
//!
//! A bit per code address of the 64 KiB CPU space and one per byte of
//! banked PRG ROM (`code_addr`): memory bounded by the code's size. Bits are
//! atomics so that the builder's thread may read the set while the
//! emulation adds to it; reads then see any subset of what was marked
//! before, and the set read after the run is complete.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::code_addr;

#[derive(Debug)]
pub struct TakenTargets {
    words: Vec<AtomicU64>,
}

impl TakenTargets {
    /// An empty set for a board with `prg_len` bytes of PRG ROM.
    pub fn new(prg_len: usize) -> TakenTargets {
        let bits = 0x10000 + prg_len;
        TakenTargets {
            words: (0..bits.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// The bit for `code`: its CPU address below `0x10000`, else its PRG-ROM
    /// offset after them (`None` outside the board's PRG ROM).
    fn bit(&self, code: u32) -> Option<(usize, u64)> {
        let i = match code_addr::prg_offset(code) {
            None if code < 0x10000 => code as usize,
            None => return None,
            Some(offset) => 0x10000 + offset,
        };
        (i / 64 < self.words.len()).then_some((i / 64, 1u64 << (i % 64)))
    }

    /// Notes that a branch was taken to `code`.
    #[inline]
    pub fn mark(&self, code: u32) {
        if let Some((w, bit)) = self.bit(code) {
            let word = &self.words[w];
            // Most marks repeat: a plain load, and the atomic OR only for a
            // new target.
            if word.load(Ordering::Relaxed) & bit == 0 {
                word.fetch_or(bit, Ordering::Relaxed);
            }
        }
    }

    /// Whether a branch was ever taken to `code`.
    pub fn contains(&self, code: u32) -> bool {
        self.bit(code)
            .is_some_and(|(w, bit)| self.words[w].load(Ordering::Relaxed) & bit != 0)
    }

    /// How many addresses are marked.
    pub fn len(&self) -> usize {
        self.words
            .iter()
            .map(|w| w.load(Ordering::Relaxed).count_ones() as usize)
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The marked bits' indices, ascending (for a file: they name CPU
    /// addresses and PRG-ROM offsets, not code addresses).
    pub fn bits(&self) -> Vec<u32> {
        let mut out = Vec::new();
        for (w, word) in self.words.iter().enumerate() {
            let mut v = word.load(Ordering::Relaxed);
            while v != 0 {
                out.push((w * 64) as u32 + v.trailing_zeros());
                v &= v - 1;
            }
        }
        out
    }

    /// A set holding `bits` (from [`TakenTargets::bits`]), sized for the
    /// highest.
    pub fn from_bits(bits: &[u32]) -> TakenTargets {
        let top = bits.iter().max().map_or(0, |&b| b as usize + 1);
        let t = TakenTargets::new(top.saturating_sub(0x10000));
        for &i in bits {
            if let Some(word) = t.words.get(i as usize / 64) {
                word.fetch_or(1 << (i % 64), Ordering::Relaxed);
            }
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_cpu_addresses_and_banked_code() {
        let t = TakenTargets::new(0x20000);
        assert!(!t.contains(0x8010));
        t.mark(0x8010);
        t.mark(0x8010);
        assert!(t.contains(0x8010));
        assert!(!t.contains(0x8011));
        // A banked code address: PRG offset 0x4010 at CPU $8010.
        let banked = ((0x4000u32 + 0x10000 - 0x8000) << 3) | 0x8010;
        assert_eq!(code_addr::prg_offset(banked), Some(0x4010));
        t.mark(banked);
        assert!(t.contains(banked));
        assert_eq!(t.len(), 2);
        // Past the board's PRG ROM: ignored, not a panic.
        let outside = ((0x40000u32 + 0x10000 - 0x8000) << 3) | 0x8000;
        t.mark(outside);
        assert!(!t.contains(outside));
        let back = TakenTargets::from_bits(&t.bits());
        assert!(back.contains(0x8010) && back.contains(banked) && back.len() == 2);
    }
}
