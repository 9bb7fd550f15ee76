//! The control-flow graph type shared by the sampled (GFCGaussiano) and the
//! ground-truth (instrumented) graphs. Its file form (a versioned record
//! with the ROM it came from) is the profiler's `cfg_file`.
//!
//! Plain data: blocks keyed by entry address, directed edges keyed by
//! (src entry, dst entry) carrying transition counts, and per-handler counts
//! of asynchronous interrupt events (which DESIGN.md says are not edges).
//! Edges live in a petgraph `GraphMap` so graph algorithms apply directly;
//! every listing this module hands out is sorted, so output is deterministic.

use crate::hash::{AddrHashBuilder, AddrMap};
use crate::sample::Addr;
use petgraph::graphmap::GraphMap;
use petgraph::{Directed, Direction};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;
use std::fmt;

/// The edge store: nodes are block entries, weights are transition counts.
pub type EdgeGraph = GraphMap<Addr, u64, Directed, AddrHashBuilder>;

/// A basic block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    /// Address of the first instruction.
    pub entry: Addr,
    /// Addresses of the instructions it covers, in execution order (for
    /// well-formed code: ascending, starting with `entry`).
    pub instrs: Vec<Addr>,
    /// Byte address just past the last instruction.
    pub end: Addr,
    /// How many times the block was entered (sampled side: observed entries;
    /// truth: executions).
    pub count: u64,
}

impl Block {
    /// A block of one instruction at `entry` of `len` bytes, never entered.
    pub fn new(entry: Addr, len: u8) -> Self {
        Block {
            entry,
            instrs: vec![entry],
            end: entry.wrapping_add(len as Addr),
            count: 0,
        }
    }

    /// Address of the last instruction.
    pub fn last(&self) -> Addr {
        *self.instrs.last().unwrap_or(&self.entry)
    }

    /// Number of instructions.
    pub fn len(&self) -> usize {
        self.instrs.len()
    }

    /// Whether the block lists no instruction (only possible in hand-built or
    /// deserialized data).
    pub fn is_empty(&self) -> bool {
        self.instrs.is_empty()
    }
}

/// One edge with its transition count, as listed by [`Cfg::edges`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Edge {
    /// Entry of the source block.
    pub src: Addr,
    /// Entry of the destination block.
    pub dst: Addr,
    /// Number of transitions.
    pub count: u64,
}

/// Interrupt events counted for one handler entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterruptCount {
    /// Handler entry (vector target).
    pub handler: Addr,
    /// Number of interrupt events dispatched to it.
    pub count: u64,
}

/// A control-flow graph.
///
/// Invariant: every block entry is a node of the edge graph; an edge endpoint
/// may lack a [`Block`] record only if the producer never described it.
#[derive(Clone, Default)]
pub struct Cfg {
    /// Hashed, not ordered: the builder touches a block per sampled run, and
    /// listings sort on the way out.
    blocks: AddrMap<Addr, Block>,
    graph: EdgeGraph,
    interrupts: BTreeMap<Addr, u64>,
}

impl Cfg {
    /// An empty graph.
    pub fn new() -> Self {
        Self::default()
    }

    /// Inserts or replaces the block at `block.entry`, returning the old one.
    pub fn insert_block(&mut self, block: Block) -> Option<Block> {
        self.graph.add_node(block.entry);
        self.blocks.insert(block.entry, block)
    }

    /// The block entered at `entry`.
    pub fn block(&self, entry: Addr) -> Option<&Block> {
        self.blocks.get(&entry)
    }

    /// The block entered at `entry`, mutably (its entry must not change).
    pub fn block_mut(&mut self, entry: Addr) -> Option<&mut Block> {
        self.blocks.get_mut(&entry)
    }

