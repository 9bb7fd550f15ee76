//! The frame-time profile in report.txt and report.html, the sections a
//! developer reads first: where a frame's cycles go against the budget
//! (with the frame-budget chart in the page), the routine table, and the
//! worst frames with what ran in them.
//!
//! Percentages of routines are of the *work* (busy + NMI + IRQ cycles):
//! idle loops and DMA stalls are shown apart, so the code that costs
//! something is not squeezed under the wait for the next NMI.

use std::fmt::Write;

use super::recorder::Outcome;
use super::rows::{Estimate, RoutineRow};
use crate::cfg_svg::escape;

/// CPU cycles of an NTSC frame (341 × 262 PPU dots / 3; every other
/// frame is a dot shorter while rendering): the budget a game's frame
/// must fit in to run at 60 frames a second.
pub const FRAME_BUDGET: u64 = 29780;

/// Routines listed in report.txt and report.html.
pub const TEXT_ROUTINES: usize = 15;
pub const HTML_ROUTINES: usize = 40;

fn pct(x: f64, of: f64) -> f64 {
    if of > 0.0 {
        x * 100.0 / of
    } else {
        0.0
    }
}

/// A routine's name cut for a text table's cell.
fn short(name: &str) -> String {
    cut(name, 32)
}

/// `text` in at most `max` characters, its end replaced by `…` when cut.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        emu::input_file::shorten_to(text, max - 1)
    }
}

fn interval(e: &Estimate) -> String {
    format!("{:.1} [{:.1}, {:.1}]", e.value, e.low, e.high)
}

