//! The panel's layout (where the text, legend, strip, leaders and graph go,
//! for a given window scale) and the drawing of its text parts.
//!
//! ```text
//! +------------------------------+
//! | GFC 10,15,13,5  preset 1     |  text: 7 lines, the last two the PC
//! | batches ...  dropped ...     |  (code address and frame, then its
//! | ...                          |  label with --symbols)
//! | count [grey|heat ramp] λ=5   |  legend (λ marked on the ramp; the
//! |                              |  trace builder: the ramp, its max)
//! | 8000 ▌   \   |  )  (         |  address labels, strip with λ ticks,
//! |      ▌    \  | ))            |  leaders, graph: backward arcs left of
//! | C000 ▌     - +-              |  the axis, forward arcs right of it
//! | ...                          |
//! | O hide C col M mem 1-4 R reset|  footer
//! +------------------------------+
//! ```

use std::fmt::Write as _;

use super::axis::Axis;
use super::canvas::Canvas;
use super::colors::{self, Colouring, Ramps};
use super::text;

/// Characters per text line the panel is made wide enough for.
const LINE_CHARS: i32 = 30;
/// Text lines above the legend (the last one is the CPU bar's).
pub const TEXT_LINES: i32 = 8;

/// Pixel rectangles of the panel's parts, relative to its top-left corner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub scale: i32,
    pub width: i32,
    pub height: i32,
    /// Scale of the status text and of the small labels.
    pub text_scale: i32,
    pub label_scale: i32,
    pub pad: i32,
    pub line_height: i32,
    /// Status text: top row, and the legend's row.
    pub text_y: i32,
    pub legend_y: i32,
    /// The band holding labels, strip, leaders and graph: top and height.
    pub band_y: i32,
    pub band_h: i32,
    /// Strip: left x and width; λ ticks right of it.
    pub strip_x: i32,
    pub strip_w: i32,
    pub tick_w: i32,
    /// Graph: left x and width (leaders run from the ticks to here).
    pub graph_x: i32,
    pub graph_w: i32,
    pub footer_y: i32,
}

impl Layout {
    /// The layout beside a game drawn at `scale`: as tall as the game.
    pub fn new(scale: usize) -> Layout {
        let scale = scale.max(1) as i32;
        let text_scale = ((scale + 1) / 2).max(1);
        let label_scale = (scale / 3).max(1);
        let pad = 4 * text_scale;
        let line_height = 10 * text_scale;
        let width = (LINE_CHARS * text::CELL * text_scale + 2 * pad).max(160 * scale);
        let height = 240 * scale;
        let text_y = pad;
        let legend_y = text_y + TEXT_LINES * line_height + text_scale;
        let band_y = legend_y + line_height + pad;
        let footer_y = height - pad - text::CELL * text_scale;
        let band_h = (footer_y - pad - band_y).max(16);
        let strip_x = pad + 4 * text::CELL * label_scale + 2 * label_scale;
        let strip_w = 4 * scale;
        let tick_w = scale;
        let graph_x = strip_x + strip_w + tick_w + 1 + 8 * scale;
        let graph_w = width - graph_x - pad;
        Layout {
            scale,
            width,
            height,
            text_scale,
            label_scale,
            pad,
            line_height,
            text_y,
            legend_y,
            band_y,
            band_h,
            strip_x,
            strip_w,
            tick_w,
            graph_x,
            graph_w,
            footer_y,
        }
    }

    /// The text rectangle `(x, y, w, h)`: status lines and legend.
    pub fn text_rect(&self) -> (i32, i32, i32, i32) {
        (0, 0, self.width, self.band_y)
    }

    /// The graph rectangle `(x, y, w, h)`.
    pub fn graph_rect(&self) -> (i32, i32, i32, i32) {
        (self.graph_x, self.band_y, self.graph_w, self.band_h)
    }
}

/// The numbers of the status text.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Status<'a> {
    /// GFCGaussiano's parameters; `None` for the trace builder.
    pub params: Option<gfc::GfcParams>,
    pub preset: Option<usize>,
    pub batches: u64,
    pub dropped: u64,
    pub sampled_pct: f64,
    pub bins: usize,
    pub hot_bins: usize,
    pub blocks: usize,
    pub edges: usize,
    /// Nodes after clustering, when fewer than the blocks.
    pub nodes: Option<usize>,
    /// (similarity, precision, weighted) with `--truth`.
    pub truth: Option<Option<(f64, f64, f64)>>,
    /// The PC as a code address (`$C123`, `03:A1F0` in a bank).
    pub pc_address: &'a str,
    /// Its label with `--symbols` (`vm_next+$2`, `main::oam_full+$12`).
    pub pc_label: Option<&'a str>,
    pub frame: u64,
}

/// `text` in at most `room` characters: whole if it fits, else its end
/// after `..` (a label's end, `oam_full+$12`, says more than its scopes):
/// whole scopes dropped from the front while that is enough
/// (`main::game_loop::oam_full+$12` as `..oam_full+$12`), else the last
/// characters.
pub fn fit_tail(text: &str, room: usize) -> std::borrow::Cow<'_, str> {
    let len = text.chars().count();
    if len <= room {
        return text.into();
    }
    let mut rest = text;
    while let Some((_, tail)) = rest.split_once("::") {
        rest = tail;
        if rest.chars().count() + 2 <= room {
            return format!("..{rest}").into();
        }
    }
    let keep = room.saturating_sub(2);
    let tail: String = text.chars().skip(len - keep).collect();
    format!("..{tail}").into()
}

