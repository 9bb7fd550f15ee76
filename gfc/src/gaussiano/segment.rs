//! Splitting a batch into flow segments around hardware interrupts.
//!
//! DESIGN.md: asynchronous NMI/IRQ entries and the RTI returning from them are
//! not edges; the interrupted flow continues after the RTI as if
//! uninterrupted. The thesis knows nothing of this (its sampler logged a raw
//! PC stream), so the rule is applied before GFCGaussiano sees a batch:
//!
//! - each `Flow::Interrupt` marker opens a handler segment (the marker itself
//!   is not an instruction and belongs to no segment; the caller counts it);
//! - the RTI ending that handler is the handler segment's last instruction,
//!   after which the interrupted segment resumes — its samples before and
//!   after the handler are one contiguous segment, the handler excised;
//! - a BRK is a synchronous call: it stays in its flow, and the next RTI of
//!   the same flow returns from it as an ordinary control transfer;
//! - an RTI with no open interrupt in this batch (the batch began inside a
//!   handler) closes everything before it as a segment of its own and starts
//!   a fresh one, since what preceded it was handler code;
//! - nested interrupts nest segments.
//!
//! Segments are listed in order of their first sample, so the main flow of a
//! batch is processed before the handlers it was interrupted by.

use crate::sample::{Addr, Flow, Sample};
use std::ops::Range;

#[derive(Debug, Default)]
struct OpenSegment {
    samples: Vec<Sample>,
    first: usize,
    /// BRKs in this flow still awaiting their RTI.
    pending_brk: u32,
}

/// Reusable segmenter: after `split`, `segments()` yields each segment.
#[derive(Debug, Default)]
pub struct Segmenter {
    stack: Vec<OpenSegment>,
    depth: usize,
    flat: Vec<Sample>,
    ranges: Vec<(usize, Range<usize>)>,
}

impl Segmenter {
    /// An empty segmenter.
    pub fn new() -> Self {
        Self::default()
    }

    /// Splits `batch`; `on_interrupt` is called with each interrupt's handler
    /// entry, in batch order.
    pub fn split(&mut self, batch: &[Sample], mut on_interrupt: impl FnMut(Addr)) {
        self.flat.clear();
        self.ranges.clear();
        self.depth = 0;
        self.push_segment();
        for (i, s) in batch.iter().enumerate() {
            match s.flow {
                Flow::Interrupt => {
                    on_interrupt(s.pc);
                    self.push_segment();
                }
                Flow::ReturnInterrupt => {
                    let top = self.top(i);
                    top.samples.push(*s);
                    if top.pending_brk > 0 {
                        top.pending_brk -= 1;
                    } else {
                        self.close_top();
                        if self.depth == 0 {
                            self.push_segment();
                        }
                    }
                }
                Flow::Break => {
                    let top = self.top(i);
                    top.samples.push(*s);
                    top.pending_brk = top.pending_brk.saturating_add(1);
                }
                _ => self.top(i).samples.push(*s),
            }
        }
        while self.depth > 0 {
            self.close_top();
        }
        self.ranges.sort_by_key(|(first, _)| *first);
    }

    /// The segments of the last split, in order of their first sample.
    pub fn segments(&self) -> impl Iterator<Item = &[Sample]> + '_ {
        self.ranges.iter().map(|(_, r)| &self.flat[r.clone()])
    }

    /// Number of segments of the last split.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Whether the last split produced no segment (an empty batch, or one of
    /// interrupt markers only).
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The segment at `k` (in `segments()` order).
    pub fn segment(&self, k: usize) -> &[Sample] {
        &self.flat[self.ranges[k].1.clone()]
    }

    fn push_segment(&mut self) {
        if self.stack.len() == self.depth {
            self.stack.push(OpenSegment::default());
        }
        let seg = &mut self.stack[self.depth];
        seg.samples.clear();
        seg.first = usize::MAX;
        seg.pending_brk = 0;
        self.depth += 1;
    }

    /// The innermost open segment, noting `i` as its first sample if empty.
    fn top(&mut self, i: usize) -> &mut OpenSegment {
        let seg = &mut self.stack[self.depth - 1];
        if seg.samples.is_empty() {
            seg.first = i;
        }
        seg
    }

    fn close_top(&mut self) {
        self.depth -= 1;
        let seg = &mut self.stack[self.depth];
        if !seg.samples.is_empty() {
            let start = self.flat.len();
            self.flat.extend_from_slice(&seg.samples);
            self.ranges.push((seg.first, start..self.flat.len()));
            seg.samples.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pcs(seg: &[Sample]) -> Vec<Addr> {
        seg.iter().map(|s| s.pc).collect()
    }

    fn split(batch: &[Sample]) -> (Vec<Vec<Addr>>, Vec<Addr>) {
        let mut s = Segmenter::new();
        let mut handlers = Vec::new();
        s.split(batch, |h| handlers.push(h));
        (s.segments().map(pcs).collect(), handlers)
    }

    #[test]
    fn no_interrupt_is_one_segment() {
        let b = [Sample::plain(1, 1), Sample::plain(2, 1)];
        assert_eq!(split(&b), (vec![vec![1, 2]], vec![]));
        assert_eq!(split(&[]), (vec![], vec![]));
    }

    #[test]
    fn handler_is_excised_and_main_flow_rejoined() {
        let b = [
            Sample::plain(0x8000, 1),
            Sample::interrupt(0xC000),
            Sample::plain(0xC000, 1),
            Sample::control(0xC001, 1, Flow::ReturnInterrupt, 0x8001),
            Sample::plain(0x8001, 1),
        ];
        let (segs, handlers) = split(&b);
        assert_eq!(segs, vec![vec![0x8000, 0x8001], vec![0xC000, 0xC001]]);
        assert_eq!(handlers, vec![0xC000]);
    }

    #[test]
    fn nested_interrupts_and_unfinished_handler() {
        let b = [
            Sample::plain(0x8000, 1),
            Sample::interrupt(0xC000),
            Sample::plain(0xC000, 1),
            Sample::interrupt(0xD000),
            Sample::plain(0xD000, 1),
            Sample::control(0xD001, 1, Flow::ReturnInterrupt, 0xC001),
            Sample::plain(0xC001, 1),
        ];
        let (segs, handlers) = split(&b);
        assert_eq!(
            segs,
            vec![vec![0x8000], vec![0xC000, 0xC001], vec![0xD000, 0xD001]]
        );
        assert_eq!(handlers, vec![0xC000, 0xD000]);
    }

    #[test]
    fn brk_rti_stays_in_flow() {
        let b = [
            Sample::control(0x8000, 2, Flow::Break, 0xE000),
            Sample::control(0xE000, 1, Flow::ReturnInterrupt, 0x8002),
            Sample::plain(0x8002, 1),
        ];
        assert_eq!(split(&b).0, vec![vec![0x8000, 0xE000, 0x8002]]);
    }

    #[test]
    fn batch_starting_inside_a_handler() {
        let b = [
            Sample::plain(0xC010, 1),
            Sample::control(0xC011, 1, Flow::ReturnInterrupt, 0x8005),
            Sample::plain(0x8005, 1),
        ];
        assert_eq!(split(&b).0, vec![vec![0xC010, 0xC011], vec![0x8005]]);
    }

    #[test]
    fn markers_only() {
        let mut s = Segmenter::new();
        s.split(&[Sample::interrupt(5), Sample::interrupt(6)], |_| {});
        assert!(s.is_empty());
    }
}