/// Where the wait loops were, from the exact flame graph's lines: the
/// routines the `[idle]` time sat under, most first.
fn idle_places(outcome: &Outcome) -> Vec<(String, u64)> {
    let Some(exact) = &outcome.exact else {
        return Vec::new();
    };
    let mut by: std::collections::BTreeMap<String, u64> = Default::default();
    for line in exact.folded() {
        let Some((stack, n)) = line.rsplit_once(' ') else {
            continue;
        };
        let Some(rest) = stack.strip_suffix(";[idle]") else {
            continue;
        };
        let place = rest.rsplit(';').next().unwrap_or(rest).to_string();
        *by.entry(place).or_default() += n.parse::<u64>().unwrap_or(0);
    }
    let mut v: Vec<(String, u64)> = by.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

/// The class totals: exact where recorded, else the sampled estimates.
struct Classes {
    busy: f64,
    nmi: f64,
    irq: f64,
    dma: f64,
    idle: f64,
    total: f64,
}

fn classes(outcome: &Outcome) -> Classes {
    match &outcome.exact {
        Some(p) => {
            let t = &p.totals;
            Classes {
                busy: t.busy as f64,
                nmi: t.nmi as f64,
                irq: t.irq as f64,
                dma: (t.oam_dma + t.dmc_dma) as f64,
                idle: t.idle as f64,
                total: t.cycles as f64,
            }
        }
        None => {
            let c = &outcome.sampled.class_cycles;
            Classes {
                busy: c.busy.value,
                nmi: c.nmi.value,
                irq: c.irq.value,
                dma: c.dma.value,
                idle: c.idle.value,
                total: outcome.sampled.total_cycles as f64,
            }
        }
    }
}

/// report.txt's frame-time sections.
pub fn text(outcome: &Outcome) -> String {
    let mut out = String::new();
    let exact = outcome.exact.is_some();
    let source = if exact {
        "exact, with the sampler's estimates beside"
    } else {
        "estimated from the sampler alone, 95 % intervals"
    };
    let _ = writeln!(
        out,
        "frame time ({source}; the budget is {FRAME_BUDGET} CPU cycles a frame)"
    );
    let w = &outcome.work_per_frame;
    let mean_work = {
        let c = classes(outcome);
        (c.busy + c.nmi + c.irq) / outcome.frames.max(1) as f64
    };
    let _ = writeln!(
        out,
        "  frames     {}, lag frames {} ({:.1} %){}",
        outcome.frames,
        outcome.lag_frames,
        pct(outcome.lag_frames as f64, outcome.frames as f64),
        match &outcome.exact {
            Some(p) => format!(", vblank overruns {}", p.totals.vblank_overruns),
            None => String::new(),
        }
    );
    let _ = writeln!(
        out,
        "  work/frame mean {:.0}, median {}, p99 {}, max {} cycles ({:.1} % / {:.1} % of the budget at the mean / max){}",
        mean_work,
        w.median().unwrap_or(0),
        w.p99().unwrap_or(0),
        w.max().unwrap_or(0),
        pct(mean_work, FRAME_BUDGET as f64),
        pct(w.max().unwrap_or(0) as f64, FRAME_BUDGET as f64),
        if exact { "" } else { " (per-frame figures from sampled estimates: rough)" }
    );
    let c = classes(outcome);
    let _ = writeln!(
        out,
        "  cycles     busy {:.1} %  NMI {:.1} %  IRQ {:.1} %  DMA {:.1} %  idle {:.1} %",
        pct(c.busy, c.total),
        pct(c.nmi, c.total),
        pct(c.irq, c.total),
        pct(c.dma, c.total),
        pct(c.idle, c.total),
    );
    let s = &outcome.sampled;
    let share = |x: &super::sampled::Share| {
        format!(
            "{:.1} [{:.1}, {:.1}]",
            x.value * 100.0,
            x.low * 100.0,
            x.high * 100.0
        )
    };
    let _ = writeln!(
        out,
        "  sampled    busy {}  NMI {}  IRQ {}  DMA {}  idle {} % ({} batches)",
        share(&s.classes.busy),
        share(&s.classes.nmi),
        share(&s.classes.irq),
        share(&s.classes.dma),
        share(&s.classes.idle),
        s.batches
    );
    let places = idle_places(outcome);
    if !places.is_empty() {
        let total: u64 = places.iter().map(|p| p.1).sum();
        let list: Vec<String> = places
            .iter()
            .take(3)
            .map(|(p, n)| format!("{} ({:.0} %)", short(p), pct(*n as f64, total as f64)))
            .collect();
        let _ = writeln!(
            out,
            "  idle       waiting in wait loops (for the NMI, a PPU flag or sprite 0) under {}",
            list.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "\nroutines (% of the work: busy + NMI + IRQ cycles; idle and DMA apart)"
    );
    out += &routine_table(&outcome.routines, TEXT_ROUTINES, exact);
    if let Some(p) = &outcome.exact {
        if !p.worst_frames.is_empty() {
            let _ = writeln!(out, "\nworst frames (by work) and what ran in them");
            for wf in p.worst_frames.iter().take(5) {
                let tops: Vec<String> = wf
                    .top_inclusive
                    .iter()
                    .map(|&(r, c)| format!("{} {c}", short(&p.routines.name(r))))
                    .collect();
                let _ = writeln!(
                    out,
                    "  frame {:>7}  work {:>6} ({:>5.1} % of the budget){}  incl: {}",
                    wf.row.frame,
                    wf.work,
                    pct(wf.work as f64, FRAME_BUDGET as f64),
                    if wf.row.lag { "  LAG" } else { "" },
                    tops.join(", ")
                );
            }
        }
    }
    out
}

fn routine_table(rows: &[RoutineRow], limit: usize, exact: bool) -> String {
    let mut out = String::new();
    let width = rows
        .iter()
        .take(limit)
        .map(|r| r.name.chars().count().min(32))
        .max()
        .unwrap_or(7)
        .max(7);
    if exact {
        let _ = writeln!(
            out,
            "  {:<width$}  {:>8} {:>7} {:>7} {:>9} {:>8} {:>9} {:>9}  {:<22}  source",
            "routine",
            "calls",
            "excl %",
            "incl %",
            "avg/call",
            "max/call",
            "p99/frame",
            "max/frame",
            "sampled % [95 %]",
        );
    } else {
        let _ = writeln!(
            out,
            "  {:<width$}  {:<22} {:>10}  source",
            "routine", "sampled % [95 %]", "batches"
        );
    }
    for r in rows.iter().take(limit) {
        let name = short(&r.name);
        let sampled = r
            .sampled
            .map(|s| interval(&s.pct_of_busy))
            .unwrap_or_default();
        let source = cut(r.source.as_deref().unwrap_or(""), 80);
        match (&r.exact, exact) {
            (Some(e), true) => {
                let per_call = e
                    .per_call
                    .map(|p| (format!("{:.0}", p.avg), p.max.to_string()));
                let (avg, max) = per_call.unwrap_or_default();
                let (p99, maxf) = e
                    .per_frame
                    .map(|f| (f.p99.to_string(), f.max.to_string()))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "  {name:<width$}  {:>8} {:>7.2} {:>7.2} {avg:>9} {max:>8} {p99:>9} {maxf:>9}  {sampled:<22}  {source}",
                    e.calls, e.exclusive_pct_of_busy, e.inclusive_pct
                );
            }
            (None, true) => {
                let _ = writeln!(
                    out,
                    "  {name:<width$}  {:>8} {:>7} {:>7} {:>9} {:>8} {:>9} {:>9}  {sampled:<22}  {source}",
                    "", "", "", "", "", "", ""
                );
            }
            (_, false) => {
                let batches = r.sampled.map(|s| s.batches).unwrap_or(0);
                let _ = writeln!(
                    out,
                    "  {name:<width$}  {sampled:<22} {batches:>10}  {source}"
                );
            }
        }
    }
    if rows.len() > limit {
        let _ = writeln!(out, "  ({} more in routines.csv)", rows.len() - limit);
    }
    out
}

/// Colours of the chart's series: the top routines, then other busy work,
/// NMI, IRQ, DMA, idle.
const ROUTINE_COLOURS: [&str; 6] = [
    "#d9534f", "#e08a2c", "#c9b037", "#5cb85c", "#3c9dc8", "#8e6fc8",
];
const OTHER: &str = "#a07050";
const NMI: &str = "#3c5ac8";
const IRQ: &str = "#2aa198";
const DMA: &str = "#777777";
const IDLE: &str = "#e4e4e4";

/// The frame-budget chart as an SVG element: each column the mean frame
/// of its frames, stacked by the top routines' work, other busy work, NMI,
/// IRQ, DMA and idle; a tick at its worst frame's work; the budget line;
/// lag frames marked in red under the axis.
pub fn chart_svg(outcome: &Outcome, name: &dyn Fn(u32) -> String) -> String {
    let chart = &outcome.chart;
    let cols = chart.columns();
    let (w, h, left, bottom) = (960.0_f64, 300.0_f64, 56.0_f64, 34.0_f64);
    let plot_w = w - left - 10.0;
    let plot_h = h - bottom - 10.0;
    let top_value = cols
        .iter()
        .map(|c| {
            c.worst_work
                .max((c.busy + c.nmi + c.irq + c.dma + c.idle) / c.frames.max(1) as f64)
        })
        .fold(FRAME_BUDGET as f64 * 1.1, f64::max);
    let y = |v: f64| 10.0 + plot_h - v / top_value * plot_h;
    let bar_w = plot_w / cols.len().max(1) as f64;
    let tops = chart.top_routines(ROUTINE_COLOURS.len());
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\" aria-label=\"cycles per frame\" font-family=\"sans-serif\" font-size=\"11\">"
    );
    for c in cols {
        let i = (c.first - cols[0].first) as f64 / chart.per_column() as f64;
        let x = left + i * bar_w;
        let n = c.frames.max(1) as f64;
        let mut level = 0.0;
        let mut segment = |s: &mut String, value: f64, colour: &str| {
            if value <= 0.0 {
                return;
            }
            let (y1, y0) = (y(level + value), y(level));
            let _ = write!(
                s,
                "<rect x=\"{x:.2}\" y=\"{y1:.2}\" width=\"{:.2}\" height=\"{:.2}\" fill=\"{colour}\"/>",
                bar_w.max(0.6),
                (y0 - y1).max(0.0)
            );
            level += value;
        };
        let mut busy_left = c.busy + c.nmi + c.irq;
        let mut nmi_left = c.nmi;
        for &(r, cycles) in &c.routines {
            if let Some(k) = tops.iter().position(|&t| t == r) {
                let v = cycles.min(busy_left);
                segment(&mut s, v / n, ROUTINE_COLOURS[k]);
                busy_left -= v;
            }
        }
        // What the top routines did not account for: NMI first (its own
        // colour), the rest as other busy work.
        nmi_left = nmi_left.min(busy_left);
        let irq_left = c.irq.min(busy_left - nmi_left);
        segment(&mut s, (busy_left - nmi_left - irq_left) / n, OTHER);
        segment(&mut s, nmi_left / n, NMI);
        segment(&mut s, irq_left / n, IRQ);
        segment(&mut s, c.dma / n, DMA);
        segment(&mut s, c.idle / n, IDLE);
        if c.frames > 1 {
            let _ = write!(
                s,
                "<rect x=\"{x:.2}\" y=\"{:.2}\" width=\"{:.2}\" height=\"1.2\" fill=\"#000\"/>",
                y(c.worst_work),
                bar_w.max(0.6)
            );
        }
        if c.lag_frames > 0 {
            let _ = write!(
                s,
                "<rect x=\"{x:.2}\" y=\"{:.2}\" width=\"{:.2}\" height=\"5\" fill=\"#d00\"><title>{} lag frame(s) from frame {}</title></rect>",
                10.0 + plot_h + 2.0,
                bar_w.max(1.0),
                c.lag_frames,
                c.first
            );
        }
    }
    // Axes and the budget.
    let by = y(FRAME_BUDGET as f64);
    let _ = write!(
        s,
        "<line x1=\"{left}\" y1=\"{by:.1}\" x2=\"{:.1}\" y2=\"{by:.1}\" stroke=\"#c00\" stroke-dasharray=\"5,3\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"#c00\">budget {FRAME_BUDGET}</text>",
        left + plot_w,
        left + plot_w,
        by - 3.0
    );
    for k in 0..=4 {
        let v = top_value * k as f64 / 4.0;
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{:.0}</text><line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{left}\" y2=\"{:.1}\" stroke=\"#888\"/>",
            left - 6.0,
            y(v) + 4.0,
            v,
            left - 3.0,
            y(v),
            y(v)
        );
    }
    let first = cols.first().map_or(0, |c| c.first);
    let last = cols.last().map_or(0, |c| c.first + c.frames);
    let _ = write!(
        s,
        "<text x=\"{left}\" y=\"{:.1}\">frame {first}</text><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">frame {}</text><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{} frame(s) a column; red marks: lag frames; black ticks: a column's worst frame</text></svg>",
        h - 4.0,
        left + plot_w,
        h - 4.0,
        last.saturating_sub(1),
        left + plot_w / 2.0,
        h - 4.0,
        chart.per_column()
    );
    let mut legend = String::from("<p class=\"legend\">");
    for (k, &r) in tops.iter().enumerate() {
        let _ = write!(
            legend,
            "<span class=\"bar\" style=\"background:{}\"></span> {} &nbsp; ",
            ROUTINE_COLOURS[k],
            escape(&name(r))
        );
    }
    for (colour, label) in [
        (OTHER, "other busy work"),
        (NMI, "NMI handler"),
        (IRQ, "IRQ handlers"),
        (DMA, "DMA"),
        (IDLE, "idle (wait loops)"),
    ] {
        let _ = write!(
            legend,
            "<span class=\"bar\" style=\"background:{colour}\"></span> {label} &nbsp; "
        );
    }
    legend.push_str(
        "<br>A routine's colour is the work of the frames it topped (the routine with the most exclusive cycles in the frame).</p>",
    );
    s + &legend
}

