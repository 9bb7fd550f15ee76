//! The NES machine: the 2A03 CPU (6502 core, DMA, APU), the 2C02 PPU, the bus,
//! cartridges and mappers, controllers, FCEUX movies and the disassembler,
//! with two engines for the CPU (the interpreter in `cpu/`, the dynamic
//! translator in `translate/`). Everything runs on the caller's thread;
//! there is no window, audio device or clock here, so the machine is
//! deterministic: the same ROM and inputs give the same frames.
//!
//! Front-ends use [`Nes`] (`nes.rs`), the one door into the machine. (One
//! exception to "the caller's thread": the memory-dependence recorder
//! replays its log on a worker thread, `memory_log.rs`; the profile is the
//! same as if it ran in place.)
//!
//! The sampler's capture is here too, in `sampling.rs`, although sampling is
//! the `profiler` crate's business (DESIGN.md puts "the sampler" there):
//! recording N consecutive instructions when a batch is due sits on the hot
//! path of both engines' run loops — one comparison per instruction, whole
//! runs of ops recorded inside translated blocks — where a call into another
//! crate per instruction would cost more than the sampling. What triggers a
//! batch, and everything done with batches, is in `profiler`. The other
//! probe, the ground-truth flow counts, is `flow_counts.rs`; both hang off
//! [`probes::Probes`], and both name code by its code address
//! (`code_addr.rs`: the CPU address, plus the PRG bank on boards that switch
//! banks). The flow counts follow call stacks (`call_stacks.rs`, for flame
//! graphs and dependence attribution). Two more recorders hang off the bus
//! and cartridge, fed by both engines' shared instruction code only when
//! attached: the memory-dependence recorder (`memory_log.rs` and
//! `memory_profile.rs`) and the
//! code/data access log (`access_log.rs`, for FCEUX `.cdl` files); the
//! recorders' integer-keyed maps share one hasher (`int_hash.rs`). For the
//! frame-time profile the engines also note each routine-level control
//! transfer with its cycle, and the cycles of wait loops
//! (`frame_events.rs`, `wait_loop.rs`: the one rule for what is idle).

pub mod access_log;
pub mod apu;
pub mod bus;
pub mod call_stacks;
pub mod cartridge;
pub mod clock;
pub mod code_addr;
pub mod code_watch;
pub mod controller;
pub mod cpu;
pub mod disasm;
pub mod dma;
pub mod error;
pub mod flow_counts;
pub mod frame_events;
pub mod hash;
pub mod input_file;
pub mod int_hash;
pub mod mapper;
pub mod memory_log;
pub mod memory_profile;
pub mod movie;
pub mod nes;
pub mod pattern_rows;
pub mod ppu;
pub mod probes;
pub mod rom;
pub mod sampling;
pub mod taken_targets;
pub mod trace;
pub mod translate;
pub mod wait_loop;

pub use cartridge::Cartridge;
pub use cpu::{CpuState, StepKind};
pub use error::{EmuError, RomProblem};
pub use flow_counts::FlowCounts;
pub use nes::Nes;
