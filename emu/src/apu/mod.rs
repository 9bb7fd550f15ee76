//! The 2A03 APU (NESdev wiki "APU"). Placeholder until the APU issue: registers
//! are accepted and ignored, $4015 reads as idle, and no IRQ is raised.

use crate::dma::Dma;

#[derive(Debug, Clone, Default)]
pub struct Apu {}

impl Apu {
    pub fn new() -> Apu {
        Apu {}
    }

    #[inline(always)]
    pub fn tick(&mut self, _dma: &mut Dma) {}

    pub fn write_register(&mut self, _addr: u16, _value: u8, _cycle: u64) {}

    /// $4015: channel status; bit 5 is open bus.
    pub fn read_status(&mut self, open_bus: u8) -> u8 {
        open_bus & 0x20
    }

    #[inline(always)]
    pub fn irq(&self) -> bool {
        false
    }

    pub fn dmc_sample_fetched(&mut self, _value: u8) {}
}
