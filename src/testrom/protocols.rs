//! One function per result protocol.

use std::path::Path;

use emu::movie::Replay;
use emu::rom::RomImage;
use emu::{Cartridge, EmuError, Nes};

use super::{
    dmc_audio, game, holy_mapperel, mmc1_a12, prompts, scanline_stars, screen_text, visual,
    Protocol, TestOptions, Verdict,
};

/// Frames to hold before pressing reset when a test asks for it ($81): the
/// protocol wants at least 100 ms.
const RESET_DELAY_FRAMES: u64 = 10;

/// Runs `rom` and judges it by `protocol`.
pub fn run_test(
    rom: &Path,
    protocol: Protocol,
    options: &TestOptions,
) -> Result<Verdict, EmuError> {
    let replay = match &options.movie {
        Some(movie) => {
            let bytes =
                emu::input_file::read_limited(rom, emu::rom::MAX_FILE).map_err(|source| {
                    EmuError::Io {
                        path: rom.to_path_buf(),
                        source,
                    }
                })?;
            Some(Replay::new(&bytes, movie).map_err(|p| EmuError::bad_rom(rom, p))?)
        }
        None => None,
    };
    let mut nes = match &replay {
        Some(r) => r.power_on().map_err(|p| EmuError::bad_rom(rom, p))?,
        None if tests_mmc3_revision_a(rom) => load_as_mmc3_revision_a(rom)?,
        None => Nes::load(rom)?,
    };
    nes.set_buttons(0, options.buttons);
    nes.set_engine(options.engine);
    let mut frames = Frames {
        replay: replay.as_ref(),
        rom,
    };
    Ok(match protocol {
        Protocol::Blargg6000 => blargg_6000(&mut nes, options, &mut frames),
        Protocol::NestestLog => nestest_log(&mut nes, rom),
        Protocol::ZeroPage(addr) => zero_page(&mut nes, addr, options, &mut frames),
        Protocol::Screen => screen(&mut nes, rom, options, &mut frames),
        Protocol::None => game::verdict(&mut nes, &mut Nes::load(rom)?),
        Protocol::AccuracyCoin => match super::accuracy_coin::load_tests(rom) {
            Ok(tests) => super::accuracy_coin::run(&mut nes, &tests, options.max_frames).verdict(),
            Err(message) => Verdict {
                passed: false,
                message,
                frames: 0,
            },
        },
    })
}

/// Test ROMs written for the NEC MMC3A's IRQ behaviour (their suites'
/// readmes: "MMC3 revision A", "alternate" revision), iNES 1 files that
/// cannot say so: they run as NES 2.0 submapper 4 would.
const MMC3_REVISION_A_ROMS: &[&str] = &["5.MMC3_rev_A.nes", "6-MMC3_alt.nes"];

fn tests_mmc3_revision_a(rom: &Path) -> bool {
    rom.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| MMC3_REVISION_A_ROMS.contains(&n))
}

fn load_as_mmc3_revision_a(rom: &Path) -> Result<Nes, EmuError> {
    let bytes =
        emu::input_file::read_limited(rom, emu::rom::MAX_FILE).map_err(|source| EmuError::Io {
            path: rom.to_path_buf(),
            source,
        })?;
    let mut image = RomImage::parse(&bytes).map_err(|p| EmuError::bad_rom(rom, p))?;
    image.header.submapper = 4;
    let cart = Cartridge::from_image(image).map_err(|p| EmuError::bad_rom(rom, p))?;
    Ok(Nes::new(cart))
}

/// Runs frames, feeding a movie's input lines first when the test has one.
struct Frames<'a> {
    replay: Option<&'a Replay>,
    rom: &'a Path,
}

impl Frames<'_> {
    fn run(&mut self, nes: &mut Nes) {
        if let Some(replay) = self.replay {
            if nes.frame_count() < replay.len() {
                // The image parsed when the replay was made, so a power
                // command cannot fail to rebuild the cartridge.
                if let Err(p) = replay.apply(nes, replay.len()) {
                    eprintln!(
                        "{}",
                        crate::notice::line(&format!("{}: {p}", self.rom.display()))
                    );
                }
            } else {
                nes.set_buttons(0, 0);
            }
        }
        nes.run_frame();
    }
}

