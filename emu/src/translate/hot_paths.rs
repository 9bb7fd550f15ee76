//! The hot paths a hot CFG names, as the translator's guided region choice
//! reads them (`run --regions sampled|exact`, issue 47): which blocks head
//! a region, and where the hot path goes after each block.
//!
//! Plain data in code addresses (`code_addr`), built by the caller from a
//! hot CFG (the busy code's, from the trace builder's sampled edge profile
//! or from the truth: `profiler::region_guide`), so that the translator
//! needs no graph type. A CFG's blocks start at the
//! targets of taken transfers, a translator block also after a branch not
//! taken; so edges are kept by the code address of their source block's
//! last instruction, the one a translator block ends with too, and a
//! translator block that ends inside a hot CFG block goes on along it.

use crate::int_hash::IntMap;

/// One hot edge, as [`HotPaths::new`] takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HotEdge {
    /// The code address of the source block's last instruction.
    pub from_last: u32,
    /// The code address of the destination block's entry.
    pub to: u32,
    /// Its transitions (estimated, for a sampled CFG).
    pub count: u64,
}

/// The hot paths of one hot CFG.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HotPaths {
    /// Where regions start: the targets of hot backward edges (loop
    /// headers, where NET puts its counters too). Region exits that land
    /// on hot code become heads as the run goes (`Translator::net_exit`).
    heads: IntMap<u32, ()>,
    /// Per source block's last instruction, where the hot path goes: its
    /// hottest successor if that takes at least half of the block's hot
    /// transitions, else nowhere (`None`: a dispatching `RTS` or `JMP`
    /// indirect, where a check would leave the path as often as not). Only
    /// the choices are kept, so two hot CFGs that choose alike compare
    /// equal and the regions are kept.
    out: IntMap<u32, Option<u32>>,
    /// Every instruction of a hot block (by code address).
    instrs: IntMap<u32, ()>,
}

impl HotPaths {
    /// The hot paths of hot `edges` between blocks whose instructions are
    /// `instrs` (the code addresses of every instruction of every block an
    /// edge touches).
    pub fn new(
        edges: impl IntoIterator<Item = HotEdge>,
        instrs: impl IntoIterator<Item = u32>,
    ) -> HotPaths {
        let mut paths = HotPaths::default();
        let mut out: IntMap<u32, Vec<(u32, u64)>> = IntMap::default();
        for e in edges {
            // Backward (or to itself): a loop's header. Code addresses of
            // one bank compare as their CPU addresses do.
            if e.to <= e.from_last {
                paths.heads.insert(e.to, ());
            }
            out.entry(e.from_last).or_default().push((e.to, e.count));
        }
        for (from, mut targets) in out {
            targets.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            let total: u64 = targets.iter().map(|t| t.1).sum();
            let (to, count) = targets[0];
            let chosen = (count.saturating_mul(2) >= total).then_some(to);
            paths.out.insert(from, chosen);
        }
        paths.instrs = instrs.into_iter().map(|a| (a, ())).collect();
        paths
    }

    /// Whether a region starts at the block entered at `code`.
    pub fn is_head(&self, code: u32) -> bool {
        self.heads.contains_key(&code)
    }

    /// Whether `code` is an instruction of a hot block.
    pub fn is_hot(&self, code: u32) -> bool {
        self.instrs.contains_key(&code)
    }

    /// Where the hot path goes after the block whose last instruction is
    /// at `code`: `None` if no hot CFG block ends there, `Some(None)` if
    /// it goes to no one place.
    pub fn next(&self, code: u32) -> Option<Option<u32>> {
        self.out.get(&code).copied()
    }

    /// How many heads there are.
    pub fn heads(&self) -> usize {
        self.heads.len()
    }

    /// How many blocks' paths go on to one place.
    pub fn paths(&self) -> usize {
        self.out.values().filter(|n| n.is_some()).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backward_targets_are_heads_and_the_hottest_successor_is_chosen() {
        let e = |from_last, to, count| HotEdge {
            from_last,
            to,
            count,
        };
        let paths = HotPaths::new(
            [
                e(0x8010, 0x8012, 10),
                e(0x8010, 0x8000, 90),
                e(0x8020, 0x8030, 5),
                e(0x8040, 0x8050, 5),
                e(0x8040, 0x8060, 4),
                e(0x8040, 0x8070, 3),
            ],
            [0x8000, 0x8010, 0x8012, 0x8020, 0x8030],
        );
        assert!(paths.is_head(0x8000));
        assert!(!paths.is_head(0x8012) && !paths.is_head(0x8030));
        assert_eq!(paths.next(0x8010), Some(Some(0x8000)));
        assert_eq!(paths.next(0x8020), Some(Some(0x8030)));
        // The hottest of three takes less than half: a dispatch.
        assert_eq!(paths.next(0x8040), Some(None));
        assert_eq!(paths.next(0x8000), None);
        assert!(paths.is_hot(0x8012) && !paths.is_hot(0x8011));
        assert_eq!((paths.heads(), paths.paths()), (1, 2));
    }
}
