//! What a command says on stderr besides its error: warnings and notes
//! (`symbols: 41 labels from game.dbg`, a ROM that is not the record's).
//!
//! Two rules meet here. Every line is printable on one line (file names
//! and ROM names from headers can hold newlines and escape sequences):
//! [`line`] makes it so. And a command that fails prints exactly one line,
//! its error: so notices are held ([`later`]) until the command ends, and
//! `main` prints them ([`flush`]) only if it succeeded. A notice that came
//! before a failure (symbols read, then a bad `--start-at` label) would
//! otherwise be a second line.

use std::sync::Mutex;

/// Notices held at most; a command says a handful. Past this, one more
/// line says how many were left out (a loop warning per item cannot grow
/// memory or flood the terminal).
const MAX_HELD: usize = 32;

struct Held {
    lines: Vec<String>,
    left_out: usize,
}

static HELD: Mutex<Held> = Mutex::new(Held {
    lines: Vec::new(),
    left_out: 0,
});

/// `text` as one printable line of at most
/// [`emu::input_file::MESSAGE_BYTES`] bytes.
pub fn line(text: &str) -> String {
    emu::input_file::printable(text, emu::input_file::MESSAGE_BYTES)
}

/// Holds `text` (made one line) to be printed when the command succeeds.
pub fn later(text: &str) {
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    if held.lines.len() < MAX_HELD {
        held.lines.push(line(text));
    } else {
        held.left_out += 1;
    }
}

/// Prints the held notices on stderr, one line each, and forgets them.
pub fn flush() {
    for l in take() {
        eprintln!("{l}");
    }
}

/// Forgets the held notices (the command failed: its error is the line).
pub fn discard() {
    take();
}

/// The held notices as printed, emptied.
pub fn take() -> Vec<String> {
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    let mut lines = std::mem::take(&mut held.lines);
    if held.left_out > 0 {
        lines.push(format!("({} more notices not shown)", held.left_out));
        held.left_out = 0;
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Held notices come out one printable line each, bounded in number.
    #[test]
    fn notices_are_held_as_single_lines() {
        take();
        later("symbols: 3 labels from dir/with\nnewline.dbg");
        later("warning: \u{1b}[2Jcleared");
        let lines = take();
        assert_eq!(
            lines,
            [
                "symbols: 3 labels from dir/with\\nnewline.dbg",
                "warning: \\x1b[2Jcleared"
            ]
        );
        for i in 0..MAX_HELD + 5 {
            later(&format!("n{i}"));
        }
        let lines = take();
        assert_eq!(lines.len(), MAX_HELD + 1);
        assert_eq!(lines[MAX_HELD], "(5 more notices not shown)");
        assert!(take().is_empty());
    }
}