fn jam_message(nes: &Nes) -> Option<String> {
    nes.jammed()
        .map(|(pc, op)| format!("CPU jammed by opcode ${op:02X} at ${pc:04X}"))
}

fn joined_screen(nes: &Nes) -> String {
    screen_text(nes)
        .iter()
        .map(|l| l.trim())
        .collect::<Vec<_>>()
        .join(" / ")
}

/// Text the ROM wrote at $6004 (zero-terminated).
fn text_6004(nes: &Nes) -> String {
    let mut out = String::new();
    for addr in 0x6004u16..0x8000 {
        let b = nes.peek(addr);
        if b == 0 {
            break;
        }
        out.push(if b == b'\n' { '\n' } else { b as char });
    }
    out
}

fn tidy(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" / ")
}

fn blargg_6000(nes: &mut Nes, options: &TestOptions, frames: &mut Frames) -> Verdict {
    let mut reset_at: Option<u64> = None;
    for frame in 1..=options.max_frames {
        frames.run(nes);
        if let Some(msg) = jam_message(nes) {
            return Verdict {
                passed: false,
                message: msg,
                frames: frame,
            };
        }
        let signature = [nes.peek(0x6001), nes.peek(0x6002), nes.peek(0x6003)];
        if signature != [0xDE, 0xB0, 0x61] {
            continue;
        }
        let status = nes.peek(0x6000);
        match status {
            0x80 => reset_at = None,
            0x81 => match reset_at {
                None => reset_at = Some(frame + RESET_DELAY_FRAMES),
                Some(at) if frame >= at => {
                    nes.reset();
                    // Until the ROM rewrites $6000, the old $81 must not
                    // trigger another reset.
                    reset_at = Some(u64::MAX);
                }
                Some(_) => {}
            },
            code if code < 0x80 => {
                let text = tidy(&text_6004(nes));
                return Verdict {
                    passed: code == 0,
                    message: if code == 0 {
                        text
                    } else {
                        format!("result code {code}: {text}")
                    },
                    frames: frame,
                };
            }
            _ => {}
        }
    }
    Verdict {
        passed: false,
        message: format!(
            "no result after {} frames ($6000=${:02X}, text: {})",
            options.max_frames,
            nes.peek(0x6000),
            tidy(&text_6004(nes))
        ),
        frames: options.max_frames,
    }
}

fn nestest_log(nes: &mut Nes, rom: &Path) -> Verdict {
    let log_path = rom.with_extension("log");
    // nestest.log is about 1 MiB (8991 lines).
    let limit = emu::input_file::SizeLimit {
        bytes: 64 << 20,
        what: "a nestest-format trace log (64 MiB)",
    };
    let log = match emu::input_file::read_limited_text(&log_path, limit) {
        Ok(log) => log,
        Err(e) => {
            return Verdict {
                passed: false,
                message: format!("cannot read {}: {e}", log_path.display()),
                frames: 0,
            }
        }
    };
    // Automation mode: start at $C000 after the 7-cycle reset sequence.
    nes.set_pc(0xC000);
    let mut lines = 0;
    for (index, expected) in log.lines().enumerate() {
        let got = emu::trace::nestest_line(nes);
        if got != expected {
            return Verdict {
                passed: false,
                message: format!(
                    "line {} differs:\n  expected {expected}\n  got      {got}",
                    index + 1
                ),
                frames: nes.frame_count(),
            };
        }
        nes.step();
        lines += 1;
    }
    let (r2, r3) = (nes.peek(0x02), nes.peek(0x03));
    Verdict {
        passed: r2 == 0 && r3 == 0,
        message: format!("{lines} lines match; result bytes $02=${r2:02X} $03=${r3:02X}"),
        frames: nes.frame_count(),
    }
}

