//! Graphviz DOT rendering of a CFG: one box per block labelled with its
//! address range and disassembly, edges drawn thicker the more they were
//! taken, and the hot subgraph (H90) highlighted.
//!
//! Size: every text drawn from data is cut (labels to
//! `symbols::MAX_LABEL_CHARS`, an instruction's text to [`MAX_DISASM`],
//! the title to [`MAX_TITLE`]) and escaped, so a DOT is at most a constant
//! times the graph's instructions and edges: a label repeats at each
//! instruction it names, and one 5 MB label once made a 535 MB DOT.

use std::collections::BTreeMap;
use std::fmt::Write;

use emu::code_addr;
use emu::input_file::shorten_to;
use gfc::Cfg;

use crate::symbols::{Symbols, MAX_LABEL_CHARS};

/// The node name of the block at code address `entry` (`b8000`, `b3A1F0`
/// in a bank): in the DOT text, hence the `<title>` of its group in
/// Graphviz's SVG, and in the built-in layout's SVG (`cfg_svg.rs`).
pub fn node_id(entry: u32) -> String {
    format!("b{entry:04X}")
}

/// Longest instruction text drawn: a 6502 instruction's is at most 11
/// characters (`LDA ($12),Y`); CFG records are checked for at most
/// `cfg_file::MAX_DISASM_CHARS`.
pub const MAX_DISASM: usize = 32;

/// Longest title drawn (it holds a ROM's file name, at most 255 bytes).
pub const MAX_TITLE: usize = 400;

/// `s` cut to `max` characters, control characters escaped, and quoted for
/// a DOT string.
fn escape(s: &str, max: usize) -> String {
    shorten_to(s, max.saturating_sub(1))
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
}

/// DOT text for `cfg`; `hot` marks edges (and their blocks) to highlight;
/// `disasm` gives instruction text by address; with `symbols`, a block a
/// label reaches says which (`$8040-$8052 nmi+$4 ×60`), and instructions
/// at a label's address carry it.
pub fn render(
    cfg: &Cfg,
    hot: Option<&Cfg>,
    disasm: &BTreeMap<u32, String>,
    title: &str,
    symbols: Option<&Symbols>,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph cfg {{");
    let _ = writeln!(out, "  label=\"{}\"; labelloc=t;", escape(title, MAX_TITLE));
    let _ = writeln!(
        out,
        "  node [shape=box, fontname=\"monospace\", fontsize=10];"
    );
    let max_count = cfg
        .edges()
        .iter()
        .map(|e| e.count)
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let is_hot_block = |entry: u32| {
        hot.is_some_and(|h| h.block(entry).is_some() || h.graph().contains_node(entry))
    };
    for block in cfg.blocks() {
        // `$8000-$8010`, or `03:8000-8010` in a bank.
        let last = block.end.wrapping_sub(1);
        let dollar = if block.entry < 0x10000 { "$" } else { "" };
        let name = symbols
            .and_then(|s| s.lookup(block.entry))
            .map(|hit| match hit.offset {
                0 => format!("  {}", escape(hit.name, MAX_LABEL_CHARS)),
                off => format!("  {}+${off:X}", escape(hit.name, MAX_LABEL_CHARS)),
            })
            .unwrap_or_default();
        let mut label = format!(
            "{}-{dollar}{:04X}{name}  ×{}\\l",
            code_addr::label(block.entry),
            code_addr::cpu_address(last),
            block.count
        );
        for &pc in &block.instrs {
            let text = disasm.get(&pc).map(String::as_str).unwrap_or("?");
            if let Some(at) = symbols
                .and_then(|s| s.name_at(pc))
                .filter(|_| pc != block.entry)
            {
                let _ = write!(label, "{}:\\l", escape(at, MAX_LABEL_CHARS));
            }
            let _ = write!(
                label,
                "{:04X}  {}\\l",
                code_addr::cpu_address(pc),
                escape(text, MAX_DISASM)
            );
        }
        let style = if is_hot_block(block.entry) {
            ", style=filled, fillcolor=\"#ffe0b0\", penwidth=2"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "  {} [label=\"{}\"{}];",
            node_id(block.entry),
            label,
            style
        );
    }
    for edge in cfg.edges() {
        // Thickness on a log scale, 1 to 8.
        let width = 1.0 + 7.0 * ((edge.count as f64).ln_1p() / max_count.ln_1p());
        let hot_edge = hot.is_some_and(|h| h.contains_edge(edge.src, edge.dst));
        let color = if hot_edge { "#d04000" } else { "#808080" };
        let _ = writeln!(
            out,
            "  {} -> {} [label=\"{}\", penwidth={:.2}, color=\"{}\"];",
            node_id(edge.src),
            node_id(edge.dst),
            edge.count,
            width,
            color
        );
    }
    let _ = writeln!(out, "}}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbols::{Label, Location};

    /// A long label, a long instruction text and a long title: the DOT
    /// stays a few hundred bytes a line, and quotes and escapes stay
    /// inside their strings.
    #[test]
    fn long_texts_are_bounded_and_escaped() {
        let mut cfg = Cfg::new();
        let mut block = gfc::Block::new(0x8000, 1);
        block.instrs = (0x8000..0x8010).collect();
        block.end = 0x8010;
        cfg.insert_block(block);
        cfg.add_edge(0x8000, 0x8000, 5);
        let mut symbols = Symbols::new(0x8000);
        for pc in 0..0x10 {
            symbols.add(Label {
                location: Location::prg(pc),
                name: format!("{}{pc}", "L".repeat(5 << 20)),
                end: None,
                local: false,
            });
        }
        let disasm: BTreeMap<u32, String> = (0x8000..0x8010)
            .map(|pc| (pc, format!("NOP \"\n{}", "x".repeat(1 << 20))))
            .collect();
        let title = "t".repeat(1 << 20);
        let dot = render(&cfg, Some(&cfg), &disasm, &title, Some(&symbols));
        assert!(dot.len() < 16 * 1024, "{} bytes", dot.len());
        for line in dot.lines() {
            assert!(line.len() < 8 * 1024);
        }
        assert_eq!(dot.lines().count(), 6, "{dot}");
        assert!(dot.contains("NOP \\\"\\\\n"), "{dot}");
    }
}
