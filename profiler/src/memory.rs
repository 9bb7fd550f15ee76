//! The memory-dependence profile for humans (`profile --memory`): the
//! recorder's per-instruction counts (`emu::memory_profile`) lifted to the
//! exact CFG's blocks, read-after-write dependences merged into address
//! ranges, the bytes shared between interrupt handlers and main code, and
//! the bytes written but never read; rendered as memory.ron, the report's
//! "memory" section and the RAM heat maps' pixels.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use emu::call_stacks::CallStacks;
use emu::memory_profile::MemoryProfile;
use serde::{Deserialize, Serialize};

/// A read-after-write dependence between two blocks over an address range.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dep {
    /// Entry of the exact-CFG block holding the writing instruction (the
    /// instruction's own code address when no block holds it).
    pub writer_block: u32,
    pub reader_block: u32,
    /// CPU addresses, inclusive.
    pub first: u16,
    pub last: u16,
    /// Reads over the range that took a value from the writer.
    pub count: u64,
    /// The nearest common ancestor of writer and reader in the call tree:
    /// the entries of its frames from the outermost (empty: the reset code).
    pub nca: Vec<u32>,
    /// Writer and reader ran in different interrupt contexts.
    pub crosses_interrupt: bool,
}

/// Bytes written in one interrupt context and read in another.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shared {
    pub first: u16,
    pub last: u16,
    /// Blocks writing / reading across contexts.
    pub writer_blocks: Vec<u32>,
    pub reader_blocks: Vec<u32>,
    /// Reads across contexts.
    pub count: u64,
}

/// Reads and writes of an address range by one block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockAccess {
    pub block: u32,
    pub first: u16,
    pub last: u16,
    pub reads: u64,
    pub writes: u64,
}

/// The analysed profile.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryReport {
    /// Heaviest first.
    pub dependences: Vec<Dep>,
    /// In address order.
    pub shared: Vec<Shared>,
    /// Ranges written and never read (inclusive), in address order; a byte
    /// that OAM DMA copied to the sprites (which the recorder does not
    /// count as a read) is not dead: it is in `oam_dma`.
    pub dead: Vec<(u16, u16)>,
    /// Ranges written by the program and read only by OAM DMA (the sprite
    /// page: `STA $4014` copies it to the PPU), in address order.
    #[serde(default)]
    pub oam_dma: Vec<(u16, u16)>,
    /// (CPU address, reads, writes) of every byte touched.
    pub bytes: Vec<(u16, u64, u64)>,
    /// Per block, the address ranges it touched (adjacent bytes with the
    /// same counts merged).
    pub accesses: Vec<BlockAccess>,
}

/// Block entry per instruction address of `truth`.
fn block_index(truth: &gfc::Cfg) -> BTreeMap<u32, u32> {
    let mut index = BTreeMap::new();
    for block in truth.blocks() {
        for &pc in &block.instrs {
            index.insert(pc, block.entry);
        }
    }
    index
}

/// Merges consecutive addresses (ascending, grouped under equal keys by
/// the caller) into inclusive ranges.
fn ranges(addrs: impl IntoIterator<Item = u16>) -> Vec<(u16, u16)> {
    let mut out: Vec<(u16, u16)> = Vec::new();
    for a in addrs {
        match out.last_mut() {
            Some((_, last)) if last.checked_add(1) == Some(a) => *last = a,
            _ => out.push((a, a)),
        }
    }
    out
}

