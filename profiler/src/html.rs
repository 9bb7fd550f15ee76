//! report.html: one self-contained page per profile (no file or network
//! fetched when it opens: styles inline, graphs inline SVG), so it can be
//! mailed, attached to an issue or opened from a cluster's scratch space.
//! It shows the metric line, the run's summary, the hot CFG, the flame
//! graph and the hot block/function tables with the exact and the sampled
//! share side by side.

use std::fmt::Write;

use base64::Engine as _;
use std::io::Write as _;
use std::process::{Command, Stdio};

use crate::cfg_svg::escape;
use crate::hot_blocks::Row;

/// What the page shows.
pub struct Page<'a> {
    /// The ROM's file name.
    pub rom: &'a str,
    /// `profile`'s last line (`similarity=… frame_hash=…`).
    pub metric_line: &'a str,
    /// The run's summary (report.txt's opening lines).
    pub summary: &'a str,
    /// The hot CFG as SVG, and what laid it out.
    pub cfg_svg: &'a str,
    pub cfg_layout: &'a str,
    /// The flame graph (an SVG document), if there is one.
    pub flame_svg: Option<&'a str>,
    /// Hot blocks, hottest first.
    pub blocks: &'a [Row],
    /// Hot functions, when symbols name them.
    pub functions: Option<&'a [Row]>,
    /// Rows shown per table.
    pub limit: usize,
    /// The memory-dependence section (`profile --memory`).
    pub memory: Option<MemorySection<'a>>,
}

/// The memory section: its tables (an HTML fragment,
/// `crate::memory::MemoryReport::html`) and the heat maps as PNG files.
pub struct MemorySection<'a> {
    pub tables: &'a str,
    pub ram_png: &'a [u8],
    pub wram_png: Option<&'a [u8]>,
}

/// The hot CFG laid out by Graphviz: `dot -Tsvg` on `dot_text`, the SVG
/// element alone (no XML prolog, which has no place inside HTML). `None`
/// when `dot` is not installed or fails.
pub fn graphviz_svg(dot_text: &str) -> Option<String> {
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    // Written from a thread: dot may fill its output pipe before it has
    // read all of its input.
    let mut stdin = child.stdin.take()?;
    let text = dot_text.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let output = child.wait_with_output().ok()?;
    writer.join().ok()?.ok()?;
    if !output.status.success() {
        return None;
    }
    let svg = String::from_utf8(output.stdout).ok()?;
    let start = svg.find("<svg")?;
    Some(fit_width(&svg[start..]))
}

/// The SVG shrunk to the page's width when wider (its aspect kept), never
/// enlarged: a small graph keeps Graphviz's natural size.
fn fit_width(svg: &str) -> String {
    match svg.strip_prefix("<svg") {
        Some(rest) => format!("<svg style=\"max-width:100%;height:auto\"{rest}"),
        None => svg.to_string(),
    }
}

