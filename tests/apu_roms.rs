//! The APU and DMA test suites of issue 4, run by their result protocols
//! (`cargo test --release --test apu_roms -- --nocapture` shows the report),
//! plus the four `dmc_tests` ROMs, which print nothing and are judged by the
//! DMC output they play.

mod common;

use common::{pass, run_suite, Case};

fn singles(dir: &str, names: &[&str]) -> Vec<Case> {
    names
        .iter()
        .map(|n| pass(format!("{dir}/{n}.nes")))
        .collect()
}

#[test]
fn apu_test() {
    let mut cases = singles(
        "apu/apu_test/rom_singles",
        &[
            "1-len_ctr",
            "2-len_table",
            "3-irq_flag",
            "4-jitter",
            "5-len_timing",
            "6-irq_flag_timing",
            "7-dmc_basics",
            "8-dmc_rates",
        ],
    );
    cases.push(pass("apu/apu_test/apu_test.nes"));
    run_suite("apu_test", &cases);
}

#[test]
fn blargg_apu_2005() {
    run_suite(
        "blargg_apu_2005.07.30",
        &singles(
            "apu/blargg_apu_2005.07.30",
            &[
                "01.len_ctr",
                "02.len_table",
                "03.irq_flag",
                "04.clock_jitter",
                "05.len_timing_mode0",
                "06.len_timing_mode1",
                "07.irq_flag_timing",
                "08.irq_timing",
                "09.reset_timing",
                "10.len_halt_timing",
                "11.len_reload_timing",
            ],
        ),
    );
}

#[test]
fn apu_reset() {
    run_suite(
        "apu_reset",
        &singles(
            "apu/apu_reset",
            &[
                "4015_cleared",
                "4017_timing",
                "4017_written",
                "irq_flag_cleared",
                "len_ctrs_enabled",
                "works_immediately",
            ],
        ),
    );
}

#[test]
fn dmc_dma_during_read4() {
    let dir = "apu/dmc_dma_during_read4";
    run_suite(
        "dmc_dma_during_read4",
        &[
            pass(format!("{dir}/dma_2007_read.nes")),
            pass(format!("{dir}/dma_2007_write.nes")),
            pass(format!("{dir}/dma_4016_read.nes")),
            pass(format!("{dir}/double_2007_read.nes")),
            pass(format!("{dir}/read_write_2007.nes")),
        ],
    );
}

#[test]
fn sprdma_and_dmc_dma() {
    run_suite(
        "sprdma_and_dmc_dma",
        &singles(
            "apu/sprdma_and_dmc_dma",
            &["sprdma_and_dmc_dma", "sprdma_and_dmc_dma_512"],
        ),
    );
}

#[test]
fn apu_mixer_runs_to_done() {
    // The verdict of these is audible; tests/apu_mixer.rs measures it.
    run_suite(
        "apu_mixer",
        &singles("apu/apu_mixer", &["dmc", "noise", "square", "triangle"]),
    );
}

#[test]
fn cpu_suites_that_need_the_apu() {
    let mut cases = singles(
        "cpu/instr_timing/rom_singles",
        &["1-instr_timing", "2-branch_timing"],
    );
    cases.push(pass("cpu/instr_timing/instr_timing.nes"));
    cases.extend(singles(
        "cpu/cpu_exec_space",
        &["test_cpu_exec_space_apu", "test_cpu_exec_space_ppuio"],
    ));
    cases.push(pass("cpu/instr_misc/rom_singles/04-dummy_reads_apu.nes"));
    cases.push(pass("cpu/instr_misc/instr_misc.nes"));
    run_suite("instr_timing, cpu_exec_space, instr_misc", &cases);
}

#[test]
fn cpu_interrupts_v2() {
    let dir = "cpu/cpu_interrupts_v2";
    run_suite(
        "cpu_interrupts_v2",
        &[
            pass(format!("{dir}/rom_singles/1-cli_latency.nes")),
            pass(format!("{dir}/rom_singles/2-nmi_and_brk.nes")),
            pass(format!("{dir}/rom_singles/3-nmi_and_irq.nes")),
            pass(format!("{dir}/rom_singles/4-irq_and_dma.nes")),
            pass(format!("{dir}/rom_singles/5-branch_delays_irq.nes")),
            pass(format!("{dir}/cpu_interrupts.nes")),
        ],
    );
}

// ---- dmc_tests ---------------------------------------------------------------

/// These four print nothing: `nesprof test` judges them by the DMC output
/// they play (`nesprof::testrom`'s dmc_audio module says what each must do).
#[test]
fn dmc_tests() {
    run_suite(
        "dmc_tests",
        &singles(
            "apu/dmc_tests",
            &["buffer_retained", "latency", "status", "status_irq"],
        ),
    );
}
