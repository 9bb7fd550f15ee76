//! The observers of execution the profiler attaches, kept as data: what they
//! record is read back through [`crate::Nes`]. Both engines feed them
//! identically; with none attached the run loop pays one branch per
//! instruction (per block on the translator).

use crate::code_addr::CodeMap;
use crate::flow_counts::FlowCounts;
use crate::frame_events::EventLog;
use crate::sampling::SampleCapture;

#[derive(Debug, Default)]
pub struct Probes {
    /// Exact control-flow counts (the ground-truth recorder's input).
    pub flow: Option<Box<FlowCounts>>,
    /// Count-and-time batch sampling.
    pub sampler: Option<SampleCapture>,
    /// The frame-time profile's log of routine-level control transfers
    /// and wait-loop cycles (`frame_events`).
    pub events: Option<Box<EventLog>>,
    /// Every address a branch was taken to (`taken_targets`), shared with
    /// the hot-CFG builder's thread.
    pub taken: Option<std::sync::Arc<crate::taken_targets::TakenTargets>>,
    /// How both name the code they see (`code_addr`): refreshed when the
    /// PRG banks change, read only while a probe records.
    pub code_map: CodeMap,
}
