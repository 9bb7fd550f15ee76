//! `sweep.csv`: one row per (workload, configuration) with the parameters and
//! every metric, then per workload one row for the trace builder (builder
//! `trace`, no configuration: id, parameters and bins empty); the columns
//! added since the first version are appended (`hot_precision`, `builder`).
//! `workloads.csv`: one row per workload. Plain RFC 4180 (a
//! field with a comma, quote or newline is quoted), header first, numbers
//! with enough digits to recompute the tables. Timings are not in these files
//! (they vary run to run); the results are deterministic.

use std::fmt::Write as _;

use gfc::Metrics;

use super::run::WorkloadResult;

/// Quotes a text field if it needs it.
pub fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

pub const SWEEP_HEADER: &str = "workload,config_id,bin_size,stdev_threshold,window_size,\
recurrent_threshold,bins,similarity,precision,f1,weighted,overlap,similarity_h99,sampled_pct,\
edges_g,edges_h,edges_h90,edges_h99,common_h,common_h90,hot_precision,builder";

/// Every (workload, config) row, then each workload's trace-builder row.
pub fn sweep_csv(results: &[WorkloadResult]) -> String {
    let mut out = String::from(SWEEP_HEADER);
    out.push('\n');
    for r in results {
        for c in &r.configs {
            let p = &c.params;
            let config = format!(
                "{},{},{},{},{},{}",
                p.id().map_or(String::new(), |i| i.to_string()),
                p.bin_size,
                p.stdev_threshold,
                p.window_size,
                p.recurrent_threshold,
                c.bins
            );
            row(&mut out, r, &config, &c.metrics, "gfc");
        }
        // No configuration: id, parameters and bins empty.
        row(
            &mut out,
            r,
            ",,,,,",
            &r.trace.metrics,
            r.trace.builder.name(),
        );
    }
    out
}

/// One row of `sweep.csv`: the workload, the configuration's cells, every
/// metric, the builder.
fn row(out: &mut String, r: &WorkloadResult, config: &str, m: &Metrics, builder: &str) {
    let _ = writeln!(
        out,
        "{},{config},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{},{},{},{},{},{},{:.6},{builder}",
        field(&r.name),
        m.similarity,
        m.precision,
        m.f1,
        m.weighted,
        m.overlap,
        m.similarity99,
        m.sampled_pct,
        m.edges_g,
        m.edges_h,
        m.edges_h90,
        r.edges_h99,
        m.common_h,
        m.common_h90,
        m.hot_precision,
    );
}

pub const WORKLOADS_HEADER: &str = "workload,rom,frames,frame_hash,executed_instructions,\
sampled_instructions,batches,sampled_pct,truth_blocks,truth_edges,edges_h90,top_edge_pct,edges_h99,busy";

/// One row per workload.
pub fn workloads_csv(results: &[WorkloadResult]) -> String {
    let mut out = String::from(WORKLOADS_HEADER);
    out.push('\n');
    for r in results {
        let _ = writeln!(
            out,
            "{},{},{},{:016x},{},{},{},{:.6},{},{},{},{:.4},{},{}",
            field(&r.name),
            field(&r.rom),
            r.frames,
            r.frame_hash,
            r.executed_instructions,
            r.sampled_instructions,
            r.batches,
            r.sampled_pct(),
            r.truth_blocks,
            r.truth_edges,
            r.edges_h90,
            r.top_edge_pct,
            r.edges_h99,
            r.busy(),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(field("maze"), "maze");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }

    #[test]
    fn headers_have_no_stray_spaces() {
        for h in [SWEEP_HEADER, WORKLOADS_HEADER] {
            assert!(!h.contains(' '), "{h}");
        }
        assert_eq!(SWEEP_HEADER.split(',').count(), 22);
        assert_eq!(WORKLOADS_HEADER.split(',').count(), 14);
    }
}
