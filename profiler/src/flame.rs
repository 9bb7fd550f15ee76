//! Flame graphs of the ground truth's call stacks (`emu::call_stacks`):
//! folded stacks in the format of flamegraph.pl and inferno
//! (`frame;frame;frame COUNT`, one stack per line, the count in retired
//! instructions), and the SVG drawn from them by the `inferno` crate.
//!
//! Frames are named by a caller-supplied function of their entry code
//! address (symbol labels, or `emu::code_addr::label`); stacks that read the
//! same after naming are one line, so two entry points with one label are
//! one frame. Lines are sorted, so the output depends only on the run.

use std::collections::BTreeMap;

use emu::call_stacks::{CallStacks, Frame, FrameKind};

/// Name of the root context: the code that runs from the reset vector,
/// outside any call.
pub const ROOT: &str = "reset";

/// The name of one frame: `name(entry)`, prefixed by how an interrupt
/// entered it.
pub fn frame_name(frame: &Frame, name: &dyn Fn(u32) -> String) -> String {
    let prefix = match frame.kind {
        FrameKind::Call => "",
        FrameKind::Brk => "[BRK] ",
        FrameKind::Nmi => "[NMI] ",
        FrameKind::Irq => "[IRQ] ",
        FrameKind::Interrupt => "[interrupt] ",
    };
    sanitize(&format!("{prefix}{}", name(frame.entry)))
}

/// A frame name the folded format can carry: `;` separates frames and a
/// line ends at a newline.
fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            ';' => ':',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect()
}

/// The folded stacks of `stacks`, one `frame;frame COUNT` line each (root
/// first, no trailing newline), merged by name and sorted.
pub fn folded(stacks: &CallStacks, name: &dyn Fn(u32) -> String) -> Vec<String> {
    let mut merged: BTreeMap<String, u64> = BTreeMap::new();
    for (frames, weight) in stacks.stacks() {
        let mut line = String::from(ROOT);
        for frame in &frames {
            line.push(';');
            line.push_str(&frame_name(frame, name));
        }
        *merged.entry(line).or_insert(0) += weight;
    }
    merged
        .into_iter()
        .map(|(stack, n)| format!("{stack} {n}"))
        .collect()
}

/// The folded lines as a file's text (each line ends with a newline).
pub fn folded_text(lines: &[String]) -> String {
    let mut text = String::new();
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    text
}

/// The SVG flame graph of folded `lines` with `title`.
pub fn svg(lines: &[String], title: &str) -> std::io::Result<Vec<u8>> {
    let mut options = inferno::flamegraph::Options::default();
    options.title = title.to_string();
    options.count_name = "instructions".to_string();
    // Colours from the frame names, not a random generator: the same run
    // gives the same file.
    options.hash = true;
    let mut out = Vec::new();
    let drawn =
        inferno::flamegraph::from_lines(&mut options, lines.iter().map(|l| l.as_str()), &mut out);
    match drawn {
        // Nothing ran: inferno has drawn an SVG saying so, and an empty
        // run still gets its file.
        Err(_) if lines.is_empty() && !out.is_empty() => {}
        other => other?,
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(code: u32) -> String {
        emu::code_addr::label(code)
    }

    /// root → A (3 instructions) → B (5), NMI from root (2), root 4.
    fn sample() -> CallStacks {
        let mut s = CallStacks::new();
        s.retired(2);
        s.call(0x8100, 0xFD);
        s.retired(3);
        s.call(0x8200, 0xFB);
        s.retired(5);
        s.ret(0xFD);
        s.ret(0xFF);
        s.interrupt(0xC000, FrameKind::Nmi, 0xFC);
        s.retired(2);
        s.ret(0xFF);
        s.retired(2);
        s
    }

    #[test]
    fn folded_lines_are_named_sorted_and_counted() {
        let lines = folded(&sample(), &label);
        assert_eq!(
            lines,
            vec![
                "reset 4",
                "reset;$8100 3",
                "reset;$8100;$8200 5",
                "reset;[NMI] $C000 2",
            ]
        );
    }

    #[test]
    fn frames_with_one_name_merge() {
        let same = |code: u32| {
            if code == 0x8100 || code == 0x8200 {
                "sub;routine".to_string()
            } else {
                label(code)
            }
        };
        let mut s = CallStacks::new();
        s.call(0x8100, 0xFD);
        s.retired(3);
        s.ret(0xFF);
        s.call(0x8200, 0xFD);
        s.retired(4);
        s.ret(0xFF);
        assert_eq!(folded(&s, &same), vec!["reset;sub:routine 7"]);
    }

    #[test]
    fn svg_is_drawn_with_the_title() {
        let lines = folded(&sample(), &label);
        let svg = String::from_utf8(svg(&lines, "sample run").unwrap()).unwrap();
        assert!(svg.starts_with("<?xml"));
        assert!(svg.contains("sample run"));
        assert!(svg.contains("$8200"));
        assert!(svg.contains("[NMI] $C000"));
        let empty = String::from_utf8(super::svg(&[], "nothing").unwrap()).unwrap();
        assert!(empty.starts_with("<?xml") && empty.ends_with("</svg>"));
    }
}
