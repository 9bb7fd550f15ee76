//! The dynamic translator: basic blocks translated into cached sequences of
//! pre-decoded instructions, executed without fetching or decoding them from
//! memory again (NESdev wiki facts aside, this is our design; DESIGN.md's
//! "Dynamic translator").
//!
//! Bus behaviour is the interpreter's, cycle for cycle: each instruction runs
//! the same generic per-cycle code as the interpreter (`cpu/execute.rs`),
//! given its bytes by [`DecodedCode`] instead of a bus read; the fetch cycles
//! still happen (clocking the PPU and APU, letting DMA halt the CPU, updating
//! open bus), they just skip the address decode. Interrupts are taken between
//! instructions exactly as the interpreter takes them (the block is left and
//! the CPU's own interrupt sequence runs).
//!
//! Only code in RAM and PRG ROM/RAM is translated; code running from I/O
//! space (test ROMs do this) is interpreted. Blocks are keyed by physical
//! location ([`block::CodeKey`]): a bank switch changes which block a PC
//! finds, never what a block contains. Writes into RAM that holds translated
//! code invalidate the blocks covering it (the bus flags them), and the block
//! being executed is left right after such a write. RAM locations rewritten
//! over and over (a routine that patches its own operand every call) stop
//! being translated and are interpreted instead.
//!
//! Where the speed comes from: both engines do the same per-cycle bus work,
//! which is most of a frame's CPU-side cost, so skipping decode alone gains
//! little. Blocks are chained (each links to its recent successors, so runs
//! of short blocks stay inside [`Translator::run_chain`]), and idle loops —
//! games spin in "wait for NMI" loops for most of each frame — are counted
//! in whole iterations up to the next cycle at which anything can happen
//! (see [`block::Block::is_idle_loop`]). The results stay bit-identical: the
//! lockstep and frame-hash tests compare both engines.

pub mod block;

use block::{Block, CodeKey, IdleTiming, Link, Op, MAX_BLOCK_OPS};

use crate::bus::Bus;
use crate::cpu::opcodes::{Flow, OPCODES};
use crate::cpu::{CodeSource, Cpu};
use crate::flow_counts::FlowCounts;
use crate::probes::Probes;
use crate::sampling::{Retired, SampleCapture};

/// Invalidations after which a RAM entry point is left to the interpreter.
const VOLATILE_AFTER: u16 = 8;

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

/// Why a block run stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Every op ran.
    Completed,
    /// Stopped after `ops` ops because something outside the block needs
    /// attention (interrupt, frame end, code write, bank switch, single-stepping).
    After(usize),
}

#[derive(Debug, Default)]
pub struct Translator {
    blocks: Vec<Block>,
    free: Vec<u32>,
    /// Block id + 1 per code location (0 = none).
    ram_index: Vec<u32>,
    prg_ram_index: Vec<u32>,
    prg_rom_index: Vec<u32>,
    /// Invalidations per RAM entry point.
    ram_churn: Vec<u16>,
    /// Valid blocks decoded from RAM or PRG RAM: the only ones a write can
    /// invalidate, so the only ones a code write has to look at.
    writable_blocks: Vec<u32>,
    /// Per RAM / PRG RAM byte, how many valid blocks cover it. The bus mark
    /// is cleared when it drops to 0, so writes to bytes that no longer hold
    /// translated code (data next to code, code that was replaced) stop
    /// costing anything.
    ram_cover: Vec<u16>,
    prg_ram_cover: Vec<u16>,
    /// Blocks with pending counts not yet added to the flow counts.
    dirty: Vec<u32>,
    /// PRG mapping generation at the last flush of pending counts.
    flushed_generation: u32,
    /// Bumped by every invalidation: block ids may be reused after one, so
    /// successor links made before it are stale.
    link_epoch: u32,
    pub stats: TranslatorStats,
}

#[derive(Debug, Default, Clone, Copy)]
pub struct TranslatorStats {
    pub translated: u64,
    pub invalidated: u64,
    pub block_runs: u64,
    /// Idle-loop iterations counted without running them.
    pub skipped_iterations: u64,
}

