//! The sampler inside translated code: where a batch may be due, the
//! unobserved chain's blocks run noting the cycle each op starts at, and
//! the sampler is shown them after the run; in the observed loop the ops
//! go on running and each one is recorded as it retires; batches that
//! fall in a skipped idle loop are written from the loop's known timing.

use super::block::{Block, IdleTiming, OpStarts, MAX_BLOCK_OPS};
use super::execution::run;
use super::op::{open_for, settle, Op, CLOSED, LONGEST_INSTRUCTION};
use super::region::RegionChoice;
use super::Translator;
use crate::bus::Bus;
use crate::code_addr::CodeMap;
use crate::cpu::Cpu;
use crate::probes::Probes;
use crate::sampling::{Retired, SampleCapture};

impl Translator {
    /// The rest of a block from where the sampler has to be asked whether a
    /// batch starts (the cycle count reached `look_at`), or while one is
    /// being collected: the ops that start while a batch is being
    /// collected are recorded as they retire, the others run as in
    /// [`Translator::run_ops`], to the end of the block (or until the ops
    /// must stop); then `look_at` is set for what follows. The ops run
    /// through the same [`Translator::execute`] as everywhere else (see
    /// there).
    #[inline(never)]
    pub(super) fn run_ops_sampler_turn(
        block: &Block,
        from: usize,
        cpu: &mut Cpu,
        bus: &mut Bus,
        stop_at_cycle: u64,
        probes: &mut Probes,
        look_at: &mut u64,
    ) -> usize {
        let Probes {
            sampler: Some(sampler),
            code_map,
            ..
        } = probes
        else {
            return 0;
        };
        let (ops, live, code_high) = (&block.ops[from..], block.live, block.code_high);
        let mut executed = 0;
        loop {
            if sampler.collecting() || sampler.sample_next(bus.cycles) {
                sampler.record_with(|records, limit| {
                    let end = ops.len().min(executed + limit);
                    // As in the plain loop (`run_ops_repeating`): when the
                    // idle window holds every op to be recorded, they run
                    // in it, each starting at the machine's cycle plus the
                    // window cycles owed, with no stop to check until one
                    // closes the window; then op by op. Settling every op
                    // (`execute`) made a recorded op cost several plain
                    // ones.
                    let bound = (end - executed) as u32 * LONGEST_INSTRUCTION;
                    let mut owed = if bus.cycles + u64::from(bound) < stop_at_cycle
                        && open_for(bound, cpu, bus)
                    {
                        0
                    } else {
                        CLOSED
                    };
                    while executed < end {
                        let op = &ops[executed];
                        let fresh;
                        let op = if live {
                            fresh = op.reread(&bus.ram);
                            &fresh
                        } else {
                            op
                        };
                        let stop;
                        let cycle;
                        if owed != CLOSED {
                            cycle = bus.cycles + u64::from(owed);
                            owed = run::<false>(op, cpu, bus, owed);
                            // In the window only the op itself can make the
                            // block stop, and it then closes the window.
                            stop = owed == CLOSED && Self::must_stop(cpu, bus, stop_at_cycle);
                        } else {
                            cycle = bus.cycles;
                            Self::execute::<false>(op, cpu, bus);
                            stop = Self::must_stop(cpu, bus, stop_at_cycle);
                        }
                        executed += 1;
                        // The op after it in the block, unless it is the
                        // last to run here: that one's successor is read
                        // under the banks mapped now (it may have switched
                        // them).
                        let next_pc = if stop || executed == ops.len() {
                            code_map.key(&bus.cart.banks, cpu.pc)
                        } else {
                            ops[executed].code(code_high)
                        };
                        // Only a block's last op can be a branch (a
                        // transfer ends its block): the others are spared
                        // looking their opcode up.
                        let target = match (executed == ops.len())
                            .then(|| op.branch_target())
                            .flatten()
                        {
                            Some(t) => code_map.key(&bus.cart.banks, t),
                            None => next_pc,
                        };
                        debug_assert!(executed == ops.len() || op.branch_target().is_none());
                        records.push(Retired {
                            pc: op.code(code_high),
                            opcode: Some(op.bytes[0]),
                            next_pc,
                            target,
                            cycle,
                        });
                        if stop {
                            break;
                        }
                    }
                    if owed != CLOSED {
                        settle(cpu, bus, owed);
                    }
                });
            } else {
                // No batch yet (a wall trigger's flag was down, or the batch
                // just ended): on to where the sampler is to be asked again.
                let ask_at = Self::look_at(stop_at_cycle, Some(sampler));
                executed += Self::run_ops(&ops[executed..], live, cpu, bus, ask_at);
            }
            if executed == ops.len() || Self::must_stop(cpu, bus, stop_at_cycle) {
                break;
            }
        }
        *look_at = Self::look_at(stop_at_cycle, Some(sampler));
        executed
    }

