//! Architecture-neutral profiling algorithms: the sample and batch types, the
//! GFCGaussiano hot-CFG builder, the CFG type, hot-subgraph extraction, the
//! similarity metrics and the thesis' parameter grid. Knows nothing of the NES.
//!
//! The algorithm follows the thesis in `shared/seeds/` (section 4.2 and the
//! appendix pseudo-code). Where that text is garbled or inconsistent, the
//! module implementing the piece documents the reading chosen and why:
//! `windows` (std-dev), `bins` (join/recurrence tests, centroids), `build`
//! (targets, block boundaries, edges), `gaussiano` (local/global decision),
//! `segment` (interrupts), `sample` (which flows end a block).

pub mod bins;
pub mod build;
pub mod cfg;
pub mod gaussiano;
pub mod hash;
pub mod hot;
pub mod metrics;
pub mod params;
pub mod sample;
pub mod segment;
pub mod windows;

pub use bins::{Bin, Bins};
pub use cfg::{Block, Cfg, CfgFile, CfgVersionError, Edge, InterruptCount, CFG_FORMAT_VERSION};
pub use gaussiano::{Counters, GfcGaussiano};
pub use hot::{h90, hot_subgraph, HotFraction};
pub use metrics::Metrics;
pub use params::{GfcParams, ParamsError, THESIS_BEST};
pub use sample::{Addr, Batch, Flow, Sample};
