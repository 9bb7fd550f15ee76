//! Power-on memory contents as FCEUX sets them when it plays or records a
//! movie (FCEUX `FCEU_MemoryRand`, selected by the movie's `RAMInitOption`
//! and `RAMInitSeed` header keys; both default to 0).
//!
//! - option 0 (FCEUX's default for as long as it has existed): CPU RAM and CHR
//!   RAM repeat the 8-byte pattern `00 00 00 00 FF FF FF FF`; the PPU's
//!   nametables, palette and OAM are zero.
//! - option 1: all `FF`. Option 2: all `00`.
//! - option 3: pseudo-random bytes: the low byte of successive xoroshiro128+
//!   outputs (Vigna's constants 55/14/36), the state seeded by two splitmix64
//!   steps from the 32-bit seed, consumed in FCEUX's power-on order: CPU RAM,
//!   nametables, palette, OAM, then CHR RAM.
//!
//! Cartridge PRG RAM stays zero: FCEUX allocates it zeroed and clears battery
//! RAM when a movie starts.

/// The movie's choice of power-on memory contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RamInit {
    /// FCEUX `RAMInitOption`, 0-3.
    pub option: u8,
    /// FCEUX `RAMInitSeed` (used by option 3).
    pub seed: u32,
}

const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

fn splitmix64_mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Fills memories one after another, as FCEUX's power-on does, so option 3
/// draws from a single stream.
pub(super) struct Filler {
    option: u8,
    state: [u64; 2],
}

impl Filler {
    pub(super) fn new(init: RamInit) -> Filler {
        let mut x = init.seed as u64;
        x = x.wrapping_add(GOLDEN_GAMMA);
        let s0 = splitmix64_mix(x);
        x = x.wrapping_add(GOLDEN_GAMMA);
        let s1 = splitmix64_mix(x);
        Filler {
            option: init.option,
            state: [s0, s1],
        }
    }

    fn next_u64(&mut self) -> u64 {
        let [s0, mut s1] = self.state;
        let result = s0.wrapping_add(s1);
        s1 ^= s0;
        self.state = [s0.rotate_left(55) ^ s1 ^ (s1 << 14), s1.rotate_left(36)];
        result
    }

    /// Fills `mem`. `zero_by_default` marks memories FCEUX leaves zero under
    /// option 0 (the PPU's).
    pub(super) fn fill(&mut self, mem: &mut [u8], zero_by_default: bool) {
        for (i, byte) in mem.iter_mut().enumerate() {
            *byte = match self.option {
                1 => 0xFF,
                2 => 0x00,
                3 => self.next_u64() as u8,
                _ if zero_by_default => 0x00,
                _ => {
                    if i & 4 != 0 {
                        0xFF
                    } else {
                        0x00
                    }
                }
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_pattern() {
        let mut ram = [0x55u8; 16];
        Filler::new(RamInit::default()).fill(&mut ram, false);
        assert_eq!(ram[..8], [0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]);
        assert_eq!(ram[8..], ram[..8]);
        Filler::new(RamInit::default()).fill(&mut ram, true);
        assert_eq!(ram, [0; 16]);
    }

    #[test]
    fn seeded_random_is_repeatable_and_seed_dependent() {
        let fill = |seed| {
            let mut ram = [0u8; 64];
            Filler::new(RamInit { option: 3, seed }).fill(&mut ram, true);
            ram
        };
        assert_eq!(fill(7), fill(7));
        assert_ne!(fill(7), fill(8));
        // The published splitmix64 output for state 0 after one step.
        assert_eq!(splitmix64_mix(GOLDEN_GAMMA), 0xe220_a839_7b1d_cdaf);
    }
}
