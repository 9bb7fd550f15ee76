//! Architecture-neutral profiling algorithms. Knows nothing of the NES.
//!
//! - The hot-CFG builders, one folder each, behind one interface
//!   ([`builder::HotCfgBuilder`], what the profiler, the sweep and the
//!   overlay call; [`builder::BuilderKind`] names them): `gaussiano/` is
//!   GFCGaussiano as the thesis in `shared/seeds/` specifies it (section 4.2
//!   and the appendix pseudo-code), with its parameter grid; `trace/` reads
//!   each batch as an exact trace and estimates counts from every sample.
//! - What the builders share: the sample and batch types (`sample`), the CFG
//!   type (`cfg`), hot-subgraph extraction (`hot`) and the metrics that compare
//!   a sampled CFG with the exact one (`metrics`).
//!
//! Where the thesis is garbled or inconsistent, the module implementing the
//! piece documents the reading chosen and why: `gaussiano::windows` (std-dev),
//! `gaussiano::bins` (join/recurrence tests, centroids), `gaussiano::build`
//! (targets, block boundaries, edges), `gaussiano` (local/global decision),
//! `gaussiano::segment` (interrupts), `sample` (which flows end a block).
//! The trace builder's choices (weights, the total, the margin at the
//! cut-off) are in `trace`'s modules, each with the measurement behind it.

pub mod builder;
pub mod cfg;
pub mod gaussiano;
pub mod hash;
pub mod hot;
pub mod metrics;
pub mod sample;
pub mod trace;

pub use builder::{BuilderKind, HotCfgBuilder};
pub use cfg::{Block, Cfg, Edge, InterruptCount};
pub use gaussiano::bins::{Bin, Bins};
pub use gaussiano::params::{self as params, GfcParams, ParamsError, THESIS_BEST};
pub use gaussiano::{Counters, GfcGaussiano};
pub use hot::{h90, hot_subgraph, HotFraction};
pub use metrics::{HotTruth, Metrics};
pub use sample::{Addr, Batch, Flow, Sample};
pub use trace::TraceBuilder;
