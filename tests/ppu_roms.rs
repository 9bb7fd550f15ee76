//! PPU test suites (issue 3), run by their result protocols
//! (`cargo test --release --test ppu_roms -- --nocapture` shows the report).
//! The visual-only ROMs (full_palette, scanline) have no verdict to check.

mod common;

use common::{pass, run_suite};

fn singles(dir: &str, names: &[&str]) -> Vec<common::Case> {
    names
        .iter()
        .map(|n| pass(format!("{dir}/{n}.nes")))
        .collect()
}

#[test]
fn ppu_vbl_nmi() {
    let mut cases = singles(
        "ppu/ppu_vbl_nmi/rom_singles",
        &[
            "01-vbl_basics",
            "02-vbl_set_time",
            "03-vbl_clear_time",
            "04-nmi_control",
            "05-nmi_timing",
            "06-suppression",
            "07-nmi_on_timing",
            "08-nmi_off_timing",
            "09-even_odd_frames",
            "10-even_odd_timing",
        ],
    );
    cases.push(pass("ppu/ppu_vbl_nmi/ppu_vbl_nmi.nes"));
    run_suite("ppu_vbl_nmi", &cases);
}

#[test]
fn vbl_nmi_timing() {
    run_suite(
        "vbl_nmi_timing",
        &singles(
            "ppu/vbl_nmi_timing",
            &[
                "1.frame_basics",
                "2.vbl_timing",
                "3.even_odd_frames",
                "4.vbl_clear_timing",
                "5.nmi_suppression",
                "6.nmi_disable",
                "7.nmi_timing",
            ],
        ),
    );
}

#[test]
fn sprite_hit_tests_2005() {
    run_suite(
        "sprite_hit_tests_2005.10.05",
        &singles(
            "ppu/sprite_hit_tests_2005.10.05",
            &[
                "01.basics",
                "02.alignment",
                "03.corners",
                "04.flip",
                "05.left_clip",
                "06.right_edge",
                "07.screen_bottom",
                "08.double_height",
                "09.timing_basics",
                "10.timing_order",
                "11.edge_timing",
            ],
        ),
    );
}

#[test]
fn ppu_sprite_hit_2010() {
    run_suite(
        "ppu_sprite_hit",
        &singles(
            "ppu/ppu_sprite_hit/rom_singles",
            &[
                "01-basics",
                "02-alignment",
                "03-corners",
                "04-flip",
                "05-left_clip",
                "06-right_edge",
                "07-screen_bottom",
                "08-double_height",
            ],
        ),
    );
}

#[test]
fn sprite_overflow_tests() {
    run_suite(
        "sprite_overflow_tests",
        &singles(
            "ppu/sprite_overflow_tests",
            &[
                "1.Basics",
                "2.Details",
                "3.Timing",
                "4.Obscure",
                "5.Emulator",
            ],
        ),
    );
}

#[test]
fn blargg_ppu_tests_2005() {
    run_suite(
        "blargg_ppu_tests_2005.09.15b",
        &singles(
            "ppu/blargg_ppu_tests_2005.09.15b",
            &[
                "palette_ram",
                "power_up_palette",
                "sprite_ram",
                "vbl_clear_time",
                "vram_access",
            ],
        ),
    );
}

#[test]
fn ppu_misc() {
    run_suite(
        "ppu misc",
        &[
            pass("ppu/ppu_open_bus/ppu_open_bus.nes"),
            pass("ppu/ppu_read_buffer/test_ppu_read_buffer.nes"),
            pass("ppu/oam_read/oam_read.nes"),
            pass("ppu/oam_stress/oam_stress.nes"),
            pass("cpu/cpu_dummy_writes/cpu_dummy_writes_oam.nes"),
            pass("cpu/cpu_dummy_writes/cpu_dummy_writes_ppumem.nes"),
        ],
    );
}

/// Visual ROMs with no result: judged against reference images checked by
/// eye (tests/reference/README.md).
#[test]
fn full_palette() {
    run_suite(
        "full_palette",
        &singles(
            "ppu/full_palette",
            &["full_palette", "full_palette_smooth", "flowing_palette"],
        ),
    );
}

/// "Stars below denote errors": judged by whether any star is drawn.
#[test]
fn scanline() {
    run_suite("scanline", &[pass("ppu/scanline/scanline.nes")]);
}
