//! The nesprof front-end: the command line (`cli/`, one module per
//! subcommand), the window with audio and the live overlay (`play/`, `audio/`),
//! the sweep experiment and its reports (`sweep/`), the test-ROM runner
//! (`testrom/`) and the engines' lockstep comparison. The machine itself is
//! the `emu` crate; profiling algorithms are in `gfc`; the glue between them
//! is in `profiler`.
//!
//! Layering: `cli/` dispatches to the rest and nothing imports from it. What
//! several subcommands share sits beside it: `open` (a ROM with an optional
//! movie), `error` (exit codes), `emit` (the last line), `options` (shared
//! option types), `progress` (the progress bar), `screenshot`, `atomic`
//! (whole-file outputs written by temporary file and rename), `symbol_files`
//! (`--symbols`: label files given or found beside the ROM), `write_policy`
//! (what a run may write: checked before it starts), `output_set` (a
//! directory of outputs committed as one set), `notice` (warnings held
//! until a command succeeds, every line printable). `input_fuzz`
//! fuzzes every input parser (issue 23); `fuzz` fuzzes the two engines.

pub mod atomic;
pub mod audio;
pub mod cli;
pub mod emit;
pub mod error;
pub mod fuzz;
pub mod input_fuzz;
pub mod lockstep;
pub mod notice;
pub mod open;
pub mod options;
pub mod output_set;
pub mod play;
pub mod progress;
pub mod screenshot;
pub mod signals;
pub mod sweep;
pub mod symbol_files;
pub mod testrom;
pub mod write_policy;
