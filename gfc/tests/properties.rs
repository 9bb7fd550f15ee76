//! Property tests: GFCGaussiano never panics on arbitrary batches under any
//! grid configuration, only builds edges between blocks of addresses it was
//! fed, keeps its structures consistent, and is deterministic. The trace
//! builder never panics, only holds edges that were observed (no flow
//! inference adds any today), keeps its hot CFG inside its edge profile and
//! is deterministic. Also checks H90 minimality and metric ranges on random
//! graphs.

use gfc::{h90, Addr, Cfg, Flow, GfcGaussiano, GfcParams, Metrics, Sample, TraceBuilder};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

fn flow() -> impl Strategy<Value = Flow> {
    prop_oneof![
        10 => Just(Flow::None),
        3 => Just(Flow::Branch),
        1 => Just(Flow::Jump),
        1 => Just(Flow::Call),
        1 => Just(Flow::Return),
        1 => Just(Flow::ReturnInterrupt),
        1 => Just(Flow::Break),
        1 => Just(Flow::Interrupt),
    ]
}

/// Addresses mostly in two small clusters (so bins fill and blocks appear),
/// sometimes anywhere in the 32-bit space.
fn addr() -> impl Strategy<Value = Addr> {
    prop_oneof![
        4 => (0u32..48).prop_map(|o| 0x8000 + o),
        2 => (0u32..48).prop_map(|o| 0xC000 + o),
        1 => any::<u32>(),
    ]
}

fn sample() -> impl Strategy<Value = Sample> {
    (addr(), 0u8..=4, flow(), any::<bool>(), addr(), any::<u64>()).prop_map(
        |(pc, len, flow, taken, next_pc, cycle)| Sample {
            pc,
            len,
            flow,
            taken,
            next_pc,
            target: next_pc,
            cycle,
        },
    )
}

fn batches() -> impl Strategy<Value = Vec<Vec<Sample>>> {
    prop::collection::vec(prop::collection::vec(sample(), 0..40), 0..40)
}

fn params() -> impl Strategy<Value = GfcParams> {
    (0usize..144).prop_map(|id| GfcParams::from_id(id).unwrap())
}

/// A random but coherent execution: a small random program of 1–3 byte
/// instructions in two regions, walked with random branch outcomes, cut into
/// batches of 25 with random gaps. Exercises the paths arbitrary samples
/// rarely reach (recurrent bins, splits, extensions of open blocks).
fn coherent() -> impl Strategy<Value = Vec<Vec<Sample>>> {
    (any::<u64>(), 1usize..120).prop_map(|(seed, nbatches)| coherent_from(seed, nbatches))
}

fn coherent_from(seed: u64, nbatches: usize) -> Vec<Vec<Sample>> {
    {
        let mut rng = seed | 1;
        let mut next = move |m: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % m
        };
        // Program: per region, 24 instructions; each is plain or a branch
        // back/forward within the region, or a jump to the other region.
        let mut prog: BTreeMap<Addr, (u8, Flow, Addr)> = BTreeMap::new();
        for base in [0x8000u32, 0xC000] {
            let mut pcs = Vec::new();
            let mut pc = base;
            for _ in 0..24 {
                pcs.push(pc);
                pc += 1 + next(3) as u32;
            }
            for (i, &pc) in pcs.iter().enumerate() {
                let len = (pcs.get(i + 1).copied().unwrap_or(pc + 3) - pc) as u8;
                let last = i == pcs.len() - 1;
                let (flow, target) = match next(8) {
                    // The last instruction always jumps: nothing follows it.
                    0..=2 if last => (Flow::Jump, base ^ 0x4000),
                    _ if last => (Flow::Jump, base),
                    0 | 1 => (Flow::Branch, pcs[next(pcs.len() as u64) as usize]),
                    _ => (Flow::None, pc + len as u32),
                };
                prog.insert(pc, (len, flow, target));
            }
        }
        let mut pc = 0x8000;
        let mut out = Vec::new();
        for _ in 0..nbatches {
            let mut batch = Vec::new();
            let skip = next(40);
            for k in 0..25 + skip {
                let (len, flow, target) = prog[&pc];
                let succ = match flow {
                    Flow::Branch if next(3) == 0 => pc + len as u32,
                    Flow::None => pc + len as u32,
                    _ => target,
                };
                let s = Sample {
                    pc,
                    len,
                    flow,
                    taken: succ != pc + len as u32,
                    next_pc: succ,
                    target: if flow == Flow::Branch { target } else { succ },
                    cycle: 0,
                };
                if k >= skip {
                    batch.push(s);
                }
                pc = succ;
            }
            out.push(batch);
        }
        out
    }
}

