//! The hot-block table of a profile: for the blocks of the exact CFG that
//! run most, the share of all executed instructions each one holds (exact,
//! from the truth) beside the share of sampled instructions that fell in it
//! (what the sampler saw), and whether the sampled hot CFG has it. The same
//! rows grouped by function (a caller-given name per block, e.g. the label
//! the block lies under) give the function table. report.txt and
//! report.html both print these rows.

use std::collections::{BTreeMap, HashMap};

use gfc::Cfg;

use crate::sink::SampleTally;

/// One row: a block, or a group of blocks (a function).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The block's entry (for a group: its hottest block's entry).
    pub entry: u32,
    /// The name shown: the block's, or the group's.
    pub name: String,
    /// Instructions of the block (for a group: of all its blocks).
    pub instrs: usize,
    /// Instructions executed in it over the run.
    pub executed: u64,
    /// `executed` as a share of all executed instructions (0–1).
    pub exact_share: f64,
    /// Sampled instructions that fell in it, as a share of all samples (0–1).
    pub sampled_share: f64,
    /// Whether the sampled hot CFG holds the block (a group: any of them).
    pub in_hot_cfg: bool,
}

/// The rows of every block of `truth`, hottest first (ties by address, so
/// the order is the same on every run). `name` names a block by its entry.
pub fn block_rows(
    truth: &Cfg,
    hot: &Cfg,
    tally: &SampleTally,
    name: &dyn Fn(u32) -> String,
) -> Vec<Row> {
    let total: u64 = truth
        .blocks()
        .map(|b| b.count * b.instrs.len() as u64)
        .sum();
    // Which block each instruction address belongs to, to place samples.
    let mut owner: HashMap<u32, u32> = HashMap::new();
    for b in truth.blocks() {
        for &pc in &b.instrs {
            owner.entry(pc).or_insert(b.entry);
        }
    }
    let mut sampled: HashMap<u32, u64> = HashMap::new();
    let samples = tally.instructions();
    for (pc, n) in tally.iter() {
        if let Some(&entry) = owner.get(&pc) {
            *sampled.entry(entry).or_insert(0) += n;
        }
    }
    let share = |n: u64, of: u64| if of == 0 { 0.0 } else { n as f64 / of as f64 };
    let mut rows: Vec<Row> = truth
        .blocks()
        .map(|b| {
            let executed = b.count * b.instrs.len() as u64;
            Row {
                entry: b.entry,
                name: name(b.entry),
                instrs: b.instrs.len(),
                executed,
                exact_share: share(executed, total),
                sampled_share: share(sampled.get(&b.entry).copied().unwrap_or(0), samples),
                in_hot_cfg: hot.block(b.entry).is_some() || hot.graph().contains_node(b.entry),
            }
        })
        .collect();
    sort_hottest_first(&mut rows);
    rows
}

/// `rows` (from [`block_rows`]) grouped by `group` (a name per block entry),
/// hottest first.
pub fn group_rows(rows: &[Row], group: &dyn Fn(u32) -> String) -> Vec<Row> {
    let mut groups: BTreeMap<String, Row> = BTreeMap::new();
    // `rows` is hottest first, so a group's first row is its hottest block.
    for r in rows {
        let key = group(r.entry);
        let g = groups.entry(key.clone()).or_insert_with(|| Row {
            entry: r.entry,
            name: key,
            instrs: 0,
            executed: 0,
            exact_share: 0.0,
            sampled_share: 0.0,
            in_hot_cfg: false,
        });
        g.instrs += r.instrs;
        g.executed += r.executed;
        g.exact_share += r.exact_share;
        g.sampled_share += r.sampled_share;
        g.in_hot_cfg |= r.in_hot_cfg;
    }
    let mut out: Vec<Row> = groups.into_values().collect();
    sort_hottest_first(&mut out);
    out
}

fn sort_hottest_first(rows: &mut [Row]) {
    rows.sort_by(|a, b| b.executed.cmp(&a.executed).then(a.entry.cmp(&b.entry)));
}

/// Widest name column of [`text`], in characters: a label is at most
/// `symbols::MAX_LABEL_CHARS` (128) and a block's name adds its address
/// and offset (`03:A1F0 name+$12`), so every name a label gives fits; a
/// longer one (from anywhere else) is cut with `…`. Padding widths come
/// from the data, and `format!` panics on a width past 65,535: this keeps
/// them small.
pub const MAX_NAME_COLUMN: usize = 160;

