//! RON round-trip of the versioned CFG file form.

use gfc::{Block, Cfg, CfgFile, Flow, GfcGaussiano, Sample, CFG_FORMAT_VERSION, THESIS_BEST};

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
    let file = CfgFile::new(hand_made());
    let text = ron::ser::to_string_pretty(&file, ron::ser::PrettyConfig::default()).unwrap();
    assert!(
        text.contains(&format!("version: {CFG_FORMAT_VERSION}")),
        "{text}"
    );
    let back: CfgFile = ron::from_str(&text).unwrap();
    assert_eq!(back, file);
    assert_eq!(back.into_cfg().unwrap(), hand_made());
    // Serialization is deterministic: equal graphs, equal text.
    let again = ron::ser::to_string_pretty(&CfgFile::new(hand_made()), Default::default()).unwrap();
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
    let text = ron::to_string(&CfgFile::new(cfg.clone())).unwrap();
    let back: CfgFile = ron::from_str(&text).unwrap();
    assert_eq!(back.into_cfg().unwrap(), cfg);
}

#[test]
fn malformed_files_are_rejected_with_a_reason() {
    let dup_block = "(version: 1, cfg: (blocks: [\
        (entry: 1, instrs: [1], end: 2, count: 0),\
        (entry: 1, instrs: [1], end: 2, count: 0)], edges: [], interrupts: []))";
    let err = ron::from_str::<CfgFile>(dup_block).unwrap_err();
    assert!(err.to_string().contains("duplicate block entry"), "{err}");

    let dup_edge = "(version: 1, cfg: (blocks: [], edges: [\
        (src: 1, dst: 2, count: 1), (src: 1, dst: 2, count: 5)], interrupts: []))";
    let err = ron::from_str::<CfgFile>(dup_edge).unwrap_err();
    assert!(err.to_string().contains("duplicate edge"), "{err}");

    let future = "(version: 7, cfg: (blocks: [], edges: [], interrupts: []))";
    let f: CfgFile = ron::from_str(future).unwrap();
    assert!(f.into_cfg().unwrap_err().to_string().contains("version: 7"));
}
