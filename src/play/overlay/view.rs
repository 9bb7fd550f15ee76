//! The panel's private copy of the feeder's published [`Snapshot`].
//!
//! The emulation thread takes the snapshot's read lock with `try_read` only:
//! if the feeder happens to be swapping in a new snapshot, this frame keeps
//! the previous copy, so the emulation never waits on the lock. The copy is
//! taken only when the snapshot changed, into buffers reused from frame to
//! frame (no allocation once they have grown).

use parking_lot::RwLock;
use profiler::feeder::Snapshot;

use gfc::GfcParams;

/// A block of the hot CFG: `[entry, end)`, entered `count` times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockView {
    pub entry: u32,
    pub end: u32,
    pub count: u64,
}

/// An edge of the hot CFG between block entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EdgeView {
    pub src: u32,
    pub dst: u32,
    pub count: u64,
}

/// What identifies a published snapshot: the feeder replaces the whole
/// snapshot on every publish, and batches only grow between resets.
type Key = (u64, u64, usize, usize, Option<GfcParams>);

/// Plain copies of the snapshot's contents.
#[derive(Default)]
pub struct View {
    /// Sorted by entry.
    pub blocks: Vec<BlockView>,
    /// Sorted by (src, dst).
    pub edges: Vec<EdgeView>,
    /// (centroid address, windows counted), ascending centroid.
    pub bins: Vec<(f64, u64)>,
    pub batches: u64,
    pub sampled_instructions: u64,
    pub params: Option<GfcParams>,
    key: Option<Key>,
}

fn key_of(s: &Snapshot) -> Key {
    (
        s.batches,
        s.sampled_instructions,
        s.graph.num_blocks(),
        s.graph.num_edges(),
        s.params,
    )
}

impl View {
    /// Copies `shared` if it changed since the last copy and its lock is free
    /// right now; returns whether the view changed.
    pub fn refresh(&mut self, shared: &RwLock<Snapshot>) -> bool {
        let Some(snapshot) = shared.try_read() else {
            return false;
        };
        let key = key_of(&snapshot);
        if self.key == Some(key) {
            return false;
        }
        self.copy_from(&snapshot);
        self.key = Some(key);
        true
    }

    /// Forgets the copy, so the next refresh takes whatever is published.
    pub fn invalidate(&mut self) {
        self.key = None;
    }

    fn copy_from(&mut self, s: &Snapshot) {
        let graph = s.graph.graph();
        self.edges.clear();
        self.edges.extend(
            graph
                .all_edges()
                .map(|(src, dst, &count)| EdgeView { src, dst, count }),
        );
        self.edges.sort_unstable_by_key(|e| (e.src, e.dst));
        self.blocks.clear();
        // Every edge endpoint is a node; a node without a block record (not
        // produced by GFCGaussiano, but allowed by the type) gets a 1-byte block.
        self.blocks
            .extend(graph.nodes().map(|entry| match s.graph.block(entry) {
                Some(b) => BlockView {
                    entry,
                    end: b.end.max(entry + 1),
                    count: b.count,
                },
                None => BlockView {
                    entry,
                    end: entry + 1,
                    count: 0,
                },
            }));
        self.blocks.sort_unstable_by_key(|b| b.entry);
        self.bins.clear();
        self.bins.extend_from_slice(&s.bins);
        self.batches = s.batches;
        self.sampled_instructions = s.sampled_instructions;
        self.params = s.params;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gfc::{Block, Cfg};

    #[test]
    fn copies_only_changed_snapshots() {
        let mut cfg = Cfg::new();
        cfg.insert_block(Block::new(0x8010, 3));
        cfg.add_edge(0x8010, 0x8000, 4);
        let shared = RwLock::new(Snapshot {
            graph: cfg,
            bins: vec![(32768.5, 9)],
            batches: 3,
            sampled_instructions: 75,
            params: Some(gfc::THESIS_BEST),
            ..Snapshot::default()
        });
        let mut view = View::default();
        assert!(view.refresh(&shared));
        assert!(!view.refresh(&shared));
        assert_eq!(
            view.blocks,
            vec![
                BlockView {
                    entry: 0x8000,
                    end: 0x8001,
                    count: 0
                },
                BlockView {
                    entry: 0x8010,
                    end: 0x8013,
                    count: 0
                }
            ]
        );
        assert_eq!(view.edges.len(), 1);
        // A writer holding the lock: the view keeps its copy, never waits.
        let guard = shared.write();
        view.invalidate();
        assert!(!view.refresh(&shared));
        drop(guard);
        assert!(view.refresh(&shared));
    }
}
