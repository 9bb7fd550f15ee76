use std::process::ExitCode;

use clap::Parser;
use nesprof::cli::{self, BadInput, Cli};

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli::dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            if e.downcast_ref::<BadInput>().is_some() {
                ExitCode::from(cli::EXIT_BAD_INPUT)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}