const JMP_ABSOLUTE: u8 = 0x4C;

/// Whether the instruction at PC is `JMP` to itself: the final loop of the
/// 2005-era blargg tests.
fn parked(nes: &Nes) -> bool {
    let pc = nes.pc();
    nes.peek(pc) == JMP_ABSOLUTE
        && u16::from_le_bytes([nes.peek(pc.wrapping_add(1)), nes.peek(pc.wrapping_add(2))]) == pc
}

/// Frame ends the CPU must spend parked on the same `JMP *` before the
/// result byte is read.
const PARKED_FRAMES: u32 = 3;

/// The 2005-era tests end in `JMP *`, but some also wait for an NMI in a
/// `JMP *` loop (and reuse it between phases). The next NMI always takes the
/// CPU out of such a wait before the next frame ends, so the test has ended
/// once the CPU sits on the same self-loop at several consecutive frame ends.
fn zero_page(nes: &mut Nes, addr: u8, options: &TestOptions, frames: &mut Frames) -> Verdict {
    let mut parked_at: Option<u16> = None;
    let mut parked_frames = 0;
    for frame in 1..=options.max_frames {
        frames.run(nes);
        if let Some(msg) = jam_message(nes) {
            return Verdict {
                passed: false,
                message: msg,
                frames: frame,
            };
        }
        if parked(nes) && parked_at == Some(nes.pc()) {
            parked_frames += 1;
        } else {
            parked_at = parked(nes).then_some(nes.pc());
            parked_frames = u32::from(parked_at.is_some());
        }
        if parked_frames >= PARKED_FRAMES {
            let code = nes.peek(addr as u16);
            return Verdict {
                passed: code == 1,
                message: if code == 1 {
                    joined_screen(nes)
                } else {
                    format!(
                        "result code {code} (see the suite's readme): {}",
                        joined_screen(nes)
                    )
                },
                frames: frame,
            };
        }
    }
    Verdict {
        passed: false,
        message: format!(
            "did not finish in {} frames (${addr:02X}=${:02X})",
            options.max_frames,
            nes.peek(addr as u16)
        ),
        frames: options.max_frames,
    }
}

/// Judges on-screen text. `fail` anywhere fails, and so does the test
/// framework's exit report `Error <code>`. A finished measurement counter
/// (`Errors: 8/1000`, `Conflicts: 3/1000`: read_joy3 reports how many reads
/// the DMC glitch corrupted or its robust reader compensated for, which is
/// information, not failure — its source jumps to `test_failed` when a read
/// comes back wrong) ends the test, as do `passed` and `All tests complete`.
/// `None` while the text has no verdict yet.
fn screen_verdict(text: &str) -> Option<bool> {
    let lower = text.to_ascii_lowercase();
    if lower.contains("fail") {
        return Some(false);
    }
    let mut finished_counter = lower.contains("conflicts:") && lower.contains("/1000");
    for (at, _) in lower.match_indices("error") {
        let rest = lower[at + 5..]
            .trim_start_matches('s')
            .trim_start_matches(':')
            .trim_start();
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if !digits.is_empty() && rest[digits.len()..].starts_with('/') {
            finished_counter = true;
        } else {
            return Some(false);
        }
    }
    if lower.contains("passed") || lower.contains("all tests complete") || finished_counter {
        Some(true)
    } else {
        None
    }
}

/// ROMs that print only a CRC of their output and then stop with code 0 (so
/// no pass/fail word appears): the verdict is whether the CRC is one of those
/// the ROM's source lists as the hardware result (several, because the result
/// depends on the CPU-PPU alignment at power-on).
const DOCUMENTED_CRCS: &[(&str, &[&str])] = &[
    ("dma_2007_read.nes", &["159A7A8F", "5E3DF9C4"]),
    (
        "double_2007_read.nes",
        &["85CFD627", "F018C287", "440EF923", "E52F41A5"],
    ),
];

