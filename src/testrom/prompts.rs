//! Tests that ask for button presses on screen. blargg's read_joy3
//! `test_buttons` prints "Press indicated buttons" and then one button name
//! per line (A, B, Select, Start, Up, Down, Left, Right), each after the
//! previous one was pressed and released; the runner plays the tester.

use emu::Nes;

use super::screen_text;

const PROMPT: &str = "press indicated buttons";

/// Controller 1 bits by the names the ROM prints.
const BUTTONS: [(&str, u8); 8] = [
    ("a", 0x01),
    ("b", 0x02),
    ("select", 0x04),
    ("start", 0x08),
    ("up", 0x10),
    ("down", 0x20),
    ("left", 0x40),
    ("right", 0x80),
];

/// Frames a press is held, then released (a person's tap is ~10 frames).
const TAP_FRAMES: u64 = 10;

/// The buttons to hold during `frame` if the screen asks for one: the named
/// button for [`TAP_FRAMES`], then nothing for as long, so that the ROM sees
/// a press and a release.
pub fn buttons(nes: &Nes, frame: u64) -> Option<u8> {
    let lines = screen_text(nes);
    let first = lines.first()?;
    if !first.trim().eq_ignore_ascii_case(PROMPT) {
        return None;
    }
    let asked = lines.last()?.trim().to_ascii_lowercase();
    let (_, bit) = BUTTONS.iter().find(|(name, _)| *name == asked)?;
    Some(if frame % (2 * TAP_FRAMES) < TAP_FRAMES {
        *bit
    } else {
        0
    })
}
