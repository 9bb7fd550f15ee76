//! Mapper test suites (issue 3). The two MMC3 revisions' tests exclude each
//! other; we emulate the newer (Sharp MMC3B/C) IRQ behaviour most games need.

mod common;

use common::{known_fail, pass, run_suite};

const OLD_MMC3: &str =
    "tests the older NEC MMC3 revision's IRQ behaviour; we emulate the newer one";

#[test]
fn mmc3_test_2() {
    let dir = "mappers/mmc3_test_2/rom_singles";
    run_suite(
        "mmc3_test_2",
        &[
            pass(format!("{dir}/1-clocking.nes")),
            pass(format!("{dir}/2-details.nes")),
            pass(format!("{dir}/3-A12_clocking.nes")),
            pass(format!("{dir}/4-scanline_timing.nes")),
            pass(format!("{dir}/5-MMC3.nes")),
            known_fail(format!("{dir}/6-MMC3_alt.nes"), OLD_MMC3),
        ],
    );
}

#[test]
fn mmc3_irq_tests() {
    let dir = "mappers/mmc3_irq_tests";
    run_suite(
        "mmc3_irq_tests",
        &[
            pass(format!("{dir}/1.Clocking.nes")),
            pass(format!("{dir}/2.Details.nes")),
            pass(format!("{dir}/3.A12_clocking.nes")),
            pass(format!("{dir}/4.Scanline_timing.nes")),
            known_fail(format!("{dir}/5.MMC3_rev_A.nes"), OLD_MMC3),
            pass(format!("{dir}/6.MMC3_rev_B.nes")),
        ],
    );
}