    /// Blocks in ascending entry order.
    pub fn blocks(&self) -> impl Iterator<Item = &Block> + '_ {
        self.sorted_blocks().into_iter()
    }

    fn sorted_blocks(&self) -> Vec<&Block> {
        let mut v: Vec<&Block> = self.blocks.values().collect();
        v.sort_unstable_by_key(|b| b.entry);
        v
    }

    /// Number of blocks.
    pub fn num_blocks(&self) -> usize {
        self.blocks.len()
    }

    /// Adds `count` transitions to the edge `src → dst`, creating it (and its
    /// endpoint nodes) if needed; returns the new count.
    pub fn add_edge(&mut self, src: Addr, dst: Addr, count: u64) -> u64 {
        if let Some(w) = self.graph.edge_weight_mut(src, dst) {
            *w = w.saturating_add(count);
            return *w;
        }
        self.graph.add_edge(src, dst, count);
        count
    }

    /// Sets the count of `src → dst`, creating the edge if needed.
    pub fn set_edge(&mut self, src: Addr, dst: Addr, count: u64) {
        self.graph.add_edge(src, dst, count);
    }

    /// Removes `src → dst`, returning its count.
    pub fn remove_edge(&mut self, src: Addr, dst: Addr) -> Option<u64> {
        self.graph.remove_edge(src, dst)
    }

    /// The count of `src → dst`, if the edge exists.
    pub fn edge(&self, src: Addr, dst: Addr) -> Option<u64> {
        self.graph.edge_weight(src, dst).copied()
    }

    /// Whether `src → dst` exists.
    pub fn contains_edge(&self, src: Addr, dst: Addr) -> bool {
        self.graph.contains_edge(src, dst)
    }

    /// All edges sorted by (src, dst).
    pub fn edges(&self) -> Vec<Edge> {
        let mut v: Vec<Edge> = self
            .graph
            .all_edges()
            .map(|(src, dst, &count)| Edge { src, dst, count })
            .collect();
        v.sort_unstable();
        v
    }

    /// Edges leaving `src`, sorted by destination.
    pub fn out_edges(&self, src: Addr) -> Vec<Edge> {
        let mut v: Vec<Edge> = if self.graph.contains_node(src) {
            self.graph
                .edges_directed(src, Direction::Outgoing)
                .map(|(s, dst, &count)| Edge { src: s, dst, count })
                .collect()
        } else {
            Vec::new()
        };
        v.sort_unstable();
        v
    }

    /// Number of edges.
    pub fn num_edges(&self) -> usize {
        self.graph.edge_count()
    }

    /// Sum of all edge counts.
    pub fn total_transitions(&self) -> u64 {
        self.graph
            .all_edges()
            .fold(0u64, |acc, (_, _, &c)| acc.saturating_add(c))
    }

    /// Adds `count` interrupt events for the handler entered at `handler`.
    pub fn add_interrupts(&mut self, handler: Addr, count: u64) {
        let c = self.interrupts.entry(handler).or_insert(0);
        *c = c.saturating_add(count);
    }

    /// Interrupt event counts by handler entry, ascending.
    pub fn interrupts(&self) -> &BTreeMap<Addr, u64> {
        &self.interrupts
    }

    /// The petgraph edge store, for graph algorithms.
    pub fn graph(&self) -> &EdgeGraph {
        &self.graph
    }

    /// Moves every edge leaving `from` so it leaves `to` instead (counts are
    /// added if `to` already has that edge). Used when a block is split and
    /// its ending moves to the tail.
    pub(crate) fn move_out_edges(&mut self, from: Addr, to: Addr, scratch: &mut Vec<Edge>) {
        scratch.clear();
        if !self.graph.contains_node(from) {
            return;
        }
        scratch.extend(
            self.graph
                .edges_directed(from, Direction::Outgoing)
                .map(|(src, dst, &count)| Edge { src, dst, count }),
        );
        // Sorted so that the resulting insertion order (hence any later
        // iteration order of the graph) does not depend on hash order.
        scratch.sort_unstable();
        for e in scratch.iter() {
            self.graph.remove_edge(e.src, e.dst);
        }
        for e in scratch.iter() {
            self.add_edge(to, e.dst, e.count);
        }
    }

    fn to_data(&self) -> CfgData<&Block> {
        CfgData {
            blocks: self.sorted_blocks(),
            edges: self.edges(),
            interrupts: self
                .interrupts
                .iter()
                .map(|(&handler, &count)| InterruptCount { handler, count })
                .collect(),
        }
    }

    fn from_data(data: CfgData<Block>) -> Result<Self, String> {
        let mut cfg = Cfg::new();
        for b in data.blocks {
            let entry = b.entry;
            if cfg.insert_block(b).is_some() {
                return Err(format!("duplicate block entry {entry:#06x}"));
            }
        }
        for e in data.edges {
            if cfg.contains_edge(e.src, e.dst) {
                return Err(format!("duplicate edge {:#06x}->{:#06x}", e.src, e.dst));
            }
            cfg.set_edge(e.src, e.dst, e.count);
        }
        for i in data.interrupts {
            cfg.add_interrupts(i.handler, i.count);
        }
        Ok(cfg)
    }
}

