//! The frame-time profile (issue 43): where a run's CPU cycles go, by
//! frame, routine and class (busy, idle, NMI, IRQ, DMA).
//!
//! - `routines.rs`: what a routine is (ld65 `.proc` scopes, else entries
//!   learned from the run) and the routine of an address;
//! - `extents.rs`: the code each entry reaches without a call, read from
//!   the code (the sampled side's routine of an address);
//! - `accounting.rs`: the exact accounting from the engines' event log
//!   (`emu::frame_events`), frame by frame;
//! - `shadow_stack.rs`: its call stack's frames, and reading one back from
//!   the stack page;
//! - `contexts.rs`: call contexts weighted by cycles, for the flame graph;
//! - `histogram.rs`: a routine's cycles per frame;
//! - `vblank.rs`: the vblank a frame starts with;
//! - `worst.rs`: the worst frames;
//! - `rows.rs`, `csv.rs`: the rows of `frames.csv` and `routines.csv`
//!   (exact and sampled parts) and how they are written.
//!
//! The estimates from the sampler alone are `sampled.rs`'s; they name
//! routines by `Routines::owner_of` and share the rows.

pub mod accounting;
pub mod chart;
pub mod contexts;
pub mod csv;
pub mod extents;
pub mod histogram;
pub mod recorder;
pub mod report;
pub mod routines;
pub mod rows;
pub mod sampled;
pub mod shadow_stack;
pub mod vblank;
pub mod worst;

pub use accounting::{FrameProfile, Profile, Start, Totals};
pub use routines::Routines;
