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
    fn heat_map_marks_reads_green_and_writes_red() {
        let px = heat_map_rgb(&[(0x0001, 10, 0), (0x0002, 0, 5)], 0, 4, 1, 1);
        assert_eq!(px.len(), 12);
        assert_eq!(&px[0..3], &[0, 0, 24]);
        assert_eq!(&px[3..6], &[0, 255, 24]);
        assert_eq!(&px[6..9], &[255, 0, 24]);
    }
}
