//! FM2 reading and writing: every committed movie survives read → write →
//! read unchanged, generated movies of every shape do too, and no text makes
//! the parser panic (it returns an error naming the line instead).

use std::path::{Path, PathBuf};

use emu::movie::{command, FrameInput, Header, Movie, PortDevice, RamInit};
use proptest::prelude::*;

fn committed_movies() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for dir in ["movies", "tests/data"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "fm2") {
                found.push(path);
            }
        }
    }
    found.sort();
    assert!(
        found.len() >= 15,
        "expected the bundled movies, found {found:?}"
    );
    found
}

#[test]
fn committed_movies_round_trip() {
    for path in committed_movies() {
        let movie = Movie::load(&path).unwrap_or_else(|e| panic!("{e}"));
        let text = movie.to_fm2();
        let again = Movie::parse(&text, "rewritten").unwrap();
        assert_eq!(movie, again, "{}", path.display());
        assert_eq!(text, again.to_fm2(), "{}", path.display());
        // The files are written by our writer, so they are already in its form.
        if path.starts_with(Path::new(env!("CARGO_MANIFEST_DIR")).join("movies")) {
            assert_eq!(
                std::fs::read_to_string(&path).unwrap(),
                text,
                "{}",
                path.display()
            );
        }
    }
}

#[test]
fn save_is_atomic_and_readable() {
    let dir = std::env::temp_dir().join(format!("nesprof-fm2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("m.fm2");
    let movie = Movie {
        frames: vec![
            FrameInput {
                commands: command::RESET,
                ports: [0x81, 0x7E]
            };
            3
        ],
        ..Movie::default()
    };
    movie.save(&path).unwrap();
    assert_eq!(Movie::load(&path).unwrap(), movie);
    // No temporary file is left behind.
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn text_value() -> impl Strategy<Value = String> {
    // Header values: printable, no line breaks (a value is the rest of a line).
    "[ -~]{0,20}"
        .prop_map(|s| s.trim().to_string())
        .prop_filter("no leading |", |s| !s.starts_with('|'))
}

prop_compose! {
    fn arb_movie()(
        emu_version in 0u32..100_000,
        rerecord_count in 0u32..1000,
        rom_filename in "[a-zA-Z0-9_ .-]{0,16}",
        checksum in proptest::option::of(any::<[u8; 16]>()),
        guid in "[0-9A-F-]{0,36}",
        port1_gamepad in any::<bool>(),
        new_ppu in any::<bool>(),
        ram_option in 0u8..4,
        ram_seed in any::<u32>(),
        comments in proptest::collection::vec(text_value(), 0..3),
        subtitles in proptest::collection::vec(text_value(), 0..3),
        frames in proptest::collection::vec((0u8..4, any::<u8>(), any::<u8>()), 1..50),
        // (at least one frame: a movie without input lines is read as a
        // file cut off inside its header)
    ) -> Movie {
        let ports = [PortDevice::Gamepad, if port1_gamepad { PortDevice::Gamepad } else { PortDevice::None }];
        Movie {
            header: Header {
                emu_version,
                rerecord_count,
                rom_filename: rom_filename.trim().to_string(),
                rom_checksum: checksum,
                guid,
                ports,
                new_ppu,
                ram_init: RamInit { option: ram_option, seed: ram_seed },
                comments,
                subtitles,
                extra: Vec::new(),
            },
            frames: frames
                .into_iter()
                .map(|(commands, p0, p1)| FrameInput {
                    commands,
                    ports: [p0, if port1_gamepad { p1 } else { 0 }],
                })
                .collect(),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_text_gives_a_movie_or_an_error(text in any::<String>()) {
        let _ = Movie::parse(&text, "fuzz.fm2");
        let prefixed = format!("version 3\n{text}");
        let _ = Movie::parse(&prefixed, "fuzz.fm2");
    }

    #[test]
    fn fm2_like_lines_never_panic(lines in proptest::collection::vec("[|0-9a-zA-Z. \t]{0,30}", 0..20)) {
        let text = format!("version 3\n{}", lines.join("\n"));
        if let Err(e) = Movie::parse(&text, "fuzz.fm2") {
            prop_assert!(e.to_string().starts_with("fuzz.fm2"));
        }
    }

    #[test]
    fn generated_movies_round_trip(movie in arb_movie()) {
        let text = movie.to_fm2();
        let again = Movie::parse(&text, "rt.fm2").unwrap();
        prop_assert_eq!(&again, &movie);
        prop_assert_eq!(again.to_fm2(), text);
    }
}

/// A movie FCEUX 2.6.5 itself recorded (from power-on, through its Lua
/// `movie.record`, pressing Start for 4 frames from input line 99, then Right
/// with A pulsing): we read its header as FCEUX wrote it, compute the same romChecksum,
/// and write it back without loss. (`movies/README.md`: replayed in both
/// emulators it gives identical RAM and pictures.)
#[test]
fn reads_a_movie_fceux_recorded() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let movie = Movie::load(&root.join("tests/data/fceux_recorded_snake.fm2")).unwrap();
    assert_eq!(movie.header.emu_version, 20605);
    assert_eq!(movie.header.rom_filename, "snake");
    assert_eq!(movie.header.comments, ["author tester"]);
    assert_eq!(movie.header.ram_init.option, 0);
    let rom = std::fs::read(root.join("roms-test/snake.nes")).unwrap();
    assert_eq!(
        movie.header.rom_checksum,
        Some(emu::movie::rom_checksum(&rom).unwrap())
    );
    let start_frames: Vec<usize> = (0..movie.frames.len())
        .filter(|&i| movie.frames[i].ports[0] & emu::controller::buttons::START != 0)
        .collect();
    assert_eq!(start_frames.first(), Some(&99));
    let again = Movie::parse(&movie.to_fm2(), "rewritten").unwrap();
    assert_eq!(again, movie);
}