    /// Runs blocks from block `first` (at the CPU's PC) as the observed
    /// loop of [`Translator::run_chain`] would with the sampler its only
    /// probe, while a batch may begin or is being collected: each block
    /// through [`Translator::run_block_sampled`], idle loops skipped
    /// through [`Translator::skip_idle_iterations`] (which records the
    /// batches that fall in the iterations it skips). Returns the block the
    /// unobserved loop is to go on with once no batch is being collected
    /// and the next one is out of its reach, or `None` where the chain
    /// ends; adds the instructions retired to `retired`.
    ///
    /// Called from the unobserved loop itself: going back to the observed
    /// loop for each batch and into the unobserved loop again after it
    /// cost more than the batch.
    #[inline(never)]
    pub(super) fn run_sampled_blocks(
        &mut self,
        first: u32,
        cpu: &mut Cpu,
        bus: &mut Bus,
        probes: &mut Probes,
        stop_at_cycle: u64,
        retired: &mut u64,
    ) -> Option<u32> {
        let (mut id, mut previous) = (first, u32::MAX);
        // The regions' count of idle instructions (`RegionStats::idle`).
        let counts_idle = !matches!(self.region_choice, RegionChoice::Off);
        cpu.idle_budget = 0;
        loop {
            let start = bus.cycles;
            bus.attention = false;
            let block = &self.blocks[id as usize];
            let n = block.ops.len();
            let idle_loop = block.idle_loop;
            let starts = &mut self.sample_starts;
            let executed = Self::run_block_sampled(block, starts, cpu, bus, probes, stop_at_cycle);
            *retired += executed as u64;
            if counts_idle && idle_loop {
                self.region_stats.idle += executed as u64;
            }
            if executed < n
                || Self::must_stop(cpu, bus, stop_at_cycle)
                || cpu.jammed.is_some()
                || bus.ppu.frame_complete
            {
                if executed == n {
                    self.note_exit(id, cpu.pc, bus);
                }
                return None;
            }
            let block = &self.blocks[id as usize];
            if previous == id && block.idle_loop && cpu.pc == block.entry && !self.no_idle_skip {
                let skipped = self.skip_idle_iterations(id, cpu, bus, probes, stop_at_cycle, start);
                *retired += skipped;
                if counts_idle {
                    self.region_stats.idle += skipped;
                }
                cpu.idle_budget = 0;
            }
            previous = id;
            let Some(next) = self.successor(id, bus, cpu.pc) else {
                self.note_exit(id, cpu.pc, bus);
                return None;
            };
            // (0 while a batch is being collected.)
            let look_at = Self::look_at(stop_at_cycle, probes.sampler.as_ref());
            if self.runs_unobserved(next, bus, look_at) {
                return Some(next);
            }
            id = next;
        }
    }

    /// Runs block `block` from its entry (the CPU's PC, no window cycles
    /// owed) to its end, or until the ops must stop, for
    /// [`Translator::run_sampled_blocks`]; then shows the sampler the ops
    /// that ran, in order, each with the cycle it started at, and records
    /// those it takes. Returns the ops run.
    ///
    /// The ops run as in the plain loop, back to back in the idle window
    /// when it holds them, each start cycle noted (the machine's cycle
    /// count plus the window cycles owed); only after the run are they
    /// offered to the sampler ([`SampleCapture::sample_next`] decides by
    /// the start cycle alone) and their records made from the block's ops.
    /// The batch is the one the interpreter records, made with nothing
    /// but a store per op in the op loop. Asking the sampler before every
    /// op and building each record as the op retired cost 2,835 host
    /// instructions a batch on tracker at the thesis' rate, 91 instruction
    /// cache misses and 119 mispredicted branches; this costs about 2,330,
    /// 76 and 96 (BENCHMARKS.md, stop 61). A record is now made in one
    /// pass of known length: pushed one by one, each cost about 45.
    #[inline(never)]
    pub(super) fn run_block_sampled(
        block: &Block,
        starts: &mut OpStarts,
        cpu: &mut Cpu,
        bus: &mut Bus,
        probes: &mut Probes,
        stop_at_cycle: u64,
    ) -> usize {
        let (ops, starts) = (&block.ops[..], &mut starts.0);
        let executed = if block.live {
            Self::run_noting_starts::<true>(ops, cpu, bus, stop_at_cycle, starts)
        } else {
            Self::run_noting_starts::<false>(ops, cpu, bus, stop_at_cycle, starts)
        };
        if let Probes {
            sampler: Some(sampler),
            code_map,
            ..
        } = probes
        {
            Self::offer_ran(block, executed, starts, sampler, code_map, cpu, bus);
        }
        executed
    }

