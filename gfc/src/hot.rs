//! Hot-subgraph extraction: H90 of DESIGN.md "Ground truth", generalised to
//! any fraction.
//!
//! Thesis 5.2: the hot instrumented graph "é composto apenas pelas arestas (e
//! seus blocos básicos) com maior número de transições e que a soma destas
//! transições correspondem a 90% do total" — the edges with most transitions
//! (and their blocks) whose counts add up to 90% of all transitions.

use crate::cfg::{Cfg, Edge};

/// The share of all transitions a hot subgraph must cover, as an exact
/// fraction so that "90% of 10 transitions" is exactly 9, not 9.000000000000002.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HotFraction {
    num: u64,
    den: u64,
}

impl HotFraction {
    /// 90%, the thesis' and DESIGN.md's choice.
    pub const H90: HotFraction = HotFraction { num: 9, den: 10 };

    /// `num / den`; `den` must be non-zero. Fractions above 1 select every
    /// edge with a non-zero count.
    pub fn new(num: u64, den: u64) -> Option<Self> {
        (den != 0).then_some(HotFraction { num, den })
    }

    /// `percent`%.
    pub fn percent(percent: u64) -> Self {
        HotFraction {
            num: percent,
            den: 100,
        }
    }

    fn reached(&self, prefix: u64, total: u64) -> bool {
        prefix as u128 * self.den as u128 >= total as u128 * self.num as u128
    }
}

/// The hot subgraph: edges sorted by count descending, ties by (src, dst)
/// ascending; the shortest prefix whose counts reach `fraction` of the sum of
/// all edge counts; those edges (with their counts) and the block records of
/// their endpoints. Interrupt counts are not edges and are not carried over.
///
/// A graph with no transitions yields an empty graph (the empty prefix
/// already reaches any fraction of 0).
pub fn hot_subgraph(cfg: &Cfg, fraction: HotFraction) -> Cfg {
    let edges = hottest_first(cfg);
    let total = cfg.total_transitions();
    let mut hot = Cfg::new();
    let mut prefix = 0u64;
    for e in edges {
        if fraction.reached(prefix, total) || e.count == 0 {
            break;
        }
        prefix = prefix.saturating_add(e.count);
        copy_edge(&mut hot, cfg, e);
    }
    hot
}

/// `cfg`'s edges by count, descending, ties by (src, dst) ascending: the
/// order hot subgraphs are cut from.
pub(crate) fn hottest_first(cfg: &Cfg) -> Vec<Edge> {
    let mut edges = cfg.edges();
    edges.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then(a.src.cmp(&b.src))
            .then(a.dst.cmp(&b.dst))
    });
    edges
}

/// Adds edge `e` of `from` to `to`, with the block records of its ends.
pub(crate) fn copy_edge(to: &mut Cfg, from: &Cfg, e: Edge) {
    for entry in [e.src, e.dst] {
        if to.block(entry).is_none() {
            if let Some(b) = from.block(entry) {
                to.insert_block(b.clone());
            }
        }
    }
    to.set_edge(e.src, e.dst, e.count);
}

/// H90: [`hot_subgraph`] at 90%.
pub fn h90(cfg: &Cfg) -> Cfg {
    hot_subgraph(cfg, HotFraction::H90)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::{Block, Edge};

    fn graph(edges: &[(u32, u32, u64)]) -> Cfg {
        let mut g = Cfg::new();
        for &(s, d, c) in edges {
            for a in [s, d] {
                if g.block(a).is_none() {
                    g.insert_block(Block::new(a, 1));
                }
            }
            g.add_edge(s, d, c);
        }
        g
    }

    fn pairs(g: &Cfg) -> Vec<(u32, u32)> {
        g.edges().iter().map(|e| (e.src, e.dst)).collect()
    }

    #[test]
    fn exact_ninety_percent_stops_there() {
        // Total 10; 5+4 = 9 = 90% exactly → two edges, not three.
        let g = graph(&[(1, 2, 5), (2, 3, 4), (3, 1, 1)]);
        let h = h90(&g);
        assert_eq!(pairs(&h), vec![(1, 2), (2, 3)]);
        assert_eq!(h.edge(1, 2), Some(5));
        assert_eq!(
            h.blocks().map(|b| b.entry).collect::<Vec<_>>(),
            vec![1, 2, 3]
        );
    }

    #[test]
    fn ties_break_by_src_then_dst() {
        // Total 40; needs 36. Sorted: (1,9,10) (2,3,10) (2,5,10) (7,1,10).
        // Prefix 10, 20, 30 < 36, then 40 → all four; with 80% (32) also all
        // four; with 50% (20) the first two by (src,dst).
        let g = graph(&[(7, 1, 10), (2, 5, 10), (2, 3, 10), (1, 9, 10)]);
        assert_eq!(pairs(&h90(&g)).len(), 4);
        let half = hot_subgraph(&g, HotFraction::percent(50));
        assert_eq!(pairs(&half), vec![(1, 9), (2, 3)]);
        let quarter = hot_subgraph(&g, HotFraction::new(1, 4).unwrap());
        assert_eq!(pairs(&quarter), vec![(1, 9)]);
        // The block at 5 is not an endpoint of a kept edge.
        assert!(half.block(5).is_none());
    }

    #[test]
    fn heavy_edge_alone_can_be_enough() {
        let g = graph(&[(1, 1, 95), (1, 2, 3), (2, 1, 2)]);
        assert_eq!(
            h90(&g).edges(),
            vec![Edge {
                src: 1,
                dst: 1,
                count: 95
            }]
        );
    }

    #[test]
    fn empty_and_zero_count_graphs() {
        assert_eq!(h90(&Cfg::new()).num_edges(), 0);
        let g = graph(&[(1, 2, 0)]);
        assert_eq!(h90(&g).num_edges(), 0);
        // Above 100%: everything with a count.
        let g = graph(&[(1, 2, 3), (2, 1, 0)]);
        let all = hot_subgraph(&g, HotFraction::percent(150));
        assert_eq!(pairs(&all), vec![(1, 2)]);
        assert!(HotFraction::new(1, 0).is_none());
    }
}
