//! Glue between the emulator and the GFC algorithms: the count-and-time sampler
//! (wall-clock timer thread and emulated-clock trigger), the ground-truth CFG
//! recorder, sample-stream files and the builder thread.

pub mod builder;
pub mod cfg_file;
pub mod convert;
pub mod diff;
pub mod dot;
pub mod report;
pub mod session;
pub mod stream;
pub mod timer;
pub mod truth;
