//! Termination signals: SIGINT (Ctrl-C), SIGTERM and SIGHUP (the terminal
//! closing) all ask the run to stop. Long runs poll [`stop_requested`] and
//! end cleanly: outputs are committed whole or not at all (see
//! [`crate::output_set`]), temporaries removed, a recording saved. A second
//! signal exits at once (status 130), still removing live temporaries, for
//! when the clean stop itself hangs.
//!
//! Some runs, like `perf record`, keep what they have when first stopped:
//! `profile` writes the outputs of the frames it ran, `sweep` those of the
//! workloads it finished. There the second signal abandons the new outputs
//! and keeps the previous set; only while a set's files are being renamed
//! into place (microseconds, see [`Committing`]) is the forced exit held
//! back until the renames are done, so a set is never left half old, half
//! new.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Once;

static STOP: AtomicBool = AtomicBool::new(false);
static SIGNALS: AtomicU32 = AtomicU32::new(0);
/// Set while a set is being renamed into place.
static COMMITTING: AtomicBool = AtomicBool::new(false);
/// A second signal came while committing: exit once the commit is done.
static EXIT_AFTER_COMMIT: AtomicBool = AtomicBool::new(false);

/// Exit status of a run stopped by a signal (128 + SIGINT, as shells report).
pub const EXIT_INTERRUPTED: u8 = 130;

fn exit_now() -> ! {
    crate::atomic::remove_all_temporaries();
    eprintln!("interrupted again: exiting now, the previous outputs kept");
    std::process::exit(EXIT_INTERRUPTED as i32);
}

/// Catches the signals (once per process; later calls do nothing).
pub fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let handler = || {
            STOP.store(true, Ordering::SeqCst);
            if SIGNALS.fetch_add(1, Ordering::SeqCst) >= 1 {
                if COMMITTING.load(Ordering::SeqCst) {
                    EXIT_AFTER_COMMIT.store(true, Ordering::SeqCst);
                    return;
                }
                exit_now();
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

/// Holds back the second signal's forced exit while a set of outputs is
/// renamed into place; dropping it lets a signal that came meanwhile exit.
pub struct Committing(());

impl Committing {
    pub fn start() -> Committing {
        COMMITTING.store(true, Ordering::SeqCst);
        Committing(())
    }
}

impl Drop for Committing {
    fn drop(&mut self) {
        COMMITTING.store(false, Ordering::SeqCst);
        if EXIT_AFTER_COMMIT.load(Ordering::SeqCst) {
            crate::atomic::remove_all_temporaries();
            eprintln!("interrupted again: exiting now (the outputs were already in place)");
            std::process::exit(EXIT_INTERRUPTED as i32);
        }
    }
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

/// A run that was stopped by a signal but wrote what it had (`profile`'s
/// frames so far, `sweep`'s finished workloads): exit 130 all the same, so
/// a script can tell the outputs do not cover what it asked for.
#[derive(Debug)]
pub struct Partial(pub String);

impl std::fmt::Display for Partial {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Partial {}

/// `Err(Interrupted)` once a signal has asked the run to stop.
pub fn check() -> anyhow::Result<()> {
    if stop_requested() {
        Err(Interrupted.into())
    } else {
        Ok(())
    }
}