/// Draws the status lines, reusing `line` for formatting.
pub fn draw_status(canvas: &mut Canvas, layout: &Layout, status: &Status, line: &mut String) {
    let (ts, x) = (layout.text_scale, layout.pad);
    let mut y = layout.text_y;
    let mut emit = |canvas: &mut Canvas, line: &mut String, color: u32| {
        text::draw(canvas, x, y, ts, color, line);
        line.clear();
        y += layout.line_height;
    };
    line.clear();
    match status.params {
        Some(p) => {
            let _ = write!(
                line,
                "GFC {},{},{},{}",
                p.bin_size, p.stdev_threshold, p.window_size, p.recurrent_threshold
            );
            match status.preset {
                Some(n) => {
                    let _ = write!(line, "  preset {n}");
                }
                None => line.push_str("  custom"),
            }
        }
        // A builder without parameters: the trace builder.
        None => line.push_str("trace builder"),
    }
    emit(canvas, line, colors::TEXT);
    let _ = write!(
        line,
        "batches {}  dropped {}",
        status.batches, status.dropped
    );
    emit(
        canvas,
        line,
        if status.dropped > 0 {
            colors::THRESHOLD
        } else {
            colors::TEXT
        },
    );
    let _ = write!(line, "sampled {:.2}%", status.sampled_pct);
    if status.params.is_some() {
        let _ = write!(line, " bins {} hot {}", status.bins, status.hot_bins);
    }
    emit(canvas, line, colors::TEXT);
    let _ = write!(line, "blocks {} edges {}", status.blocks, status.edges);
    if let Some(n) = status.nodes {
        let _ = write!(line, " nodes {n}");
    }
    emit(canvas, line, colors::TEXT);
    match status.truth {
        None => {
            line.push_str("truth: off (--truth)");
            emit(canvas, line, colors::TEXT_DIM);
        }
        Some(None) => {
            line.push_str("truth: measuring...");
            emit(canvas, line, colors::TEXT_DIM);
        }
        Some(Some((s, p, w))) => {
            let _ = write!(line, "sim {s:.3} prec {p:.3} wtd {w:.3}");
            emit(canvas, line, colors::TEXT);
        }
    }
    let _ = write!(line, "PC {}  frame {}", status.pc_address, status.frame);
    emit(canvas, line, colors::PC);
    // The label on a line of its own, so a long one is not cut short.
    if let Some(label) = status.pc_label {
        let room = ((layout.width - 2 * layout.pad) / (text::CELL * ts)).max(4) as usize;
        line.push_str(&fit_tail(label, room));
        emit(canvas, line, colors::PC);
    }
}

