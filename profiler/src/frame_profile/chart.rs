//! The frame-budget chart's data: cycles per frame by class (busy, NMI,
//! IRQ, DMA, idle) with the busy part split by the frame's top routine,
//! lag frames marked, for the whole run in bounded memory. A run of any
//! length becomes at most [`MAX_COLUMNS`] columns: when they are all
//! used, neighbours merge pairwise and each column then stands for twice
//! as many frames (a column shows its frames' mean, its worst frame's
//! work and whether any of them lagged), so a 10-hour run costs what a
//! 40-second one does.

use super::rows::FrameRow;

/// Most columns kept.
pub const MAX_COLUMNS: usize = 1024;

/// Top routines remembered per column (the rest of its busy time is
/// "other").
const COLUMN_ROUTINES: usize = 4;

/// Frames `first .. first + frames`, summed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Column {
    pub first: u64,
    pub frames: u64,
    /// Sums over the column's frames (estimates where the frames had only
    /// the sampled side).
    pub busy: f64,
    pub nmi: f64,
    pub irq: f64,
    pub dma: f64,
    pub idle: f64,
    /// Busy + NMI + IRQ of the column's worst frame.
    pub worst_work: f64,
    pub lag_frames: u64,
    /// (routine entry, its work summed over the frames it topped), most
    /// first; part of `busy + nmi + irq`.
    pub routines: Vec<(u32, f64)>,
}

impl Column {
    fn merge(&mut self, other: Column) {
        self.frames += other.frames;
        self.busy += other.busy;
        self.nmi += other.nmi;
        self.irq += other.irq;
        self.dma += other.dma;
        self.idle += other.idle;
        self.worst_work = self.worst_work.max(other.worst_work);
        self.lag_frames += other.lag_frames;
        for (r, c) in other.routines {
            self.add_routine(r, c);
        }
    }

    fn add_routine(&mut self, routine: u32, cycles: f64) {
        match self.routines.iter_mut().find(|(r, _)| *r == routine) {
            Some(slot) => slot.1 += cycles,
            None => self.routines.push((routine, cycles)),
        }
        self.routines
            .sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        self.routines.truncate(COLUMN_ROUTINES);
    }

    /// The mean frame's work (busy + NMI + IRQ).
    pub fn mean_work(&self) -> f64 {
        (self.busy + self.nmi + self.irq) / self.frames.max(1) as f64
    }
}

/// The chart so far (see the module doc).
#[derive(Debug, Clone, PartialEq)]
pub struct FrameChart {
    columns: Vec<Column>,
    /// Frames per complete column.
    per_column: u64,
}

impl Default for FrameChart {
    fn default() -> Self {
        FrameChart {
            columns: Vec::new(),
            per_column: 1,
        }
    }
}

impl FrameChart {
    /// Adds the next frame's row: the exact side where it has one, else
    /// the sampled estimates.
    pub fn push(&mut self, row: &FrameRow) {
        let mut c = Column {
            first: row.frame,
            frames: 1,
            lag_frames: row.lag as u64,
            ..Column::default()
        };
        if let Some(e) = &row.exact {
            c.busy = e.busy as f64;
            c.nmi = e.nmi as f64;
            c.irq = e.irq as f64;
            c.dma = (e.oam_dma + e.dmc_dma) as f64;
            c.idle = e.idle as f64;
            if let Some((r, cycles)) = e.top_routine {
                c.routines.push((r, cycles as f64));
            }
        } else if let Some(s) = &row.sampled {
            c.busy = s.busy.value;
            c.nmi = s.nmi.value;
            c.irq = s.irq.value;
            c.dma = s.dma.value;
            c.idle = s.idle.value;
            if let Some((Some(r), cycles)) = s.top_routine {
                c.routines.push((r, cycles));
            }
        } else {
            c.busy = row.cycles as f64;
        }
        c.worst_work = c.busy + c.nmi + c.irq;
        match self.columns.last_mut() {
            Some(last) if last.frames < self.per_column => last.merge(c),
            _ => {
                if self.columns.len() == MAX_COLUMNS {
                    self.halve();
                    return self.push(row);
                }
                self.columns.push(c);
            }
        }
    }

    /// Merges neighbouring columns pairwise.
    fn halve(&mut self) {
        let old = std::mem::take(&mut self.columns);
        let mut it = old.into_iter();
        while let Some(mut a) = it.next() {
            if let Some(b) = it.next() {
                a.merge(b);
            }
            self.columns.push(a);
        }
        self.per_column *= 2;
    }

    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// Frames per column.
    pub fn per_column(&self) -> u64 {
        self.per_column
    }

    /// The routines that topped the most work over the run, most first.
    pub fn top_routines(&self, k: usize) -> Vec<u32> {
        let mut all: std::collections::BTreeMap<u32, f64> = Default::default();
        for c in &self.columns {
            for &(r, cycles) in &c.routines {
                *all.entry(r).or_default() += cycles;
            }
        }
        let mut v: Vec<(u32, f64)> = all.into_iter().collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        v.into_iter().take(k).map(|(r, _)| r).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame_profile::rows::ExactFrame;

    fn row(frame: u64, busy: u64, lag: bool) -> FrameRow {
        FrameRow {
            frame,
            cycles: 29781,
            lag,
            exact: Some(ExactFrame {
                busy,
                idle: 29781 - busy,
                top_routine: Some((0x8000 + (frame % 3) as u32, busy / 2)),
                ..ExactFrame::default()
            }),
            sampled: None,
        }
    }

    #[test]
    fn columns_stay_bounded_and_keep_every_frame() {
        let mut chart = FrameChart::default();
        let n = MAX_COLUMNS as u64 * 5 + 17;
        let (mut busy_sum, mut busy_max) = (0.0, 0.0_f64);
        for f in 0..n {
            let busy = 1000 + (f * 37) % 20000;
            busy_sum += busy as f64;
            busy_max = busy_max.max(busy as f64);
            chart.push(&row(f, busy, f % 100 == 0));
        }
        assert!(chart.columns().len() <= MAX_COLUMNS);
        assert_eq!(chart.per_column(), 8);
        let frames: u64 = chart.columns().iter().map(|c| c.frames).sum();
        assert_eq!(frames, n);
        let busy: f64 = chart.columns().iter().map(|c| c.busy).sum();
        assert_eq!(busy, busy_sum);
        let lag: u64 = chart.columns().iter().map(|c| c.lag_frames).sum();
        assert_eq!(lag, n.div_ceil(100));
        let worst = chart
            .columns()
            .iter()
            .map(|c| c.worst_work)
            .fold(0.0, f64::max);
        assert_eq!(worst, busy_max);
        // Columns are contiguous.
        let mut next = 0;
        for c in chart.columns() {
            assert_eq!(c.first, next);
            next += c.frames;
        }
        assert_eq!(chart.top_routines(3).len(), 3);
    }
}
