//! SVG plots of a sweep (plotters, SVG backend only: vector output, no font
//! files or system libraries needed; text is left to the SVG viewer).
//!
//! - Heatmaps: mean similarity over the workloads for each binSize ×
//!   stdevThreshold cell, one panel per windowSize × recurrentThreshold pair
//!   (3 × 3 panels), one shared colour scale, the value printed in each cell.
//!   Drawn for the thesis' similarity (H90) and for our H99 similarity.
//! - Similarity vs sampled_pct: every (workload, configuration) as a point.
//!   The sampling rate is a property of the workload's stream (all 144
//!   configurations replay the same one), so each workload is a vertical
//!   strip, spread slightly sideways by config id so points don't hide each
//!   other; the thesis' best configuration is ringed.

use std::path::Path;

use anyhow::{anyhow, Context};
use gfc::params::{BIN_SIZES, RECURRENT_THRESHOLDS, STDEV_THRESHOLDS, WINDOW_SIZES};
use gfc::{GfcParams, THESIS_BEST};
use plotters::coord::ranged1d::SegmentValue;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::run::{ConfigResult, WorkloadResult};
use super::tables::{config_means, ConfigMean};

const FONT: &str = "sans-serif";

/// `v` in `[lo, hi]`, anything not finite at `lo`. Every value that sets
/// a plot's range goes through this: plotters works out an axis' ticks in
/// a loop over the range, which never ends for an infinite one (a shard
/// with `similarity: 1e308` made `sweep merge` spin there, the mean times
/// 100 being infinite). Values read back are checked on reading (see
/// `shard::ShardFile::check`); this keeps the plots bounded whatever
/// reaches them.
fn bounded(v: f64, lo: f64, hi: f64) -> f64 {
    if v.is_finite() {
        v.clamp(lo, hi)
    } else {
        lo
    }
}

/// Viridis, sampled at 9 points (matplotlib's perceptually uniform map, good
/// in greyscale and for colour-blind readers); linear in between.
const VIRIDIS: [(u8, u8, u8); 9] = [
    (68, 1, 84),
    (71, 44, 122),
    (59, 81, 139),
    (44, 113, 142),
    (33, 144, 141),
    (39, 173, 129),
    (92, 200, 99),
    (170, 220, 50),
    (253, 231, 37),
];

/// The colour of `t` in 0..=1.
pub fn viridis(t: f64) -> RGBColor {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let x = t * (VIRIDIS.len() - 1) as f64;
    let i = (x.floor() as usize).min(VIRIDIS.len() - 2);
    let f = x - i as f64;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    let mix = |p: u8, q: u8| (p as f64 + (q as f64 - p as f64) * f).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Which mean a heatmap shows.
#[derive(Debug, Clone, Copy)]
pub enum HeatValue {
    /// The thesis' similarity against H90.
    Similarity,
    /// Our similarity against H99.
    SimilarityH99,
}

impl HeatValue {
    /// The mean shown, a ratio in [0, 1] (see [`bounded`]).
    fn of(self, m: &ConfigMean) -> f64 {
        let v = match self {
            HeatValue::Similarity => m.similarity,
            HeatValue::SimilarityH99 => m.similarity_h99,
        };
        bounded(v, 0.0, 1.0)
    }

    fn title(self) -> &'static str {
        match self {
            HeatValue::Similarity => "mean similarity vs H90 (thesis metric)",
            HeatValue::SimilarityH99 => "mean similarity vs H99 (ours, not the thesis')",
        }
    }
}

fn plot_err(path: &Path) -> impl Fn(String) -> anyhow::Error + '_ {
    move |e| anyhow!("plotting {}: {e}", path.display())
}

