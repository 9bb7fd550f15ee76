//! The exact CFG of a run, derived from the raw [`FlowCounts`] an engine
//! recorded, by DESIGN.md's rules:
//!
//! - Leaders: targets of taken branches, JMP, JSR, RTS, BRK (and of RTI
//!   returning from BRK, its matching return), interrupt handler entries, and
//!   every address after a conditional branch. Any executed address that no
//!   executed instruction leads into sequentially (the reset entry point) is a
//!   leader too, and so is one that two executed straight-line instructions
//!   lead into (code entered at two alignments joins there): blocks never
//!   share instructions, so no exit is counted twice.
//! - Blocks: from a leader, the executed run up to the next control-flow
//!   instruction or leader. Blocks are cut only after all leaders are known,
//!   so the result does not depend on the order code was discovered.
//! - Edges: (source entry, destination entry) with transition counts,
//!   fall-through included. NMI/IRQ entries and their RTIs are not edges; they
//!   are counted per handler, and the interrupted block continues after them.
//!
//! Because both engines feed identical counts, they yield identical CFGs.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use emu::code_addr;
use emu::cpu::opcodes::Flow;
use emu::flow_counts::FlowCounts;
use gfc::{Addr, Block, Cfg};

/// Transfers recorded per source address, merged from the static and dynamic
/// tables.
fn transfers_by_source(counts: &FlowCounts) -> BTreeMap<Addr, Vec<(Addr, u64)>> {
    let mut by_source: BTreeMap<Addr, Vec<(Addr, u64)>> = BTreeMap::new();
    for (&(src, dst), &n) in &counts.dynamic {
        by_source.entry(src).or_default().push((dst, n));
    }
    for (pc, dst, n) in counts.static_transfers() {
        let list = by_source.entry(pc).or_default();
        match list.iter_mut().find(|(d, _)| *d == dst) {
            Some(entry) => entry.1 += n,
            None => list.push((dst, n)),
        }
    }
    for list in by_source.values_mut() {
        list.sort_unstable();
    }
    by_source
}

/// The code address after the instruction at `pc` (see `emu::code_addr`).
fn next_address(counts: &FlowCounts, pc: Addr) -> Addr {
    code_addr::advance(pc, counts.length(pc) as u16)
}