/// report.html's frame-time sections: the chart, the summary, the routine
/// table and the worst frames.
pub fn html(outcome: &Outcome, name: &dyn Fn(u32) -> String, text: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<h2>Frame time</h2>\n<div class=\"wide\">{}</div>",
        chart_svg(outcome, name)
    );
    let summary = text.split("\nroutines").next().unwrap_or_default();
    let _ = writeln!(out, "<pre>{}</pre>", escape(summary.trim_end()));
    let exact = outcome.exact.is_some();
    let _ = writeln!(
        out,
        "<h2>Routines</h2>\n<p>Percent of the work (busy + NMI + IRQ cycles); idle loops and DMA apart. {}</p>\n<div class=\"wide\"><table>",
        if exact {
            "Exact from the engines' events; the sampled column is what the sampler alone estimates, with its 95 % interval."
        } else {
            "Estimated from the sampler alone, with 95 % intervals."
        }
    );
    if exact {
        out.push_str("<tr><th>routine</th><th>calls</th><th>exclusive %</th><th>inclusive %</th><th>avg/call</th><th>min/call</th><th>max/call</th><th>median/frame</th><th>p99/frame</th><th>max/frame</th><th>sampled % [95 %]</th><th>source</th></tr>\n");
    } else {
        out.push_str(
            "<tr><th>routine</th><th>sampled % [95 %]</th><th>cycles</th><th>batches</th><th>source</th></tr>\n",
        );
    }
    for r in outcome.routines.iter().take(HTML_ROUTINES) {
        let sampled = r
            .sampled
            .map(|s| interval(&s.pct_of_busy))
            .unwrap_or_default();
        let source = escape(r.source.as_deref().unwrap_or(""));
        if exact {
            let cells = match &r.exact {
                Some(e) => {
                    let (avg, min, max) = e
                        .per_call
                        .map(|p| {
                            (
                                format!("{:.0}", p.avg),
                                p.min.to_string(),
                                p.max.to_string(),
                            )
                        })
                        .unwrap_or_default();
                    let (med, p99, maxf) = e
                        .per_frame
                        .map(|f| (f.median.to_string(), f.p99.to_string(), f.max.to_string()))
                        .unwrap_or_default();
                    format!(
                        "<td>{}</td><td>{:.2}</td><td>{:.2}</td><td>{avg}</td><td>{min}</td><td>{max}</td><td>{med}</td><td>{p99}</td><td>{maxf}</td>",
                        e.calls, e.exclusive_pct_of_busy, e.inclusive_pct
                    )
                }
                None => "<td></td>".repeat(9),
            };
            let _ = writeln!(
                out,
                "<tr><td>{}</td>{cells}<td>{sampled}</td><td>{source}</td></tr>",
                escape(&r.name)
            );
        } else {
            let (cycles, batches) = r
                .sampled
                .map(|s| (format!("{:.0}", s.cycles.value), s.batches.to_string()))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{sampled}</td><td>{cycles}</td><td>{batches}</td><td>{source}</td></tr>",
                escape(&r.name)
            );
        }
    }
    out.push_str("</table></div>\n");
    if let Some(p) = &outcome.exact {
        if !p.worst_frames.is_empty() {
            out.push_str("<h2>Worst frames</h2>\n<p>The frames with the most work, and the routines that ran most in them (inclusive and exclusive cycles). <code>nesprof trace ROM --movie M --from-frame N --frames 1</code> prints a frame's instructions.</p>\n<div class=\"wide\"><table><tr><th>frame</th><th>work</th><th>% of budget</th><th>lag</th><th>NMI</th><th>idle</th><th>inclusive</th><th>exclusive</th></tr>\n");
            for wf in &p.worst_frames {
                let list = |v: &[(u32, u64)]| {
                    v.iter()
                        .map(|&(r, c)| format!("{} {c}", escape(&p.routines.name(r))))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let e = wf.row.exact.clone().unwrap_or_default();
                let _ = writeln!(
                    out,
                    "<tr><td>{}</td><td>{}</td><td>{:.1}</td><td>{}</td><td>{}</td><td>{}</td><td style=\"text-align:left\">{}</td><td style=\"text-align:left\">{}</td></tr>",
                    wf.row.frame,
                    wf.work,
                    pct(wf.work as f64, FRAME_BUDGET as f64),
                    if wf.row.lag { "lag" } else { "" },
                    e.nmi,
                    e.idle,
                    list(&wf.top_inclusive),
                    list(&wf.top_exclusive)
                );
            }
            out.push_str("</table></div>\n");
        }
    }
    out
}