/// Draws the 3 × 3-panel heatmap of `value` into `svg` (`path` names it in
/// errors).
fn heatmap(
    results: &[WorkloadResult],
    value: HeatValue,
    path: &Path,
    svg: &mut String,
) -> anyhow::Result<()> {
    let means = config_means(results);
    if means.is_empty() {
        return Ok(());
    }
    let cell = |b: u32, s: u32, w: u32, r: u32| -> Option<f64> {
        let p = GfcParams::new(b, s, w, r).ok()?;
        means.iter().find(|m| m.params == p).map(|m| value.of(m))
    };
    let values: Vec<f64> = means.iter().map(|m| value.of(m)).collect();
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    // A flat map (every configuration equal) still needs a non-empty scale.
    let (lo, hi) = if hi - lo < 1e-9 {
        (lo - 0.005, hi + 0.005)
    } else {
        (lo, hi)
    };
    let norm = |v: f64| (v - lo) / (hi - lo);

    let err = plot_err(path);
    let root = SVGBackend::with_string(svg, (1500, 1320)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let (title, body) = root.split_vertically(80);
    let names: Vec<&str> = results.iter().map(|r| r.name.as_str()).collect();
    title
        .draw_text(
            &format!("GFCGaussiano sweep: {}", value.title()),
            &TextStyle::from((FONT, 28).into_font()).pos(Pos::new(HPos::Center, VPos::Top)),
            (750, 12),
        )
        .map_err(|e| err(e.to_string()))?;
    title
        .draw_text(
            &format!(
                "mean over {} workloads ({}); cells: binSize × stdevThreshold; red outline = the thesis' best (10, 15, 13, 5)",
                names.len(),
                abbreviate(&names, 90)
            ),
            &TextStyle::from((FONT, 16).into_font()).pos(Pos::new(HPos::Center, VPos::Top)),
            (750, 50),
        )
        .map_err(|e| err(e.to_string()))?;
    let (grid, bar) = body.split_horizontally(1330);
    let panels = grid.split_evenly((WINDOW_SIZES.len(), RECURRENT_THRESHOLDS.len()));
    for (k, panel) in panels.iter().enumerate() {
        let w = WINDOW_SIZES[k / RECURRENT_THRESHOLDS.len()];
        let r = RECURRENT_THRESHOLDS[k % RECURRENT_THRESHOLDS.len()];
        let mut chart = ChartBuilder::on(panel)
            .caption(
                format!("windowSize {w}, recurrentThreshold {r}"),
                (FONT, 20).into_font(),
            )
            .margin(10)
            .x_label_area_size(48)
            .y_label_area_size(64)
            .build_cartesian_2d(
                // A segmented range a..b has a segment for every value in
                // a..=b, hence the -1.
                (0..BIN_SIZES.len() as i32 - 1).into_segmented(),
                (0..STDEV_THRESHOLDS.len() as i32 - 1).into_segmented(),
            )
            .map_err(|e| err(e.to_string()))?;
        let label = |list: &'static [u32]| {
            move |v: &SegmentValue<i32>| match v {
                SegmentValue::CenterOf(i) => list
                    .get(*i as usize)
                    .map_or(String::new(), |x| x.to_string()),
                _ => String::new(),
            }
        };
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc("binSize (bytes)")
            .y_desc("stdevThreshold")
            .x_label_formatter(&label(&BIN_SIZES))
            .y_label_formatter(&label(&STDEV_THRESHOLDS))
            .label_style((FONT, 15))
            .axis_desc_style((FONT, 15))
            .draw()
            .map_err(|e| err(e.to_string()))?;
        for (bi, &b) in BIN_SIZES.iter().enumerate() {
            for (si, &s) in STDEV_THRESHOLDS.iter().enumerate() {
                let Some(v) = cell(b, s, w, r) else { continue };
                let (x, y) = (bi as i32, si as i32);
                let colour = viridis(norm(v));
                let corners = [
                    (SegmentValue::Exact(x), SegmentValue::Exact(y)),
                    (SegmentValue::Exact(x + 1), SegmentValue::Exact(y + 1)),
                ];
                chart
                    .draw_series(std::iter::once(Rectangle::new(corners, colour.filled())))
                    .map_err(|e| err(e.to_string()))?;
                if GfcParams::new(b, s, w, r).ok() == Some(THESIS_BEST) {
                    chart
                        // A closed path: the SVG backend gives rectangles
                        // no stroke width.
                        .draw_series(std::iter::once(PathElement::new(
                            vec![
                                (SegmentValue::Exact(x), SegmentValue::Exact(y)),
                                (SegmentValue::Exact(x + 1), SegmentValue::Exact(y)),
                                (SegmentValue::Exact(x + 1), SegmentValue::Exact(y + 1)),
                                (SegmentValue::Exact(x), SegmentValue::Exact(y + 1)),
                                (SegmentValue::Exact(x), SegmentValue::Exact(y)),
                            ],
                            RGBColor(230, 0, 0).stroke_width(5),
                        )))
                        .map_err(|e| err(e.to_string()))?;
                }
                // Dark text on the light end of the map, white on the dark.
                let text_colour = if norm(v) > 0.6 { BLACK } else { WHITE };
                chart
                    .draw_series(std::iter::once(Text::new(
                        format!("{:.1}", v * 100.0),
                        (SegmentValue::CenterOf(x), SegmentValue::CenterOf(y)),
                        TextStyle::from((FONT, 17).into_font())
                            .color(&text_colour)
                            .pos(Pos::new(HPos::Center, VPos::Center)),
                    )))
                    .map_err(|e| err(e.to_string()))?;
            }
        }
    }
    colour_bar(&bar, lo, hi).map_err(|e| err(e.to_string()))?;
    root.present().map_err(|e| err(e.to_string()))?;
    Ok(())
}

