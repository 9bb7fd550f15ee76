//! A CFG drawn as SVG without Graphviz: the fallback layout of report.html
//! when `dot` is not installed. Blocks stand in one column in address
//! order (the order a reader of the disassembly knows them in); forward
//! edges arc on the right, backward edges (loops) on the left, each arc
//! bulging in proportion to the distance it spans so that nested loops
//! nest, and drawn thicker the more it was taken.

use std::fmt::Write;

use gfc::Cfg;

const BOX_W: f64 = 230.0;
const BOX_H: f64 = 22.0;
const GAP: f64 = 12.0;
/// Room on each side of the column for the arcs.
const MARGIN: f64 = 180.0;

/// Escapes text for SVG/HTML character data and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// The SVG of `cfg`: blocks named by `name` (from their entry), those that
/// `is_hot` filled.
pub fn render(cfg: &Cfg, name: &dyn Fn(u32) -> String, is_hot: &dyn Fn(u32) -> bool) -> String {
    let mut entries: Vec<u32> = cfg.blocks().map(|b| b.entry).collect();
    // Edges may name blocks the builder knows only as graph nodes.
    for e in cfg.edges() {
        entries.push(e.src);
        entries.push(e.dst);
    }
    entries.sort_unstable();
    entries.dedup();
    let row = |entry: u32| entries.binary_search(&entry).unwrap_or(0);
    let y_of = |i: usize| GAP + i as f64 * (BOX_H + GAP);
    let height = y_of(entries.len()) + GAP;
    let width = 2.0 * MARGIN + BOX_W;
    let x0 = MARGIN;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="monospace" font-size="11">"#
    );
    out.push_str(
        r##"<defs><marker id="arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="8" markerHeight="8" markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0,0 L8,4 L0,8 z" fill="#555"/></marker></defs>
"##,
    );
    let edges = cfg.edges();
    let max = edges.iter().map(|e| e.count).max().unwrap_or(1).max(1) as f64;
    for e in &edges {
        let (a, b) = (row(e.src), row(e.dst));
        let (ya, yb) = (y_of(a) + BOX_H / 2.0, y_of(b) + BOX_H / 2.0);
        let span = (a as f64 - b as f64).abs();
        let bulge = (24.0 + 14.0 * span).min(MARGIN - 10.0);
        let w = 0.8 + 3.2 * ((e.count.max(1) as f64).ln() / max.ln().max(1.0));
        let path = if b > a {
            let x = x0 + BOX_W;
            format!(
                "M{x:.1},{ya:.1} C{:.1},{ya:.1} {:.1},{yb:.1} {x:.1},{yb:.1}",
                x + bulge,
                x + bulge
            )
        } else {
            // Backward, or a block to itself: on the left.
            let (ya, yb) = if a == b {
                (ya - 5.0, yb + 5.0)
            } else {
                (ya, yb)
            };
            let x = x0;
            format!(
                "M{x:.1},{ya:.1} C{:.1},{ya:.1} {:.1},{yb:.1} {x:.1},{yb:.1}",
                x - bulge,
                x - bulge
            )
        };
        let _ = writeln!(
            out,
            r##"<path d="{path}" fill="none" stroke="#555" stroke-opacity="0.75" stroke-width="{w:.2}" marker-end="url(#arrow)"><title>{} → {}: {}</title></path>"##,
            escape(&name(e.src)),
            escape(&name(e.dst)),
            e.count
        );
    }
    for (i, &entry) in entries.iter().enumerate() {
        let y = y_of(i);
        let count = cfg.block(entry).map_or(0, |b| b.count);
        let fill = if is_hot(entry) { "#ffe0b0" } else { "#f4f4f4" };
        // A group per block with its node name as title, as Graphviz
        // writes them: report.html's viewer finds blocks by it.
        let _ = writeln!(
            out,
            r##"<g class="node"><title>{}</title><rect x="{x0:.1}" y="{y:.1}" width="{BOX_W:.0}" height="{BOX_H:.0}" rx="3" fill="{fill}" stroke="#333"/><text x="{:.1}" y="{:.1}">{} ×{count}</text></g>"##,
            crate::dot::node_id(entry),
            x0 + 6.0,
            y + BOX_H / 2.0 + 4.0,
            escape(&name(entry))
        );
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use gfc::cfg::Block;

    #[test]
    fn every_block_and_edge_is_drawn() {
        let mut cfg = Cfg::new();
        for (entry, count) in [(0x8000u32, 1u64), (0x8010, 50), (0x8020, 1)] {
            let mut b = Block::new(entry, 1);
            b.count = count;
            cfg.insert_block(b);
        }
        cfg.add_edge(0x8000, 0x8010, 1);
        cfg.add_edge(0x8010, 0x8010, 49);
        cfg.add_edge(0x8010, 0x8020, 1);
        let svg = render(&cfg, &|a| format!("<{a:04X}>"), &|a| a == 0x8010);
        assert_eq!(svg.matches("<rect").count(), 3);
        assert_eq!(svg.matches("marker-end=").count(), 3);
        assert!(svg.contains("&lt;8010&gt; ×50"));
        assert!(svg.contains(r#"<g class="node"><title>b8010</title>"#));
        assert_eq!(svg.matches("#ffe0b0").count(), 1);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    }
}
