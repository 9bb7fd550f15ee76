//! The thesis' chapter-5 experiment (issue 8): every workload is emulated once
//! with the ground-truth recorder and the emulated-time sampler; the recorded
//! sample stream is then replayed through all 144 GFCGaussiano configurations
//! of DESIGN.md's "Parameter grid", and each hot CFG is scored against the
//! truth with every metric of docs/metrics.md.
//!
//! One concept per file: `workloads` (the RON workload list), `run` (emulation
//! and the parallel replay), `tables` (the thesis' tables 3/4 and our
//! summaries), `csv`, `plots` (SVG), `snapshots` (the CFG regression tests),
//! `shard` (a sweep split across machines, and the merge of its parts).

pub mod csv;
pub mod plots;
pub mod run;
pub mod shard;
pub mod snapshots;
pub mod tables;
pub mod workloads;

pub use run::{ConfigResult, Emulated, SweepOutcome, WorkloadResult};
pub use workloads::{Workload, WorkloadsError};
