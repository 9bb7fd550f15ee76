//! Flame graphs of the ground truth's call stacks (`emu::call_stacks`):
//! folded stacks in the format of flamegraph.pl and inferno
//! (`frame;frame;frame COUNT`, one stack per line, the count in retired
//! instructions), and the SVG drawn from them by the `inferno` crate.
//!
//! The frame-time profile's flame graph is weighted by CPU cycles instead
//! ([`folded_cycles`], from `frame_profile::contexts`): the main program's
//! stacks from its root routine (`reset;main;update`), each interrupt
//! handler as a root of its own (`[NMI];nmi;draw`, `[IRQ];irq`), the
//! wait-loop cycles apart under `[idle]` (then the context that waited:
//! `[idle];reset;main;wait_vblank`), the DMA stalls under `[DMA];OAM` and
//! `[DMA];DMC` (then the context that ran when they stalled it), so the
//! counts add up to the window's cycles and the work is not squeezed by
//! the waiting. Bracketed roots cannot be taken for a routine of the
//! program (ca65 names have no brackets).
//!
//! Frames are named by a caller-supplied function of their entry code
//! address (symbol labels, or `emu::code_addr::label`); stacks that read the
//! same after naming are one line, so two entry points with one label are
//! one frame. Lines are sorted, so the output depends only on the run.

use std::collections::BTreeMap;

use emu::call_stacks::{CallStacks, Frame, FrameKind};

use crate::frame_profile::contexts::CycleStacks;
use crate::frame_profile::shadow_stack::FrameKind as CycleKind;

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

/// Root of the cycle-weighted flame graph's wait-loop cycles.
pub const IDLE_ROOT: &str = "[idle]";
/// Root of the DMA stalls (then `OAM` or `DMC`).
pub const DMA_ROOT: &str = "[DMA]";
/// Roots of the interrupt handlers.
pub const NMI_ROOT: &str = "[NMI]";
pub const IRQ_ROOT: &str = "[IRQ]";
/// What contexts past `frame_profile::contexts::MAX_CONTEXTS` are
/// credited to when they have no ancestor kept.
pub const BEYOND_CAP: &str = "[contexts beyond the cap]";

/// The folded stacks of the cycle-weighted contexts `stacks` (see the
/// module doc), counts in CPU cycles, merged by name and sorted.
pub fn folded_cycles(stacks: &CycleStacks, name: &dyn Fn(u32) -> String) -> Vec<String> {
    let mut merged: BTreeMap<String, u64> = BTreeMap::new();
    for (frames, w) in stacks.contexts() {
        let mut path = String::new();
        for (i, &(entry, kind)) in frames.iter().enumerate() {
            if i > 0 {
                path.push(';');
            }
            match kind {
                CycleKind::Nmi => {
                    path.push_str(NMI_ROOT);
                    path.push(';');
                }
                CycleKind::Irq => {
                    path.push_str(IRQ_ROOT);
                    path.push(';');
                }
                CycleKind::Brk => path.push_str("[BRK] "),
                CycleKind::Root | CycleKind::Call => {}
            }
            path.push_str(&sanitize(&name(entry)));
        }
        if frames.is_empty() {
            path.push_str(BEYOND_CAP);
        }
        for (prefix, count) in [
            (String::new(), w.work),
            (format!("{IDLE_ROOT};"), w.idle),
            (format!("{DMA_ROOT};OAM;"), w.oam_dma),
            (format!("{DMA_ROOT};DMC;"), w.dmc_dma),
        ] {
            if count > 0 {
                *merged.entry(format!("{prefix}{path}")).or_insert(0) += count;
            }
        }
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

/// The SVG flame graph of folded `lines` with `title`, counted in
/// instructions.
pub fn svg(lines: &[String], title: &str) -> std::io::Result<Vec<u8>> {
    svg_counting(lines, title, "instructions")
}

/// The SVG flame graph of folded `lines` with `title`, whose counts are
/// `count_name` (`instructions`, `cycles`).
pub fn svg_counting(lines: &[String], title: &str, count_name: &str) -> std::io::Result<Vec<u8>> {
    let mut options = inferno::flamegraph::Options::default();
    options.title = title.to_string();
    options.count_name = count_name.to_string();
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

    /// Cycle-weighted contexts: the main program from its root, handlers
    /// as roots of their own, idle and DMA apart, BRK marked, and what
    /// the cap turned away under a root of its own.
    #[test]
    fn cycle_lines_put_idle_dma_and_handlers_apart() {
        use crate::frame_profile::contexts::{CycleStacks, Weights};
        let mut s = CycleStacks::with_cap(6);
        let w = |work, idle, oam_dma, dmc_dma| Weights {
            work,
            idle,
            oam_dma,
            dmc_dma,
        };
        let root = s.child(0, 0x8000, CycleKind::Root);
        let a = s.child(root, 0x8100, CycleKind::Call);
        let brk = s.child(a, 0xE000, CycleKind::Brk);
        let nmi = s.child(0, 0xC000, CycleKind::Nmi);
        let irq = s.child(0, 0xD000, CycleKind::Irq);
        s.credit(root, w(10, 300, 0, 0));
        s.credit(a, w(20, 0, 0, 4));
        s.credit(brk, w(3, 0, 0, 0));
        s.credit(nmi, w(50, 5, 513, 0));
        s.credit(irq, w(7, 0, 0, 0));
        // Past the cap, at the top level: the root.
        let lost = s.child(0, 0xD100, CycleKind::Irq);
        s.credit(lost, w(2, 0, 0, 0));
        let named = |code: u32| match code {
            0x8100 => "a;b".to_string(),
            c => label(c),
        };
        let lines = folded_cycles(&s, &named);
        assert_eq!(
            lines,
            vec![
                "$8000 10",
                "$8000;a:b 20",
                "$8000;a:b;[BRK] $E000 3",
                "[DMA];DMC;$8000;a:b 4",
                "[DMA];OAM;[NMI];$C000 513",
                "[IRQ];$D000 7",
                "[NMI];$C000 50",
                "[contexts beyond the cap] 2",
                "[idle];$8000 300",
                "[idle];[NMI];$C000 5",
            ]
        );
        let total: u64 = lines
            .iter()
            .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
            .sum();
        assert_eq!(total, s.total());
        let svg = String::from_utf8(svg_counting(&lines, "cycles", "cycles").unwrap()).unwrap();
        assert!(svg.contains("cycles") && svg.contains("[idle]"));
    }
}
