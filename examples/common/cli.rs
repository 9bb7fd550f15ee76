//! What the measuring examples share for their arguments: a workload found
//! by name and a number read from an argument or the environment, each
//! ending the run with one line and exit status 2 when it cannot be had,
//! as `nesprof` does with bad input (they panicked before).

use emu::movie::Replay;
use emu::Nes;
use nesprof::open::load_replay;
use nesprof::sweep::workloads::{self, Workload};

/// The bundled workload or shared-set game called `name`, a machine with
/// its ROM, and its movie ready to replay.
pub fn workload_replay(tool: &str, name: &str) -> (Workload, Nes, Replay) {
    let repo = workloads::repo_root();
    let Some(workload) = workloads::find(&repo, name) else {
        let known: Vec<String> = workloads::bundled(&repo)
            .into_iter()
            .chain(workloads::load(&repo.join("workloads-games.ron")).unwrap_or_default())
            .map(|w| w.name)
            .collect();
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

/// Environment variable `var` as a number, if it is set.
#[allow(dead_code)]
pub fn env_number<T: std::str::FromStr>(tool: &str, var: &str) -> Option<T> {
    std::env::var(var).ok().map(|text| number(tool, var, &text))
}

fn fail(tool: &str, message: &str) -> ! {
    eprintln!("{tool}: {message}");
    std::process::exit(2);
}