/// The colour scale: a vertical bar from `lo` to `hi`, labelled in percent.
fn colour_bar<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    lo: f64,
    hi: f64,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let mut chart = ChartBuilder::on(area)
        .margin_top(30)
        .margin_bottom(60)
        .margin_right(20)
        .caption("scale, %", (FONT, 16).into_font())
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..1.0, lo * 100.0..hi * 100.0)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .y_labels(10)
        .y_label_formatter(&|v| format!("{v:.1}"))
        .label_style((FONT, 14))
        .draw()?;
    let steps = 100;
    chart.draw_series((0..steps).map(|i| {
        let a = lo + (hi - lo) * i as f64 / steps as f64;
        let b = lo + (hi - lo) * (i + 1) as f64 / steps as f64;
        Rectangle::new(
            [(0.0, a * 100.0), (1.0, b * 100.0)],
            viridis((i as f64 + 0.5) / steps as f64).filled(),
        )
    }))?;
    Ok(())
}

/// "a, b, c, …" within about `max` characters.
fn abbreviate(names: &[&str], max: usize) -> String {
    let mut out = String::new();
    for (i, n) in names.iter().enumerate() {
        let sep = if i == 0 { "" } else { ", " };
        if out.len() + sep.len() + n.len() > max {
            out.push_str(", …");
            break;
        }
        out.push_str(sep);
        out.push_str(n);
    }
    out
}

/// A distinct colour per workload (Tableau 10, then repeats).
fn workload_colour(i: usize) -> RGBColor {
    const T10: [(u8, u8, u8); 10] = [
        (31, 119, 180),
        (255, 127, 14),
        (44, 160, 44),
        (214, 39, 40),
        (148, 103, 189),
        (140, 86, 75),
        (227, 119, 194),
        (127, 127, 127),
        (188, 189, 34),
        (23, 190, 207),
    ];
    let (r, g, b) = T10[i % T10.len()];
    RGBColor(r, g, b)
}

/// Draws the marker of workload `i` at pixel `at` of `area`: four shapes ×
/// ten colours, so strips that share a sampling rate stay distinguishable.
/// (Pixel coordinates, not chart ones: one concrete element type per shape
/// is simpler than boxing plotters' generic elements.)
fn draw_marker<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    i: usize,
    at: (i32, i32),
    size: i32,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let style = workload_colour(i).mix(0.75);
    match (i / 10 + i) % 4 {
        0 => area.draw(&Circle::new(at, size, style.filled())),
        1 => area.draw(&TriangleMarker::new(at, size + 1, style.filled())),
        2 => area.draw(&Cross::new(at, size, style.stroke_width(2))),
        _ => area.draw(&Rectangle::new(
            [(at.0 - size, at.1 - size), (at.0 + size, at.1 + size)],
            style.filled(),
        )),
    }
}

