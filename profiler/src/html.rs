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
    /// The run's summary for the thesis' section at the end (report.txt's
    /// last lines).
    pub summary: &'a str,
    /// The frame-time sections (`frame_profile::report::html`), shown
    /// first.
    pub frames: Option<&'a str>,
    /// The hot CFG as SVG, and what laid it out.
    pub cfg_svg: &'a str,
    pub cfg_layout: &'a str,
    /// The node the CFG viewer opens on (`crate::dot::node_id` of the
    /// hottest block), at its natural size.
    pub cfg_focus: Option<&'a str>,
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
    Some(svg[start..].to_string())
}

const STYLE: &str = "
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1200px; color: #222; padding: 0 1em; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
code, pre { font-family: ui-monospace, monospace; font-size: 0.9em; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; }
.metrics { background: #fff4e0; padding: 0.6em; word-break: break-all; }
.graph { overflow: auto; max-height: 80vh; border: 1px solid #ddd; }
.graph svg { display: block; max-width: 100%; height: auto; }
.graph.live { height: clamp(24em, 75vh, 900px); max-height: none; overflow: hidden; cursor: grab; touch-action: none; background: #fff; }
.graph.live.dragging { cursor: grabbing; }
.graph.live svg { max-width: none; width: 100%; height: 100%; }
.graph g.node.found polygon, .graph g.node.found rect { stroke: #1060e0; stroke-width: 4; }
.tools { display: none; margin: 0.3em 0; gap: 0.4em; align-items: center; flex-wrap: wrap; font-size: 0.9em; }
.tools.live { display: flex; }
.tools button { min-width: 2.2em; }
.tools input { width: 18em; }
.tools .note { color: #666; }
iframe { width: 100%; border: 1px solid #ddd; }
.wide { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { padding: 0.2em 0.7em; text-align: right; border-bottom: 1px solid #eee; }
th:first-child, td:first-child { text-align: left; font-family: ui-monospace, monospace; }
table.memory td { font-family: ui-monospace, monospace; overflow-wrap: anywhere; max-width: 22em; }
.bar { display: inline-block; height: 0.7em; background: #e08a2c; vertical-align: middle; }
.bar.sampled { background: #3c78c8; }
.legend { font-size: 0.9em; color: #444; }
.legend .bar { width: 2em; }
";

/// The hot CFG's viewer: the SVG at its natural size (Graphviz's points
/// as CSS points, the built-in layout's pixels as pixels) in a fixed
/// viewport, panned by dragging and zoomed by the wheel or the buttons,
/// opening on the page's focus node; a block found by name or address, or
/// by a click in the blocks table, is centred and outlined. It only sets
/// the SVG's viewBox: without scripts the graph shows whole, shrunk to the
/// page. It writes the scale it shows at and the on-screen height of the
/// focus node's first line of text into the viewport's `data-scale` and
/// `data-text-px` (tests read them).
const VIEWER: &str = r#"
(function () {
  var box = document.getElementById('hot-cfg');
  var svg = box && box.querySelector('svg');
  if (!svg || !svg.viewBox || !svg.viewBox.baseVal || !(svg.viewBox.baseVal.width > 0)) return;
  var vb = svg.viewBox.baseVal;
  var full = { x: vb.x, y: vb.y, w: vb.width, h: vb.height };
  var w0 = svg.getAttribute('width') || '';
  var n = parseFloat(w0);
  var natural = n > 0 ? (/pt$/.test(w0) ? n * 4 / 3 : n) / full.w : 1;
  svg.removeAttribute('width');
  svg.removeAttribute('height');
  svg.setAttribute('preserveAspectRatio', 'xMinYMin meet');
  box.classList.add('live');
  document.getElementById('hot-cfg-tools').classList.add('live');
  var view = { x: full.x, y: full.y, scale: natural };
  function fitScale() {
    return Math.min(box.clientWidth / full.w, box.clientHeight / full.h);
  }
  // Along each axis the graph stays in view: centred when it is smaller
  // than the viewport, else never pulled in past its edges.
  function keep(at, lo, size, span) {
    if (span >= size) return lo - (span - size) / 2;
    return Math.min(Math.max(at, lo), lo + size - span);
  }
  function apply() {
    var w = box.clientWidth / view.scale, h = box.clientHeight / view.scale;
    view.x = keep(view.x, full.x, full.w, w);
    view.y = keep(view.y, full.y, full.h, h);
    svg.setAttribute('viewBox', view.x + ' ' + view.y + ' ' + w + ' ' + h);
    box.setAttribute('data-scale', (view.scale / natural).toFixed(3));
  }
  function zoomAt(factor, cx, cy) {
    var ux = view.x + cx / view.scale, uy = view.y + cy / view.scale;
    var lo = Math.min(fitScale(), natural), hi = natural * 8;
    view.scale = Math.min(Math.max(view.scale * factor, lo), hi);
    view.x = ux - cx / view.scale;
    view.y = uy - cy / view.scale;
    apply();
  }
  function centreOn(el) {
    var r = el.getBoundingClientRect(), b = box.getBoundingClientRect();
    var ux = view.x + (r.left + r.width / 2 - b.left) / view.scale;
    var uy = view.y + (r.top + r.height / 2 - b.top) / view.scale;
    view.x = ux - box.clientWidth / 2 / view.scale;
    view.y = uy - box.clientHeight / 2 / view.scale;
    apply();
  }
  var nodes = Array.prototype.slice.call(svg.querySelectorAll('g.node'));
  function byId(id) {
    for (var i = 0; i < nodes.length; i++) {
      var t = nodes[i].querySelector('title');
      if (t && t.textContent === id) return nodes[i];
    }
    return null;
  }
  function mark(el) {
    nodes.forEach(function (g) { g.classList.remove('found'); });
    if (el) { el.classList.add('found'); centreOn(el); }
  }
  apply();
  var focus = byId(box.getAttribute('data-focus') || '');
  if (focus) {
    centreOn(focus);
    var text = focus.querySelector('text');
    if (text) box.setAttribute('data-text-px', text.getBoundingClientRect().height.toFixed(1));
  }
  var drag = null;
  box.addEventListener('pointerdown', function (e) {
    drag = { x: e.clientX, y: e.clientY, vx: view.x, vy: view.y };
    box.setPointerCapture(e.pointerId);
    box.classList.add('dragging');
  });
  box.addEventListener('pointermove', function (e) {
    if (!drag) return;
    view.x = drag.vx - (e.clientX - drag.x) / view.scale;
    view.y = drag.vy - (e.clientY - drag.y) / view.scale;
    apply();
  });
  function end() { drag = null; box.classList.remove('dragging'); }
  box.addEventListener('pointerup', end);
  box.addEventListener('pointercancel', end);
  box.addEventListener('wheel', function (e) {
    e.preventDefault();
    var b = box.getBoundingClientRect();
    zoomAt(Math.exp(-e.deltaY * 0.002), e.clientX - b.left, e.clientY - b.top);
  }, { passive: false });
  function centreZoom(f) { zoomAt(f, box.clientWidth / 2, box.clientHeight / 2); }
  document.getElementById('hot-cfg-in').onclick = function () { centreZoom(1.5); };
  document.getElementById('hot-cfg-out').onclick = function () { centreZoom(1 / 1.5); };
  document.getElementById('hot-cfg-one').onclick = function () {
    centreZoom(natural / view.scale);
  };
  document.getElementById('hot-cfg-fit').onclick = function () {
    view.scale = fitScale(); view.x = full.x; view.y = full.y; apply();
  };
  var find = document.getElementById('hot-cfg-find'), found = [], at = -1;
  find.addEventListener('keydown', function (e) {
    if (e.key !== 'Enter') return;
    var q = find.value.trim().toLowerCase();
    found = q ? nodes.filter(function (g) { return g.textContent.toLowerCase().indexOf(q) >= 0; }) : [];
    at = found.length ? (at + 1) % found.length : 0;
    document.getElementById('hot-cfg-count').textContent =
      q ? (found.length ? (at + 1) + ' of ' + found.length : 'not in the hot CFG') : '';
    mark(found[at] || null);
  });
  find.addEventListener('input', function () { at = -1; });
  Array.prototype.forEach.call(document.querySelectorAll('a[data-node]'), function (a) {
    a.addEventListener('click', function () {
      var el = byId(a.getAttribute('data-node'));
      if (el) { if (view.scale < natural) view.scale = natural; mark(el); }
    });
  });
})();
"#;

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
    if let Some(frames) = page.frames {
        out.push_str(frames);
    }

    let _ = writeln!(
        out,
        "<h2>Hot CFG</h2>\n<p>Blocks of the sampled hot CFG; filled: in the exact hot set (H90); edges thicker the more they were taken. Laid out by {}.</p>",
        escape(page.cfg_layout),
    );
    out.push_str(
        "<div class=\"tools\" id=\"hot-cfg-tools\"><button id=\"hot-cfg-in\" title=\"zoom in\">+</button><button id=\"hot-cfg-out\" title=\"zoom out\">&minus;</button><button id=\"hot-cfg-one\" title=\"natural size\">1:1</button><button id=\"hot-cfg-fit\">whole graph</button><input id=\"hot-cfg-find\" type=\"search\" placeholder=\"find a block (label, address)\"><span id=\"hot-cfg-count\" class=\"note\"></span><span class=\"note\">drag to pan, wheel to zoom; opens on the hottest block</span></div>\n",
    );
    let focus = page
        .cfg_focus
        .map(|f| format!(" data-focus=\"{}\"", escape(f)))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "<div class=\"graph\" id=\"hot-cfg\"{focus}>\n{}</div>\n<script>{VIEWER}</script>",
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
                "<p>Exact call stacks by CPU cycles: routines entered by JSR, tail calls and dispatches; the NMI and IRQ handlers as roots of their own; [idle] (wait loops) and [DMA] under what waited. Click a frame to zoom.</p>\n<iframe id=\"flame\" title=\"flame graph\" style=\"height:{height:.0}px\" src=\"data:image/svg+xml;base64,{}\"></iframe>",
                base64::engine::general_purpose::STANDARD.encode(svg)
            );
        }
        None => out.push_str("<p>No flame graph in this run (it needs the exact recorder: not with <code>--no-truth</code>).</p>\n"),
    }

    let legend = "<p class=\"legend\"><span class=\"bar\"></span> exact: share of the executed instructions &nbsp; <span class=\"bar sampled\"></span> sampled: share of the samples (the sampler's estimate of the same)</p>\n";
    if let Some(functions) = page.functions {
        out.push_str("<h2>Hottest labels</h2>\n");
        out.push_str(legend);
        table(&mut out, functions, "function", page.limit, false);
    }
    out.push_str("<h2>Hottest blocks</h2>\n");
    out.push_str(legend);
    table(&mut out, page.blocks, "block", page.limit, true);
    if let Some(m) = &page.memory {
        out.push_str("<h2>Memory</h2>\n<p>RAM heat map: one cell per byte, 64 per row (each row's first address on its left, the offset in the row on top, a grey line between 256-byte pages), reads green, writes red, both yellow (log scale). Then the read-after-write dependences between blocks, heaviest first.</p>\n");
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
        let _ = writeln!(out, "<div class=\"wide\">\n{}</div>", m.tables);
    }
    out.push_str("<h2>The thesis' metrics</h2>\n<p>How the sampled hot CFG compares with the exact one (definitions: docs/metrics.md).</p>\n");
    let _ = writeln!(
        out,
        "<p class=\"metrics\"><code>{}</code></p>",
        escape(page.metric_line)
    );
    let _ = writeln!(out, "<pre>{}</pre>", escape(page.summary.trim_end()));
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

/// A hot-block or hot-function table; with `links`, a block in the hot
/// CFG links to it in the viewer.
fn table(out: &mut String, rows: &[Row], what: &str, limit: usize, links: bool) {
    let _ = writeln!(
        out,
        "<div class=\"wide\"><table class=\"hot\">\n<tr><th>{what}</th><th>instructions</th><th>exact %</th><th>sampled %</th><th>exact / sampled</th><th>in hot CFG</th></tr>"
    );
    for r in rows.iter().take(limit) {
        let in_cfg = match (r.in_hot_cfg, links) {
            (true, true) => format!(
                "<a href=\"#hot-cfg\" data-node=\"{}\">yes</a>",
                crate::dot::node_id(r.entry)
            ),
            (true, false) => "yes".to_string(),
            (false, _) => "—".to_string(),
        };
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{:.2}</td><td>{:.2}</td><td><span class=\"bar\" title=\"exact\" style=\"width:{:.0}px\"></span><br><span class=\"bar sampled\" title=\"sampled\" style=\"width:{:.0}px\"></span></td><td>{in_cfg}</td></tr>",
            escape(&r.name),
            r.instrs,
            100.0 * r.exact_share,
            100.0 * r.sampled_share,
            200.0 * r.exact_share,
            200.0 * r.sampled_share,
        );
    }
    out.push_str("</table></div>\n");
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
            frames: Some("<h2>Frame time</h2>"),
            cfg_svg: "<svg></svg>",
            cfg_layout: "the built-in layout",
            cfg_focus: Some("b8000"),
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
        assert!(html.contains("<div class=\"graph\" id=\"hot-cfg\" data-focus=\"b8000\">"));
        assert!(html.contains("<a href=\"#hot-cfg\" data-node=\"b8000\">yes</a>"));
        assert!(html.contains("class=\"legend\""));
        assert!(html.contains("<div class=\"wide\">\n<table class=\"memory\">"));
        // Nothing fetched from elsewhere.
        for needle in ["src=\"http", "href=\"http", "<link", "<script src"] {
            assert!(!html.contains(needle), "{needle}");
        }
    }
}
