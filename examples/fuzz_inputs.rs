//! A fuzzing campaign of the input parsers (see `nesprof::input_fuzz`):
//! mutated copies of the seed files in `fuzz/corpus/<target>/`, each parsed
//! under `catch_unwind` with a time budget. Prints, per target, the inputs
//! tried and accepted, the time taken and every finding; a finding's input
//! is written to `fuzz-crashes/<target>-<kind>-<n>.bin`.
//!
//! Usage: fuzz_inputs TARGET|all COUNT [SEED] [SECONDS]
//! TARGET is rom, fm2, cfg, workloads or stream; COUNT inputs per target,
//! in rounds of 10 000 (round r uses seed SEED + r, so a campaign is
//! replayable); SECONDS (optional) stops a target after that long.
//! Exit status 1 if anything was found, 2 on bad arguments.

use std::time::{Duration, Instant};

use nesprof::input_fuzz::{self, FindingKind, Target};

/// Inputs per round (one seed each).
const ROUND: u64 = 10_000;

/// Longest any one input may take before it counts as a hang.
const BUDGET: Duration = Duration::from_secs(2);

fn usage(problem: &str) -> ! {
    eprintln!("fuzz_inputs: {problem} (usage: fuzz_inputs TARGET|all COUNT [SEED] [SECONDS])");
    std::process::exit(2);
}

fn number(n: usize, name: &str, default: Option<u64>) -> u64 {
    match std::env::args().nth(n) {
        None => default.unwrap_or_else(|| usage(&format!("{name} is missing"))),
        Some(text) => text
            .parse()
            .unwrap_or_else(|_| usage(&format!("{name} must be a whole number, not {text:?}"))),
    }
}

fn main() {
    let which = std::env::args()
        .nth(1)
        .unwrap_or_else(|| usage("TARGET is missing"));
    let targets: Vec<Target> = if which == "all" {
        Target::ALL.to_vec()
    } else {
        vec![Target::from_name(&which).unwrap_or_else(|| usage(&format!("no target {which:?}")))]
    };
    let count = number(2, "COUNT", None);
    let seed = number(3, "SEED", Some(0));
    let seconds = number(4, "SECONDS", Some(u64::MAX));
    let mut found = 0;
    for target in targets {
        let corpus = input_fuzz::load_corpus(&input_fuzz::corpus_root(), target)
            .unwrap_or_else(|e| usage(&format!("corpus of {}: {e}", target.name())));
        let start = Instant::now();
        let (mut tried, mut accepted, mut findings) = (0u64, 0u64, 0usize);
        let mut round = 0;
        while tried < count && start.elapsed().as_secs() < seconds {
            let n = ROUND.min(count - tried);
            let report = input_fuzz::fuzz(target, &corpus, n, seed + round, BUDGET, |f| {
                findings += 1;
                let kind = match f.kind {
                    FindingKind::Panic => "panic",
                    FindingKind::Hang => "hang",
                    FindingKind::Contract => "contract",
                };
                let _ = std::fs::create_dir_all("fuzz-crashes");
                let file = format!("fuzz-crashes/{}-{kind}-{findings}.bin", target.name());
                let _ = std::fs::write(&file, &f.input);
                println!(
                    "{}: {kind} (round seed {}): {} -> {file}",
                    target.name(),
                    seed + round,
                    f.message
                );
            });
            tried += report.tried;
            accepted += report.accepted;
            round += 1;
            if report.findings.iter().any(|f| f.kind == FindingKind::Hang) {
                break;
            }
        }
        found += findings;
        println!(
            "{}: {tried} inputs ({accepted} accepted) in {:.1} s, {findings} findings",
            target.name(),
            start.elapsed().as_secs_f64()
        );
    }
    std::process::exit(i32::from(found > 0));
}
