//! Controller test ROMs that need no input (issue 3); the ones that ask for
//! button presses are driven by movies (issue 5).

mod common;

use common::{pass, run_suite};

#[test]
fn read_joy3() {
    run_suite(
        "read_joy3",
        &[
            pass("input/read_joy3/count_errors.nes"),
            pass("input/read_joy3/count_errors_fast.nes"),
        ],
    );
}
