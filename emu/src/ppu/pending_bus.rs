//! Running the PPU dot by dot while a one-shot change to a coming fetch's
//! address is pending: a second `$2006` write's v on its way to the bus
//! (`address_write.rs`), or a `$2007` read whose state machine reads on a
//! fetch's address dot (`data_read.rs`). Both are rare; the catch-up paths
//! test for them once per step and run their dots through the reference
//! dot path ([`Ppu::tick`]) until they have happened.

use super::Ppu;
use crate::cartridge::Cartridge;

impl Ppu {
    /// Whether [`Ppu::run_pending`] has dots to run.
    #[inline(always)]
    pub(super) fn bus_change_pending(&self) -> bool {
        self.pending_v.is_some() | self.pending_latch.is_some()
    }

    /// [`Ppu::run_dots`] while a change is pending: dot by dot (at most
    /// `dots`) until none is. Returns the dots run.
    #[cold]
    #[inline(never)]
    pub(super) fn run_pending(&mut self, dots: u32, cart: &mut Cartridge) -> u32 {
        let mut ran = 0;
        while ran < dots && self.bus_change_pending() {
            // `dots` counts the dots run; the next tick runs dot `dots + 1`.
            let next = self.dots + 1;
            let mut restore = None;
            match self.pending_v {
                Some((at, value)) if next >= at => {
                    self.v = value;
                    self.pending_v = None;
                }
                Some((at, value)) if next + 1 == at => {
                    let old = self.v;
                    self.v = self.hybrid_v(self.dot + 1, old, value);
                    restore = Some(old);
                }
                _ => {}
            }
            let latch = match self.pending_latch {
                Some((at, low)) if next >= at => {
                    self.pending_latch = None;
                    Some(low)
                }
                _ => None,
            };
            self.tick(cart);
            if let Some(low) = latch {
                self.refetch_with_latched_low(low, cart);
            }
            if let Some(old) = restore {
                // A fetch dot changes no v (the increments are on others).
                self.v = old;
            }
            ran += 1;
        }
        ran
    }
}
