//! When each edge and block of the hot CFG appeared and last grew, found by
//! diffing successive snapshots on the panel side (the feeder publishes
//! counts only, and stays that simple).
//!
//! Ages are in emulated frames, so a paused game keeps its highlights and a
//! headless run ages exactly like a live one.

use std::collections::HashMap;

/// The history of one item (an edge or a block).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Age {
    /// Frame of the first snapshot that had it.
    pub first_seen: u64,
    /// Frame of the last snapshot in which its count grew.
    pub last_grown: u64,
    count: u64,
    /// Update round that last saw it (items not seen are forgotten).
    round: u64,
}

/// Histories keyed by an item id (edges: [`edge_key`]; blocks: their entry).
#[derive(Default)]
pub struct History {
    items: HashMap<u64, Age>,
    round: u64,
}

/// The history key of an edge.
pub fn edge_key(src: u32, dst: u32) -> u64 {
    (src as u64) << 32 | dst as u64
}

impl History {
    /// Starts a diff against a new snapshot taken at `frame`.
    pub fn begin(&mut self) {
        self.round += 1;
    }

    /// Records that the new snapshot has `key` with `count`; returns its age.
    pub fn see(&mut self, key: u64, count: u64, frame: u64) -> Age {
        let round = self.round;
        let age = self.items.entry(key).or_insert(Age {
            first_seen: frame,
            last_grown: frame,
            count,
            round,
        });
        if count > age.count {
            age.last_grown = frame;
        }
        age.count = count;
        age.round = round;
        *age
    }

    /// Ends the diff: forgets items the new snapshot no longer has (the
    /// builder moves edges when it splits a block), so that one coming back
    /// counts as new again.
    pub fn end(&mut self) {
        let round = self.round;
        self.items.retain(|_, a| a.round == round);
    }

    /// Forgets everything (after a reset of the graph).
    pub fn clear(&mut self) {
        self.items.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracks_first_seen_growth_and_removal() {
        let mut h = History::default();
        h.begin();
        assert_eq!(h.see(1, 5, 10).first_seen, 10);
        h.end();
        h.begin();
        let a = h.see(1, 5, 20);
        assert_eq!((a.first_seen, a.last_grown), (10, 10));
        h.end();
        h.begin();
        let a = h.see(1, 6, 30);
        assert_eq!((a.first_seen, a.last_grown), (10, 30));
        h.end();
        h.begin();
        h.end();
        h.begin();
        assert_eq!(h.see(1, 6, 40).first_seen, 40);
        assert_ne!(edge_key(1, 2), edge_key(2, 1));
    }
}
