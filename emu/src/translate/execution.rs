//! Running a block's ops (see `op`): back to back in the idle window when
//! it holds them, else one at a time, and the block stops early when
//! something outside it needs attention.

use super::block::Block;
use super::op::{
    memory_level, open_for, settle, window_for, Op, Window, CLOSED, LONGEST_INSTRUCTION,
};
use super::{Exit, Translator};
use crate::bus::Bus;
use crate::code_addr::CodeMap;
use crate::cpu::opcodes::Flow;
use crate::cpu::Cpu;
use crate::flow_counts::FlowCounts;
use crate::frame_events::{EventKind, EventLog, FlowEvent, Stamp};
use crate::probes::Probes;

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
        if let Some(m) = bus.memory.as_deref_mut() {
            m.enter_block(block.code_high);
        }
        // The block's ops point at the handlers the memory recorder asks
        // for (plain, write-tracking or recording), switched here when it
        // asks for others: a switch costs a store per op, no translation.
        let level = memory_level(bus);
        if block.handlers != level {
            block.set_handlers(level);
        }
        // The cycle count and DMA cycles at the entry, for the event log
        // (a wait-loop block's run is an iteration: `frame_events`).
        let logging = probes.events.is_some() && block.logs;
        let entered = if probes.events.is_some() && block.iterates {
            (bus.cycles, bus.dma_cycles())
        } else {
            (0, 0)
        };
        let executed = Self::run_ops_sampling(block, cpu, bus, probes, stop_at_cycle, look_at);
        // (The flow recording below changes neither the CPU nor the bus.)
        let completed = executed == n && !Self::must_stop(cpu, bus, stop_at_cycle);
        let mut uncounted = false;
        if let Some(c) = probes.flow.as_deref_mut() {
            let high = block.code_high;
            if c.paused() {
                // Between truth bursts only the call stacks move: a block's
                // last op is the only one that can move them.
                if executed == n
                    && block.moves_stacks()
                    && !Self::tell_stacks(block, c, &mut probes.code_map, bus, cpu)
                {
                    // BRK, RTI: the interrupt frames move too.
                    let last = &block.ops[n - 1];
                    let next = probes.code_map.key(&bus.cart.banks, cpu.pc);
                    c.instruction(last.code(high), last.bytes[0], next, cpu.s);
                }
            } else if completed && block.counts_by_links {
                // Counted by the run and the link the chain takes next
                // (`flow`); the call stacks hear of it now.
                c.body_retired(n as u64);
                Self::tell_stacks(block, c, &mut probes.code_map, bus, cpu);
                Self::mark_pending(&mut self.dirty, block, id);
                block.pending_runs += 1;
                uncounted = true;
            } else {
                // Under the banks mapped now: the last op may have switched
                // them.
                let next = probes.code_map.key(&bus.cart.banks, cpu.pc);
                if executed == n {
                    // The last op is the block's control transfer: counted
                    // as it retires; the rest are counted per run in bulk.
                    // The call stacks credit the body to the context it ran
                    // in.
                    c.body_retired(n as u64 - 1);
                    let last = &block.ops[n - 1];
                    c.instruction(last.code(high), last.bytes[0], next, cpu.s);
                    Self::mark_pending(&mut self.dirty, block, id);
                    block.pending_body_runs += 1;
                } else {
                    // A partial run: the ops that retired are all
                    // straight-line, each followed by the next op in the
                    // block, the last by `next`.
                    for (i, done) in block.ops[..executed].iter().enumerate() {
                        let after = match block.ops.get(i + 1) {
                            Some(op) if i + 1 < executed => op.code(high),
                            _ => next,
                        };
                        c.instruction(done.code(high), done.bytes[0], after, cpu.s);
                    }
                }
            }
            if let Some(m) = bus.memory.as_deref_mut() {
                if !m.counts_each_op() {
                    m.retire(executed as u64);
                }
                // Only a block's last op can move the call stacks.
                if executed == n && block.moves_stacks() {
                    m.follow(c.call_stacks());
                }
            }
        }
        if logging {
            match (block.plain_event, probes.events.as_deref_mut()) {
                (Some(kind), Some(log)) if executed == n => {
                    let target = probes.code_map.key(&bus.cart.banks, cpu.pc);
                    Self::log_exit(log, kind, block, target, cpu, bus);
                }
                _ => Self::log_run(block, executed, entered, probes, cpu, bus),
            }
        }
        match (completed, uncounted) {
            (true, false) => Exit::Completed,
            (true, true) => Exit::CompletedUncounted,
            (false, _) => Exit::After(executed),
        }
    }

    /// Block `block`'s ops from its entry, the sampler asked where it must
    /// be: plainly up to `look_at` ([`Translator::run_ops`]; without a
    /// sampler `look_at` is `stop_at_cycle`, and they all run there), then
    /// in the sampler's turn (cold: a batch may start or be going on).
    /// Live operands are read again as each op runs. Returns the ops run.
    #[inline(always)]
    pub(super) fn run_ops_sampling(
        block: &Block,
        cpu: &mut Cpu,
        bus: &mut Bus,
        probes: &mut Probes,
        stop_at_cycle: u64,
        look_at: &mut u64,
    ) -> usize {
        let mut executed = 0;
        if bus.cycles < *look_at || probes.sampler.is_none() {
            executed = Self::run_ops(&block.ops, block.live, cpu, bus, *look_at);
        }
        if executed < block.ops.len() && !(executed > 0 && Self::must_stop(cpu, bus, stop_at_cycle))
        {
            executed += Self::run_ops_sampler_turn(
                block,
                executed,
                cpu,
                bus,
                stop_at_cycle,
                probes,
                look_at,
            );
        }
        executed
    }

    /// Tells the event log (`frame_events`) of a run of `block` (one that
    /// [`Block::logs`]) that
    /// retired its first `executed` ops, entered at cycle `entered.0` with
    /// `entered.1` DMA cycles so far: a run to the end logs its last op's
    /// transfer, and a wait-loop block's that went back to its entry was an
    /// iteration of the loop (its cycles less DMA are idle). A wait-loop
    /// block stopped inside with nothing to cut the iteration (no
    /// interrupt, no frame end: a cycle limit) hands it over to the
    /// interpreter, which counts it as it would have had it run it all.
    #[inline(never)]
    fn log_run(
        block: &Block,
        executed: usize,
        entered: (u64, u64),
        probes: &mut Probes,
        cpu: &Cpu,
        bus: &Bus,
    ) {
        let Some(log) = probes.events.as_deref_mut() else {
            return;
        };
        let (first, last) = (&block.ops[0], &block.ops[block.ops.len() - 1]);
        let span = last.pc.wrapping_sub(first.pc) + last.len();
        // Whether the entry is a wait loop's head (the block then being the
        // loop): known, or asked now of live operands.
        let wait_loop = || {
            block.wait_loop
                || (block.wait_loop_dynamic
                    && crate::wait_loop::at(first.pc, |a| bus.peek(a)) == Some(span))
        };
        if executed == block.ops.len() {
            if cpu.pc == first.pc && wait_loop() {
                log.add_idle((bus.cycles - entered.0) - (bus.dma_cycles() - entered.1));
            }
            let target = probes.code_map.key(&bus.cart.banks, cpu.pc);
            let kind = match block.exit_event {
                Some(EventKind::Jump)
                    if block.exit_event_checked
                        && crate::wait_loop::jumps_back(last.pc, cpu.pc, |a| bus.peek(a)) =>
                {
                    None
                }
                // Only where it went forward into a watched address.
                Some(EventKind::FallInto) if !(cpu.pc > last.pc && log.watches(target)) => None,
                kind => kind,
            };
            if let Some(kind) = kind {
                Self::log_exit(log, kind, block, target, cpu, bus);
            }
        } else if executed > 0 && !bus.attention && !cpu.interrupt_signalled() && wait_loop() {
            log.iteration_begun(first.code(block.code_high), span, entered.0, entered.1);
        }
    }

    /// Logs `kind`, the transfer of `block`'s last op to code address
    /// `target`, as it retired just now.
    #[inline(always)]
    fn log_exit(
        log: &mut EventLog,
        kind: EventKind,
        block: &Block,
        target: u32,
        cpu: &Cpu,
        bus: &Bus,
    ) {
        log.push(FlowEvent {
            kind,
            pc: block.exit_code,
            target,
            sp: cpu.s,
            at: Stamp::now(bus, log.idle()),
        });
    }

    /// Tells `c` what a complete run of `block`, ending in a `JSR` or
    /// `RTS`, did to the call stacks, and nothing else (the run's other
    /// counts are kept elsewhere, or not at all between bursts); false for
    /// other exits.
    #[inline(always)]
    fn tell_stacks(
        block: &mut Block,
        c: &mut FlowCounts,
        code_map: &mut CodeMap,
        bus: &Bus,
        cpu: &Cpu,
    ) -> bool {
        match block.exit_flow {
            Flow::Call => {
                let target = code_map.key(&bus.cart.banks, cpu.pc);
                c.stack_call(target, cpu.s, &mut block.call_cache);
                true
            }
            Flow::Return => {
                c.stack_return(cpu.s);
                true
            }
            _ => false,
        }
    }

    /// Runs `ops` (the rest of a block; `live` if its operands are, see
    /// `Block::live`) until one ends at a point where
    /// [`Translator::must_stop`] holds for `stop_at_cycle`; returns how many
    /// ran (at least one).
    #[inline(always)]
    pub(super) fn run_ops(
        ops: &[Op],
        live: bool,
        cpu: &mut Cpu,
        bus: &mut Bus,
        stop_at_cycle: u64,
    ) -> usize {
        let run = if live {
            Self::run_ops_repeating::<true>(ops, None, cpu, bus, stop_at_cycle, u64::MAX, 0)
        } else {
            Self::run_ops_repeating::<false>(ops, None, cpu, bus, stop_at_cycle, u64::MAX, 0)
        };
        settle(cpu, bus, run.owed);
        run.retired as usize
    }

    /// [`Translator::run_ops`] for a block that may loop back to its own
    /// entry `repeat`: it runs again while it does and nothing stops it.
    /// `owed` window cycles (see `op::Translated`) may be owed from the
    /// blocks before; those still owed when it returns are in the result,
    /// for the caller to add to the machine (`op::settle`)
    /// before anything else looks at it.
    ///
    /// When a whole run fits the idle window and ends before
    /// `stop_at_cycle`, nothing can make it stop but the ops themselves (an
    /// access that needs the bus, or a write into translated code, closes
    /// the window), so the ops run back to back with their
    /// cycles added later in one step, and op by op only from where one of
    /// those happened. A block that loops to itself stays in the window for
    /// as many runs as fit, and so does a chain of blocks: each iteration
    /// of a wait loop then costs its ops' handlers and little else (every
    /// instruction still runs; this is not the idle-loop skipping).
    ///
    /// When a run could reach `leave_at` (at most `stop_at_cycle`: the
    /// cycle at which the sampler is to be asked), nothing runs and the
    /// result says [`OpsRun::left`]: the caller leaves the block to the
    /// observed loop at its entry. The test shares the window's own test,
    /// so the plain loop pays nothing for it.
    #[inline(always)]
    pub(super) fn run_ops_repeating<const LIVE: bool>(
        ops: &[Op],
        repeat: Option<u16>,
        cpu: &mut Cpu,
        bus: &mut Bus,
        stop_at_cycle: u64,
        leave_at: u64,
        mut owed: u32,
    ) -> OpsRun {
        let n = ops.len();
        let bound = n as u32 * LONGEST_INSTRUCTION;
        match window_for(bound, &mut owed, cpu, bus, stop_at_cycle) {
            Window::Holds => {}
            Window::InReach if bus.cycles + (owed + bound) as u64 >= leave_at => {
                return OpsRun {
                    retired: 0,
                    completed: false,
                    left: true,
                    owed,
                };
            }
            reach_or_closed => {
                if reach_or_closed == Window::InReach {
                    settle(cpu, bus, owed);
                }
                let executed = Self::run_ops_one_by_one::<LIVE>(ops, cpu, bus, stop_at_cycle);
                return OpsRun {
                    retired: executed as u64,
                    completed: executed == n,
                    left: false,
                    owed: 0,
                };
            }
        }
        let mut retired = 0;
        loop {
            for (i, op) in ops.iter().enumerate() {
                owed = run::<LIVE>(op, cpu, bus, owed);
                // In the window only the op itself can make the block stop,
                // and it then closes the window (see `op::Translated`).
                if owed == CLOSED {
                    let mut executed = i + 1;
                    if executed < n && !Self::must_stop(cpu, bus, stop_at_cycle) {
                        executed += Self::run_ops_one_by_one::<LIVE>(
                            &ops[executed..],
                            cpu,
                            bus,
                            stop_at_cycle,
                        );
                    }
                    return OpsRun {
                        retired: retired + executed as u64,
                        completed: executed == n,
                        left: false,
                        owed: 0,
                    };
                }
            }
            retired += n as u64;
            let next_end = owed + bound;
            if Some(cpu.pc) != repeat
                || next_end > cpu.idle_budget
                || bus.cycles + next_end as u64 >= stop_at_cycle
            {
                return OpsRun {
                    retired,
                    completed: true,
                    left: false,
                    owed,
                };
            }
        }
    }

    /// [`Translator::run_ops`] checking for a stop after every op.
    #[inline(always)]
    pub(super) fn run_ops_one_by_one<const LIVE: bool>(
        ops: &[Op],
        cpu: &mut Cpu,
        bus: &mut Bus,
        stop_at_cycle: u64,
    ) -> usize {
        let mut executed = 0;
        for op in ops {
            Self::execute::<LIVE>(op, cpu, bus);
            executed += 1;
            if Self::must_stop(cpu, bus, stop_at_cycle) {
                break;
            }
        }
        executed
    }

    /// One translated instruction, bus cycle for bus cycle the
    /// interpreter's: the handler chosen for its opcode at translation, in
    /// the idle window when it is open for the op.
    #[inline(always)]
    pub(super) fn execute<const LIVE: bool>(op: &Op, cpu: &mut Cpu, bus: &mut Bus) {
        if open_for(LONGEST_INSTRUCTION, cpu, bus) {
            let owed = run::<LIVE>(op, cpu, bus, 0);
            if owed != CLOSED {
                settle(cpu, bus, owed);
            }
        } else {
            run::<LIVE>(op, cpu, bus, CLOSED);
        }
    }

    /// Non-short-circuit ORs: one straight-line test between instructions.
    #[inline(always)]
    pub(super) fn must_stop(cpu: &Cpu, bus: &Bus, stop_at_cycle: u64) -> bool {
        bus.attention | cpu.interrupt_signalled() | (bus.cycles >= stop_at_cycle)
    }
}

/// What [`Translator::run_ops_repeating`] did.
pub(super) struct OpsRun {
    /// Ops retired.
    pub retired: u64,
    /// Whether the last run of the block went to its end.
    pub completed: bool,
    /// Whether it ran nothing, leaving the block to the observed loop
    /// (its `leave_at` could be reached).
    pub left: bool,
    /// Window cycles not yet added to the machine.
    pub owed: u32,
}

/// Runs `op` through its handler (see `op::OpHandler`), with its bytes read
/// again from RAM first if its block's operands are live (`LIVE`).
#[inline(always)]
pub(super) fn run<const LIVE: bool>(op: &Op, cpu: &mut Cpu, bus: &mut Bus, owed: u32) -> u32 {
    if LIVE {
        let fresh = op.reread(&bus.ram);
        (fresh.run)(&fresh, cpu, bus, owed)
    } else {
        (op.run)(op, cpu, bus, owed)
    }
}
