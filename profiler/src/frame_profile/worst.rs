//! The worst frames of a run: the K frames with the most work (the busy,
//! NMI and IRQ cycles: what the frame's code did, its waiting and DMA
//! aside), each with the routines that ran most in it, for the report's
//! "what ran in the worst frames". Bounded: K frames of [`TOP_ROUTINES`] routines
//! twice, whatever the run's length.

use super::rows::FrameRow;

/// Frames kept.
pub const WORST_FRAMES: usize = 10;

/// Routines kept per worst frame, by inclusive and by exclusive work.
pub const TOP_ROUTINES: usize = 5;

/// One of the worst frames.
#[derive(Debug, Clone, PartialEq)]
pub struct WorstFrame {
    pub row: FrameRow,
    /// Its work (busy + NMI + IRQ cycles).
    pub work: u64,
    /// (routine entry, cycles), most first, ties by entry.
    pub top_inclusive: Vec<(u32, u64)>,
    pub top_exclusive: Vec<(u32, u64)>,
}

/// The K worst frames so far, worst first (an earlier frame before a
/// later one of equal work).
#[derive(Debug, Clone, Default)]
pub(crate) struct WorstFrames {
    frames: Vec<WorstFrame>,
}

impl WorstFrames {
    /// Whether a frame with `work` would be kept.
    pub fn qualifies(&self, work: u64) -> bool {
        self.frames.len() < WORST_FRAMES || self.frames.last().is_some_and(|w| work > w.work)
    }

    /// Keeps `frame` if it qualifies.
    pub fn offer(&mut self, frame: WorstFrame) {
        if !self.qualifies(frame.work) {
            return;
        }
        let at = self.frames.partition_point(|w| w.work >= frame.work);
        self.frames.insert(at, frame);
        self.frames.truncate(WORST_FRAMES);
    }

    pub fn into_vec(self) -> Vec<WorstFrame> {
        self.frames
    }
}

/// The `TOP_ROUTINES` largest of `(entry, cycles)`, most first, ties by
/// entry, zeros left out.
pub(crate) fn top(mut all: Vec<(u32, u64)>) -> Vec<(u32, u64)> {
    all.retain(|&(_, c)| c > 0);
    all.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    all.truncate(TOP_ROUTINES);
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(n: u64, work: u64) -> WorstFrame {
        WorstFrame {
            row: FrameRow {
                frame: n,
                cycles: 29_781,
                lag: false,
                exact: None,
                sampled: None,
            },
            work,
            top_inclusive: vec![],
            top_exclusive: vec![],
        }
    }

    #[test]
    fn keeps_the_k_worst_earliest_first_on_ties() {
        let mut w = WorstFrames::default();
        for n in 0..100u64 {
            w.offer(frame(n, (n * 37) % 50));
        }
        let kept = w.into_vec();
        assert_eq!(kept.len(), WORST_FRAMES);
        let works: Vec<u64> = kept.iter().map(|f| f.work).collect();
        assert_eq!(works, vec![49, 49, 48, 48, 47, 47, 46, 46, 45, 45]);
        // n*37 % 50 == 49 for n = 27 and 77: the earlier first.
        assert_eq!((kept[0].row.frame, kept[1].row.frame), (27, 77));
    }

    #[test]
    fn top_routines_by_cycles_then_entry() {
        let t = top(vec![
            (5, 10),
            (1, 10),
            (2, 0),
            (3, 30),
            (4, 1),
            (6, 2),
            (7, 3),
        ]);
        assert_eq!(t, vec![(3, 30), (1, 10), (5, 10), (7, 3), (6, 2)]);
    }
}