    /// Runs `ops` (the rest of a block, nothing owed) as
    /// [`Translator::run_ops`] does, writing each op's start cycle into
    /// `starts`; returns how many ran.
    #[inline(always)]
    fn run_noting_starts<const LIVE: bool>(
        ops: &[Op],
        cpu: &mut Cpu,
        bus: &mut Bus,
        stop_at_cycle: u64,
        starts: &mut [u64; MAX_BLOCK_OPS],
    ) -> usize {
        let n = ops.len();
        let bound = n as u32 * LONGEST_INSTRUCTION;
        let mut executed = 0;
        if bus.cycles + u64::from(bound) < stop_at_cycle && open_for(bound, cpu, bus) {
            let base = bus.cycles;
            let mut owed = 0;
            while executed < n {
                starts[executed] = base + u64::from(owed);
                owed = run::<LIVE>(&ops[executed], cpu, bus, owed);
                executed += 1;
                // In the window only the op itself can make the block stop,
                // and it then closes the window (see `op::Translated`).
                if owed == CLOSED {
                    break;
                }
            }
            if owed != CLOSED {
                settle(cpu, bus, owed);
                return executed;
            }
            if executed == n || Self::must_stop(cpu, bus, stop_at_cycle) {
                return executed;
            }
        }
        while executed < n {
            starts[executed] = bus.cycles;
            Self::execute::<LIVE>(&ops[executed], cpu, bus);
            executed += 1;
            if Self::must_stop(cpu, bus, stop_at_cycle) {
                break;
            }
        }
        executed
    }

    /// Offers the first `executed` ops of `block`, just run, to the
    /// sampler, op `k` having started at cycle `starts[k]`, and
    /// records those it takes. The last op that ran was followed by the
    /// CPU's PC, named under the banks mapped now (it may have switched
    /// them); each other by the next op. Only a block's last op can be a
    /// branch.
    #[inline(always)]
    fn offer_ran(
        block: &Block,
        executed: usize,
        starts: &[u64; MAX_BLOCK_OPS],
        sampler: &mut SampleCapture,
        code_map: &mut CodeMap,
        cpu: &Cpu,
        bus: &Bus,
    ) {
        // Most often none of them: the run ended before the due cycle.
        if executed == 0 || starts[executed - 1] < sampler.due_cycle() {
            return;
        }
        let (ops, high) = (&block.ops[..executed], block.code_high);
        let ends_block = executed == block.ops.len();
        let mut i = 0;
        while i < executed {
            if !sampler.collecting() && !sampler.sample_next(starts[i]) {
                i += 1;
                continue;
            }
            sampler.record_with(|records, limit| {
                let end = executed.min(i + limit);
                // The ops followed by another op of the run, in one pass
                // of known length (no capacity test per record), then the
                // last.
                let inner = end.min(executed - 1);
                if i < inner {
                    let followed = ops[i..inner].iter().zip(&ops[i + 1..=inner]);
                    records.extend(followed.zip(&starts[i..inner]).map(|((op, next), &cycle)| {
                        debug_assert!(op.branch_target().is_none());
                        let next_pc = next.code(high);
                        Retired {
                            pc: op.code(high),
                            opcode: Some(op.bytes[0]),
                            next_pc,
                            target: next_pc,
                            cycle,
                        }
                    }));
                }
                if end == executed {
                    let last = &ops[executed - 1];
                    let next_pc = code_map.key(&bus.cart.banks, cpu.pc);
                    // A live block's branch offset is read from RAM as it
                    // runs (a branch writes nothing, so RAM still holds it).
                    let branch = match (ends_block, block.live) {
                        (false, _) => None,
                        (true, false) => last.branch_target(),
                        (true, true) => last.reread(&bus.ram).branch_target(),
                    };
                    records.push(Retired {
                        pc: last.code(high),
                        opcode: Some(last.bytes[0]),
                        next_pc,
                        target: branch.map_or(next_pc, |t| code_map.key(&bus.cart.banks, t)),
                        cycle: starts[executed - 1],
                    });
                }
                i = end;
            });
        }
    }

    /// The cycle at which running ops must look up from them: `stop_at_cycle`,
    /// or earlier when the sampler is to be asked whether a batch starts (0
    /// while one is being collected, so every op goes through it).
    #[inline]
    pub(super) fn look_at(stop_at_cycle: u64, sampler: Option<&SampleCapture>) -> u64 {
        sampler.map_or(stop_at_cycle, |s| stop_at_cycle.min(s.due_cycle()))
    }

