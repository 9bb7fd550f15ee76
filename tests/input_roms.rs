//! Controller test ROMs. The ones that need no input run as they are
//! (issue 3); `test_buttons` and `thorough_test` are also driven by
//! hand-written movies in `tests/data/` that press what the ROMs ask for
//! (issue 5); without a movie the runner answers `test_buttons`' prompts.

mod common;

use common::{pass, pass_with_movie, run_suite};

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

#[test]
fn read_joy3_driven_by_movies() {
    run_suite(
        "read_joy3 with movies",
        &[
            // Asks for A, B, Select, Start, Up, Down, Left, Right in turn.
            pass_with_movie(
                "input/read_joy3/test_buttons.nes",
                "tests/data/read_joy3_test_buttons.fm2",
            ),
            // Shows no prompt and expects nothing held while it reads.
            pass_with_movie(
                "input/read_joy3/thorough_test.nes",
                "tests/data/read_joy3_thorough_test.fm2",
            ),
        ],
    );
}

/// Without a movie the runner presses what the screen asks for, and the ROM
/// passes; a movie that presses B and Select the wrong way round fails, so
/// the ROM really checks the presses.
#[test]
fn test_buttons_needs_the_right_presses() {
    use nesprof::testrom::{self, Protocol, TestOptions};
    let rom = common::roms_root().join("input/read_joy3/test_buttons.nes");
    let options = TestOptions {
        max_frames: 600,
        ..TestOptions::default()
    };
    let prompted = testrom::run_test(&rom, Protocol::Screen, &options).unwrap();
    assert!(prompted.passed, "{}", prompted.message);

    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/read_joy3_test_buttons.fm2");
    let mut movie = emu::movie::Movie::load(&path).unwrap();
    // Swap the B and Select presses.
    for frame in movie.frames.iter_mut() {
        let p = &mut frame.ports[0];
        let (b, select) = (*p & 0x02, *p & 0x04);
        *p = (*p & !0x06) | (b << 1) | (select >> 1);
    }
    let options = TestOptions {
        max_frames: 600,
        movie: Some(std::sync::Arc::new(movie)),
        ..TestOptions::default()
    };
    let wrong = testrom::run_test(&rom, Protocol::Screen, &options).unwrap();
    assert!(!wrong.passed, "{}", wrong.message);
}
