//! The frame-time profile (issue 43): where a run's CPU cycles go, by
//! frame, routine and class (busy, idle, NMI, IRQ, DMA).
//!
//! - `routines.rs`: what a routine is (ld65 `.proc` scopes, else entries
//!   learned from the run) and the routine of an address;
//! - `histogram.rs`: a routine's cycles per frame;
//! - `vblank.rs`: the vblank a frame starts with.

pub mod histogram;
pub mod routines;
pub mod vblank;

pub use routines::Routines;
