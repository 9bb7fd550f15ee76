//! The verdict for ROMs with no result protocol (the manifest's `none`: the
//! homebrew games). A game cannot say whether it ran right, so the verdict
//! is what can be checked without knowing it: from power-on with no input
//! it runs [`FRAMES`] frames without jamming the CPU, it draws a picture
//! (more than one colour on the last frame: every bundled game shows a
//! title or game screen by then), and the interpreter and the translator end
//! with the same frame, RAM and cycle count.

use emu::nes::Engine;
use emu::Nes;

use super::Verdict;

/// Ten seconds of emulated time: past every bundled game's start-up.
pub const FRAMES: u64 = 600;

/// Runs `nes` (freshly powered on) and a copy on the other engine.
pub fn verdict(nes: &mut Nes, other: &mut Nes) -> Verdict {
    nes.set_engine(Engine::Translator);
    other.set_engine(Engine::Interpreter);
    let fail = |message: String, frames| Verdict {
        passed: false,
        message,
        frames,
    };
    for frame in 1..=FRAMES {
        for machine in [&mut *nes, &mut *other] {
            machine.run_frame();
            if let Some((pc, op)) = machine.jammed() {
                return fail(
                    format!("the CPU jammed (opcode ${op:02X} at ${pc:04X})"),
                    frame,
                );
            }
        }
    }
    nes.sync();
    other.sync();
    if nes.frame() != other.frame() || nes.ram() != other.ram() || nes.cycles() != other.cycles() {
        return fail(
            "the interpreter and the translator end with different frames, RAM or cycles".into(),
            FRAMES,
        );
    }
    let mut colours = [false; 256];
    for &pixel in nes.frame() {
        colours[pixel as usize] = true;
    }
    let distinct = colours.iter().filter(|&&c| c).count();
    if distinct < 2 {
        return fail(
            format!("the screen is one colour after {FRAMES} frames"),
            FRAMES,
        );
    }
    Verdict {
        passed: true,
        message: format!(
            "game (no result protocol): {FRAMES} frames, no jam, {distinct} colours on screen, \
             both engines identical"
        ),
        frames: FRAMES,
    }
}
