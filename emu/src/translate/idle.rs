//! Idle-loop skipping: a "wait for NMI" loop is counted in whole iterations
//! up to the next cycle at which anything can happen, instead of being run.

use super::block::Block;
use super::Translator;
use crate::bus::Bus;
use crate::cpu::opcodes::{Mode, OPCODES};
use crate::cpu::Cpu;
use crate::memory_log::MemoryRecorder;
use crate::probes::Probes;

impl Translator {
    /// Counts whole iterations of idle-loop block `id` without running them,
    /// each as long as the one just run (which started at cycle `start`;
    /// none are counted when a DMA stole cycles from that one), as
    /// many as end before the next cycle at which anything could differ: an
    /// APU event, a PPU catch-up (NMI, frame end, sprite 0), pending DMA, or
    /// `stop_at_cycle`. The interrupt poll must be settled, so no interrupt
    /// can become pending inside them. The skipped cycles are reads of RAM
    /// and code with no side effects, or a vblank poll's reads of `$2002`
    /// whose effects the next iteration's read covers (see
    /// `Block::is_vblank_poll`), and the data bus ends them holding
    /// what each iteration leaves on it, which the iteration just run
    /// already left there. Returns the instructions counted.
    ///
    /// The sampler sees the skipped iterations as if they had run: see
    /// [`Translator::sample_idle_iterations`].
    #[inline]
    pub(super) fn skip_idle_iterations(
        &mut self,
        id: u32,
        cpu: &Cpu,
        bus: &mut Bus,
        probes: &mut Probes,
        stop_at_cycle: u64,
        start: u64,
    ) -> u64 {
        let per = bus.cycles - start;
        // A DMA (a DMC sample fetch) that stole cycles from the iteration
        // just run made it longer than the others: not a period to count by.
        if per == 0 || !cpu.poll_is_settled(bus) || bus.dma_ended_at > start {
            return 0;
        }
        let block = &self.blocks[id as usize];
        // A vblank poll reads the flag clear in every skipped iteration
        // only if it is clear now: it may have been set since the read of
        // the iteration just run (the PPU caught up to the vblank line in
        // the branch's cycles); then the window runs to the next change.
        if block.polls_vblank && (bus.memory.is_some() || bus.ppu.vblank_flag()) {
            return 0;
        }
        let len = block.ops.len();
        let mut iterations = stop_at_cycle
            .saturating_sub(bus.cycles + 1)
            .min(bus.idle_cycles_available())
            / per;
        let now = bus.cycles;
        match probes.sampler.as_mut() {
            // Only while a batch is being collected or when one may begin
            // in these iterations (each op of them starts before the next
            // iteration does): the common case, no batch near, costs this
            // one comparison.
            Some(s) if now + iterations * per > s.next_due_cycle() => {
                iterations = Self::sample_idle_iterations(
                    &mut self.blocks[id as usize],
                    s,
                    now,
                    start,
                    iterations,
                );
            }
            _ => {}
        }
        if iterations == 0 {
            return 0;
        }
        bus.skip_idle_cycles(iterations * per);
        let block = &mut self.blocks[id as usize];
        // (Between truth bursts an idle loop moves no call stack: nothing
        // to report.)
        if let Some(c) = probes.flow.as_deref_mut().filter(|c| !c.paused()) {
            let last = block.ops[len - 1];
            let high = block.code_high;
            // The bodies, to the call stacks' current context (the last
            // ops are counted by `instruction_repeated`).
            c.body_retired(iterations * (len as u64 - 1));
            c.instruction_repeated(
                last.code(high),
                last.bytes[0],
                block.ops[0].code(high),
                iterations,
            );
            Self::mark_pending(&mut self.dirty, block, id);
            block.pending_body_runs += iterations;
        }
        if let Some(m) = bus.memory.as_deref_mut() {
            Self::record_idle_reads(block, m, iterations);
        }
        // Each is an iteration of a wait loop (if it is one: an idle loop
        // may be longer than `wait_loop::MAX_INSTRUCTIONS`), with no DMA.
        if let Some(log) = probes.events.as_deref_mut().filter(|_| block.wait_loop) {
            log.add_idle(iterations * per);
        }
        self.stats.skipped_iterations += iterations;
        iterations * len as u64
    }

    /// Tells the memory recorder what the skipped iterations of idle loop
    /// `block` read: the operand byte of each zero-page or absolute op
    /// (the only data accesses an idle loop makes, see
    /// `Block::is_idle_loop`).
    #[cold]
    fn record_idle_reads(block: &Block, m: &mut MemoryRecorder, iterations: u64) {
        if !m.recording() {
            // Between bursts only the instruction count moves on.
            m.retire(iterations * block.ops.len() as u64);
            return;
        }
        let ops = block.ops.iter().map(|op| {
            let addr = match OPCODES[op.opcode() as usize].mode {
                Mode::ZeroPage => Some(op.bytes[1] as u16),
                Mode::Absolute if !matches!(op.opcode(), 0x4C | 0x20) => {
                    Some(u16::from_le_bytes([op.bytes[1], op.bytes[2]]))
                }
                _ => None,
            };
            (op.code(block.code_high), addr)
        });
        m.repeat_reads(ops, iterations);
    }
}