#[test]
fn coherent_generator_reaches_the_interesting_paths() {
    // Over a few seeds the generated executions must grow real graphs,
    // including splits and both routines, or the properties above would be
    // checking empty graphs.
    let (mut edges, mut splits, mut low, mut high) = (0, 0, 0, 0);
    for seed in 1..=20 {
        let b = coherent_from(seed, 100);
        let g = replay(gfc::THESIS_BEST, &b);
        edges += g.graph().num_edges();
        splits += g.splits();
        low += g.counters().low_stddev;
        high += g.counters().high_stddev;
    }
    assert!(
        edges > 100 && splits > 0 && low > 0 && high > 0,
        "{edges} {splits} {low} {high}"
    );
}

fn replay(p: GfcParams, batches: &[Vec<Sample>]) -> GfcGaussiano {
    let mut g = GfcGaussiano::new(p);
    for b in batches {
        g.process_batch(b);
    }
    g
}

fn check_invariants(g: &GfcGaussiano, batches: &[Vec<Sample>]) -> Result<(), TestCaseError> {
    let fed: BTreeSet<Addr> = batches
        .iter()
        .flatten()
        .filter(|s| s.flow != Flow::Interrupt)
        .map(|s| s.pc)
        .collect();
    let cfg = g.graph();
    // Edges join existing blocks whose entries were fed as pcs.
    for e in cfg.edges() {
        prop_assert!(
            cfg.block(e.src).is_some(),
            "edge src {:#x} has no block",
            e.src
        );
        prop_assert!(
            cfg.block(e.dst).is_some(),
            "edge dst {:#x} has no block",
            e.dst
        );
        prop_assert!(fed.contains(&e.src) && fed.contains(&e.dst));
        prop_assert!(e.count > 0);
    }
    // Blocks: entry first, instructions fed, no address in two blocks.
    let mut owner: BTreeMap<Addr, Addr> = BTreeMap::new();
    for b in cfg.blocks() {
        prop_assert_eq!(b.instrs.first().copied(), Some(b.entry));
        for &a in &b.instrs {
            prop_assert!(fed.contains(&a));
            if let Some(prev) = owner.insert(a, b.entry) {
                prop_assert!(false, "{:#x} in blocks {:#x} and {:#x}", a, prev, b.entry);
            }
        }
    }
    // Bins stay sorted; counters add up.
    let bins = g.bins();
    prop_assert!(bins.windows(2).all(|w| w[0].centroid() <= w[1].centroid()));
    let c = g.counters();
    prop_assert_eq!(c.segments, c.low_stddev + c.high_stddev + c.short_segments);
    prop_assert_eq!(c.batches, batches.len() as u64);
    let markers = batches
        .iter()
        .flatten()
        .filter(|s| s.flow == Flow::Interrupt)
        .count();
    prop_assert_eq!(c.interrupts, markers as u64);
    prop_assert_eq!(
        c.instructions,
        batches.iter().map(|b| b.len()).sum::<usize>() as u64 - markers as u64
    );
    let irq: u64 = cfg.interrupts().values().sum();
    prop_assert_eq!(irq, markers as u64);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_batches_never_panic_and_keep_invariants(p in params(), b in batches()) {
        let g = replay(p, &b);
        check_invariants(&g, &b)?;
    }

    #[test]
    fn off_grid_params_never_panic(
        bin in 1u32..=u32::MAX, stdev in any::<u32>(), window in 1u32..40, rec in any::<u32>(),
        b in batches(),
    ) {
        let p = GfcParams::new(bin, stdev, window, rec).unwrap();
        let g = replay(p, &b);
        check_invariants(&g, &b)?;
    }

    #[test]
    fn coherent_executions_keep_invariants(p in params(), b in coherent()) {
        let g = replay(p, &b);
        check_invariants(&g, &b)?;
    }

    #[test]
    fn replay_is_deterministic(p in params(), b in prop_oneof![batches(), coherent()]) {
        let g1 = replay(p, &b);
        let g2 = replay(p, &b);
        prop_assert_eq!(g1.graph(), g2.graph());
        prop_assert_eq!(g1.counters(), g2.counters());
        prop_assert_eq!(g1.bins(), g2.bins());
    }

    #[test]
    fn h90_is_the_shortest_prefix_reaching_ninety_percent(
        edges in prop::collection::btree_map((0u32..20, 0u32..20), 0u64..50, 0..40)
    ) {
        let mut h = Cfg::new();
        for (&(s, d), &c) in &edges {
            h.add_edge(s, d, c);
        }
        let hot = h90(&h);
        let total = h.total_transitions();
        let kept = hot.total_transitions();
        prop_assert!(kept * 10 >= total * 9);
        // Minimal: the lightest kept edge was needed.
        if let Some(min) = hot.edges().iter().map(|e| e.count).min() {
            prop_assert!((kept - min) * 10 < total * 9);
        }
        // Every kept edge is at least as heavy as every dropped one.
        let dropped_max = h.edges().iter()
            .filter(|e| !hot.contains_edge(e.src, e.dst)).map(|e| e.count).max().unwrap_or(0);
        if let Some(min) = hot.edges().iter().map(|e| e.count).min() {
            prop_assert!(min >= dropped_max);
        }
    }

    #[test]
    fn metrics_are_finite_ratios(
        g_edges in prop::collection::btree_map((0u32..12, 0u32..12), 0u64..30, 0..30),
        h_edges in prop::collection::btree_map((0u32..12, 0u32..12), 0u64..30, 0..30),
        sampled in 0u64..1000, extra in 0u64..1000,
    ) {
        let build = |m: &BTreeMap<(u32, u32), u64>| {
            let mut c = Cfg::new();
            for (&(s, d), &n) in m { c.add_edge(s, d, n); }
            c
        };
        let (g, h) = (build(&g_edges), build(&h_edges));
        let m = Metrics::compute(&g, &h, &h90(&h), sampled, sampled + extra);
        for v in [m.similarity, m.precision, m.f1, m.weighted, m.overlap] {
            prop_assert!(v.is_finite() && (0.0..=1.0 + 1e-9).contains(&v), "{m:?}");
        }
        prop_assert!(m.sampled_pct.is_finite() && m.sampled_pct <= 100.0);
        // The truth compared with itself is perfect wherever it has weight.
        let self_m = Metrics::compute(&h, &h, &h90(&h), 0, 0);
        if h.num_edges() > 0 { prop_assert!((self_m.precision - 1.0).abs() < 1e-12); }
        if h.total_transitions() > 0 {
            prop_assert!((self_m.overlap - 1.0).abs() < 1e-9);
            prop_assert!((self_m.similarity - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn trace_builder_never_panics_on_arbitrary_batches(b in batches()) {
        let mut t = TraceBuilder::new();
        for batch in &b {
            t.process_batch(batch);
        }
        // Arbitrary samples contradict themselves (a straight-line
        // instruction whose successor is elsewhere), so only the shape is
        // checked here.
        for e in t.graph().edges() {
            prop_assert_eq!(t.edge_profile().edge(e.src, e.dst), Some(e.count));
        }
    }

    #[test]
    fn trace_builder_only_holds_observed_edges(b in coherent()) {
        let mut t = TraceBuilder::new();
        for batch in &b {
            t.process_batch(batch);
        }
        check_trace(&t, &b)?;
        // Reading the graph midway does not change the end result.
        let mut u = TraceBuilder::new();
        for (i, batch) in b.iter().enumerate() {
            u.process_batch(batch);
            if i % 7 == 0 {
                let _ = u.graph();
            }
        }
        prop_assert_eq!(
            ron::to_string(t.edge_profile()).unwrap(),
            ron::to_string(u.edge_profile()).unwrap()
        );
        prop_assert_eq!(ron::to_string(t.graph()).unwrap(), ron::to_string(u.graph()).unwrap());
    }
}

/// Every edge of the trace builder's edge profile leaves its source block
/// through a transfer some sample showed: a sample at the block's last
/// instruction whose successor is the edge's target. The hot CFG is a
/// subgraph of the edge profile with the same counts.
fn check_trace(t: &TraceBuilder, batches: &[Vec<Sample>]) -> Result<(), TestCaseError> {
    let seen: BTreeSet<(Addr, Addr)> = batches
        .iter()
        .flatten()
        .filter(|s| s.flow != Flow::Interrupt)
        .map(|s| (s.pc, s.next_pc))
        .collect();
    let p = t.edge_profile();
    for e in p.edges() {
        let block = p.block(e.src);
        prop_assert!(block.is_some(), "edge from a non-block {:x}", e.src);
        let last = block.unwrap().last();
        prop_assert!(
            seen.contains(&(last, e.dst)),
            "edge {:x}->{:x} (last instruction {:x}) was never observed",
            e.src,
            e.dst,
            last
        );
    }
    for e in t.graph().edges() {
        prop_assert_eq!(p.edge(e.src, e.dst), Some(e.count));
    }
    Ok(())
}
