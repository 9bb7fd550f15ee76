//! The rows of `frames.csv` and `routines.csv` as plain data: an exact
//! part (this accounting's) and a sampled part (the sampler-only
//! estimates', filled by whoever joins them), either of which may be
//! missing — a run without the truth has no exact part, a routine the
//! sampler never saw no sampled one. Rows are joined by frame number and
//! by routine entry ([`join_routines`]); `csv.rs` writes them.

use super::vblank::Vblank;

/// An estimate with its 95 % interval.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Estimate {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

/// One frame.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameRow {
    /// The movie's frame number (0-based: the frame that reads input line
    /// `frame`).
    pub frame: u64,
    /// CPU cycles of the frame (of the window, for a window's first frame
    /// when it starts mid-frame).
    pub cycles: u64,
    /// No read of $4016/$4017 in the frame (FCEUX's lag frame).
    pub lag: bool,
    pub exact: Option<ExactFrame>,
    pub sampled: Option<SampledFrame>,
}

/// A frame's exact accounting. `busy + idle + nmi + irq + oam_dma +
/// dmc_dma` is the frame's cycles.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExactFrame {
    /// Work outside the interrupt handlers.
    pub busy: u64,
    /// Complete wait-loop iterations (in or out of handlers).
    pub idle: u64,
    /// Work while the innermost handler on the stack is the NMI's.
    pub nmi: u64,
    /// Work while the innermost handler on the stack is an IRQ's.
    pub irq: u64,
    pub oam_dma: u64,
    pub dmc_dma: u64,
    /// Cycles with an NMI handler on the stack, whatever they went to
    /// (its wait loops, its DMA, IRQs nested in it included): the
    /// handler's running time in the frame.
    pub nmi_handler_cycles: u64,
    /// The vblank at the frame's start (`None` where the frame has none
    /// known: the first after power-on or of a window begun mid-frame).
    pub vblank: Option<Vblank>,
    /// The routine with the most exclusive work in the frame (the lowest
    /// entry of those tied), and that work.
    pub top_routine: Option<(u32, u64)>,
}

impl ExactFrame {
    /// Non-idle, non-DMA cycles: busy + NMI + IRQ.
    pub fn work(&self) -> u64 {
        self.busy + self.nmi + self.irq
    }

    /// All the frame's cycles.
    pub fn total(&self) -> u64 {
        self.work() + self.idle + self.oam_dma + self.dmc_dma
    }
}

/// A frame's sampled estimates (`frame_profile::sampled::FrameEstimate`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SampledFrame {
    /// Batches with observations in the frame.
    pub batches: u32,
    pub busy: Estimate,
    pub idle: Estimate,
    pub nmi: Estimate,
    pub irq: Estimate,
    pub dma: Estimate,
    /// The routine with the most sampled work (`None` inside: code outside
    /// every routine) and its estimated cycles.
    pub top_routine: Option<(Option<u32>, f64)>,
}

/// One routine.
#[derive(Debug, Clone, PartialEq)]
pub struct RoutineRow {
    /// The routine's entry code address; `None` for code outside every
    /// routine (a sampled-side row).
    pub entry: Option<u32>,
    /// Its name (`Routines::name`).
    pub name: String,
    /// The source `file:line` of its entry.
    pub source: Option<String>,
    pub exact: Option<ExactRoutine>,
    pub sampled: Option<SampledRoutine>,
}

/// A routine's exact accounting. "Busy" in the percentages is all the
/// work, busy + NMI + IRQ (the non-idle, non-DMA cycles), so that the
/// exclusive shares of all routines add up to 100 %.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ExactRoutine {
    /// Activations entered in the window (calls, tail calls, dispatches,
    /// interrupts).
    pub calls: u64,
    /// Work with the routine on top of the stack.
    pub exclusive_cycles: u64,
    pub exclusive_pct_of_busy: f64,
    /// Work with the routine anywhere on the stack above the innermost
    /// interrupt root (each cycle once, however often it recurs).
    pub inclusive_cycles: u64,
    pub inclusive_pct: f64,
    /// Per activation that began and ended in the window.
    pub per_call: Option<PerCall>,
    /// Frames with work under the routine.
    pub frames: u64,
    /// Its inclusive work per frame over those frames.
    pub per_frame: Option<PerFrame>,
}

/// Inclusive work per call, over complete activations.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PerCall {
    pub calls: u64,
    pub avg: f64,
    pub min: u64,
    pub max: u64,
}

/// Inclusive work per frame (median and 99th percentile at 16 cycles'
/// resolution, `histogram.rs`; the maximum exact).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PerFrame {
    pub median: u64,
    pub p99: u64,
    pub max: u64,
}

/// A routine's sampled estimates (`frame_profile::sampled::RoutineEstimate`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SampledRoutine {
    /// Its share of the work, in percent, with the interval.
    pub pct_of_busy: Estimate,
    /// Its estimated work cycles.
    pub cycles: Estimate,
    /// Batches it was seen in.
    pub batches: u64,
}

/// One table of both sides' routine rows: rows with the same entry are
/// merged (the exact row's name and source kept), then sorted by exact
/// exclusive cycles, then sampled share, both descending, then entry.
pub fn join_routines(exact: Vec<RoutineRow>, sampled: Vec<RoutineRow>) -> Vec<RoutineRow> {
    let mut rows = exact;
    let mut at: std::collections::HashMap<Option<u32>, usize> =
        rows.iter().enumerate().map(|(i, r)| (r.entry, i)).collect();
    for s in sampled {
        match at.get(&s.entry).map(|&i| &mut rows[i]) {
            Some(r) => {
                r.sampled = s.sampled;
                if r.source.is_none() {
                    r.source = s.source;
                }
            }
            None => {
                at.insert(s.entry, rows.len());
                rows.push(s);
            }
        }
    }
    rows.sort_by(|a, b| {
        let exclusive = |r: &RoutineRow| r.exact.as_ref().map_or(0, |e| e.exclusive_cycles);
        let share = |r: &RoutineRow| r.sampled.map_or(0.0, |s| s.pct_of_busy.value);
        exclusive(b)
            .cmp(&exclusive(a))
            .then(share(b).total_cmp(&share(a)))
            .then(a.entry.cmp(&b.entry))
    });
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(entry: Option<u32>, exclusive: Option<u64>, share: Option<f64>) -> RoutineRow {
        RoutineRow {
            entry,
            name: format!("{entry:?}"),
            source: None,
            exact: exclusive.map(|e| ExactRoutine {
                exclusive_cycles: e,
                ..ExactRoutine::default()
            }),
            sampled: share.map(|s| SampledRoutine {
                pct_of_busy: Estimate {
                    value: s,
                    low: s - 1.0,
                    high: s + 1.0,
                },
                ..SampledRoutine::default()
            }),
        }
    }

    #[test]
    fn rows_join_by_entry() {
        let exact = vec![row(Some(1), Some(10), None), row(Some(2), Some(30), None)];
        let sampled = vec![
            row(Some(2), None, Some(60.0)),
            row(None, None, Some(5.0)),
            row(Some(3), None, Some(7.0)),
        ];
        let rows = join_routines(exact, sampled);
        let order: Vec<_> = rows.iter().map(|r| r.entry).collect();
        assert_eq!(order, vec![Some(2), Some(1), Some(3), None]);
        assert!(rows[0].exact.is_some() && rows[0].sampled.is_some());
        assert!(rows[1].sampled.is_none());
        assert!(rows[2].exact.is_none());
    }
}
