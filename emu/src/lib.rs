//! The NES machine: the 2A03 CPU (6502 core, DMA, APU), the 2C02 PPU, the bus,
//! cartridges and mappers, controllers, and the disassembler. Everything runs
//! on the caller's thread; there is no window, audio device or clock here, so
//! the machine is deterministic: the same ROM and inputs give the same frames.
//!
//! Front-ends use [`Nes`]; see `nes.rs`.

pub mod apu;
pub mod bus;
pub mod cartridge;
pub mod clock;
pub mod controller;
pub mod cpu;
pub mod disasm;
pub mod dma;
pub mod error;
pub mod flow_counts;
pub mod hash;
pub mod mapper;
pub mod movie;
pub mod nes;
pub mod ppu;
pub mod probes;
pub mod rom;
pub mod sampling;
pub mod trace;
pub mod translate;

pub use cartridge::Cartridge;
pub use cpu::{CpuState, StepKind};
pub use error::{EmuError, RomProblem};
pub use flow_counts::FlowCounts;
pub use nes::Nes;