/// Writes the similarity-vs-sampled_pct scatter: the thesis' similarity on
/// the left, our H99 similarity on the right, the legend below; every
/// GFCGaussiano configuration as a point, the trace builder as a bar.
fn similarity_vs_sampled(
    results: &[WorkloadResult],
    path: &Path,
    svg: &mut String,
) -> anyhow::Result<()> {
    if results.is_empty() {
        return Ok(());
    }
    let err = plot_err(path);
    let legend_rows = results.len().div_ceil(4) + 2;
    let height = 700 + 26 * legend_rows as u32;
    let root = SVGBackend::with_string(svg, (1500, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let (title, rest) = root.split_vertically(60);
    let (body, legend) = rest.split_vertically(640);
    title
        .draw_text(
            "Similarity of every configuration vs the share of instructions sampled",
            &TextStyle::from((FONT, 24).into_font()).pos(Pos::new(HPos::Center, VPos::Top)),
            (750, 14),
        )
        .map_err(|e| err(e.to_string()))?;
    // A percentage and ratios in [0, 1]: see [`bounded`].
    let sampled_pct = |r: &WorkloadResult| bounded(r.sampled_pct(), 0.0, 100.0);
    let pcts: Vec<f64> = results.iter().map(sampled_pct).collect();
    let xmin = pcts.iter().copied().fold(f64::INFINITY, f64::min);
    let xmax = pcts.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let pad = ((xmax - xmin) * 0.1).max(0.03);
    // Each workload's 144 points spread over a strip of this width, centred
    // on its sampling rate (its only x value).
    let spread = ((xmax - xmin + 2.0 * pad) / 30.0).max(0.004);
    let halves = body.split_evenly((1, 2));
    type Get = fn(&ConfigResult) -> f64;
    type GetTrace = fn(&WorkloadResult) -> f64;
    let panels: [(&str, Get, GetTrace); 2] = [
        (
            "similarity vs H90 (thesis metric), %",
            |c| c.metrics.similarity,
            |r| r.trace.metrics.similarity,
        ),
        (
            "similarity vs H99 (ours), %",
            |c| c.metrics.similarity99,
            |r| r.trace.metrics.similarity99,
        ),
    ];
    for (area, (ylabel, get, get_trace)) in halves.iter().zip(panels) {
        let mut chart = ChartBuilder::on(area)
            .margin(16)
            .x_label_area_size(50)
            .y_label_area_size(60)
            .build_cartesian_2d((xmin - pad)..(xmax + pad), -2.0..102.0)
            .map_err(|e| err(e.to_string()))?;
        chart
            .configure_mesh()
            .x_desc("sampled instructions, % of executed (one value per workload's stream)")
            .y_desc(ylabel)
            .x_label_formatter(&|v| format!("{v:.2}"))
            .label_style((FONT, 14))
            .axis_desc_style((FONT, 15))
            .bold_line_style(RGBColor(200, 200, 200))
            .light_line_style(RGBColor(240, 240, 240))
            .draw()
            .map_err(|e| err(e.to_string()))?;
        for (i, r) in results.iter().enumerate() {
            let x0 = sampled_pct(r);
            let n = r.configs.len().max(2) as f64;
            let point = |c: &ConfigResult, k: usize| {
                (
                    x0 + spread * (k as f64 / (n - 1.0) - 0.5),
                    bounded(get(c), 0.0, 1.0) * 100.0,
                )
            };
            for (k, c) in r.configs.iter().enumerate() {
                // The root's coordinates are absolute pixels, as backend_coord's.
                draw_marker(&root, i, chart.backend_coord(&point(c, k)), 4)
                    .map_err(|e| err(e.to_string()))?;
            }
            if let Some((k, c)) = r
                .configs
                .iter()
                .enumerate()
                .find(|(_, c)| c.params == THESIS_BEST)
            {
                chart
                    .draw_series(std::iter::once(Circle::new(
                        point(c, k),
                        9,
                        BLACK.stroke_width(2),
                    )))
                    .map_err(|e| err(e.to_string()))?;
            }
            // The trace builder on the same stream: a bar across the strip.
            let y = bounded(get_trace(r), 0.0, 1.0) * 100.0;
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(x0 - spread * 0.6, y), (x0 + spread * 0.6, y)],
                    BLACK.stroke_width(3),
                )))
                .map_err(|e| err(e.to_string()))?;
        }
    }
    // The legend, below both panels: four entries a row.
    let text = TextStyle::from((FONT, 15).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    let entry = |k: usize| (90 + (k % 4) as i32 * 340, 14 + (k / 4) as i32 * 26);
    for (i, r) in results.iter().enumerate() {
        let (x, y) = entry(i);
        draw_marker(&legend, i, (x, y), 6).map_err(|e| err(e.to_string()))?;
        legend
            .draw_text(
                &format!(
                    "{} ({:.2}% sampled, {} H90 edges)",
                    r.name,
                    sampled_pct(r),
                    r.edges_h90
                ),
                &text,
                (x + 14, y),
            )
            .map_err(|e| err(e.to_string()))?;
    }
    let (x, y) = entry(results.len().div_ceil(4) * 4);
    legend
        .draw(&Circle::new((x, y), 9, BLACK.stroke_width(2)))
        .map_err(|e| err(e.to_string()))?;
    legend
        .draw_text(
            "ringed: the thesis' best configuration (10, 15, 13, 5); each strip: one workload's 144 configurations, spread sideways by config id",
            &text,
            (x + 14, y),
        )
        .map_err(|e| err(e.to_string()))?;
    let y = y + 26;
    legend
        .draw(&PathElement::new(
            vec![(x - 10, y), (x + 10, y)],
            BLACK.stroke_width(3),
        ))
        .map_err(|e| err(e.to_string()))?;
    legend
        .draw_text(
            "bar: the trace builder on the same stream",
            &text,
            (x + 14, y),
        )
        .map_err(|e| err(e.to_string()))?;
    root.present().map_err(|e| err(e.to_string()))?;
    Ok(())
}

