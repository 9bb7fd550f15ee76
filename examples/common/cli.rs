//! What the measuring examples share for their arguments: a workload found
//! by name and a number read from an argument or the environment, each
//! ending the run with one line and exit status 2 when it cannot be had,
//! as `nesprof` does with bad input (they panicked before). Each example
//! uses some of it.
#![allow(dead_code)]

use emu::movie::Replay;
use emu::Nes;
use nesprof::open::load_replay;
use nesprof::sweep::workloads::{self, Workload};

/// The bundled workload or shared-set game called `name`, a machine with
/// its ROM, and its movie ready to replay.
pub fn workload_replay(tool: &str, name: &str) -> (Workload, Nes, Replay) {
    let named = workloads::named(&workloads::repo_root());
    let Some(workload) = named.iter().find(|w| w.name == name).cloned() else {
        let known: Vec<&str> = named.iter().map(|w| w.name.as_str()).collect();
        fail(
            tool,
            &format!("no workload called {name:?} (known: {})", known.join(", ")),
        );
    };
    let Some(movie) = workload.movie.clone() else {
        fail(tool, &format!("workload {name:?} has no movie"));
    };
    match load_replay(&workload.rom, &movie, workload.ignore_rom_mismatch) {
        Ok((nes, replay, _)) => (workload, nes, replay),
        Err(e) => fail(tool, &format!("{name}: {e:#}")),
    }
}

/// `text` (argument or variable `what`) as a number, or the run ends.
pub fn number<T: std::str::FromStr>(tool: &str, what: &str, text: &str) -> T {
    text.parse()
        .unwrap_or_else(|_| fail(tool, &format!("{what} must be a number, not {text:?}")))
}

/// Environment variable `var`, if it is set, as a whole number of at
/// least 1 (a batch length).
pub fn env_count(tool: &str, var: &str) -> Option<usize> {
    let text = std::env::var(var).ok()?;
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Some(n),
        _ => fail(
            tool,
            &format!("{var} must be a whole number of at least 1, not {text:?}"),
        ),
    }
}

/// Environment variable `var`, if it is set, as a finite number above 0
/// (an interval in milliseconds).
pub fn env_positive(tool: &str, var: &str) -> Option<f64> {
    let text = std::env::var(var).ok()?;
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Some(x),
        _ => fail(
            tool,
            &format!("{var} must be a finite number above 0, not {text:?}"),
        ),
    }
}

pub fn fail(tool: &str, message: &str) -> ! {
    eprintln!("{tool}: {message}");
    std::process::exit(2);
}
