//! Glue between the emulator and the hot-CFG algorithms: the profiling
//! lifecycle (`session`: attach / after each frame / finish, the one path
//! `profile`, `sweep` and the live overlay take), the wall-clock trigger's
//! timer thread (`timer`), the feeder thread that hands batches to a builder
//! (`feeder`), the conversion of retired instructions into samples
//! (`convert`), the ground-truth CFG (`truth`), sample-stream files
//! (`stream`; written as the run goes through `sink`, which also tallies
//! samples per address), CFG files (`cfg_file`) and their reports: DOT and diffs, the
//! hot-block table (`hot_blocks`), report.html (`html`, with `cfg_svg` when
//! Graphviz is missing), flame graphs of the truth's call stacks (`flame`),
//! symbol tables that name blocks by label (`symbols`), FCEUX code/data
//! logs (`cdl`), the hot CFG as the translator's guide to hot regions
//! (`region_guide`), and the frame-time profile (`frame_profile`: cycles by
//! frame, routine and class, exactly from the engines' event log;
//! `frame_profile::sampled` estimates them from the batches alone).
//!
//! The capture of samples itself — recording N consecutive instructions
//! when a batch is due — is not here but in `emu/src/sampling.rs`
//! (`emu::sampling::SampleCapture`): it sits on the emulator's hot path, in
//! both engines' run loops, where a call across crates per instruction would
//! cost more than the sampling does. This crate owns everything around it:
//! what triggers it, where its batches go.
//!
//! The path of a sample: `emu/src/sampling.rs` (captured as the instruction
//! retires) → `session.rs` (taken after the frame) → `feeder.rs` (converted
//! by `convert.rs`, on the feeder's thread) → the builder
//! (`gfc/src/gaussiano/mod.rs`) → the hot CFG (`gfc/src/cfg.rs`).

pub mod cdl;
pub mod cfg_file;
pub mod cfg_svg;
pub mod convert;
pub mod diff;
pub mod dot;
pub mod feeder;
pub mod flame;
pub mod frame_profile;
pub mod hot_blocks;
pub mod html;
pub mod memory;
pub mod region_guide;
pub mod report;
pub mod session;
pub mod sink;
pub mod stream;
pub mod symbols;
pub mod timer;
pub mod truth;