/// Counts for the legend's end: `254771` as `255k`, `3.2M` above a million.
fn compact(n: u64) -> String {
    match n {
        0..=9_999 => n.to_string(),
        10_000..=999_999 => format!("{}k", (n + 500) / 1000),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

/// The colour legend: in count mode, with GFCGaussiano's λ
/// (`threshold`), a grey part for bins under λ, the heat ramp above it, and
/// a tick at λ; with the trace builder (no λ) the heat ramp of its blocks'
/// counts up to the largest; in recency mode the ramp from ten seconds ago
/// to now.
pub fn draw_legend(
    canvas: &mut Canvas,
    layout: &Layout,
    ramps: &Ramps,
    colouring: Colouring,
    threshold: Option<u32>,
    max_count: u64,
    line: &mut String,
) {
    let ts = layout.text_scale;
    let y = layout.legend_y;
    let label = match colouring {
        Colouring::Count => "count",
        Colouring::Recency => "recent",
    };
    let x0 = text::draw(canvas, layout.pad, y, ts, colors::TEXT_DIM, label) + 2 * ts;
    let bar_w = 14 * text::CELL * ts;
    let bar_h = text::CELL * ts - 2 * ts;
    let bar_y = y + ts;
    match (colouring, threshold) {
        (Colouring::Count, None) => {
            for i in 0..bar_w {
                let level = (i * 255 / bar_w.max(1)) as usize;
                canvas.fill_rect(x0 + i, bar_y, 1, bar_h, ramps.heat[level]);
            }
            line.clear();
            let _ = write!(line, "max {}", compact(max_count));
            text::draw(canvas, x0 + bar_w + 2 * ts, y, ts, colors::TEXT_DIM, line);
        }
        (Colouring::Count, Some(threshold)) => {
            // Grey up to λ on the same log scale as the ramp.
            let max = max_count.max(threshold as u64 + 1) as f32;
            let cold = ((threshold.max(1) as f32).ln() / max.ln()).clamp(0.1, 0.6);
            let split = (bar_w as f32 * cold) as i32;
            canvas.fill_rect(x0, bar_y, split, bar_h, colors::COLD_BIN);
            for i in 0..bar_w - split {
                let level = (i * 255 / (bar_w - split).max(1)) as usize;
                canvas.fill_rect(x0 + split + i, bar_y, 1, bar_h, ramps.heat[level]);
            }
            canvas.fill_rect(
                x0 + split - ts / 2,
                y - ts,
                ts.max(2),
                bar_h + 4 * ts,
                colors::THRESHOLD,
            );
            line.clear();
            let _ = write!(line, "λ={threshold}");
            text::draw(canvas, x0 + bar_w + 2 * ts, y, ts, colors::THRESHOLD, line);
        }
        (Colouring::Recency, _) => {
            for i in 0..bar_w {
                let level = (i * 255 / bar_w.max(1)) as usize;
                canvas.fill_rect(x0 + i, bar_y, 1, bar_h, ramps.recent[level]);
            }
            text::draw(canvas, x0 + bar_w + 2 * ts, y, ts, colors::TEXT_DIM, "now");
        }
    }
}

/// Address labels left of the strip: each band's start and end and, in the
/// ROM band, every $2000.
pub fn draw_axis_labels(canvas: &mut Canvas, layout: &Layout, axis: &Axis, line: &mut String) {
    let ls = layout.label_scale;
    let y0 = layout.band_y;
    let glyph = text::CELL * ls;
    for s in &axis.segments {
        let mut addr = s.lo;
        while addr < s.hi {
            let y = y0 + axis.y_of(addr as f64) as i32;
            line.clear();
            let _ = write!(line, "{addr:04X}");
            let ty = (y - glyph / 2).clamp(y0, y0 + layout.band_h - glyph);
            text::draw(canvas, layout.pad, ty, ls, colors::TEXT_DIM, line);
            canvas.fill_rect(layout.strip_x - 2 * ls, y, 2 * ls, 1, colors::TEXT_DIM);
            addr += if s.lo == 0x8000 { 0x2000 } else { s.hi - s.lo };
        }
        // A band's name goes in its middle, if it clears the address labels
        // at both ends (not at scale 1, where a band is 16 rows).
        if !s.label.is_empty() && s.y1 - s.y0 >= 3.0 * glyph as f32 {
            let y = y0 + ((s.y0 + s.y1) / 2.0) as i32 + glyph / 2;
            text::draw(canvas, layout.pad, y, ls, colors::TEXT_DIM, s.label);
        }
    }
}

/// The key help at the bottom, longest first: the first that fits the
/// panel is drawn (the default 3× panel has room for 30 characters).
const FOOTERS: [&str; 3] = [
    "O hide  C colour  M memory  1-4  R reset",
    "O hide C colour M memory 1-4 R reset",
    "O hide C col M mem 1-4 R reset",
];

/// The key help at the bottom: the keys bright, what they do dim (which
/// keeps them apart where the short footer has single spaces).
pub fn draw_footer(canvas: &mut Canvas, layout: &Layout) {
    let ts = layout.text_scale;
    let room = layout.width - 2 * layout.pad;
    let footer = FOOTERS
        .iter()
        .find(|f| text::width(f, ts) <= room)
        .unwrap_or(&FOOTERS[FOOTERS.len() - 1]);
    let mut x = layout.pad;
    for (i, word) in footer.split(' ').enumerate() {
        // Words alternate key, action (empty words are the double spaces).
        let key = word.len() <= 3
            && word
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '-');
        let color = if key && !word.is_empty() {
            colors::TEXT
        } else {
            colors::TEXT_DIM
        };
        if i > 0 {
            x += text::CELL * ts;
        }
        x = text::draw(canvas, x, layout.footer_y, ts, color, word);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_fit_their_panel() {
        for scale in 1..=8 {
            let l = Layout::new(scale);
            assert_eq!(l.height, 240 * scale as i32);
            assert!(l.graph_w >= 60, "scale {scale}: {l:?}");
            assert!(l.band_h >= 100, "scale {scale}: {l:?}");
            assert!(l.graph_x + l.graph_w <= l.width);
            assert!(l.band_y + l.band_h <= l.footer_y);
        }
        assert_eq!(Layout::new(3).text_scale, 2);
    }

    #[test]
    fn long_labels_keep_their_end() {
        assert_eq!(fit_tail("vm_next+$2", 30), "vm_next+$2");
        assert_eq!(
            fit_tail("main::game_loop::oam_full+$12", 16),
            "..oam_full+$12"
        );
        assert_eq!(
            fit_tail("main::game_loop::oam_full+$12", 20),
            "..oam_full+$12"
        );
        assert_eq!(fit_tail("a_very_long_label_name+$12", 12), "..l_name+$12");
        assert_eq!(compact(254_771), "255k");
        assert_eq!(compact(3_200_000), "3.2M");
        assert_eq!(compact(42), "42");
    }

    #[test]
    fn a_footer_fits_every_scale() {
        for scale in 1..=8 {
            let l = Layout::new(scale);
            let fits = FOOTERS
                .iter()
                .any(|f| text::width(f, l.text_scale) <= l.width - 2 * l.pad);
            assert!(fits, "scale {scale}");
        }
    }
}