/// Analyses `profile` against the exact CFG `truth` and the call stacks
/// `stacks` recorded with it (their node ids are the profile's).
pub fn analyse(profile: &MemoryProfile, truth: &gfc::Cfg, stacks: &CallStacks) -> MemoryReport {
    let index = block_index(truth);
    let block = |pc: u32| index.get(&pc).copied().unwrap_or(pc);

    // Dependences by (writer block, reader block, nca, crosses) → addr → count.
    let mut groups: BTreeMap<(u32, u32, u32, bool), BTreeMap<u16, u64>> = BTreeMap::new();
    // Cross-context reads per address, with the blocks on either side.
    let mut shared: BTreeMap<u16, (BTreeSet<u32>, BTreeSet<u32>, u64)> = BTreeMap::new();
    for d in profile.dependences() {
        let (w, r) = (block(d.writer), block(d.reader));
        *groups
            .entry((w, r, d.nca, d.crosses_interrupt))
            .or_default()
            .entry(d.addr)
            .or_insert(0) += d.count;
        if d.crosses_interrupt {
            let entry = shared.entry(d.addr).or_default();
            entry.0.insert(w);
            entry.1.insert(r);
            entry.2 += d.count;
        }
    }
    let mut dependences = Vec::new();
    for ((w, r, nca, crosses), addrs) in &groups {
        let nca_path: Vec<u32> = stacks.path(*nca).iter().map(|f| f.entry).collect();
        for (first, last) in ranges(addrs.keys().copied()) {
            let count = addrs.range(first..=last).map(|(_, n)| n).sum();
            dependences.push(Dep {
                writer_block: *w,
                reader_block: *r,
                first,
                last,
                count,
                nca: nca_path.clone(),
                crosses_interrupt: *crosses,
            });
        }
    }
    dependences.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then((a.first, a.writer_block, a.reader_block).cmp(&(
                b.first,
                b.writer_block,
                b.reader_block,
            )))
    });

    // Shared bytes: adjacent addresses with the same writer and reader sets
    // make one range.
    let mut shared_out: Vec<Shared> = Vec::new();
    for (addr, (writers, readers, count)) in shared {
        let (writer_blocks, reader_blocks): (Vec<u32>, Vec<u32>) =
            (writers.into_iter().collect(), readers.into_iter().collect());
        match shared_out.last_mut() {
            Some(s)
                if s.last.checked_add(1) == Some(addr)
                    && s.writer_blocks == writer_blocks
                    && s.reader_blocks == reader_blocks =>
            {
                s.last = addr;
                s.count += count;
            }
            _ => shared_out.push(Shared {
                first: addr,
                last: addr,
                writer_blocks,
                reader_blocks,
                count,
            }),
        }
    }

    let bytes: Vec<(u16, u64, u64)> = profile.byte_counts().collect();
    let unread = || {
        bytes
            .iter()
            .filter(|&&(_, r, w)| w > 0 && r == 0)
            .map(|&(a, _, _)| a)
    };
    let dead = ranges(unread().filter(|&a| !profile.oam_dma_source(a)));
    let oam_dma = ranges(unread().filter(|&a| profile.oam_dma_source(a)));

    // Per block and address, then merged into ranges of equal counts.
    let mut by_block: BTreeMap<(u32, u16), (u64, u64)> = BTreeMap::new();
    for a in profile.accesses() {
        let e = by_block.entry((block(a.pc), a.addr)).or_insert((0, 0));
        e.0 += a.reads;
        e.1 += a.writes;
    }
    let mut accesses: Vec<BlockAccess> = Vec::new();
    for ((b, addr), (reads, writes)) in by_block {
        match accesses.last_mut() {
            Some(x)
                if x.block == b
                    && x.last.checked_add(1) == Some(addr)
                    && (x.reads, x.writes) == (reads, writes) =>
            {
                x.last = addr
            }
            _ => accesses.push(BlockAccess {
                block: b,
                first: addr,
                last: addr,
                reads,
                writes,
            }),
        }
    }
    MemoryReport {
        dependences,
        shared: shared_out,
        dead,
        oam_dma,
        bytes,
        accesses,
    }
}