impl Translator {
    pub fn new(bus: &Bus) -> Translator {
        Translator {
            ram_index: vec![0; 0x800],
            prg_ram_index: vec![0; bus.cart.prg_ram.len()],
            prg_rom_index: vec![0; bus.cart.prg_rom.len()],
            link_epoch: 1,
            ram_churn: vec![0; 0x800],
            ram_cover: vec![0; 0x800],
            prg_ram_cover: vec![0; bus.cart.prg_ram.len()],
            ..Translator::default()
        }
    }

    /// Where the code at `pc` lives under the current mapping, if it is in
    /// translatable memory and its 3-byte window stays in the same region.
    #[inline]
    fn key_for(bus: &Bus, pc: u16) -> Option<CodeKey> {
        match pc {
            0x0000..=0x1FFF => {
                let a = pc & 0x7FF;
                (a <= 0x7FD).then_some(CodeKey::Ram(a))
            }
            0x6000..=0x7FFF => {
                let base = bus.cart.banks.prg_ram?;
                let off = (pc & 0x1FFF) as usize;
                (off <= 0x1FFD)
                    .then(|| CodeKey::PrgRam(((base + off) % bus.cart.prg_ram.len()) as u32))
            }
            0x8000..=0xFFFF => {
                let off = (pc & 0x1FFF) as usize;
                (off <= 0x1FFD).then(|| {
                    CodeKey::PrgRom((bus.cart.banks.prg[(pc as usize >> 13) & 3] + off) as u32)
                })
            }
            _ => None,
        }
    }

    fn index_slot(&mut self, key: CodeKey) -> &mut u32 {
        match key {
            CodeKey::Ram(a) => &mut self.ram_index[a as usize],
            CodeKey::PrgRam(o) => &mut self.prg_ram_index[o as usize],
            CodeKey::PrgRom(o) => &mut self.prg_rom_index[o as usize],
        }
    }

    /// The block for `pc`, translating it if needed; `None` if the code must
    /// be interpreted.
    pub fn block_at(&mut self, bus: &mut Bus, pc: u16) -> Option<u32> {
        let key = Self::key_for(bus, pc)?;
        let slot = *self.index_slot(key);
        if slot != 0 {
            return Some(slot - 1);
        }
        if let CodeKey::Ram(a) = key {
            if self.ram_churn[a as usize] >= VOLATILE_AFTER {
                return None;
            }
        }
        let id = self.translate(bus, pc, key)?;
        *self.index_slot(key) = id + 1;
        Some(id)
    }

    /// Decodes a block at `pc` from side-effect-free reads.
    fn translate(&mut self, bus: &mut Bus, pc: u16, key: CodeKey) -> Option<u32> {
        let mut ops = Vec::new();
        let mut at = pc;
        loop {
            let here = Self::key_for(bus, at)?;
            // Stay inside one region (and, for ROM, one bank window).
            if std::mem::discriminant(&here) != std::mem::discriminant(&key)
                || (at ^ pc) & 0xE000 != 0
            {
                break;
            }
            let bytes = [
                bus.peek(at),
                bus.peek(at.wrapping_add(1)),
                bus.peek(at.wrapping_add(2)),
                0,
            ];
            let info = &OPCODES[bytes[0] as usize];
            ops.push(Op::new(at, bytes));
            if info.flow != Flow::None || ops.len() == MAX_BLOCK_OPS {
                break;
            }
            at = at.wrapping_add(info.byte_len() as u16);
        }
        if ops.is_empty() {
            return None;
        }
        let writable = matches!(key, CodeKey::Ram(_) | CodeKey::PrgRam(_));
        if writable {
            for loc in Self::covered_bytes(key, &ops, self.prg_ram_cover.len()) {
                let cover = self.cover_slot(loc);
                *cover += 1;
                if *cover == 1 {
                    bus.set_code_mark(loc, true);
                }
            }
        }
        let block = Block {
            key,
            idle_loop: Block::is_idle_loop(&ops),
            idle_timing: None,
            ops,
            valid: true,
            pending_body_runs: 0,
            // Stamp 0 is never current (the epoch starts at 1).
            links: [Link::default(); 2],
        };
        self.stats.translated += 1;
        let id = match self.free.pop() {
            Some(id) => {
                self.blocks[id as usize] = block;
                id
            }
            None => {
                self.blocks.push(block);
                (self.blocks.len() - 1) as u32
            }
        };
        if writable {
            self.writable_blocks.push(id);
        }
        Some(id)
    }

