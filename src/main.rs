use std::process::ExitCode;

use clap::Parser;
use nesprof::cli::{self, Cli};
use nesprof::error::{BadInput, EXIT_BAD_INPUT};
use nesprof::notice;
use nesprof::signals::{Interrupted, Partial, EXIT_INTERRUPTED};

/// A usage error in one line (the error and any tip, without the usage
/// block; an argument's control characters escaped), exit 2; help and
/// version go out as clap prints them.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    let text = e.render().to_string();
    let parts: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more information")
        })
        .collect();
    let mut line = String::new();
    for part in parts {
        if !line.is_empty() {
            line.push_str(if part.starts_with("tip:") { "; " } else { " " });
        }
        line.push_str(part);
    }
    eprintln!("{}", notice::line(&format!("{line} (see --help)")));
    ExitCode::from(EXIT_BAD_INPUT)
}

/// Caps glibc's malloc arenas at two for the whole process. A profile runs
/// four to five threads (the emulation, the feeder, the frame-time
/// accounting, the memory recorder's worker, the timer), and glibc gives
/// each thread that allocates an arena of its own, whose freed memory the
/// others do not reuse: how much memory a run kept then depended on how the
/// threads' allocations happened to interleave. Measured: `profile --memory`
/// of breakout for 432,000 frames at X = 0.5 ms peaked at 32-51 MB (half the
/// runs above 40 MB, `tests/soak.rs` failing on them), with two arenas at
/// 32-36 MB in every run. The threads allocate little once running (the
/// batch buffers go round in a circle), so they hardly contend for the
/// arenas' locks.
fn cap_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; called first thing
    // in main, before any thread is spawned.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}

fn main() -> ExitCode {
    cap_malloc_arenas();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    // Notices are printed only when the command succeeds: a failing one
    // prints exactly one line, its error (see `nesprof::notice`).
    match cli::dispatch(cli) {
        Ok(code) => {
            notice::flush();
            code
        }
        Err(e) if e.downcast_ref::<Partial>().is_some() => {
            notice::discard();
            eprintln!("{}", notice::line(&format!("{e:#}")));
            ExitCode::from(EXIT_INTERRUPTED)
        }
        Err(e) => {
            notice::discard();
            eprintln!("{}", notice::line(&format!("error: {e:#}")));
            if e.downcast_ref::<Interrupted>().is_some() {
                ExitCode::from(EXIT_INTERRUPTED)
            } else if e.downcast_ref::<BadInput>().is_some() {
                ExitCode::from(EXIT_BAD_INPUT)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}