impl MemoryReport {
    /// memory.ron's text.
    pub fn to_ron(&self) -> String {
        ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default())
            .unwrap_or_else(|e| format!("// memory report not serialisable: {e}\n"))
    }

    /// The report's "memory" section: the `top` heaviest dependences and
    /// every shared variable. `block` names a block (code address), `data`
    /// names a RAM/WRAM address (a label with symbols, else `$xxxx`).
    pub fn text(
        &self,
        top: usize,
        block: &dyn Fn(u32) -> String,
        data: &dyn Fn(u16) -> String,
    ) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "memory     {} bytes touched, {} reads of a recorded write in {} dependences (writer block, reader block, address range), {} shared NMI/IRQ-main ranges, {} dead ranges (written, never read){}",
            self.bytes.len(),
            self.dependences.iter().map(|d| d.count).sum::<u64>(),
            self.dependences.len(),
            self.shared.len(),
            self.dead.len(),
            self.oam_dma_note(data)
        );
        let _ = writeln!(
            out,
            "\ntop memory dependences (writer -> reader, address, reads, common caller)"
        );
        for d in self.dependences.iter().take(top) {
            let _ = writeln!(
                out,
                "  {} -> {}  {}  {}{}  under {}",
                block(d.writer_block),
                block(d.reader_block),
                range_text(d.first, d.last, data),
                d.count,
                if d.crosses_interrupt {
                    "  [crosses interrupt]"
                } else {
                    ""
                },
                nca_text(&d.nca, block)
            );
        }
        if self.dependences.len() > top {
            let _ = writeln!(out, "  ({} more)", self.dependences.len() - top);
        }
        let _ = writeln!(out, "\nshared between interrupt handlers and main code (address: writers -> readers, reads)");
        if self.shared.is_empty() {
            let _ = writeln!(out, "  none");
        }
        for s in &self.shared {
            let names = |v: &[u32]| v.iter().map(|&b| block(b)).collect::<Vec<_>>().join(", ");
            let _ = writeln!(
                out,
                "  {}: {} -> {}, {}",
                range_text(s.first, s.last, data),
                names(&s.writer_blocks),
                names(&s.reader_blocks),
                s.count
            );
        }
        out
    }

    /// `; $0200..$02FF read only by OAM DMA`, or nothing when no written
    /// byte was.
    fn oam_dma_note(&self, data: &dyn Fn(u16) -> String) -> String {
        if self.oam_dma.is_empty() {
            return String::new();
        }
        let ranges: Vec<String> = self
            .oam_dma
            .iter()
            .map(|&(first, last)| range_text(first, last, data))
            .collect();
        format!("; {} read only by OAM DMA", ranges.join(", "))
    }

    /// The same section as an HTML fragment (tables).
    pub fn html(
        &self,
        top: usize,
        block: &dyn Fn(u32) -> String,
        data: &dyn Fn(u16) -> String,
    ) -> String {
        use crate::cfg_svg::escape;
        let mut out = String::new();
        out.push_str("<table class=\"memory\">\n<tr><th>writer</th><th>reader</th><th>address</th><th>reads</th><th>crosses interrupt</th><th>common caller</th></tr>\n");
        for d in self.dependences.iter().take(top) {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&block(d.writer_block)),
                escape(&block(d.reader_block)),
                escape(&range_text(d.first, d.last, data)),
                d.count,
                if d.crosses_interrupt { "yes" } else { "—" },
                escape(&nca_text(&d.nca, block))
            );
        }
        out.push_str("</table>\n");
        if self.dependences.len() > top {
            let _ = writeln!(
                out,
                "<p>({} more dependences)</p>",
                self.dependences.len() - top
            );
        }
        out.push_str("<h3>Shared between interrupt handlers and main code</h3>\n<table class=\"memory\">\n<tr><th>address</th><th>writers</th><th>readers</th><th>reads</th></tr>\n");
        for s in &self.shared {
            let names = |v: &[u32]| v.iter().map(|&b| block(b)).collect::<Vec<_>>().join(", ");
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&range_text(s.first, s.last, data)),
                escape(&names(&s.writer_blocks)),
                escape(&names(&s.reader_blocks)),
                s.count
            );
        }
        out.push_str("</table>\n");
        out
    }

    /// Whether any PRG RAM byte was touched.
    pub fn touches_wram(&self) -> bool {
        self.bytes.iter().any(|&(a, _, _)| a >= 0x6000)
    }
}

fn range_text(first: u16, last: u16, data: &dyn Fn(u16) -> String) -> String {
    if first == last {
        data(first)
    } else {
        format!("{}..{}", data(first), data(last))
    }
}

fn nca_text(nca: &[u32], block: &dyn Fn(u32) -> String) -> String {
    match nca.last() {
        None => "reset".to_string(),
        Some(&entry) => block(entry),
    }
}