    /// Records the ops of the `iterations` idle-loop iterations about to be
    /// skipped (from cycle `now`; the one just run started at `start`) that
    /// the sampler would have recorded had they run, and returns how many
    /// of them may be skipped.
    ///
    /// Once the loop's timing is known (a batch recorded a whole iteration:
    /// [`IdleTiming`]), every op's start cycle is known too, so batches that
    /// begin, go on or end inside the skipped iterations are written
    /// directly: the first op starting at or after the due cycle begins the
    /// batch through [`SampleCapture::sample_next`], as a running op would,
    /// and the ops after it are copied from the recorded iterations, cycles
    /// shifted ([`SampleCapture::record_run`]). Most batches fall in idle
    /// loops (68 % of lunarlimit's, 44 % of fff's), and this spares running
    /// iterations one by one around each of them. The copy is what makes
    /// them cheap: building each record from the block's ops took 2.6
    /// times the host instructions (lunarlimit, 1200 frames, callgrind:
    /// 6.3M → 2.4M for ~4400 batches). Until
    /// then no iterations are skipped while a batch is being collected or
    /// past the cycle one is due, so the loop runs until a batch has
    /// recorded a whole iteration of it.
    #[inline(never)]
    pub(super) fn sample_idle_iterations(
        block: &mut Block,
        s: &mut SampleCapture,
        now: u64,
        start: u64,
        iterations: u64,
    ) -> u64 {
        let per = now - start;
        let len = block.ops.len();
        if s.collecting() {
            let recent = s.current();
            if recent.len() >= len && recent[recent.len() - len].cycle == start {
                if block.idle_timing.as_ref().is_none_or(|t| t.period != per) {
                    let iteration = &recent[recent.len() - len..];
                    let iterations = s.batch_len().div_ceil(len) + 1;
                    let ops = &block.ops;
                    let high = block.code_high;
                    let records = (0..iterations * len)
                        .map(|j| Retired {
                            pc: ops[j % len].code(high),
                            opcode: Some(ops[j % len].bytes[0]),
                            next_pc: ops[(j + 1) % len].code(high),
                            // An idle loop's one branch, if any, is its
                            // last op, back to its entry.
                            target: match ops[j % len].branch_target() {
                                Some(_) => ops[0].code(high),
                                None => ops[(j + 1) % len].code(high),
                            },
                            cycle: (j / len) as u64 * per + iteration[j % len].cycle - start,
                        })
                        .collect();
                    block.idle_timing = Some(IdleTiming {
                        period: per,
                        records,
                    });
                }
            } else if block.idle_timing.as_ref().is_none_or(|t| t.period != per) {
                return 0;
            }
        }
        let Some(timing) = block.idle_timing.as_ref().filter(|t| t.period == per) else {
            // Not collecting (else the timing was just learned or 0 returned)
            // and a batch is due in these iterations: stop before it.
            return s.next_due_cycle().saturating_sub(now + 1) / per;
        };
        let recorded = &timing.records[..];
        // Op `i` of iteration `k` (counted from 0 at `now`) starts at
        // `now + k * per + recorded[i].cycle`; op 0 at offset 0.
        let (mut k, mut i) = (0, 0);
        while k < iterations {
            if !s.collecting() {
                // The first op at or after the next batch's cycle (none for
                // a wall trigger: its requests are not known in advance).
                let due = s.next_due_cycle();
                if due == u64::MAX {
                    break;
                }
                if now + k * per + recorded[i].cycle < due {
                    let into = due - now;
                    let offset = into % per;
                    (k, i) = match recorded[..len].iter().position(|r| r.cycle >= offset) {
                        Some(i) => (into / per, i),
                        None => (into / per + 1, 0),
                    };
                    if k >= iterations {
                        break;
                    }
                }
                let began = s.sample_next(now + k * per + recorded[i].cycle);
                debug_assert!(began, "a batch is due in iteration {k}, op {i}");
            }
            // Record ops until the batch is full or the iterations end
            // (`recorded` spans a whole batch from any op of its first
            // iteration, unless the batch length changed since).
            let ops_left = (iterations - k).saturating_mul(len as u64) - i as u64;
            let end = usize::try_from(ops_left)
                .map_or(recorded.len(), |n| recorded.len().min(i.saturating_add(n)));
            i += s.record_run(&recorded[i..end], now + k * per);
            // Most often the batch ended here and the next is due after
            // these iterations: done, without finding where it would begin.
            if !s.collecting() && s.next_due_cycle() >= now + iterations * per {
                break;
            }
            k += (i / len) as u64;
            i %= len;
        }
        iterations
    }
}
