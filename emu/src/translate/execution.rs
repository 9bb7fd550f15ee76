//! Running a block's pre-decoded ops: each runs the interpreter's generic
//! per-cycle code (`cpu/`), given its bytes by [`DecodedCode`] instead of a
//! bus read, and the block stops early when something outside it needs
//! attention.

use super::block::Op;
use super::{Exit, Translator};
use crate::bus::Bus;
use crate::cpu::{CodeSource, Cpu};
use crate::probes::Probes;

/// Instruction bytes supplied from a translated op. `prepaid` of its reads
/// were already counted by a fast-forward and cost nothing here.
pub(crate) struct DecodedCode<'a> {
    op: &'a Op,
    prepaid: u8,
}

impl DecodedCode<'_> {
    #[inline(always)]
    fn read(&mut self, cpu: &mut Cpu, bus: &mut Bus) -> u8 {
        let value = self.op.bytes[cpu.pc.wrapping_sub(self.op.pc) as usize & 3];
        if self.prepaid > 0 {
            self.prepaid -= 1;
        } else {
            cpu.read_known(bus, cpu.pc, value);
        }
        value
    }
}

impl CodeSource for DecodedCode<'_> {
    #[inline(always)]
    fn fetch(&mut self, cpu: &mut Cpu, bus: &mut Bus) -> u8 {
        let value = self.read(cpu, bus);
        cpu.pc = cpu.pc.wrapping_add(1);
        value
    }

    #[inline(always)]
    fn read_pc(&mut self, cpu: &mut Cpu, bus: &mut Bus) -> u8 {
        self.read(cpu, bus)
    }
}

impl Translator {
    /// Runs block `id` from its entry (the CPU's PC). Between instructions it
    /// stops early when an interrupt is pending, the bus raised `attention`
    /// (code written, bank switched, frame ended), or the cycle count reached
    /// `stop_at_cycle` (0 stops after every instruction). A JAM always ends
    /// its block, so it needs no check.
    ///
    /// Sampling happens inside the block: when a batch is due the ops go on
    /// running and each one is recorded as it retires, and when the batch is
    /// full the rest of the block runs unrecorded. A batch is the N
    /// instructions the interpreter would record (a test compares them), and
    /// it costs no more than recording them: leaving the block at a batch's
    /// first and last instruction, to step them through the interpreter and
    /// re-enter the block code mid-way, was most of what the sampler cost.
    /// `look_at` is the cycle at which the ops stop to ask the sampler
    /// (see [`Translator::look_at`]); [`Translator::run_chain`] keeps it
    /// from block to block.
    #[inline]
    pub(super) fn run_block(
        &mut self,
        id: u32,
        cpu: &mut Cpu,
        bus: &mut Bus,
        probes: &mut Probes,
        stop_at_cycle: u64,
        look_at: &mut u64,
    ) -> Exit {
        self.stats.block_runs += 1;
        bus.attention = false;
        let block = &mut self.blocks[id as usize];
        let n = block.ops.len();
        let mut executed = 0;
        // Without a sampler `look_at` is `stop_at_cycle`, and the ops always
        // run here.
        if bus.cycles < *look_at || probes.sampler.is_none() {
            executed = Self::run_ops(&block.ops, cpu, bus, *look_at);
        }
        if executed < n && !(executed > 0 && Self::must_stop(cpu, bus, stop_at_cycle)) {
            // The sampler's turn (cold): a batch may start or be going on.
            executed += Self::run_ops_sampler_turn(
                &block.ops[executed..],
                block.code_high,
                cpu,
                bus,
                stop_at_cycle,
                probes,
                look_at,
            );
        }
        if let Some(c) = probes.flow.as_deref_mut() {
            let high = block.code_high;
            // Under the banks mapped now: the last op may have switched them.
            let next = probes.code_map.key(&bus.cart.banks, cpu.pc);
            if executed == n {
                // The last op is the block's control transfer: counted as it
                // retires; the rest are counted per run in bulk.
                let last = &block.ops[n - 1];
                c.instruction(last.code(high), last.bytes[0], next, cpu.s);
                if block.pending_body_runs == 0 {
                    self.dirty.push(id);
                }
                block.pending_body_runs += 1;
            } else {
                // A partial run: the ops that retired are all straight-line,
                // each followed by the next op in the block, the last by
                // `next`.
                for (i, done) in block.ops[..executed].iter().enumerate() {
                    let after = match block.ops.get(i + 1) {
                        Some(op) if i + 1 < executed => op.code(high),
                        _ => next,
                    };
                    c.instruction(done.code(high), done.bytes[0], after, cpu.s);
                }
            }
        }
        if executed == n && !Self::must_stop(cpu, bus, stop_at_cycle) {
            Exit::Completed
        } else {
            Exit::After(executed)
        }
    }

    /// Runs `ops` (the rest of a block) until one ends at a point where
    /// [`Translator::must_stop`] holds for `stop_at_cycle`; returns how many
    /// ran (at least one).
    #[inline(always)]
    pub(super) fn run_ops(ops: &[Op], cpu: &mut Cpu, bus: &mut Bus, stop_at_cycle: u64) -> usize {
        let mut executed = 0;
        for op in ops {
            Self::execute(op, cpu, bus);
            executed += 1;
            if Self::must_stop(cpu, bus, stop_at_cycle) {
                break;
            }
        }
        executed
    }

    /// One translated instruction, bus cycle for bus cycle the
    /// interpreter's.
    ///
    /// Never inlined, so there is one copy of the instruction code (~200
    /// KB of machine code) for the block loop and the sampler's recording
    /// loop alike. Inlined into both, the recording copy ran cold, out of
    /// the caches and branch predictors, for every batch; and the call per
    /// instruction turned out cheaper than the inlined loop even without a
    /// sampler (whole movies 3–6 % faster: fff 3.34 → 3.14 s, lunarlimit
    /// 2.48 → 2.40 s for 18000 frames, `examples/probe_cost GAME translate
    /// off 18000`, alternating builds).
    #[inline(never)]
    pub(super) fn execute(op: &Op, cpu: &mut Cpu, bus: &mut Bus) {
        let opcode = op.bytes[0];
        // The opcode fetch and the reads of the instruction's own bytes
        // that follow it, in one step when nothing can happen in them.
        let leading = op.leading_code_reads as u32;
        let prepaid = if cpu.poll_is_settled(bus)
            && bus.try_fast_forward(leading, op.bytes[(leading as usize - 1) & 3])
        {
            leading as u8 - 1
        } else {
            cpu.read_known(bus, op.pc, opcode);
            0
        };
        cpu.pc = op.pc.wrapping_add(1);
        cpu.execute(bus, &mut DecodedCode { op, prepaid }, opcode);
    }

    /// Non-short-circuit ORs: one straight-line test between instructions.
    #[inline(always)]
    pub(super) fn must_stop(cpu: &Cpu, bus: &Bus, stop_at_cycle: u64) -> bool {
        bus.attention | cpu.interrupt_signalled() | (bus.cycles >= stop_at_cycle)
    }
}