impl PartialEq for Cfg {
    fn eq(&self, other: &Self) -> bool {
        self.blocks == other.blocks
            && self.interrupts == other.interrupts
            && self.num_edges() == other.num_edges()
            && self.edges() == other.edges()
            && {
                // Nodes without block records (possible only for hand-built
                // graphs) must match too.
                let mut a: Vec<Addr> = self.graph.nodes().collect();
                let mut b: Vec<Addr> = other.graph.nodes().collect();
                a.sort_unstable();
                b.sort_unstable();
                a == b
            }
    }
}

impl Eq for Cfg {}

impl fmt::Debug for Cfg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cfg")
            .field("blocks", &self.sorted_blocks())
            .field("edges", &self.edges())
            .field("interrupts", &self.interrupts)
            .finish()
    }
}

/// The serialized shape of a [`Cfg`]: sorted lists, so a file diff is a
/// graph diff.
#[derive(Serialize, Deserialize)]
struct CfgData<B> {
    blocks: Vec<B>,
    edges: Vec<Edge>,
    interrupts: Vec<InterruptCount>,
}

impl Serialize for Cfg {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_data().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Cfg {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let data = CfgData::<Block>::deserialize(d)?;
        Cfg::from_data(data).map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_accumulate_and_list_sorted() {
        let mut g = Cfg::new();
        g.insert_block(Block::new(0x8005, 3));
        g.insert_block(Block::new(0x8000, 2));
        assert_eq!(g.add_edge(0x8005, 0x8000, 1), 1);
        assert_eq!(g.add_edge(0x8000, 0x8005, 2), 2);
        assert_eq!(g.add_edge(0x8005, 0x8000, 4), 5);
        assert_eq!(
            g.edges(),
            vec![
                Edge {
                    src: 0x8000,
                    dst: 0x8005,
                    count: 2
                },
                Edge {
                    src: 0x8005,
                    dst: 0x8000,
                    count: 5
                },
            ]
        );
        assert_eq!(g.total_transitions(), 7);
        assert_eq!(
            g.blocks().map(|b| b.entry).collect::<Vec<_>>(),
            vec![0x8000, 0x8005]
        );
        assert_eq!(g.out_edges(0x9999), vec![]);
    }

    #[test]
    fn move_out_edges_keeps_self_loop_destination() {
        let mut g = Cfg::new();
        g.add_edge(0x10, 0x10, 3);
        g.add_edge(0x10, 0x20, 1);
        g.add_edge(0x05, 0x10, 7);
        let mut scratch = Vec::new();
        g.move_out_edges(0x10, 0x12, &mut scratch);
        assert_eq!(
            g.edges(),
            vec![
                Edge {
                    src: 0x05,
                    dst: 0x10,
                    count: 7
                },
                Edge {
                    src: 0x12,
                    dst: 0x10,
                    count: 3
                },
                Edge {
                    src: 0x12,
                    dst: 0x20,
                    count: 1
                },
            ]
        );
    }
}
