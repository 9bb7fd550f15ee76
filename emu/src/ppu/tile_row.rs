//! A tile row's background fetch results, kept for the 8 pixel rows that
//! share them (plain data; `background.rs` fills and uses it).
//!
//! The 8 lines of a tile row fetch the same 32 nametable bytes and
//! attribute bits; only the pattern row (fine Y) differs. Looking them up
//! again on every line was most of the background's cost (issue 46), so
//! the whole-line path keeps, per tile, where its decoded pattern rows
//! start and its palette bits, and reuses them while everything they came
//! from is unchanged: v's coarse X/Y and nametable bits, the background's
//! pattern table and its four CHR pages, the two nametables' places in
//! nametable RAM, and nametable RAM's write count.

/// What a kept row was fetched from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct TileRowKey {
    /// v without fine Y.
    pub(super) v: u16,
    /// The background pattern table's page entries
    /// (`PatternTable::pages`): its base and banks in one.
    pub(super) pages: [usize; 4],
    /// Where the row's two nametables are in nametable RAM.
    pub(super) nametables: [usize; 2],
    pub(super) nametable_writes: u64,
}

/// The kept row (`key` `None`: nothing kept yet).
#[derive(Debug, Clone, Default)]
pub(super) struct TileRow {
    pub(super) key: Option<TileRowKey>,
    /// Per tile: its first pattern row's entry, and its palette in bits
    /// 2-3 of every pixel byte.
    pub(super) entries: [usize; 32],
    pub(super) palettes: [u64; 32],
    /// The last tile's name and palette (the fetch latches after it).
    pub(super) last: (u8, u8),
}
