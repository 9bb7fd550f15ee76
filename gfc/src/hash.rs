//! A small, fast, deterministic hasher for address keys.
//!
//! GFCGaussiano replays ~100k batches per configuration and does a handful of
//! map look-ups per sampled instruction; std's SipHash (built for untrusted
//! keys) dominated that cost. Keys here are code addresses from our own
//! emulator, so a multiplicative hash (one rotate, xor and multiply per word,
//! the constant from the golden ratio) is enough. Being unseeded it also makes
//! map iteration order reproducible, though nothing relies on that.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

const SEED: u64 = 0x9E37_79B9_7F4A_7C15;

/// Multiplicative hasher for integer keys.
#[derive(Debug, Default, Clone, Copy)]
pub struct AddrHasher {
    state: u64,
}

impl AddrHasher {
    #[inline]
    fn mix(&mut self, word: u64) {
        self.state = (self.state.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for AddrHasher {
    #[inline]
    fn finish(&self) -> u64 {
        // hashbrown takes its control bits from the top 7 bits; fold the well
        // mixed high half down so the low bits used for the bucket index are
        // as good.
        self.state ^ (self.state >> 32)
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.mix(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.mix(i as u64);
    }

    #[inline]
    fn write_u16(&mut self, i: u16) {
        self.mix(i as u64);
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.mix(i as u64);
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.mix(i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.mix(i as u64);
    }
}

/// `BuildHasher` for [`AddrHasher`].
pub type AddrHashBuilder = BuildHasherDefault<AddrHasher>;

/// A `HashMap` keyed by addresses (or small tuples of them).
pub type AddrMap<K, V> = HashMap<K, V, AddrHashBuilder>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, Hash};

    fn h<T: Hash>(t: T) -> u64 {
        AddrHashBuilder::default().hash_one(t)
    }

    #[test]
    fn deterministic_and_spreads_neighbours() {
        assert_eq!(h(0x8000u32), h(0x8000u32));
        let mut low7: Vec<u64> = (0x8000u32..0x8080).map(|a| h(a) & 0x7F).collect();
        low7.sort_unstable();
        low7.dedup();
        // 128 consecutive addresses should land in many distinct buckets.
        assert!(low7.len() > 64, "{}", low7.len());
        assert_ne!(h((1u32, 2u32)), h((2u32, 1u32)));
    }
}
