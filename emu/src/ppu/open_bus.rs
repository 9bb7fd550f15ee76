//! The PPU's I/O latch ("decay register", NESdev wiki "PPU registers" and
//! blargg's ppu_open_bus readme): write-only registers read back its value;
//! each bit is refreshed by register accesses that drive it and decays to 0
//! when not refreshed with a 1 for about 600 ms.

/// 600 ms in PPU dots (the PPU clock is 21.477272 MHz / 4).
const DECAY_DOTS: u64 = (21_477_272 / 4) * 6 / 10;

#[derive(Debug, Clone, Default)]
pub struct OpenBus {
    value: u8,
    /// Dot count at which each bit was last refreshed.
    refreshed: [u64; 8],
}

impl OpenBus {
    /// The latch's value at dot `now`, with stale 1 bits decayed.
    pub fn read(&mut self, now: u64) -> u8 {
        for bit in 0..8 {
            if self.value & (1 << bit) != 0 && now.saturating_sub(self.refreshed[bit]) > DECAY_DOTS
            {
                self.value &= !(1 << bit);
            }
        }
        self.value
    }

    /// Drives the bits in `mask` with `value`'s bits.
    pub fn refresh(&mut self, value: u8, mask: u8, now: u64) {
        self.value = (self.value & !mask) | (value & mask);
        for bit in 0..8 {
            if mask & (1 << bit) != 0 {
                self.refreshed[bit] = now;
            }
        }
    }
}