/// The rows as aligned text lines, at most `limit` of them, under a header
/// naming the column of names `what` ("block" or "function"). Names are
/// escaped and cut to [`MAX_NAME_COLUMN`] characters.
pub fn text(rows: &[Row], what: &str, limit: usize) -> String {
    let column = |name: &str| emu::input_file::shorten_to(name, MAX_NAME_COLUMN - 1);
    let names: Vec<String> = rows.iter().take(limit).map(|r| column(&r.name)).collect();
    let what = column(what);
    let width = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .max(what.chars().count())
        .min(MAX_NAME_COLUMN);
    let mut out = format!(
        "  {what:<width$}  {:>7}  {:>8}  {:>8}  hot CFG\n",
        "instrs", "exact %", "sampled %"
    );
    for (r, name) in rows.iter().take(limit).zip(&names) {
        out += &format!(
            "  {:<width$}  {:>7}  {:>8.2}  {:>9.2}  {}\n",
            name,
            r.instrs,
            100.0 * r.exact_share,
            100.0 * r.sampled_share,
            if r.in_hot_cfg { "yes" } else { "-" }
        );
    }
    if rows.len() > limit {
        out += &format!("  ({} more)\n", rows.len() - limit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use gfc::cfg::Block;
    use gfc::sample::Flow;
    use gfc::Sample;

    fn block(entry: u32, instrs: &[u32], count: u64) -> Block {
        Block {
            entry,
            instrs: instrs.to_vec(),
            end: instrs.last().unwrap() + 1,
            count,
        }
    }

    fn sample(pc: u32) -> Sample {
        Sample {
            pc,
            len: 1,
            flow: Flow::None,
            taken: false,
            next_pc: pc + 1,
            target: pc + 1,
            cycle: 0,
        }
    }

    #[test]
    fn shares_and_order() {
        let mut truth = Cfg::new();
        truth.insert_block(block(0x8000, &[0x8000, 0x8001], 10)); // 20 instructions
        truth.insert_block(block(0x8010, &[0x8010], 60)); // 60
        truth.insert_block(block(0x8020, &[0x8020, 0x8021], 10)); // 20
        let mut hot = Cfg::new();
        hot.insert_block(block(0x8010, &[0x8010], 5));
        let batches = vec![
            vec![sample(0x8010), sample(0x8010), sample(0x8001)],
            vec![sample(0x9999)],
        ];
        let tally = SampleTally::of(&batches);
        let rows = block_rows(&truth, &hot, &tally, &|a| format!("{a:04X}"));
        let order: Vec<u32> = rows.iter().map(|r| r.entry).collect();
        assert_eq!(order, [0x8010, 0x8000, 0x8020]);
        assert!((rows[0].exact_share - 0.6).abs() < 1e-12);
        assert!((rows[0].sampled_share - 0.5).abs() < 1e-12);
        assert!((rows[1].sampled_share - 0.25).abs() < 1e-12);
        assert_eq!(rows[2].sampled_share, 0.0);
        assert!(rows[0].in_hot_cfg && !rows[1].in_hot_cfg);

        let groups = group_rows(&rows, &|a| if a < 0x8010 { "a" } else { "b" }.to_string());
        assert_eq!(groups[0].name, "b");
        assert_eq!(groups[0].executed, 80);
        assert_eq!(groups[0].instrs, 3);
        assert!((groups[1].exact_share - 0.2).abs() < 1e-12);

        let t = text(&rows, "block", 2);
        assert_eq!(t.lines().count(), 4, "{t}");
        assert!(t.contains("(1 more)"));
    }

    /// A name of any length gives a table row of bounded width (a
    /// 65,535-character one made `format!` panic).
    #[test]
    fn long_names_are_cut_to_the_column() {
        let row = |name: String| Row {
            entry: 0x8000,
            name,
            instrs: 1,
            executed: 1,
            exact_share: 1.0,
            sampled_share: 0.0,
            in_hot_cfg: false,
        };
        let rows = vec![row("n".repeat(70_000)), row("short\x1b[31m".into())];
        let t = text(&rows, "block", 10);
        for line in t.lines() {
            assert!(line.chars().count() < MAX_NAME_COLUMN + 60, "{line}");
            assert!(!line.contains('\x1b'), "{line:?}");
        }
        assert!(t.lines().nth(1).unwrap().contains("nnn…"), "{t}");
    }
}