const STYLE: &str = "
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1200px; color: #222; padding: 0 1em; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
code, pre { font-family: ui-monospace, monospace; font-size: 0.9em; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; }
.metrics { background: #fff4e0; padding: 0.6em; word-break: break-all; }
.graph { overflow: auto; max-height: 80vh; border: 1px solid #ddd; }
.graph svg { display: block; }
iframe { width: 100%; border: 1px solid #ddd; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { padding: 0.2em 0.7em; text-align: right; border-bottom: 1px solid #eee; }
th:first-child, td:first-child { text-align: left; font-family: ui-monospace, monospace; }
.bar { display: inline-block; height: 0.7em; background: #e08a2c; vertical-align: middle; }
.bar.sampled { background: #3c78c8; }
";

/// The page's HTML text.
pub fn render(page: &Page) -> String {
    let mut out = String::new();
    let title = format!("nesprof profile: {}", page.rom);
    let _ = writeln!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>",
        escape(&title)
    );
    let _ = writeln!(out, "<h1>{}</h1>", escape(&title));
    let _ = writeln!(
        out,
        "<p class=\"metrics\"><code>{}</code></p>",
        escape(page.metric_line)
    );
    let _ = writeln!(out, "<pre>{}</pre>", escape(page.summary.trim_end()));

    let _ = writeln!(
        out,
        "<h2>Hot CFG</h2>\n<p>Blocks of the sampled hot CFG; filled: in the exact hot set (H90). Laid out by {}.</p>\n<div class=\"graph\" id=\"hot-cfg\">\n{}</div>",
        escape(page.cfg_layout),
        page.cfg_svg
    );

    out.push_str("<h2>Flame graph</h2>\n");
    match page.flame_svg {
        // In a frame of its own, as an SVG document (a data: URL, so the
        // page stays one file): the flame graph's script (zoom, search)
        // then runs as it was written to, apart from the page.
        Some(svg) => {
            let height = svg_height(svg).unwrap_or(400.0) + 24.0;
            let _ = writeln!(
                out,
                "<p>Exact call stacks (JSR/RTS and interrupts), weighted by executed instructions. Click a frame to zoom.</p>\n<iframe id=\"flame\" title=\"flame graph\" style=\"height:{height:.0}px\" src=\"data:image/svg+xml;base64,{}\"></iframe>",
                base64::engine::general_purpose::STANDARD.encode(svg)
            );
        }
        None => out.push_str("<p>No flame graph in this run.</p>\n"),
    }

    if let Some(functions) = page.functions {
        out.push_str("<h2>Hottest functions</h2>\n");
        table(&mut out, functions, "function", page.limit);
    }
    out.push_str("<h2>Hottest blocks</h2>\n");
    table(&mut out, page.blocks, "block", page.limit);
    if let Some(m) = &page.memory {
        out.push_str("<h2>Memory</h2>\n<p>Read-after-write dependences between blocks, heaviest first; RAM heat map: one cell per byte, 64 per row, reads green, writes red (log scale).</p>\n");
        let png = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
        let _ = writeln!(
            out,
            "<p><img id=\"ram-map\" alt=\"RAM heat map\" src=\"data:image/png;base64,{}\"></p>",
            png(m.ram_png)
        );
        if let Some(w) = m.wram_png {
            let _ = writeln!(
                out,
                "<p><img id=\"wram-map\" alt=\"PRG RAM heat map\" style=\"max-width:100%\" src=\"data:image/png;base64,{}\"></p>",
                png(w)
            );
        }
        out.push_str(m.tables);
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// The `height` attribute of an SVG document's root element, in pixels.
fn svg_height(svg: &str) -> Option<f64> {
    let root = &svg[svg.find("<svg")?..];
    let root = &root[..root.find('>')?];
    let at = root.find(" height=\"")? + " height=\"".len();
    let value = &root[at..];
    value[..value.find('"')?]
        .trim_end_matches("px")
        .parse()
        .ok()
}

fn table(out: &mut String, rows: &[Row], what: &str, limit: usize) {
    let _ = writeln!(
        out,
        "<table class=\"hot\">\n<tr><th>{what}</th><th>instructions</th><th>exact %</th><th>sampled %</th><th></th><th>in hot CFG</th></tr>"
    );
    for r in rows.iter().take(limit) {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{:.2}</td><td>{:.2}</td><td><span class=\"bar\" style=\"width:{:.0}px\"></span><br><span class=\"bar sampled\" style=\"width:{:.0}px\"></span></td><td>{}</td></tr>",
            escape(&r.name),
            r.instrs,
            100.0 * r.exact_share,
            100.0 * r.sampled_share,
            200.0 * r.exact_share,
            200.0 * r.sampled_share,
            if r.in_hot_cfg { "yes" } else { "—" }
        );
    }
    out.push_str("</table>\n");
    if rows.len() > limit {
        let _ = writeln!(out, "<p>({} more {what}s)</p>", rows.len() - limit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_is_self_contained_and_escaped() {
        let rows = vec![Row {
            entry: 0x8000,
            name: "a<b>".into(),
            instrs: 3,
            executed: 30,
            exact_share: 0.5,
            sampled_share: 0.25,
            in_hot_cfg: true,
        }];
        let html = render(&Page {
            rom: "x&y.nes",
            metric_line: "similarity=1.0000",
            summary: "nesprof profile report\n",
            cfg_svg: "<svg></svg>",
            cfg_layout: "the built-in layout",
            flame_svg: Some("<?xml version=\"1.0\"?><svg width=\"1200\" height=\"200\" onload=\"init(evt)\"><text>q</text></svg>"),
            blocks: &rows,
            functions: None,
            limit: 10,
            memory: Some(MemorySection {
                tables: "<table class=\"memory\"></table>",
                ram_png: b"png",
                wram_png: None,
            }),
        });
        assert!(html.contains("<h2>Memory</h2>"));
        assert!(html.contains("src=\"data:image/png;base64,cG5n\""));
        assert!(html.contains("<title>nesprof profile: x&amp;y.nes</title>"));
        assert!(html.contains("<td>a&lt;b&gt;</td>"));
        assert!(html.contains("style=\"height:224px\" src=\"data:image/svg+xml;base64,"));
        assert!(html.contains("<td>50.00</td><td>25.00</td>"));
        // Nothing fetched from elsewhere.
        for needle in ["src=\"http", "href=\"http", "<link", "<script src"] {
            assert!(!html.contains(needle), "{needle}");
        }
    }
}