/// Heat-map pixels (RGB, row-major): `bytes` of the memory at `base`
/// (`cols` × `rows` bytes, one cell of `scale` × `scale` pixels per byte),
/// reads in green, writes in red, each log-scaled to the busiest byte.
pub fn heat_map_rgb(
    bytes: &[(u16, u64, u64)],
    base: u16,
    cols: usize,
    rows: usize,
    scale: usize,
) -> Vec<u8> {
    let n = cols * rows;
    let mut cells = vec![(0u64, 0u64); n];
    for &(a, r, w) in bytes {
        if let Some(i) = (a as usize).checked_sub(base as usize).filter(|&i| i < n) {
            cells[i] = (r, w);
        }
    }
    let max_r = cells.iter().map(|c| c.0).max().unwrap_or(0);
    let max_w = cells.iter().map(|c| c.1).max().unwrap_or(0);
    let level = |v: u64, max: u64| -> u8 {
        if v == 0 || max == 0 {
            0
        } else {
            // Any access shows (at least 64), the busiest is full.
            let f = ((v as f64).ln_1p() / (max as f64).ln_1p()).clamp(0.0, 1.0);
            (64.0 + 191.0 * f).round() as u8
        }
    };
    let (w, h) = (cols * scale, rows * scale);
    let mut px = vec![0u8; w * h * 3];
    for (i, &(r, wr)) in cells.iter().enumerate() {
        let (cx, cy) = (i % cols, i / cols);
        let rgb = [level(wr, max_w), level(r, max_r), 24];
        for y in cy * scale..(cy + 1) * scale {
            for x in cx * scale..(cx + 1) * scale {
                // A one-pixel grid line between cells keeps bytes apart.
                let edge = scale > 2 && (x % scale == scale - 1 || y % scale == scale - 1);
                let o = (y * w + x) * 3;
                px[o..o + 3].copy_from_slice(if edge { &[40, 40, 40] } else { &rgb });
            }
        }
    }
    px
}

/// An RGB picture, row-major.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    pub width: usize,
    pub height: usize,
    pub rgb: Vec<u8>,
}

/// Text and tick colour, and the page lines' colour, of the labelled map.
const INK: [u8; 3] = [0x33, 0x33, 0x33];
const PAGE_LINE: [u8; 3] = [0xA0, 0xA0, 0xA0];
/// The font's glyph size in pixels.
const GLYPH: usize = 8;

impl Image {
    fn new(width: usize, height: usize) -> Image {
        Image {
            width,
            height,
            rgb: vec![0xFF; width * height * 3],
        }
    }

    fn fill(&mut self, x: usize, y: usize, w: usize, h: usize, rgb: [u8; 3]) {
        for yy in y..(y + h).min(self.height) {
            for xx in x..(x + w).min(self.width) {
                let o = (yy * self.width + xx) * 3;
                self.rgb[o..o + 3].copy_from_slice(&rgb);
            }
        }
    }

    /// `text` in the 8x8 font with its top-left corner at `(x, y)`.
    fn text(&mut self, x: usize, y: usize, text: &str) {
        for (i, c) in text.chars().enumerate() {
            let glyph = font8x8::legacy::BASIC_LEGACY[(c as usize).min(127)];
            for (row, bits) in glyph.iter().enumerate() {
                for col in 0..GLYPH {
                    if bits >> col & 1 != 0 {
                        self.fill(x + i * GLYPH + col, y + row, 1, 1, INK);
                    }
                }
            }
        }
    }
}

