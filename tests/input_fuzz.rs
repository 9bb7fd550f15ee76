//! The input parsers survive mutated input (issue 23): a short run of
//! `nesprof::input_fuzz` on every target — no panic, no hang, every error
//! one line of bounded length, FM2 round trips intact. The long campaign is
//! `cargo run --release --example fuzz_inputs all COUNT` (BENCHMARKS.md,
//! "Input fuzzing (issue 23)").

use std::time::Duration;

use nesprof::input_fuzz::{self, Target};

/// Inputs per target: a few seconds in all on a release build.
const INPUTS: u64 = 3000;

#[test]
fn every_parser_survives_mutated_seeds() {
    let mut problems = Vec::new();
    for target in Target::ALL {
        let corpus = input_fuzz::load_corpus(&input_fuzz::corpus_root(), target).unwrap();
        assert!(corpus.len() >= 2, "{}: too few seeds", target.name());
        for seed in &corpus {
            assert!(
                input_fuzz::accepts(target, seed),
                "{}: a seed is rejected",
                target.name()
            );
        }
        let report = input_fuzz::fuzz(target, &corpus, INPUTS, 23, Duration::from_secs(5), |_| {});
        assert_eq!(report.tried, INPUTS);
        for f in &report.findings {
            problems.push(format!("{}: {:?}: {}", target.name(), f.kind, f.message));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}