/// Builds the exact CFG from `counts`. Its addresses are code addresses
/// (`emu::code_addr`): on a banked board two banks at one CPU address are
/// two places.
pub fn build(counts: &FlowCounts) -> Cfg {
    let transfers = transfers_by_source(counts);
    let executed_list: Vec<Addr> = counts.executed_addresses().map(|(pc, _)| pc).collect();
    let executed = |pc: Addr| counts.executed(pc) > 0;

    let mut leaders: BTreeSet<Addr> = BTreeSet::new();
    // Executed straight-line instructions leading into each address
    // (saturating at 2: only "none", "one" and "a join" matter).
    let mut sequential_predecessors: HashMap<Addr, u8> = HashMap::new();
    for &pc in &executed_list {
        match counts.flow(pc) {
            Flow::None => {
                let n = sequential_predecessors
                    .entry(next_address(counts, pc))
                    .or_insert(0);
                *n = n.saturating_add(1);
            }
            Flow::Branch => {
                let fall_through = next_address(counts, pc);
                leaders.insert(fall_through);
                sequential_predecessors.insert(fall_through, 1);
            }
            _ => {}
        }
    }
    for list in transfers.values() {
        leaders.extend(list.iter().map(|&(dst, _)| dst));
    }
    leaders.extend(counts.interrupts.keys().copied());
    leaders.extend(counts.brk_handlers.keys().copied());
    // No straight-line way in (the reset entry) or two of them (code
    // entered at two alignments, as a 6502 "skip" byte does, joining at
    // this instruction): a leader either way. Without the join rule two
    // blocks would share their tail and each be credited with its exit.
    for &pc in &executed_list {
        if sequential_predecessors.get(&pc).copied().unwrap_or(0) != 1 {
            leaders.insert(pc);
        }
    }
    leaders.retain(|&pc| executed(pc));

    let mut cfg = Cfg::new();
    for &entry in &leaders {
        let mut block = Block::new(entry, counts.length(entry));
        block.count = counts.executed(entry);
        let mut pc = entry;
        loop {
            if counts.flow(pc) != Flow::None {
                break;
            }
            let next = next_address(counts, pc);
            if leaders.contains(&next)
                || !executed(next)
                || next <= pc
                || block.instrs.len() >= 0x10000
            {
                break;
            }
            pc = next;
            block.instrs.push(pc);
        }
        block.end = next_address(counts, pc);
        let last = pc;
        cfg.insert_block(block);

        let src = entry;
        let flow = counts.flow(last);
        let out = transfers.get(&last).map(Vec::as_slice).unwrap_or(&[]);
        match flow {
            Flow::None => {
                let next = next_address(counts, last);
                if executed(next) {
                    cfg.add_edge(src, next, counts.executed(last));
                }
            }
            Flow::Branch => {
                let taken: u64 = out.iter().map(|&(_, n)| n).sum();
                for &(dst, n) in out {
                    cfg.add_edge(src, dst, n);
                }
                let not_taken = counts.executed(last).saturating_sub(taken);
                if not_taken > 0 {
                    cfg.add_edge(src, next_address(counts, last), not_taken);
                }
            }
            Flow::Jump | Flow::Call | Flow::Return | Flow::Break | Flow::ReturnInterrupt => {
                for &(dst, n) in out {
                    cfg.add_edge(src, dst, n);
                }
            }
            Flow::Jam => {}
        }
    }
    for (&handler, &n) in &counts.interrupts {
        cfg.add_interrupts(handler, n);
    }
    cfg
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds a hand-written instruction trace: (pc, opcode, next_pc).
    fn record(trace: &[(u32, u8, u32)]) -> FlowCounts {
        let mut counts = FlowCounts::new();
        for &(pc, opcode, next) in trace {
            counts.instruction(pc, opcode, next, 0xFD);
        }
        counts
    }

    #[test]
    fn counted_loop() {
        // $8000 LDX #3; $8002 DEX; $8003 BNE $8002; $8005 JMP $8000
        let mut trace = vec![(0x8000, 0xA2, 0x8002)];
        for i in 0..3 {
            trace.push((0x8002, 0xCA, 0x8003));
            trace.push((0x8003, 0xD0, if i < 2 { 0x8002 } else { 0x8005 }));
        }
        trace.push((0x8005, 0x4C, 0x8000));
        trace.push((0x8000, 0xA2, 0x8002));
        let cfg = build(&record(&trace));
        let entries: Vec<Addr> = cfg.blocks().map(|b| b.entry).collect();
        assert_eq!(entries, vec![0x8000, 0x8002, 0x8005]);
        assert_eq!(cfg.block(0x8002).unwrap().instrs, vec![0x8002, 0x8003]);
        // LDX retired twice, each time moving on to $8002.
        assert_eq!(cfg.edge(0x8000, 0x8002), Some(2));
        assert_eq!(cfg.edge(0x8002, 0x8002), Some(2));
        assert_eq!(cfg.edge(0x8002, 0x8005), Some(1));
        assert_eq!(cfg.edge(0x8005, 0x8000), Some(1));
        assert_eq!(cfg.num_edges(), 4);
    }

    #[test]
    fn hardware_interrupt_is_not_an_edge() {
        // $8000 NOP; (NMI -> $9000 NOP; $9001 RTI -> $8001); $8001 NOP; $8002 JMP $8000
        let mut counts = FlowCounts::new();
        counts.instruction(0x8000, 0xEA, 0x8001, 0xFD);
        counts.hardware_interrupt(0x9000, 0xFA);
        counts.instruction(0x9000, 0xEA, 0x9001, 0xFA);
        counts.instruction(0x9001, 0x40, 0x8001, 0xFD);
        counts.instruction(0x8001, 0xEA, 0x8002, 0xFD);
        counts.instruction(0x8002, 0x4C, 0x8000, 0xFD);
        let cfg = build(&counts);
        let entries: Vec<Addr> = cfg.blocks().map(|b| b.entry).collect();
        assert_eq!(entries, vec![0x8000, 0x9000]);
        assert_eq!(
            cfg.block(0x8000).unwrap().instrs,
            vec![0x8000, 0x8001, 0x8002]
        );
        assert_eq!(cfg.edge(0x8000, 0x8000), Some(1));
        assert_eq!(cfg.num_edges(), 1, "no edge into or out of the handler");
        assert_eq!(cfg.interrupts().get(&0x9000), Some(&1));
    }

    #[test]
    fn brk_is_a_call_and_its_rti_a_return() {
        // $8000 BRK -> $9000; $9000 RTI -> $8002; $8002 JMP $8000
        let mut counts = FlowCounts::new();
        counts.instruction(0x8000, 0x00, 0x9000, 0xFA);
        counts.instruction(0x9000, 0x40, 0x8002, 0xFD);
        counts.instruction(0x8002, 0x4C, 0x8000, 0xFD);
        let cfg = build(&counts);
        assert_eq!(cfg.edge(0x8000, 0x9000), Some(1));
        assert_eq!(cfg.edge(0x9000, 0x8002), Some(1));
        assert_eq!(cfg.edge(0x8002, 0x8000), Some(1));
    }

    #[test]
    fn patched_branch_targets_stay_exact() {
        // A JSR at $8000 whose target is rewritten between calls.
        let counts = record(&[
            (0x8000, 0x20, 0x9000),
            (0x9000, 0x60, 0x8003),
            (0x8003, 0x4C, 0x8000),
            (0x8000, 0x20, 0xA000),
            (0xA000, 0x60, 0x8003),
            (0x8003, 0x4C, 0x8000),
            (0x8000, 0x20, 0xA000),
        ]);
        let cfg = build(&counts);
        assert_eq!(cfg.edge(0x8000, 0x9000), Some(1));
        assert_eq!(cfg.edge(0x8000, 0xA000), Some(2));
    }

    #[test]
    fn code_entered_at_two_alignments_splits_where_it_joins() {
        // $8000 LDA #$EA (2 bytes) runs into $8002; entered at $8001, its
        // operand byte is a NOP (1 byte) that runs into $8002 too; $8002
        // JMP jumps to $8001 and then to $8000.
        let counts = record(&[
            (0x8000, 0xA9, 0x8002),
            (0x8002, 0x4C, 0x8001),
            (0x8001, 0xEA, 0x8002),
            (0x8002, 0x4C, 0x8000),
            (0x8000, 0xA9, 0x8002),
        ]);
        let cfg = build(&counts);
        // $8002 is reached straight from $8000 and from $8001: a leader.
        assert_eq!(cfg.block(0x8000).unwrap().instrs, vec![0x8000]);
        assert_eq!(cfg.block(0x8001).unwrap().instrs, vec![0x8001]);
        assert_eq!(cfg.edge(0x8000, 0x8002), Some(2));
        assert_eq!(cfg.edge(0x8001, 0x8002), Some(1));
        // Two transfers out of $8002 (one still pending at the end).
        assert_eq!(cfg.edge(0x8002, 0x8000), Some(1));
        assert_eq!(cfg.edge(0x8002, 0x8001), Some(1));
    }
}
