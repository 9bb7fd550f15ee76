//! A readable difference between two CFGs: blocks and edges only in one of
//! them, and edges whose counts differ.

use std::fmt::Write;

use emu::code_addr;
use gfc::Cfg;

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct CfgDiff {
    pub blocks_only_a: Vec<u32>,
    pub blocks_only_b: Vec<u32>,
    /// (src, dst, count)
    pub edges_only_a: Vec<(u32, u32, u64)>,
    pub edges_only_b: Vec<(u32, u32, u64)>,
    /// (src, dst, count in a, count in b)
    pub count_changes: Vec<(u32, u32, u64, u64)>,
    /// Blocks present in both whose instruction lists differ.
    pub reshaped_blocks: Vec<u32>,
}

impl CfgDiff {
    pub fn is_empty(&self) -> bool {
        *self == CfgDiff::default()
    }
}

pub fn diff(a: &Cfg, b: &Cfg) -> CfgDiff {
    let mut d = CfgDiff::default();
    for block in a.blocks() {
        match b.block(block.entry) {
            None => d.blocks_only_a.push(block.entry),
            Some(other) if other.instrs != block.instrs => d.reshaped_blocks.push(block.entry),
            Some(_) => {}
        }
    }
    d.blocks_only_b = b
        .blocks()
        .filter(|blk| a.block(blk.entry).is_none())
        .map(|blk| blk.entry)
        .collect();
    for e in a.edges() {
        match b.edge(e.src, e.dst) {
            None => d.edges_only_a.push((e.src, e.dst, e.count)),
            Some(n) if n != e.count => d.count_changes.push((e.src, e.dst, e.count, n)),
            Some(_) => {}
        }
    }
    d.edges_only_b = b
        .edges()
        .into_iter()
        .filter(|e| !a.contains_edge(e.src, e.dst))
        .map(|e| (e.src, e.dst, e.count))
        .collect();
    d
}

/// Human-readable report; `limit` caps each list.
pub fn report(d: &CfgDiff, name_a: &str, name_b: &str, limit: usize) -> String {
    let mut out = String::new();
    if d.is_empty() {
        let _ = writeln!(out, "identical CFGs");
        return out;
    }
    let mut list = |title: String, items: Vec<String>| {
        if items.is_empty() {
            return;
        }
        let _ = writeln!(out, "{title} ({}):", items.len());
        for item in items.iter().take(limit) {
            let _ = writeln!(out, "  {item}");
        }
        if items.len() > limit {
            let _ = writeln!(out, "  ... {} more", items.len() - limit);
        }
    };
    list(
        format!("blocks only in {name_a}"),
        d.blocks_only_a
            .iter()
            .map(|&b| code_addr::label(b))
            .collect(),
    );
    list(
        format!("blocks only in {name_b}"),
        d.blocks_only_b
            .iter()
            .map(|&b| code_addr::label(b))
            .collect(),
    );
    list(
        "blocks with different instructions".into(),
        d.reshaped_blocks
            .iter()
            .map(|&b| code_addr::label(b))
            .collect(),
    );
    list(
        format!("edges only in {name_a}"),
        d.edges_only_a
            .iter()
            .map(|(s, t, n)| format!("{} -> {}  ×{n}", code_addr::label(*s), code_addr::label(*t)))
            .collect(),
    );
    list(
        format!("edges only in {name_b}"),
        d.edges_only_b
            .iter()
            .map(|(s, t, n)| format!("{} -> {}  ×{n}", code_addr::label(*s), code_addr::label(*t)))
            .collect(),
    );
    list(
        "edge counts that differ".into(),
        d.count_changes
            .iter()
            .map(|(s, t, a, b)| {
                format!(
                    "{} -> {}  {a} -> {b}",
                    code_addr::label(*s),
                    code_addr::label(*t)
                )
            })
            .collect(),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use gfc::Block;

    #[test]
    fn finds_each_kind_of_difference() {
        let mut a = Cfg::new();
        let mut b = Cfg::new();
        for cfg in [&mut a, &mut b] {
            cfg.insert_block(Block::new(0x8000, 2));
            cfg.insert_block(Block::new(0x8010, 1));
        }
        a.insert_block(Block::new(0x9000, 1));
        a.add_edge(0x8000, 0x8010, 5);
        b.add_edge(0x8000, 0x8010, 6);
        a.add_edge(0x8010, 0x9000, 1);
        b.add_edge(0x8010, 0x8000, 2);
        let d = diff(&a, &b);
        assert_eq!(d.blocks_only_a, vec![0x9000]);
        assert_eq!(d.count_changes, vec![(0x8000, 0x8010, 5, 6)]);
        assert_eq!(d.edges_only_a, vec![(0x8010, 0x9000, 1)]);
        assert_eq!(d.edges_only_b, vec![(0x8010, 0x8000, 2)]);
        assert!(diff(&a, &a).is_empty());
        assert!(report(&d, "a", "b", 10).contains("$8000 -> $8010  5 -> 6"));
    }
}
