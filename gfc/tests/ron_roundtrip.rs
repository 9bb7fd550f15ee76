//! RON round-trip of the CFG type. (Its versioned file form, with the ROM it
//! came from, is the profiler's `cfg_file`, tested there.)

use gfc::{Block, Cfg, Flow, GfcGaussiano, Sample, THESIS_BEST};

fn hand_made() -> Cfg {
    let mut g = Cfg::new();
    g.insert_block(Block {
        entry: 0x8000,
        instrs: vec![0x8000],
        end: 0x8002,
        count: 3,
    });
    g.insert_block(Block {
        entry: 0x8002,
        instrs: vec![0x8002, 0x8003],
        end: 0x8005,
        count: 12,
    });
    g.add_edge(0x8000, 0x8002, 3);
    g.add_edge(0x8002, 0x8002, 9);
    g.add_edge(0x8002, 0x8000, 2);
    g.add_interrupts(0xC100, 4);
    g
}

#[test]
fn hand_made_cfg_round_trips() {
    let text = ron::ser::to_string_pretty(&hand_made(), ron::ser::PrettyConfig::default()).unwrap();
    let back: Cfg = ron::from_str(&text).unwrap();
    assert_eq!(back, hand_made());
    // Serialization is deterministic: equal graphs, equal text.
    let again = ron::ser::to_string_pretty(&hand_made(), Default::default()).unwrap();
    assert_eq!(text, again);
}

#[test]
fn sampled_cfg_round_trips() {
    let mut batch = Vec::new();
    for _ in 0..2 {
        batch.push(Sample::plain(0x8000, 2));
        for k in 0..5 {
            batch.push(Sample::plain(0x8002, 1));
            let next = if k < 4 { 0x8002 } else { 0x8005 };
            batch.push(Sample::control(0x8003, 2, Flow::Branch, next));
        }
        batch.push(Sample::control(0x8005, 3, Flow::Jump, 0x8000));
    }
    let mut g = GfcGaussiano::new(THESIS_BEST);
    for _ in 0..5 {
        g.process_batch(&batch);
    }
    let cfg = g.into_graph();
    assert!(cfg.num_edges() > 0);
    let text = ron::to_string(&cfg).unwrap();
    let back: Cfg = ron::from_str(&text).unwrap();
    assert_eq!(back, cfg);
}

#[test]
fn malformed_files_are_rejected_with_a_reason() {
    let dup_block = "(blocks: [\
        (entry: 1, instrs: [1], end: 2, count: 0),\
        (entry: 1, instrs: [1], end: 2, count: 0)], edges: [], interrupts: [])";
    let err = ron::from_str::<Cfg>(dup_block).unwrap_err();
    assert!(err.to_string().contains("duplicate block entry"), "{err}");

    let dup_edge = "(blocks: [], edges: [\
        (src: 1, dst: 2, count: 1), (src: 1, dst: 2, count: 5)], interrupts: [])";
    let err = ron::from_str::<Cfg>(dup_edge).unwrap_err();
    assert!(err.to_string().contains("duplicate edge"), "{err}");
}