/// [`heat_map_rgb`]'s cells with address axes and a legend, for ram.png and
/// wram.png: each labelled row's first address on its left (every second
/// row, so that labels keep a row's gap between them), the offset in the
/// row above every eighth column, a lighter line at each 256-byte page
/// boundary (the stack page, a sprite page), and under the map which
/// colour is which.
pub fn heat_map_image(
    bytes: &[(u16, u64, u64)],
    base: u16,
    cols: usize,
    rows: usize,
    scale: usize,
) -> Image {
    let cells = heat_map_rgb(bytes, base, cols, rows, scale);
    let (cw, ch) = (cols * scale, rows * scale);
    let left = 5 * GLYPH + 6;
    let top = GLYPH + 6;
    let legend = GLYPH + 12;
    let right = 3 * GLYPH;
    let mut img = Image::new(left + cw + right, top + ch + legend);
    for y in 0..ch {
        let from = y * cw * 3;
        let to = ((top + y) * img.width + left) * 3;
        img.rgb[to..to + cw * 3].copy_from_slice(&cells[from..from + cw * 3]);
    }
    // Rows: a label every `step` rows, at least two glyphs' height apart.
    let step = (2 * GLYPH).div_ceil(scale.max(1)).max(1);
    for r in (0..rows).step_by(step) {
        let addr = base as usize + r * cols;
        let y = top + r * scale;
        img.text(
            0,
            y + scale.saturating_sub(GLYPH) / 2,
            &format!("${addr:04X}"),
        );
        img.fill(left - 4, y, 3, 1, INK);
    }
    // Columns: the offset in the row every eighth column.
    for c in (0..cols).step_by(8) {
        let x = left + c * scale;
        img.text(x, 1, &format!("+{c:02X}"));
        img.fill(x, top - 3, 1, 2, INK);
    }
    // Page boundaries (not the map's top edge).
    if cols < 256 && 256 % cols == 0 {
        let per_page = 256 / cols;
        for r in (per_page..rows).step_by(per_page) {
            img.fill(left, top + r * scale - 1, cw, 1, PAGE_LINE);
        }
    }
    // Legend: the three pure colours at full level.
    let y = top + ch + 6;
    let mut x = left;
    for (label, rgb) in [
        ("reads", [0, 255, 24]),
        ("writes", [255, 0, 24]),
        ("both", [255, 255, 24]),
    ] {
        img.fill(x, y, GLYPH, GLYPH, rgb);
        img.text(x + GLYPH + 4, y, label);
        x += GLYPH + 4 + (label.len() + 2) * GLYPH;
    }
    img.text(x, y, "(log scale)");
    img
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_merge_neighbours_only() {
        assert_eq!(
            ranges([1, 2, 3, 5, 0xFFFF]),
            vec![(1, 3), (5, 5), (0xFFFF, 0xFFFF)]
        );
        assert!(ranges([]).is_empty());
    }

    #[test]
    fn labelled_heat_map_frames_the_cells_with_addresses() {
        let img = heat_map_image(&[(0x0041, 3, 0)], 0, 64, 32, 8);
        let (left, top) = (5 * GLYPH + 6, GLYPH + 6);
        assert_eq!(img.width, left + 64 * 8 + 3 * GLYPH);
        assert_eq!(img.rgb.len(), img.width * img.height * 3);
        let px = |x: usize, y: usize| {
            let o = (y * img.width + x) * 3;
            [img.rgb[o], img.rgb[o + 1], img.rgb[o + 2]]
        };
        // $0041: row 1, column 1, read: green, where the cells start.
        assert_eq!(px(left + 8 + 3, top + 8 + 3), [0, 255, 24]);
        // Labels in ink left of the rows and above the columns: row 0
        // ("$0000"), row 2 ("$0080"), not row 1.
        let inked = |x0: usize, y0: usize, w: usize, h: usize| {
            (y0..y0 + h).any(|y| (x0..x0 + w).any(|x| px(x, y) == INK))
        };
        assert!(inked(0, top, 5 * GLYPH, 8));
        assert!(!inked(0, top + 8, 5 * GLYPH, 8));
        assert!(inked(0, top + 16, 5 * GLYPH, 8));
        assert!(inked(left + 8 * 8, 0, 3 * GLYPH, GLYPH));
        // The page line between rows 3 and 4 ($00C0 | $0100).
        assert_eq!(px(left + 20, top + 4 * 8 - 1), PAGE_LINE);
    }

    #[test]
    fn heat_map_marks_reads_green_and_writes_red() {
        let px = heat_map_rgb(&[(0x0001, 10, 0), (0x0002, 0, 5)], 0, 4, 1, 1);
        assert_eq!(px.len(), 12);
        assert_eq!(&px[0..3], &[0, 0, 24]);
        assert_eq!(&px[3..6], &[0, 255, 24]);
        assert_eq!(&px[6..9], &[255, 0, 24]);
    }
}
