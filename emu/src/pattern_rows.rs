//! CHR memory's pattern rows, decoded once into the form the PPU draws
//! from: 8 pixel bytes per row, left pixel first, each the 2-bit pattern
//! value (low plane in bit 0, high plane in bit 1).
//!
//! Decoding a row from its two plane bytes costs two reads through the bank
//! table and two table lookups; a background line does it 34 times, which
//! was the largest single part of the PPU's host instructions (issue 46).
//! The rows are kept per physical CHR byte, not per PPU address, so a bank
//! switch changes nothing here: the PPU looks a row up through the banks
//! mapped at that moment. Only a write to CHR RAM changes a row, and every
//! such write goes through [`PatternRows::update`] (CHR memory is private to
//! the cartridge for that reason).

/// `SPREAD[b]` puts bit 7-i of `b` into bit 0 of byte i (left pixel first).
const SPREAD: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut v = 0u64;
        let mut i = 0;
        while i < 8 {
            if b & (0x80 >> i) != 0 {
                v |= 1 << (8 * i);
            }
            i += 1;
        }
        table[b] = v;
        b += 1;
    }
    table
};

/// The 8 pixels of a pattern row with low plane `lo` and high plane `hi`.
#[inline(always)]
pub fn decode_row(lo: u8, hi: u8) -> u64 {
    SPREAD[lo as usize] | SPREAD[hi as usize] << 1
}

/// The decoded rows of a CHR memory, one per (tile, row): half as many
/// entries as CHR bytes, since each row has two plane bytes.
pub struct PatternRows(Vec<u64>);

/// The entry of the row whose low plane is CHR byte `offset` (bit 3 clear;
/// the high plane is 8 bytes on).
#[inline(always)]
fn entry(offset: usize) -> usize {
    (offset >> 4) << 3 | (offset & 7)
}

impl PatternRows {
    /// Decodes every row of `chr` (a whole number of 16-byte tiles).
    pub fn decode(chr: &[u8]) -> PatternRows {
        let rows = chr
            .chunks_exact(16)
            .flat_map(|tile| (0..8).map(move |r| decode_row(tile[r], tile[r + 8])))
            .collect();
        PatternRows(rows)
    }

    /// CHR byte `offset` of `chr` changed: its row is decoded again.
    #[inline]
    pub fn update(&mut self, chr: &[u8], offset: usize) {
        let lo = offset & !8;
        self.0[entry(lo)] = decode_row(chr[lo], chr[lo | 8]);
    }

    /// The row whose low plane is CHR byte `offset` (bit 3 clear).
    #[inline(always)]
    pub fn row(&self, offset: usize) -> u64 {
        self.0[entry(offset)]
    }

    /// A 4 KiB pattern table as the banks map it now: `banks` are the CHR
    /// offsets of its four 1 KiB pages (each a multiple of 1 KiB).
    #[inline(always)]
    pub fn table(&self, banks: [usize; 4]) -> PatternTable<'_> {
        PatternTable {
            rows: &self.0,
            pages: banks.map(entry),
        }
    }
}

/// The decoded rows of one pattern table under fixed banks, for drawing a
/// run of tiles: the bank lookup is done once, not per tile.
pub struct PatternTable<'a> {
    rows: &'a [u64],
    /// The entry of each 1 KiB page's first row.
    pages: [usize; 4],
}

impl PatternTable<'_> {
    /// Row `fine_y` (0-7) of tile `tile`.
    #[inline(always)]
    pub fn row(&self, tile: u8, fine_y: usize) -> u64 {
        self.rows[self.tile_entry(tile) + fine_y]
    }

    /// Where tile `tile`'s rows start: row `fine_y` is
    /// [`PatternTable::row_at`]`(entry + fine_y)`.
    #[inline(always)]
    pub fn tile_entry(&self, tile: u8) -> usize {
        self.pages[(tile >> 6) as usize] + (tile as usize & 63) * 8
    }

    /// The row at `entry` (from [`PatternTable::tile_entry`]).
    #[inline(always)]
    pub fn row_at(&self, entry: usize) -> u64 {
        self.rows[entry]
    }

    /// The entries of the four pages' first rows: equal for two views,
    /// the same rows.
    pub fn pages(&self) -> [usize; 4] {
        self.pages
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_puts_the_left_pixel_first() {
        assert_eq!(SPREAD[0x80], 1);
        assert_eq!(SPREAD[0x01], 1 << 56);
        assert_eq!(SPREAD[0xFF], 0x0101_0101_0101_0101);
    }

    /// Every row decodes as its two planes say, before and after a write
    /// to either plane.
    #[test]
    fn rows_follow_writes() {
        let mut chr: Vec<u8> = (0..64u32).map(|i| (i * 29 % 256) as u8).collect();
        let mut rows = PatternRows::decode(&chr);
        let check = |chr: &[u8], rows: &PatternRows| {
            for tile in 0..chr.len() / 16 {
                for r in 0..8 {
                    let lo = tile * 16 + r;
                    assert_eq!(rows.row(lo), decode_row(chr[lo], chr[lo + 8]));
                }
            }
        };
        check(&chr, &rows);
        for offset in [0usize, 9, 31, 40, 63] {
            chr[offset] ^= 0x5A;
            rows.update(&chr, offset);
            check(&chr, &rows);
        }
        assert_eq!(decode_row(0x80, 0x01), 1 | 2 << 56);
    }

    /// A table view finds the rows the plain offsets do, whatever pages
    /// are mapped where.
    #[test]
    fn table_follows_its_pages() {
        let chr: Vec<u8> = (0..8192u32).map(|i| (i * 131 % 251) as u8).collect();
        let rows = PatternRows::decode(&chr);
        let banks = [0x1C00, 0x0400, 0x0400, 0x1000];
        let table = rows.table(banks);
        for tile in [0u8, 1, 63, 64, 127, 128, 200, 255] {
            for fine_y in 0..8 {
                let offset = banks[tile as usize >> 6] + (tile as usize & 63) * 16 + fine_y;
                assert_eq!(table.row(tile, fine_y), rows.row(offset));
            }
        }
    }
}
