//! What a cartridge board is to the emulator: the [`Mapper`] trait each
//! board implements (register writes, IRQs, what it watches on the PPU bus)
//! and the sizes it computes bank offsets from.

use super::banks::{Banks, RamHalves};
use crate::rom::Mirroring;

/// Sizes a mapper needs to compute bank offsets.
#[derive(Debug, Clone, Copy)]
pub struct BoardSizes {
    pub prg_rom: usize,
    pub chr: usize,
    pub prg_ram: usize,
}

/// A cartridge board's banking and IRQ logic.
pub trait Mapper: Send {
    /// Sets the banks as at power-on.
    fn power_on(&mut self, banks: &mut Banks);
    /// The console's reset button: most boards keep their registers.
    fn reset(&mut self, _banks: &mut Banks) {}
    /// A CPU write to $4020-$FFFF. `cycle` is the CPU cycle count (MMC1 ignores
    /// writes on consecutive cycles). PRG RAM writes are handled by the cartridge
    /// before this is called.
    fn cpu_write(&mut self, addr: u16, value: u8, banks: &mut Banks, cycle: u64);
    /// Whether a CPU write to ROM space sees the ROM's byte ANDed in (boards
    /// without a write-enable on the ROM).
    fn bus_conflicts(&self) -> bool {
        false
    }
    /// Whether a CPU write to $8000-$FFFF can change anything the PPU
    /// reads (CHR banks, mirroring) or when the board's IRQ rises. Boards
    /// that bank only PRG ROM say no, and the PPU is not caught up before
    /// their register writes: nothing it does depends on them. (fff, on
    /// UxROM, switches banks some 30 times a frame; each catch-up ended
    /// mid-line, which costs the PPU's line paths more than whole lines.)
    fn writes_reach_ppu(&self) -> bool {
        true
    }
    /// Whether the PPU must report its address bus (for A12-clocked IRQs).
    fn watches_ppu_bus(&self) -> bool {
        false
    }
    /// The PPU put `addr` on its address bus at PPU dot count `dot`. (No
    /// access to the banks here: a call that could reach the cartridge's
    /// fields keeps the compiler from taking the PPU's "does the mapper
    /// watch the bus" test out of its fetch loops, ~9 % more instructions
    /// per movie.)
    fn ppu_bus(&mut self, _addr: u16, _dot: u64) {}
    /// For boards that watch the PPU bus: the A12 low, in dots, shorter
    /// than which a rise changes nothing but the A12 level and the dot of
    /// the last fall (0: every change may count). A run of such falls and
    /// rises leaves the board as its last fall and rise do, so the PPU may
    /// leave the ones before out (MMC3's counter filter).
    fn a12_rise_filter_dots(&self) -> u64 {
        0
    }
    /// Whether PRG RAM's enable depends on the PPU address bus now, so that
    /// a CPU access to PRG RAM needs the PPU caught up first and then asks
    /// [`Mapper::prg_ram_closed_by_ppu`].
    fn prg_ram_follows_ppu(&self) -> bool {
        false
    }
    /// While [`Mapper::prg_ram_follows_ppu`]: whether the PPU bus, as last
    /// reported, keeps PRG RAM disabled.
    fn prg_ram_closed_by_ppu(&self) -> bool {
        false
    }
    /// MMC6 only: its 1 KiB of internal RAM at $7000-$7FFF (mirrored), two
    /// 512-byte halves each with its own read and write enable, replacing
    /// the PRG RAM window (`Banks::prg_ram` is then `None`, so no code in it
    /// is translated). Read again after every register write.
    fn prg_ram_halves(&self) -> Option<RamHalves> {
        None
    }
    /// Level of the mapper's IRQ output.
    fn irq(&self) -> bool {
        false
    }
    /// For boards that watch the PPU bus: a lower bound on the PPU dots
    /// before the IRQ output can rise by itself (0: it may on any dot; CPU
    /// writes that change it are seen at once). Lets the bus run the PPU
    /// lazily until then instead of catching it up every cycle.
    fn ppu_dots_before_irq(&self) -> u32 {
        0
    }
    /// For boards whose IRQ counts PPU A12 rises (MMC3): a lower bound on
    /// the counted rises before the IRQ output can rise by itself (`None`:
    /// the board counts something else). With the PPU's fetch pattern
    /// (`Ppu::dots_until_a12_rises`) it gives a far later deadline than
    /// [`Mapper::ppu_dots_before_irq`], which must assume the fastest
    /// rises the filter lets through.
    fn a12_rises_before_irq(&self) -> Option<u32> {
        None
    }
    /// Mirroring is fixed by the board unless the mapper overrides it.
    fn board_mirroring(&self) -> Option<Mirroring> {
        None
    }
}
