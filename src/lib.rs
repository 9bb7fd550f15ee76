//! The nesprof front-end: the command-line interface and the test-ROM runner.
//! The machine itself is the `emu` crate; profiling algorithms are in `gfc`;
//! the glue between them is in `profiler`.

pub mod audio;
pub mod cli;
pub mod lockstep;
pub mod play;
pub mod screenshot;
pub mod sweep;
pub mod testrom;