/// For a CRC-only ROM whose CRC is on screen: whether it is a documented one.
fn crc_verdict(rom: &Path, nes: &Nes) -> Option<bool> {
    let name = rom.file_name()?.to_str()?;
    let (_, accepted) = DOCUMENTED_CRCS.iter().find(|(n, _)| *n == name)?;
    let lines = screen_text(nes);
    let last = lines.last()?.trim();
    if last.len() == 8 && last.chars().all(|c| c.is_ascii_hexdigit()) {
        Some(accepted.contains(&last))
    } else {
        None
    }
}

/// A verdict read from the picture of a ROM that prints none; it runs the
/// machine with the given frame runner.
type PictureVerdict = fn(&mut Nes, &mut dyn FnMut(&mut Nes)) -> (bool, String);

fn screen(nes: &mut Nes, rom: &Path, options: &TestOptions, frames: &mut Frames) -> Verdict {
    let by_picture: Option<PictureVerdict> = if scanline_stars::is_scanline(rom) {
        Some(scanline_stars::verdict)
    } else if mmc1_a12::is_mmc1_a12(rom) {
        Some(mmc1_a12::verdict)
    } else {
        None
    };
    if let Some(verdict) = by_picture {
        let (passed, message) = verdict(nes, &mut |n: &mut Nes| frames.run(n));
        return Verdict {
            passed,
            message,
            frames: nes.frame_count(),
        };
    }
    let by_image = visual::verdict(rom, nes, &mut |n: &mut Nes| frames.run(n));
    if let Some((passed, message)) = by_image.or_else(|| dmc_audio::verdict(rom, nes)) {
        return Verdict {
            passed,
            message,
            frames: nes.frame_count(),
        };
    }
    for frame in 1..=options.max_frames {
        if frames.replay.is_none() {
            nes.set_buttons(0, prompts::buttons(nes, frame).unwrap_or(options.buttons));
        }
        frames.run(nes);
        if let Some(msg) = jam_message(nes) {
            return Verdict {
                passed: false,
                message: msg,
                frames: frame,
            };
        }
        if frame % 15 != 0 {
            continue;
        }
        let text = joined_screen(nes);
        if holy_mapperel::is_holy_mapperel(rom) {
            if let Some((passed, message)) = holy_mapperel::verdict(rom, nes) {
                return Verdict {
                    passed,
                    message,
                    frames: frame,
                };
            }
            continue;
        }
        if let Some(passed) = crc_verdict(rom, nes) {
            return Verdict {
                passed,
                message: if passed {
                    format!("{text} (a CRC documented in the ROM's source)")
                } else {
                    format!("{text} (CRC not among those documented in the ROM's source)")
                },
                frames: frame,
            };
        }
        if let Some(passed) = screen_verdict(&text) {
            // Let the ROM finish printing before taking the text.
            for _ in 0..30 {
                frames.run(nes);
            }
            return Verdict {
                passed,
                message: joined_screen(nes),
                frames: frame,
            };
        }
    }
    Verdict {
        passed: false,
        message: format!(
            "no pass/fail text after {} frames; screen: {}",
            options.max_frames,
            joined_screen(nes)
        ),
        frames: options.max_frames,
    }
}

#[cfg(test)]
mod tests {
    use super::screen_verdict;

    #[test]
    fn screen_words() {
        assert_eq!(screen_verdict("6502 TIMING TEST / PASSED"), Some(true));
        assert_eq!(screen_verdict("E9 SBC #n / Error 1"), Some(false));
        assert_eq!(screen_verdict("FAILED: #5"), Some(false));
        assert_eq!(screen_verdict("--X-- / Errors: 8/1000"), Some(true));
        assert_eq!(screen_verdict("----- / Conflicts: 3/1000-"), Some(true));
        assert_eq!(screen_verdict("----- / Conflicts: 3/10"), None);
        assert_eq!(screen_verdict("Error 2"), Some(false));
        assert_eq!(screen_verdict("All tests complete"), Some(true));
    }
}
