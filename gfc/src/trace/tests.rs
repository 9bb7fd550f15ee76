use super::*;
use crate::sample::{Flow, Sample};

#[test]
fn empty_builder_has_empty_graphs() {
    let b = TraceBuilder::new();
    assert_eq!(b.graph().num_edges(), 0);
    assert_eq!(b.edge_profile().num_edges(), 0);
}

#[test]
fn a_loop_is_one_block_with_a_back_edge_and_an_exit() {
    // 8000: LDA; 8002: DEX; 8003: BNE 8000 (taken three times, then not).
    let mut batch = Vec::new();
    for taken in [true, true, true, false] {
        batch.push(Sample::plain(0x8000, 2));
        batch.push(Sample::plain(0x8002, 1));
        let next = if taken { 0x8000 } else { 0x8005 };
        batch.push(Sample::control(0x8003, 2, Flow::Branch, next));
    }
    let mut b = TraceBuilder::new();
    b.process_batch(&batch);
    let p = b.edge_profile();
    assert_eq!(p.num_blocks(), 1);
    assert_eq!(
        p.block(0x8000).unwrap().instrs,
        vec![0x8000, 0x8002, 0x8003]
    );
    assert_eq!(p.edge(0x8000, 0x8000), Some(3));
    assert_eq!(p.edge(0x8000, 0x8005), Some(1));
}