/// The plots' file names, in the order [`render_all`] returns them.
pub const FILE_NAMES: [&str; 3] = [
    "heatmap_similarity.svg",
    "heatmap_similarity_h99.svg",
    "similarity_vs_sampled.svg",
];

/// The sweep's plots as (file name, SVG text), drawn in memory so that the
/// files are written whole with the rest of the outputs.
pub fn render_all(results: &[WorkloadResult]) -> anyhow::Result<Vec<(String, String)>> {
    let files = FILE_NAMES;
    let mut svgs = vec![String::new(), String::new(), String::new()];
    heatmap(
        results,
        HeatValue::Similarity,
        Path::new(files[0]),
        &mut svgs[0],
    )
    .context("heatmap of similarity")?;
    heatmap(
        results,
        HeatValue::SimilarityH99,
        Path::new(files[1]),
        &mut svgs[1],
    )
    .context("heatmap of H99 similarity")?;
    similarity_vs_sampled(results, Path::new(files[2]), &mut svgs[2]).context("scatter plot")?;
    Ok(files
        .iter()
        .zip(svgs)
        .filter(|(_, svg)| !svg.is_empty())
        .map(|(f, svg)| (f.to_string(), svg))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viridis_ends_and_clamps() {
        assert_eq!(viridis(0.0), RGBColor(68, 1, 84));
        assert_eq!(viridis(1.0), RGBColor(253, 231, 37));
        assert_eq!(viridis(-3.0), viridis(0.0));
        assert_eq!(viridis(f64::NAN), viridis(0.0));
        assert_eq!(viridis(0.5), RGBColor(33, 144, 141));
    }

    /// No value reaching the plots can make them loop without end (an
    /// infinite mean used to hang plotters' tick computation) or print
    /// NaN/inf: each plot is drawn within a time limit that only a hang
    /// exceeds.
    #[test]
    fn absurd_values_still_give_bounded_plots() {
        let configs: Vec<GfcParams> = GfcParams::grid().collect();
        let (_, outcome) = crate::sweep::run::testing::tiny(&configs);
        let mut results = outcome.results;
        let mut odd = results[0].clone();
        odd.name = "odd".into();
        // Values the shard checks refuse, as if they had got through.
        odd.executed_instructions = 0;
        odd.sampled_instructions = u64::MAX;
        for (k, c) in odd.configs.iter_mut().enumerate() {
            let v = [f64::INFINITY, f64::NAN, 1e308, -1e308, 1e50, -0.5][k % 6];
            c.metrics.similarity = v;
            c.metrics.similarity99 = v;
        }
        odd.trace.metrics.similarity = f64::NAN;
        odd.trace.metrics.similarity99 = f64::INFINITY;
        results.push(odd);
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(render_all(&results).map_err(|e| e.to_string()));
        });
        let svgs = rx
            .recv_timeout(std::time::Duration::from_secs(120))
            .expect("plots drawn without hanging")
            .unwrap();
        assert_eq!(svgs.len(), 3);
        for (name, svg) in &svgs {
            assert!(
                svg.ends_with("</svg>\n") || svg.trim_end().ends_with("</svg>"),
                "{name}"
            );
            assert!(!svg.contains("NaN") && !svg.contains("inf"), "{name}");
        }
    }

    #[test]
    fn abbreviation() {
        assert_eq!(abbreviate(&["a", "b"], 10), "a, b");
        assert_eq!(abbreviate(&["aaaa", "bbbb", "cccc"], 10), "aaaa, bbbb, …");
    }
}
