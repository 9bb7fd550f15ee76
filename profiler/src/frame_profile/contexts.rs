//! The cycle-weighted call contexts of a run, for its flame graph
//! (`flame::folded_cycles`): a trie like `emu::call_stacks`' (node =
//! parent context + routine entry + how it was entered), each node
//! holding the cycles spent with it on top of the stack, by class — the
//! work (busy, NMI or IRQ: which, its root says), the wait-loop cycles and
//! the DMA stalls — so that idle time and DMA can be drawn apart from the
//! code that waited or started them.
//!
//! NMI and IRQ handlers are roots of their own (their nodes hang off the
//! trie's root, not off the interrupted context), as the accounting treats
//! them. Bounded: at most [`MAX_CONTEXTS`] nodes; a context entered past
//! that is credited to its deepest ancestor already kept (one entered at
//! the top level to the trie's root, which the flame graph names apart).

use emu::int_hash::IntMap;

use super::shadow_stack::FrameKind;

/// Most distinct contexts kept: a node is 48 bytes plus its map entry, so
/// about 20 MB at the cap. Games have some hundreds to a few thousand.
pub const MAX_CONTEXTS: usize = 1 << 18;

/// The cycles credited to one context, by class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Weights {
    /// Non-idle, non-DMA cycles.
    pub work: u64,
    /// Complete wait-loop iterations.
    pub idle: u64,
    pub oam_dma: u64,
    pub dmc_dma: u64,
}

impl Weights {
    pub fn total(&self) -> u64 {
        self.work + self.idle + self.oam_dma + self.dmc_dma
    }
}

#[derive(Debug, Clone)]
struct Node {
    parent: u32,
    entry: u32,
    kind: FrameKind,
    weights: Weights,
}

/// The trie (see the module doc). Node 0 is the root, no context.
#[derive(Debug, Clone)]
pub struct CycleStacks {
    nodes: Vec<Node>,
    children: IntMap<u64, u32>,
    max_nodes: usize,
}

impl Default for CycleStacks {
    fn default() -> Self {
        CycleStacks::new()
    }
}

impl CycleStacks {
    pub fn new() -> CycleStacks {
        CycleStacks::with_cap(MAX_CONTEXTS)
    }

    /// A trie of at most `max_nodes` nodes (tests).
    pub(crate) fn with_cap(max_nodes: usize) -> CycleStacks {
        CycleStacks {
            nodes: vec![Node {
                parent: 0,
                entry: 0,
                kind: FrameKind::Root,
                weights: Weights::default(),
            }],
            children: IntMap::default(),
            max_nodes: max_nodes.max(1),
        }
    }

    /// The context `parent` entering routine `entry` by `kind` (its
    /// deepest ancestor kept when the trie is full).
    pub fn child(&mut self, parent: u32, entry: u32, kind: FrameKind) -> u32 {
        let key = (parent as u64) << 32 | (entry as u64) << 3 | kind as u64;
        if let Some(&node) = self.children.get(&key) {
            return node;
        }
        if self.nodes.len() >= self.max_nodes {
            return parent;
        }
        let node = self.nodes.len() as u32;
        self.nodes.push(Node {
            parent,
            entry,
            kind,
            weights: Weights::default(),
        });
        self.children.insert(key, node);
        node
    }

    /// Credits `w` to context `node`.
    pub fn credit(&mut self, node: u32, w: Weights) {
        let n = &mut self.nodes[node as usize].weights;
        n.work += w.work;
        n.idle += w.idle;
        n.oam_dma += w.oam_dma;
        n.dmc_dma += w.dmc_dma;
    }

    /// How many contexts are kept (the root included).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.len() == 1
    }

    /// All cycles credited.
    pub fn total(&self) -> u64 {
        self.nodes.iter().map(|n| n.weights.total()).sum()
    }

    /// Every context with cycles: its frames from the outermost (entry,
    /// kind; empty for the root, where contexts past the cap go) and its
    /// weights, in trie order.
    pub fn contexts(&self) -> impl Iterator<Item = (Vec<(u32, FrameKind)>, Weights)> + '_ {
        self.nodes.iter().enumerate().filter_map(move |(i, node)| {
            if node.weights.total() == 0 {
                return None;
            }
            let mut frames = Vec::new();
            let mut at = i;
            while at != 0 {
                let n = &self.nodes[at];
                frames.push((n.entry, n.kind));
                at = n.parent as usize;
            }
            frames.reverse();
            Some((frames, node.weights))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contexts_share_nodes_and_are_capped() {
        let mut s = CycleStacks::with_cap(3);
        let root = s.child(0, 0x8000, FrameKind::Root);
        let a = s.child(root, 0x8100, FrameKind::Call);
        assert_eq!(s.child(root, 0x8100, FrameKind::Call), a);
        // Full: a new context is its parent's.
        assert_eq!(s.child(a, 0x8200, FrameKind::Call), a);
        assert_eq!(s.child(0, 0xC000, FrameKind::Nmi), 0);
        s.credit(
            a,
            Weights {
                work: 5,
                idle: 2,
                ..Weights::default()
            },
        );
        s.credit(
            0,
            Weights {
                work: 1,
                ..Weights::default()
            },
        );
        assert_eq!(s.total(), 8);
        let all: Vec<_> = s.contexts().collect();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].0, vec![]);
        assert_eq!(
            all[1].0,
            vec![(0x8000, FrameKind::Root), (0x8100, FrameKind::Call)]
        );
    }
}
