//! The CPU test suites of the foundation issue, run by their result protocols
//! (`cargo test --release --test cpu_roms -- --nocapture` shows the report).

mod common;

use common::{pass, pass_holding, run_suite, Case};
use emu::controller::buttons;

#[test]
fn nestest() {
    run_suite("nestest", &[pass("cpu/nestest/nestest.nes")]);
}

#[test]
fn instr_test_v5() {
    let mut cases: Vec<Case> = [
        "01-basics",
        "02-implied",
        "03-immediate",
        "04-zero_page",
        "05-zp_xy",
        "06-absolute",
        "07-abs_xy",
        "08-ind_x",
        "09-ind_y",
        "10-branches",
        "11-stack",
        "12-jmp_jsr",
        "13-rts",
        "14-rti",
        "15-brk",
        "16-special",
    ]
    .iter()
    .map(|name| pass(format!("cpu/instr_test-v5/rom_singles/{name}.nes")))
    .collect();
    cases.push(pass("cpu/instr_test-v5/all_instrs.nes"));
    cases.push(pass("cpu/instr_test-v5/official_only.nes"));
    run_suite("instr_test-v5", &cases);
}

#[test]
fn instr_misc_singles() {
    run_suite(
        "instr_misc",
        &[
            pass("cpu/instr_misc/rom_singles/01-abs_x_wrap.nes"),
            pass("cpu/instr_misc/rom_singles/02-branch_wrap.nes"),
            pass("cpu/instr_misc/rom_singles/03-dummy_reads.nes"),
        ],
    );
}

#[test]
fn branch_timing_tests() {
    run_suite(
        "branch_timing_tests",
        &[
            pass("cpu/branch_timing_tests/1.Branch_Basics.nes"),
            pass("cpu/branch_timing_tests/2.Backward_Branch.nes"),
            pass("cpu/branch_timing_tests/3.Forward_Branch.nes"),
        ],
    );
}

#[test]
fn cpu_reset() {
    run_suite(
        "cpu_reset",
        &[
            pass("cpu/cpu_reset/ram_after_reset.nes"),
            pass("cpu/cpu_reset/registers.nes"),
        ],
    );
}

#[test]
fn cpu_dummy_reads() {
    run_suite(
        "cpu_dummy_reads",
        &[pass("cpu/cpu_dummy_reads/cpu_dummy_reads.nes")],
    );
}

#[test]
fn cpu_timing_test6() {
    // Holding B at power-on makes the ROM time the unofficial opcodes too.
    run_suite(
        "cpu_timing_test6",
        &[
            pass("cpu/cpu_timing_test6/cpu_timing_test.nes"),
            pass_holding("cpu/cpu_timing_test6/cpu_timing_test.nes", buttons::B),
        ],
    );
}

#[test]
fn blargg_nes_cpu_test5() {
    run_suite(
        "blargg_nes_cpu_test5",
        &[
            pass("cpu/blargg_nes_cpu_test5/cpu.nes"),
            pass("cpu/blargg_nes_cpu_test5/official.nes"),
        ],
    );
}