    /// The RAM / PRG RAM bytes a block's instructions occupy (each op's 3-byte
    /// window, as the ops store 3 bytes), located from the block's key so a
    /// later PRG RAM bank switch cannot shift them.
    fn covered_bytes(
        key: CodeKey,
        ops: &[Op],
        prg_ram_len: usize,
    ) -> impl Iterator<Item = CodeKey> + '_ {
        let prg_ram_len = prg_ram_len.max(1) as u32;
        let entry = ops.first().map_or(0, |op| op.pc);
        ops.iter().flat_map(move |op| {
            (0..3u16).map(move |i| {
                let delta = op.pc.wrapping_sub(entry).wrapping_add(i);
                match key {
                    CodeKey::Ram(a) => CodeKey::Ram(a.wrapping_add(delta) & 0x7FF),
                    CodeKey::PrgRam(o) => CodeKey::PrgRam((o + delta as u32) % prg_ram_len),
                    CodeKey::PrgRom(o) => CodeKey::PrgRom(o + delta as u32),
                }
            })
        })
    }

    fn cover_slot(&mut self, loc: CodeKey) -> &mut u16 {
        match loc {
            CodeKey::Ram(a) => &mut self.ram_cover[a as usize],
            CodeKey::PrgRam(o) => &mut self.prg_ram_cover[o as usize],
            CodeKey::PrgRom(_) => unreachable!("PRG ROM is never written"),
        }
    }

    /// Drops every block whose bytes cover a written code byte the bus
    /// reported, adding their pending counts to `counts` first.
    pub fn invalidate_written(&mut self, bus: &mut Bus, mut counts: Option<&mut FlowCounts>) {
        for written in bus.take_code_writes() {
            let mut i = 0;
            while i < self.writable_blocks.len() {
                let id = self.writable_blocks[i] as usize;
                let block = &self.blocks[id];
                if !Self::covered_bytes(block.key, &block.ops, self.prg_ram_cover.len())
                    .any(|loc| loc == written)
                {
                    i += 1;
                    continue;
                }
                self.writable_blocks.swap_remove(i);
                if let Some(c) = counts.as_deref_mut() {
                    Self::flush_block(&mut self.blocks[id], c);
                }
                let key = self.blocks[id].key;
                let ops = std::mem::take(&mut self.blocks[id].ops);
                for loc in Self::covered_bytes(key, &ops, self.prg_ram_cover.len()) {
                    let cover = self.cover_slot(loc);
                    *cover = cover.saturating_sub(1);
                    if *cover == 0 {
                        bus.set_code_mark(loc, false);
                    }
                }
                if let CodeKey::Ram(a) = key {
                    self.ram_churn[a as usize] = self.ram_churn[a as usize].saturating_add(1);
                }
                *self.index_slot(key) = 0;
                self.blocks[id].valid = false;
                self.free.push(id as u32);
                self.link_epoch = self.link_epoch.wrapping_add(1).max(1);
                self.stats.invalidated += 1;
            }
        }
    }

    fn flush_block(block: &mut Block, counts: &mut FlowCounts) {
        if block.pending_body_runs > 0 {
            let body = &block.ops[..block.ops.len() - 1];
            counts.add_body_executions(
                body.iter().map(|op| (op.pc, op.opcode())),
                block.pending_body_runs,
            );
            block.pending_body_runs = 0;
        }
    }

    /// Adds every block's pending counts to `counts` (before reading them).
    pub fn flush_counts(&mut self, counts: &mut FlowCounts) {
        for id in std::mem::take(&mut self.dirty) {
            let block = &mut self.blocks[id as usize];
            if block.valid {
                Self::flush_block(block, counts);
            }
        }
    }

    /// Flushes pending counts if the PRG mapping changed since the last
    /// flush. The flow counts remember the last opcode executed at each CPU
    /// address, and under another bank the same address holds other code:
    /// flushing at every mapping change keeps "last" in execution order, as
    /// the interpreter records it.
    #[inline]
    pub fn flush_on_bank_switch(&mut self, generation: u32, counts: &mut FlowCounts) {
        if generation != self.flushed_generation {
            self.flush_counts(counts);
            self.flushed_generation = generation;
        }
    }

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
    fn run_block(
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
            if let Some(sampler) = probes.sampler.as_mut() {
                // The sampler's turn (cold): a batch may start or be going on.
                executed += Self::run_ops_sampler_turn(
                    &block.ops[executed..],
                    cpu,
                    bus,
                    stop_at_cycle,
                    sampler,
                    look_at,
                );
            }
        }
        if let Some(c) = probes.flow.as_deref_mut() {
            if executed == n {
                // The last op is the block's control transfer: counted as it
                // retires; the rest are counted per run in bulk.
                let last = &block.ops[n - 1];
                c.instruction(last.pc, last.bytes[0], cpu.pc, cpu.s);
                if block.pending_body_runs == 0 {
                    self.dirty.push(id);
                }
                block.pending_body_runs += 1;
            } else {
                // A partial run: the ops that retired are all straight-line.
                for done in &block.ops[..executed] {
                    let next = done
                        .pc
                        .wrapping_add(OPCODES[done.bytes[0] as usize].byte_len() as u16);
                    c.instruction(done.pc, done.bytes[0], next, cpu.s);
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
    fn run_ops(ops: &[Op], cpu: &mut Cpu, bus: &mut Bus, stop_at_cycle: u64) -> usize {
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

    /// The rest of a block from where the sampler has to be asked whether a
    /// batch starts (the cycle count reached `look_at`), or while one is
    /// being collected: the ops that start while a batch is being
    /// collected are recorded as they retire, the others run as in
    /// [`Translator::run_ops`], to the end of the block (or until the ops
    /// must stop); then `look_at` is set for what follows. The ops run
    /// through the same [`Translator::execute`] as everywhere else (see
    /// there).
    #[inline(never)]
    fn run_ops_sampler_turn(
        ops: &[Op],
        cpu: &mut Cpu,
        bus: &mut Bus,
        stop_at_cycle: u64,
        sampler: &mut SampleCapture,
        look_at: &mut u64,
    ) -> usize {
        let mut executed = 0;
        loop {
            if sampler.collecting() || sampler.sample_next(bus.cycles) {
                sampler.record_with(|records, limit| {
                    for op in &ops[executed..ops.len().min(executed + limit)] {
                        let cycle = bus.cycles;
                        Self::execute(op, cpu, bus);
                        executed += 1;
                        records.push(Retired {
                            pc: op.pc,
                            opcode: Some(op.bytes[0]),
                            next_pc: cpu.pc,
                            cycle,
                        });
                        if Self::must_stop(cpu, bus, stop_at_cycle) {
                            break;
                        }
                    }
                });
            } else {
                // No batch yet (a wall trigger's flag was down, or the batch
                // just ended): on to where the sampler is to be asked again.
                let ask_at = Self::look_at(stop_at_cycle, Some(sampler));
                executed += Self::run_ops(&ops[executed..], cpu, bus, ask_at);
            }
            if executed == ops.len() || Self::must_stop(cpu, bus, stop_at_cycle) {
                break;
            }
        }
        *look_at = Self::look_at(stop_at_cycle, Some(sampler));
        executed
    }

    /// The cycle at which running ops must look up from them: `stop_at_cycle`,
    /// or earlier when the sampler is to be asked whether a batch starts (0
    /// while one is being collected, so every op goes through it).
    #[inline]
    fn look_at(stop_at_cycle: u64, sampler: Option<&SampleCapture>) -> u64 {
        sampler.map_or(stop_at_cycle, |s| stop_at_cycle.min(s.due_cycle()))
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
    fn execute(op: &Op, cpu: &mut Cpu, bus: &mut Bus) {
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

    /// Runs blocks back to back from block `first` (at the CPU's PC), each
    /// successor found through the previous block's links, until a block
    /// stops early (see [`Translator::run_block`]), the CPU jams, the frame
    /// ends or the next code is not translatable. Returns the instructions
    /// retired. Chaining is what makes short blocks cheap: a game's
    /// "wait for NMI" loop is two instructions per block, and going back to
    /// the machine's step loop between them cost more than running them.
    pub fn run_chain(
        &mut self,
        first: u32,
        cpu: &mut Cpu,
        bus: &mut Bus,
        probes: &mut Probes,
        stop_at_cycle: u64,
    ) -> u64 {
        let mut id = first;
        let mut retired = 0;
        let mut previous = u32::MAX;
        let mut look_at = Self::look_at(stop_at_cycle, probes.sampler.as_ref());
        loop {
            let start = bus.cycles;
            match self.run_block(id, cpu, bus, probes, stop_at_cycle, &mut look_at) {
                Exit::After(n) => return retired + n as u64,
                Exit::Completed => retired += self.blocks[id as usize].ops.len() as u64,
            }
            if cpu.jammed.is_some() || bus.ppu.frame_complete {
                return retired;
            }
            // An idle loop that just ran its second (or later) iteration in a
            // row: every further iteration is identical, so count as many as
            // fit before anything can happen.
            let block = &self.blocks[id as usize];
            if previous == id && block.idle_loop && cpu.pc == block.ops[0].pc {
                retired += self.skip_idle_iterations(id, cpu, bus, probes, stop_at_cycle, start);
                look_at = Self::look_at(stop_at_cycle, probes.sampler.as_ref());
            }
            previous = id;
            match self.successor(id, bus, cpu.pc) {
                Some(next) => id = next,
                None => return retired,
            }
        }
    }

    /// Counts whole iterations of idle-loop block `id` without running them,
    /// each as long as the one just run (which started at cycle `start`;
    /// none are counted when a DMA stole cycles from that one), as
    /// many as end before the next cycle at which anything could differ: an
    /// APU event, a PPU catch-up (NMI, frame end, sprite 0), pending DMA, or
    /// `stop_at_cycle`. The interrupt poll must be settled, so no interrupt
    /// can become pending inside them. The skipped cycles are reads of RAM
    /// and code with no side effects, and the data bus ends them holding
    /// what each iteration leaves on it, which the iteration just run
    /// already left there. Returns the instructions counted.
    ///
    /// The sampler sees the skipped iterations as if they had run: see
    /// [`Translator::sample_idle_iterations`].
    fn skip_idle_iterations(
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
        let len = self.blocks[id as usize].ops.len();
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
        if let Some(c) = probes.flow.as_deref_mut() {
            let last = block.ops[len - 1];
            c.instruction_repeated(last.pc, last.bytes[0], block.ops[0].pc, iterations);
            if block.pending_body_runs == 0 {
                self.dirty.push(id);
            }
            block.pending_body_runs += iterations;
        }
        self.stats.skipped_iterations += iterations;
        iterations * len as u64
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
    fn sample_idle_iterations(
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
                    let records = (0..iterations * len)
                        .map(|j| Retired {
                            pc: ops[j % len].pc,
                            opcode: Some(ops[j % len].bytes[0]),
                            next_pc: ops[(j + 1) % len].pc,
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

    /// The block to run at `pc` after block `from`, through `from`'s links
    /// when they are current, else by lookup (then remembered).
    #[inline]
    fn successor(&mut self, from: u32, bus: &mut Bus, pc: u16) -> Option<u32> {
        let stamp = (bus.cart.banks.prg_generation as u64) << 32 | self.link_epoch as u64;
        let links = &self.blocks[from as usize].links;
        if let Some(link) = links.iter().find(|l| l.pc == pc && l.stamp == stamp) {
            return Some(link.id);
        }
        let id = self.block_at(bus, pc)?;
        let links = &mut self.blocks[from as usize].links;
        links[1] = links[0];
        links[0] = Link { pc, id, stamp };
        Some(id)
    }

    /// Non-short-circuit ORs: one straight-line test between instructions.
    #[inline(always)]
    fn must_stop(cpu: &Cpu, bus: &Bus, stop_at_cycle: u64) -> bool {
        bus.attention | cpu.interrupt_signalled() | (bus.cycles >= stop_at_cycle)
    }

    pub fn block_len(&self, id: u32) -> usize {
        self.blocks[id as usize].ops.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cartridge::Cartridge;

    fn nrom_bus() -> Bus {
        let mut image = vec![b'N', b'E', b'S', 0x1A, 1, 1, 0, 0];
        image.resize(16, 0);
        image.resize(16 + 0x4000 + 0x2000, 0xEA);
        Bus::new(Cartridge::from_bytes(&image).expect("valid NROM image"))
    }

    /// A block in RAM marks its bytes; a write to one drops the block and
    /// clears the marks, so later writes to the same bytes (now plain data)
    /// are no longer reported: the cost that made games storing data where
    /// code once ran crawl.
    #[test]
    fn invalidation_clears_code_marks() {
        let mut bus = nrom_bus();
        // $0300: LDA #$01 ; STA $10 ; RTS
        for (i, b) in [0xA9, 0x01, 0x85, 0x10, 0x60].into_iter().enumerate() {
            bus.write(0x0300 + i as u16, b);
        }
        let mut t = Translator::new(&bus);
        let id = t
            .block_at(&mut bus, 0x0300)
            .expect("RAM code is translated");
        assert_eq!(t.block_len(id), 3);
        assert!(!bus.code_written());

        bus.write(0x0301, 0x02);
        assert!(
            bus.code_written(),
            "a write into translated code is reported"
        );
        t.invalidate_written(&mut bus, None);
        assert_eq!(t.stats.invalidated, 1);

        bus.write(0x0301, 0x03);
        bus.write(0x0B04, 0x00); // a mirror of $0304
        assert!(!bus.code_written(), "no block covers these bytes any more");

        let again = t.block_at(&mut bus, 0x0300).expect("retranslated");
        assert_eq!(t.block_len(again), 3);
        bus.write(0x0B04, 0x60);
        assert!(bus.code_written(), "marks come back with the new block");
    }

    fn ops(at: u16, code: &[&[u8]]) -> Vec<Op> {
        let mut pc = at;
        code.iter()
            .map(|bytes| {
                let mut b = [0; 4];
                b[..bytes.len()].copy_from_slice(bytes);
                let op = Op::new(pc, b);
                pc += bytes.len() as u16;
                op
            })
            .collect()
    }

    #[test]
    fn idle_loop_shapes() {
        use block::Block;
        // wait: LDA $10 ; BNE wait
        assert!(Block::is_idle_loop(&ops(
            0x8000,
            &[&[0xA5, 0x10], &[0xD0, 0xFC]]
        )));
        // forever: JMP forever
        assert!(Block::is_idle_loop(&ops(0x8000, &[&[0x4C, 0x00, 0x80]])));
        // wait: LDA $0300 ; AND #$80 ; BEQ wait
        assert!(Block::is_idle_loop(&ops(
            0x8000,
            &[&[0xAD, 0x00, 0x03], &[0x29, 0x80], &[0xF0, 0xF9]]
        )));
        // Polling a PPU register has side effects: not idle.
        assert!(!Block::is_idle_loop(&ops(
            0x8000,
            &[&[0x2C, 0x02, 0x20], &[0x10, 0xFB]]
        )));
        // EOR is not idempotent, STA writes, indexing may move: not idle.
        assert!(!Block::is_idle_loop(&ops(
            0x8000,
            &[&[0x45, 0x10], &[0xD0, 0xFC]]
        )));
        assert!(!Block::is_idle_loop(&ops(
            0x8000,
            &[&[0x85, 0x10], &[0xD0, 0xFC]]
        )));
        assert!(!Block::is_idle_loop(&ops(
            0x8000,
            &[&[0xB5, 0x10], &[0xD0, 0xFC]]
        )));
        // A branch elsewhere is not a loop.
        assert!(!Block::is_idle_loop(&ops(
            0x8000,
            &[&[0xA5, 0x10], &[0xD0, 0x10]]
        )));
    }
}
