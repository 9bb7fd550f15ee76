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

fn main() -> ExitCode {
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
