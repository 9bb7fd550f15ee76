//! The sweep's tables, as Markdown (readable in a terminal, pasteable into
//! EXPERIMENTS.md):
//!
//! - the workloads: length, instructions, sampling rate, truth and hot-truth
//!   sizes (the thesis' table 1 plus the H90/H99 sizes);
//! - per workload the 3 best and 3 worst configurations in the layout of the
//!   thesis' tables 3 and 4 (binSize, stdevThres., windowSize,
//!   recurrentThres., bins, similarity), with precision, weighted, overlap and
//!   our H99 similarity added;
//! - the mean over workloads per configuration, top 10 and bottom 10;
//! - the thesis' best configuration (10, 15, 13, 5) on every workload;
//! - the mean per value of each parameter (to test the thesis' observations).
//!
//! Ranking: by similarity (the thesis' metric), ties broken by our H99
//! similarity, then overlap, then precision, then the lower config id. Many
//! configurations tie on similarity when H90 has one or two edges; the
//! tie-breaks make the order informative and deterministic.

use std::cmp::Ordering;
use std::fmt::Write as _;

use gfc::params::{BIN_SIZES, RECURRENT_THRESHOLDS, STDEV_THRESHOLDS, WINDOW_SIZES};
use gfc::{GfcParams, THESIS_BEST};

use super::run::{ConfigResult, WorkloadResult};

