use std::process::ExitCode;

use clap::Parser;
use nesprof::cli::{self, Cli};
use nesprof::error::{BadInput, EXIT_BAD_INPUT};

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli::dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            if e.downcast_ref::<BadInput>().is_some() {
                ExitCode::from(EXIT_BAD_INPUT)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}
