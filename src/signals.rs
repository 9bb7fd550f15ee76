//! Termination signals: SIGINT (Ctrl-C), SIGTERM and SIGHUP (the terminal
//! closing) all ask the run to stop. Long runs poll [`stop_requested`] and
//! end cleanly: outputs are committed whole or not at all (see
//! [`crate::output_set`]), temporaries removed, a recording saved. A second
//! signal exits at once (status 130), still removing live temporaries, for
//! when the clean stop itself hangs.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Once;

static STOP: AtomicBool = AtomicBool::new(false);
static SIGNALS: AtomicU32 = AtomicU32::new(0);

/// Exit status of a run stopped by a signal (128 + SIGINT, as shells report).
pub const EXIT_INTERRUPTED: u8 = 130;

/// Catches the signals (once per process; later calls do nothing).
pub fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let handler = || {
            STOP.store(true, Ordering::SeqCst);
            if SIGNALS.fetch_add(1, Ordering::SeqCst) >= 1 {
                crate::atomic::remove_all_temporaries();
                eprintln!("interrupted again: exiting now");
                std::process::exit(EXIT_INTERRUPTED as i32);
            }
        };
        if let Err(e) = ctrlc::set_handler(handler) {
            eprintln!("warning: cannot catch Ctrl-C/SIGTERM ({e}); an interrupted run may leave temporaries");
        }
    });
}

/// Whether a signal asked the run to stop.
pub fn stop_requested() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// The error a run returns when a signal stopped it: exit 130, nothing
/// written under a final name.
#[derive(Debug)]
pub struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted: no outputs written (the previous ones, if any, are untouched)")
    }
}

impl std::error::Error for Interrupted {}

/// `Err(Interrupted)` once a signal has asked the run to stop.
pub fn check() -> anyhow::Result<()> {
    if stop_requested() {
        Err(Interrupted.into())
    } else {
        Ok(())
    }
}