/// A Markdown table under construction.
struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    fn new(header: &[&str]) -> Self {
        Table {
            header: header.iter().map(|s| s.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// A row; each cell's `|` is escaped (`\|`), so a workload name
    /// holding one stays in its column (names cannot hold a newline, see
    /// `workloads::check_name`).
    fn row(&mut self, cells: Vec<String>) {
        self.rows
            .push(cells.into_iter().map(|c| c.replace('|', "\\|")).collect());
    }

    /// Columns padded to equal width so the table also reads as plain text.
    fn render(&self) -> String {
        let mut width: Vec<usize> = self.header.iter().map(|h| h.chars().count()).collect();
        for r in &self.rows {
            for (i, c) in r.iter().enumerate() {
                width[i] = width[i].max(c.chars().count());
            }
        }
        let line = |cells: &[String]| {
            let mut s = String::from("|");
            for (i, c) in cells.iter().enumerate() {
                let pad = width[i] - c.chars().count();
                // Text left, numbers right.
                if c.starts_with(|ch: char| ch.is_ascii_digit() || ch == '-' || ch == '#') {
                    let _ = write!(s, " {}{} |", " ".repeat(pad), c);
                } else {
                    let _ = write!(s, " {}{} |", c, " ".repeat(pad));
                }
            }
            s.push('\n');
            s
        };
        let mut out = line(&self.header);
        out.push('|');
        for w in &width {
            let _ = write!(out, "{}|", "-".repeat(w + 2));
        }
        out.push('\n');
        for r in &self.rows {
            out.push_str(&line(r));
        }
        out
    }
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

fn id(p: &GfcParams) -> String {
    p.id().map_or("off-grid".into(), |i| format!("#{i}"))
}

fn params_cells(p: &GfcParams) -> Vec<String> {
    vec![
        id(p),
        p.bin_size.to_string(),
        p.stdev_threshold.to_string(),
        p.window_size.to_string(),
        p.recurrent_threshold.to_string(),
    ]
}

/// Orders configurations from best to worst (see the module doc).
fn quality(a: &ConfigResult, b: &ConfigResult) -> Ordering {
    b.metrics
        .similarity
        .total_cmp(&a.metrics.similarity)
        .then(b.metrics.similarity99.total_cmp(&a.metrics.similarity99))
        .then(b.metrics.overlap.total_cmp(&a.metrics.overlap))
        .then(b.metrics.precision.total_cmp(&a.metrics.precision))
}

/// The configurations of one workload from best to worst.
pub fn ranked(configs: &[ConfigResult]) -> Vec<&ConfigResult> {
    let mut v: Vec<&ConfigResult> = configs.iter().collect();
    v.sort_by(|a, b| quality(a, b).then(a.params.id().cmp(&b.params.id())));
    v
}

/// The `n` worst from worst up, lower id first among equals (as the best).
pub fn worst(configs: &[ConfigResult], n: usize) -> Vec<&ConfigResult> {
    let mut v: Vec<&ConfigResult> = configs.iter().collect();
    v.sort_by(|a, b| quality(b, a).then(a.params.id().cmp(&b.params.id())));
    v.truncate(n);
    v
}

/// The sweep's headline numbers for one workload (the thesis' table 1 and the
/// sizes of the truth).
pub fn workloads_table(results: &[WorkloadResult]) -> String {
    let mut t = Table::new(&[
        "workload",
        "frames",
        "executed instr.",
        "batches",
        "sampled",
        "truth blocks",
        "truth edges",
        "edges_h90",
        "top edge share",
        "edges_h99 (ours)",
    ]);
    for r in results {
        t.row(vec![
            r.name.clone(),
            r.frames.to_string(),
            r.executed_instructions.to_string(),
            r.batches.to_string(),
            format!("{:.2}%", r.sampled_pct()),
            r.truth_blocks.to_string(),
            r.truth_edges.to_string(),
            r.edges_h90.to_string(),
            format!("{:.1}%", r.top_edge_pct),
            r.edges_h99.to_string(),
        ]);
    }
    t.render()
}

const RESULT_COLUMNS: [&str; 11] = [
    "id",
    "binSize",
    "stdevThres.",
    "windowSize",
    "recurrentThres.",
    "bins",
    "similarity",
    "precision",
    "weighted",
    "overlap",
    "sim. H99 (ours)",
];

fn result_cells(c: &ConfigResult) -> Vec<String> {
    let mut cells = params_cells(&c.params);
    cells.extend([
        c.bins.to_string(),
        pct(c.metrics.similarity),
        pct(c.metrics.precision),
        pct(c.metrics.weighted),
        pct(c.metrics.overlap),
        pct(c.metrics.similarity99),
    ]);
    cells
}

/// Thesis table 3 (best) or 4 (worst): `n` rows per workload.
pub fn best_worst_table(results: &[WorkloadResult], n: usize, best: bool) -> String {
    let mut header = vec!["workload", "edges_h90"];
    header.extend(RESULT_COLUMNS);
    let mut t = Table::new(&header);
    for r in results {
        let picked = if best {
            ranked(&r.configs).into_iter().take(n).collect()
        } else {
            worst(&r.configs, n)
        };
        for c in picked {
            let mut cells = vec![r.name.clone(), r.edges_h90.to_string()];
            cells.extend(result_cells(c));
            t.row(cells);
        }
    }
    t.render()
}

/// Per-configuration means over all workloads.
#[derive(Debug, Clone)]
pub struct ConfigMean {
    pub params: GfcParams,
    pub bins: f64,
    pub similarity: f64,
    pub min_similarity: f64,
    pub precision: f64,
    pub weighted: f64,
    pub overlap: f64,
    pub similarity_h99: f64,
    /// In how many workloads' top-3 list (the thesis' table 3) it appears.
    pub top3: usize,
}

/// The mean per configuration, in config-id order; empty without results.
pub fn config_means(results: &[WorkloadResult]) -> Vec<ConfigMean> {
    let Some(first) = results.first() else {
        return Vec::new();
    };
    let n = results.len() as f64;
    let top3: Vec<Vec<GfcParams>> = results
        .iter()
        .map(|r| {
            ranked(&r.configs)
                .iter()
                .take(3)
                .map(|c| c.params)
                .collect()
        })
        .collect();
    (0..first.configs.len())
        .map(|i| {
            let mean = |f: &dyn Fn(&ConfigResult) -> f64| {
                results.iter().map(|r| f(&r.configs[i])).sum::<f64>() / n
            };
            let params = first.configs[i].params;
            ConfigMean {
                params,
                bins: mean(&|c| c.bins as f64),
                similarity: mean(&|c| c.metrics.similarity),
                min_similarity: results
                    .iter()
                    .map(|r| r.configs[i].metrics.similarity)
                    .fold(f64::INFINITY, f64::min),
                precision: mean(&|c| c.metrics.precision),
                weighted: mean(&|c| c.metrics.weighted),
                overlap: mean(&|c| c.metrics.overlap),
                similarity_h99: mean(&|c| c.metrics.similarity99),
                top3: top3.iter().filter(|t| t.contains(&params)).count(),
            }
        })
        .collect()
}

/// Means from best to worst, ranked as single workloads are.
pub fn ranked_means(means: &[ConfigMean]) -> Vec<&ConfigMean> {
    let mut v: Vec<&ConfigMean> = means.iter().collect();
    v.sort_by(|a, b| {
        b.similarity
            .total_cmp(&a.similarity)
            .then(b.similarity_h99.total_cmp(&a.similarity_h99))
            .then(b.overlap.total_cmp(&a.overlap))
            .then(b.precision.total_cmp(&a.precision))
            .then(a.params.id().cmp(&b.params.id()))
    });
    v
}

fn mean_cells(rank: usize, m: &ConfigMean) -> Vec<String> {
    let mut cells = vec![rank.to_string()];
    cells.extend(params_cells(&m.params));
    cells.extend([
        format!("{:.1}", m.bins),
        pct(m.similarity),
        pct(m.min_similarity),
        pct(m.precision),
        pct(m.weighted),
        pct(m.overlap),
        pct(m.similarity_h99),
        m.top3.to_string(),
    ]);
    cells
}

const MEAN_COLUMNS: [&str; 14] = [
    "rank",
    "id",
    "binSize",
    "stdevThres.",
    "windowSize",
    "recurrentThres.",
    "mean bins",
    "mean similarity",
    "min similarity",
    "mean precision",
    "mean weighted",
    "mean overlap",
    "mean sim. H99 (ours)",
    "in top-3 of",
];

/// The `n` best and `n` worst configurations by mean over workloads.
pub fn means_table(means: &[ConfigMean], n: usize) -> String {
    let ranked = ranked_means(means);
    let mut t = Table::new(&MEAN_COLUMNS);
    let len = ranked.len();
    for (i, m) in ranked.iter().enumerate() {
        if i < n || i + n >= len {
            if len > 2 * n && i == len - n {
                t.row(vec!["...".into(); MEAN_COLUMNS.len()]);
            }
            t.row(mean_cells(i + 1, m));
        }
    }
    t.render()
}

/// Competition rank ("1224" style) of `params` among `configs` by similarity
/// alone: how many configurations did strictly better, plus one.
fn similarity_rank(configs: &[ConfigResult], params: GfcParams) -> Option<usize> {
    let me = configs.iter().find(|c| c.params == params)?;
    Some(
        configs
            .iter()
            .filter(|c| c.metrics.similarity > me.metrics.similarity)
            .count()
            + 1,
    )
}

/// The thesis' best configuration on every workload, and its mean.
pub fn thesis_best_table(results: &[WorkloadResult], means: &[ConfigMean]) -> String {
    let mut t = Table::new(&[
        "workload",
        "edges_h90",
        "bins",
        "similarity",
        "rank by similarity (of 144)",
        "best similarity",
        "precision",
        "weighted",
        "overlap",
        "sim. H99 (ours)",
    ]);
    for r in results {
        let Some(c) = r.configs.iter().find(|c| c.params == THESIS_BEST) else {
            continue;
        };
        let best = r
            .configs
            .iter()
            .map(|c| c.metrics.similarity)
            .fold(0.0, f64::max);
        t.row(vec![
            r.name.clone(),
            r.edges_h90.to_string(),
            c.bins.to_string(),
            pct(c.metrics.similarity),
            similarity_rank(&r.configs, THESIS_BEST).map_or("-".into(), |k| k.to_string()),
            pct(best),
            pct(c.metrics.precision),
            pct(c.metrics.weighted),
            pct(c.metrics.overlap),
            pct(c.metrics.similarity99),
        ]);
    }
    let ranked = ranked_means(means);
    if let Some((i, m)) = ranked
        .iter()
        .enumerate()
        .find(|(_, m)| m.params == THESIS_BEST)
    {
        t.row(vec![
            "mean".into(),
            "".into(),
            format!("{:.1}", m.bins),
            pct(m.similarity),
            format!("{} (by mean)", i + 1),
            "".into(),
            pct(m.precision),
            pct(m.weighted),
            pct(m.overlap),
            pct(m.similarity_h99),
        ]);
    }
    t.render()
}

/// Mean similarity per value of each parameter (over workloads and the other
/// three parameters), and how many of the per-workload top-3 slots each value
/// holds: the thesis' observations in numbers.
pub fn marginals_table(results: &[WorkloadResult]) -> String {
    let mut t = Table::new(&[
        "parameter",
        "value",
        "mean similarity",
        "mean sim. H99 (ours)",
        "mean overlap",
        "top-3 slots",
        "bottom-3 slots",
    ]);
    type Get = fn(&GfcParams) -> u32;
    let params: [(&str, &[u32], Get); 4] = [
        ("binSize", &BIN_SIZES, |p| p.bin_size),
        ("stdevThreshold", &STDEV_THRESHOLDS, |p| p.stdev_threshold),
        ("windowSize", &WINDOW_SIZES, |p| p.window_size),
        ("recurrentThreshold", &RECURRENT_THRESHOLDS, |p| {
            p.recurrent_threshold
        }),
    ];
    for (name, values, get) in params {
        for &v in values {
            let (mut s, mut h99, mut ov, mut n) = (0.0, 0.0, 0.0, 0usize);
            let (mut top, mut bottom) = (0usize, 0usize);
            for r in results {
                for c in r.configs.iter().filter(|c| get(&c.params) == v) {
                    s += c.metrics.similarity;
                    h99 += c.metrics.similarity99;
                    ov += c.metrics.overlap;
                    n += 1;
                }
                top += ranked(&r.configs)
                    .iter()
                    .take(3)
                    .filter(|c| get(&c.params) == v)
                    .count();
                bottom += worst(&r.configs, 3)
                    .iter()
                    .filter(|c| get(&c.params) == v)
                    .count();
            }
            let n = n.max(1) as f64;
            t.row(vec![
                name.to_string(),
                v.to_string(),
                pct(s / n),
                pct(h99 / n),
                pct(ov / n),
                top.to_string(),
                bottom.to_string(),
            ]);
        }
    }
    t.render()
}

/// The builders side by side per workload: GFCGaussiano at the thesis'
/// best configuration and the trace builder, busy workloads first.
pub fn builders_table(results: &[WorkloadResult]) -> String {
    let mut t = Table::new(&[
        "workload",
        "kind",
        "edges_h90",
        "top edge",
        "gfc sim.",
        "gfc hot prec.",
        "gfc overlap",
        "trace sim.",
        "trace hot prec.",
        "trace prec.",
        "trace overlap",
        "trace sim. H99",
    ]);
    let mut order: Vec<&WorkloadResult> = results.iter().collect();
    order.sort_by_key(|r| !r.busy());
    for r in order {
        let gfc = r.configs.iter().find(|c| c.params == THESIS_BEST);
        let cell = |f: &dyn Fn(&ConfigResult) -> f64| gfc.map_or("-".into(), |c| pct(f(c)));
        let m = &r.trace.metrics;
        t.row(vec![
            r.name.clone(),
            if r.busy() { "busy" } else { "degenerate" }.into(),
            r.edges_h90.to_string(),
            format!("{:.1}%", r.top_edge_pct),
            cell(&|c| c.metrics.similarity),
            cell(&|c| c.metrics.hot_precision),
            cell(&|c| c.metrics.overlap),
            pct(m.similarity),
            pct(m.hot_precision),
            pct(m.precision),
            pct(m.overlap),
            pct(m.similarity99),
        ]);
    }
    t.render()
}

/// Means over the busy and over the degenerate workloads of each builder's
/// similarity, hot precision and overlap (GFCGaussiano at the thesis' best
/// configuration): (kind, workloads, gfc (sim, hot prec, overlap), trace
/// (sim, hot prec, overlap)).
pub type GroupMeans = (&'static str, usize, [f64; 3], [f64; 3]);

pub fn group_means(results: &[WorkloadResult]) -> Vec<GroupMeans> {
    let mut out = Vec::new();
    for (kind, busy) in [("busy", true), ("degenerate", false)] {
        let group: Vec<&WorkloadResult> = results.iter().filter(|r| r.busy() == busy).collect();
        if group.is_empty() {
            continue;
        }
        let n = group.len() as f64;
        let mut gfc = [0.0; 3];
        let mut trace = [0.0; 3];
        for r in &group {
            if let Some(c) = r.configs.iter().find(|c| c.params == THESIS_BEST) {
                gfc[0] += c.metrics.similarity / n;
                gfc[1] += c.metrics.hot_precision / n;
                gfc[2] += c.metrics.overlap / n;
            }
            let m = &r.trace.metrics;
            trace[0] += m.similarity / n;
            trace[1] += m.hot_precision / n;
            trace[2] += m.overlap / n;
        }
        out.push((kind, group.len(), gfc, trace));
    }
    out
}

fn group_table(results: &[WorkloadResult]) -> String {
    let mut t = Table::new(&[
        "workloads",
        "n",
        "gfc sim.",
        "gfc hot prec.",
        "gfc overlap",
        "trace sim.",
        "trace hot prec.",
        "trace overlap",
    ]);
    for (kind, n, g, tr) in group_means(results) {
        t.row(vec![
            kind.to_string(),
            n.to_string(),
            pct(g[0]),
            pct(g[1]),
            pct(g[2]),
            pct(tr[0]),
            pct(tr[1]),
            pct(tr[2]),
        ]);
    }
    t.render()
}

/// Every table, with headings and a legend: what `sweep` prints and writes
/// to `tables.md`. `interrupted`: the workloads a signal stopped before
/// they finished (not in `results`), named in a note at the top.
pub fn report(results: &[WorkloadResult], interrupted: &[&str]) -> String {
    let means = config_means(results);
    let mut out = String::new();
    let _ = writeln!(out, "# nesprof sweep\n");
    if !interrupted.is_empty() {
        let names: Vec<String> = interrupted
            .iter()
            .map(|n| format!("`{}`", n.replace('`', "'")))
            .collect();
        let _ = writeln!(
            out,
            "**Interrupted**: a signal stopped this sweep before {} of its workloads finished; \
             they are not in these tables: {}.\n",
            interrupted.len(),
            names.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "similarity = |E(G) ∩ E(H90)| / |E(H90)| (the thesis' metric); precision, weighted, \
         overlap as defined in docs/metrics.md; sim. H99 (ours, not the thesis') = the same \
         similarity against H99, the edges covering 99% of transitions, because H90 is often \
         only the idle loop. Ranking: similarity, then sim. H99, overlap, precision, lower id.\n"
    );
    let _ = writeln!(out, "## Workloads\n\n{}", workloads_table(results));
    let _ = writeln!(
        out,
        "## Builders: GFCGaussiano at {THESIS_BEST} and the trace builder\n\n\
         A workload is busy when its H90 has at least {} edges; on a degenerate one H90 is \
         the idle loop and a few edges around it, which any builder finds. hot prec. = \
         |E(G) ∩ E(H95)| / |E(G)|; the trace builder's overlap is over its edge profile.\n\n{}\n{}",
        super::run::BUSY_H90_EDGES,
        group_table(results),
        builders_table(results)
    );
    let _ = writeln!(
        out,
        "## Best 3 configurations per workload (thesis table 3)\n\n{}",
        best_worst_table(results, 3, true)
    );
    let _ = writeln!(
        out,
        "## Worst 3 configurations per workload (thesis table 4)\n\n{}",
        best_worst_table(results, 3, false)
    );
    if !means.is_empty() {
        let _ = writeln!(
            out,
            "## Mean over {} workloads per configuration: top 10 and bottom 10\n\n{}",
            results.len(),
            means_table(&means, 10)
        );
        let _ = writeln!(
            out,
            "## The thesis' best configuration {THESIS_BEST}\n\n{}",
            thesis_best_table(results, &means)
        );
        let _ = writeln!(
            out,
            "## Mean per parameter value (over workloads and the other parameters)\n\n{}",
            marginals_table(results)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `|` in a workload name stays in its cell: every row of a table
    /// has as many unescaped column separators as its header. An
    /// interrupted sweep says so, naming what is missing.
    #[test]
    fn odd_names_keep_the_tables_whole_and_interruptions_are_noted() {
        let configs: Vec<GfcParams> = GfcParams::grid().step_by(5).collect();
        let (_, outcome) = crate::sweep::run::testing::tiny(&configs);
        let mut r = outcome.results[0].clone();
        r.name = "Pac-Man | (J) `v1`".into();
        let text = report(&[r], &["later", "never"]);
        assert!(text.contains(
            "**Interrupted**: a signal stopped this sweep before 2 of its workloads finished; \
             they are not in these tables: `later`, `never`."
        ));
        let separators = |line: &str| line.replace("\\|", "").matches('|').count();
        let mut tables = 0;
        let mut header = None;
        for line in text.lines() {
            if !line.starts_with('|') {
                header = None;
                continue;
            }
            let n = separators(line);
            match header {
                None => {
                    header = Some(n);
                    tables += 1;
                }
                Some(h) => assert_eq!(n, h, "{line}"),
            }
            if line.contains("Pac-Man") {
                assert!(line.contains("Pac-Man \\| (J) `v1`"), "{line}");
            }
        }
        assert!(tables >= 6, "{tables} tables");
        assert!(!report(&outcome.results, &[]).contains("Interrupted"));
    }
}
