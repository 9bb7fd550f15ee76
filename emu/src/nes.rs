//! The one door into the machine. Front-ends (CLI, window, profiler, tests)
//! drive a [`Nes`] and never reach into chip internals except through the
//! methods here: the CPU, the bus and the probes are private, and the chips
//! are seen read-only ([`Nes::ppu`], [`Nes::apu`], [`Nes::cartridge`]).

use std::path::Path;

use crate::access_log::AccessLog;
use crate::bus::Bus;
use crate::cartridge::Cartridge;
use crate::code_addr::CodeMap;
use crate::cpu::opcodes::{Flow, OPCODES};
use crate::cpu::{Cpu, CpuState, StepKind};
use crate::error::EmuError;
use crate::flow_counts::FlowCounts;
use crate::frame_events::{EventKind, EventLog, FlowEvent, Stamp};
use crate::hash::fnv1a64;
use crate::memory_log::MemoryRecorder;
use crate::memory_profile::MemoryProfile;
use crate::probes::Probes;
use crate::sampling::{Retired, SampleCapture};
use crate::taken_targets::TakenTargets;
use crate::translate::Translator;
use parking_lot::MutexGuard;

/// Which execution engine runs the CPU. Both give bit-identical results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Engine {
    /// Fetch, decode and execute one instruction at a time.
    Interpreter,
    /// Cached pre-decoded blocks (see `translate`).
    #[default]
    Translator,
}

impl Engine {
    pub const ALL: [Engine; 2] = [Engine::Interpreter, Engine::Translator];

    /// The name on the command line (`--engine interp|translate`).
    pub fn name(self) -> &'static str {
        match self {
            Engine::Interpreter => "interp",
            Engine::Translator => "translate",
        }
    }
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Engine {
    type Err = String;

    fn from_str(s: &str) -> Result<Engine, String> {
        Engine::ALL
            .into_iter()
            .find(|e| e.name() == s)
            .ok_or_else(|| format!("unknown engine {s:?} (interp or translate)"))
    }
}

/// What the memory recorder does now (bursty recording,
/// [`Nes::set_memory_state`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryState {
    /// Counting every access (a burst, or a full recording).
    Recording,
    /// Following only each byte's last writer (the engines report writes
    /// alone), so that the next burst pairs its reads with the writes they
    /// took their values from, however long before.
    Tracking,
    /// Set aside: the engines run their plain code. Resuming forgets the
    /// last writers of the bytes whose values changed meanwhile (writes not
    /// seen; see [`MemoryRecorder::unpark`]), so reads early in the next
    /// burst of those bytes are not dependences.
    Paused,
}

pub struct Nes {
    pub(crate) cpu: Cpu,
    pub(crate) bus: Bus,
    pub(crate) probes: Probes,
    engine: Engine,
    translator: Option<Box<Translator>>,
    /// The memory recorder while paused ([`Nes::set_memory_state`]).
    parked_memory: Option<Box<MemoryRecorder>>,
    /// The flow recorder set aside between truth bursts while nothing
    /// needs its call stacks ([`Nes::set_flow_recording`]).
    parked_flow: Option<Box<FlowCounts>>,
    /// Instructions and interrupt entries executed since power-on.
    retired: u64,
    /// Translator only: stop blocks after every instruction (lockstep tests).
    single_step_blocks: bool,
    /// Idle-loop skipping off (see [`Nes::set_idle_skip`]).
    no_idle_skip: bool,
    /// How the translator chooses hot regions (see [`Nes::set_regions`]).
    regions: crate::translate::region::RegionChoice,
    audio_rate: Option<u32>,
}

impl Nes {
    /// Inserts `cart` and powers the console on.
    pub fn new(cart: Cartridge) -> Nes {
        let code_map = CodeMap::new(cart.prg_rom.len(), &cart.banks);
        let mut nes = Nes {
            cpu: Cpu::new(),
            bus: Bus::new(cart),
            probes: Probes {
                code_map,
                ..Probes::default()
            },
            engine: Engine::default(),
            translator: None,
            parked_memory: None,
            parked_flow: None,
            retired: 0,
            single_step_blocks: false,
            no_idle_skip: false,
            regions: crate::translate::region::RegionChoice::Off,
            audio_rate: None,
        };
        nes.cpu.power_on(&mut nes.bus);
        nes
    }

    pub fn load(path: &Path) -> Result<Nes, EmuError> {
        Ok(Nes::new(Cartridge::load(path)?))
    }

    /// The console's reset button.
    pub fn reset(&mut self) {
        if let Some(log) = self.probes.events.as_deref_mut() {
            // An iteration of a wait loop cut by the reset is not counted.
            log.interrupted();
        }
        self.bus.ppu.reset();
        self.bus.cart.reset();
        self.bus.apu.reset();
        self.bus.refresh_lines();
        self.cpu.reset(&mut self.bus);
    }

    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// Switches engines; allowed at any instruction boundary.
    pub fn set_engine(&mut self, engine: Engine) {
        // The translator's pending counts go in before the other engine
        // counts anything (`run_some` checks them only on the translator).
        self.flush_flow();
        self.engine = engine;
    }

    /// The code address (`code_addr`) of CPU address `pc` under the banks
    /// mapped now: how the profiles name code.
    pub fn code_address(&mut self, pc: u16) -> u32 {
        self.probes.code_map.key(&self.bus.cart.banks, pc)
    }

    /// Runs one instruction (or interrupt entry) on the interpreter, feeding
    /// the probes.
    #[inline]
    pub fn step(&mut self) -> StepKind {
        let pc = self.cpu.pc;
        let cycle = self.bus.cycles;
        // Only whether the sampler is to be asked: the asking (did a batch
        // begin here?) waits for the cold path after the step, which then
        // costs one call per sampled instruction instead of two.
        let sample = self
            .probes
            .sampler
            .as_ref()
            .is_some_and(|s| cycle >= s.due_cycle());
        // The memory recorder is attached only with the flow recorder
        // (`Nes::record_memory`, `Nes::take_flow_counts`).
        let logging = self.probes.events.is_some();
        let probing =
            sample || self.probes.flow.is_some() || logging || self.probes.taken.is_some();
        // The instruction's code address under the banks it ran from (it
        // may switch them).
        let code = if probing {
            self.probes.code_map.key(&self.bus.cart.banks, pc)
        } else {
            pc as u32
        };
        let before = if probing && logging {
            Some(self.events_before(code, pc))
        } else {
            None
        };
        // (`probing` first: a plain run tests one flag here.)
        let kind = if probing && self.bus.memory.is_some() {
            self.step_recorded(code)
        } else {
            self.cpu.step(&mut self.bus)
        };
        self.retired += 1;
        if probing {
            let next = self.probes.code_map.key(&self.bus.cart.banks, self.cpu.pc);
            if let Some(flow) = self.probes.flow.as_deref_mut() {
                match kind {
                    StepKind::Instruction(opcode) => {
                        flow.instruction(code, opcode, next, self.cpu.s)
                    }
                    StepKind::Nmi => flow.nmi(next, self.cpu.s),
                    StepKind::Irq => flow.irq(next, self.cpu.s),
                    StepKind::Jammed => {}
                }
                if let Some(m) = self.bus.memory.as_deref_mut() {
                    m.follow_out_of_line(flow.call_stacks());
                }
            }
            if sample {
                self.record_sample(code, next, cycle, kind);
            }
            if let (Some(taken), StepKind::Instruction(opcode)) = (&self.probes.taken, kind) {
                // Taken: the PC is not the next instruction's (a branch to
                // it leads nowhere else either way).
                if OPCODES[opcode as usize].flow == Flow::Branch
                    && self.cpu.pc != pc.wrapping_add(2)
                {
                    taken.mark(next);
                }
            }
            if let Some(before) = before {
                self.events_after(code, next, kind, before);
            }
        }
        if self.bus.code.written() {
            self.invalidate_code();
        }
        kind
    }

    /// The event log's part before a step from CPU address `pc` (code
    /// address `code`): an instruction (not an interrupt entry) may begin a
    /// wait-loop iteration. Returns the counters and the frame count as
    /// they were, for [`Nes::events_after`].
    #[inline(never)]
    fn events_before(&mut self, code: u32, pc: u16) -> (Stamp, u64) {
        let before = (self.stamp(), self.bus.ppu.frame);
        let Some(log) = self.probes.events.as_deref_mut() else {
            return before;
        };
        if !self.probes.code_map.banked() {
            // Code addresses are CPU addresses: a switched bank puts other
            // code at them.
            log.banks_are(self.bus.cart.banks.prg_generation);
        }
        if self.cpu.jammed.is_none() && !self.cpu.interrupt_signalled() {
            let bus = &self.bus;
            log.instruction_starts(code, pc, bus.cycles, bus.dma_cycles(), |a| bus.peek(a));
        }
        before
    }

    /// The event log's part after a step from code address `code` to
    /// `next` (see `frame_events`): the wait-loop iteration goes on, is
    /// counted or ends; a routine-level transfer or an interrupt entry (at
    /// the counters `before` it) is logged; an iteration is cut by an
    /// interrupt entry or by the frame's end.
    #[inline(never)]
    fn events_after(&mut self, code: u32, next: u32, kind: StepKind, before: (Stamp, u64)) {
        let Some(log) = self.probes.events.as_deref_mut() else {
            return;
        };
        let bus = &self.bus;
        let logged = match kind {
            StepKind::Instruction(opcode) => {
                log.instruction_retired(code, next, bus.cycles, bus.dma_cycles());
                let jump = crate::code_addr::cpu_address(code);
                let target = self.cpu.pc;
                match EventKind::of_instruction(opcode) {
                    None if target > jump && log.watches(next) => {
                        Some((EventKind::FallInto, Stamp::now(bus, log.idle())))
                    }
                    Some(EventKind::Jump)
                        if opcode == crate::wait_loop::JMP_ABSOLUTE
                            && target <= jump
                            && log
                                .head(next, target, |a| bus.peek(a))
                                .is_some_and(|len| jump - target < len) =>
                    {
                        // Closes a wait loop (`wait_loop::jumps_back`).
                        None
                    }
                    Some(kind) => Some((kind, Stamp::now(bus, log.idle()))),
                    None => None,
                }
            }
            StepKind::Nmi => {
                log.interrupted();
                Some((EventKind::Nmi, before.0))
            }
            StepKind::Irq => {
                log.interrupted();
                Some((EventKind::Irq, before.0))
            }
            StepKind::Jammed => None,
        };
        if let Some((kind, at)) = logged {
            log.push(FlowEvent {
                kind,
                pc: code,
                target: next,
                sp: self.cpu.s,
                at,
            });
        }
        if bus.ppu.frame != before.1 {
            log.interrupted();
        }
    }

    /// The CPU's step with its data accesses reported to the memory
    /// recorder, which is told first which instruction (at code address
    /// `code`) begins.
    #[inline(never)]
    fn step_recorded(&mut self, code: u32) -> StepKind {
        let Some(m) = self.bus.memory.as_deref_mut() else {
            return self.cpu.step(&mut self.bus);
        };
        m.begin(code);
        if m.recording() {
            self.cpu.step_recorded(&mut self.bus)
        } else {
            self.cpu.step_tracked(&mut self.bus)
        }
    }

    /// Asks the sampler whether the step just taken, which started at
    /// `cycle`, is sampled, and if so hands it over (a hardware interrupt
    /// entry is recorded at its handler). Asking after the step gives the
    /// same answer as before it: the step does not touch the sampler, and
    /// for an emulated trigger the answer depends on `cycle` alone (a wall
    /// trigger's flag, raised meanwhile, counts for this step, as if it had
    /// been raised a moment earlier).
    #[cold]
    fn record_sample(&mut self, pc: u32, next_pc: u32, cycle: u64, kind: StepKind) {
        let Some(sampler) = self.probes.sampler.as_mut() else {
            return;
        };
        if !(sampler.collecting() || sampler.sample_next(cycle)) {
            return;
        }
        match kind {
            StepKind::Instruction(opcode) => {
                let target = if OPCODES[opcode as usize].flow == Flow::Branch {
                    let cpu_pc = crate::code_addr::cpu_address(pc);
                    let offset = self.bus.peek(cpu_pc.wrapping_add(1));
                    let target = crate::disasm::branch_target(cpu_pc, offset);
                    self.probes.code_map.key(&self.bus.cart.banks, target)
                } else {
                    next_pc
                };
                sampler.record_instruction(pc, opcode, next_pc, target, cycle)
            }
            StepKind::Nmi | StepKind::Irq => sampler.record(Retired {
                pc: next_pc,
                opcode: None,
                next_pc,
                target: next_pc,
                cycle,
            }),
            StepKind::Jammed => {}
        }
    }

    fn invalidate_code(&mut self) {
        match self.translator.as_mut() {
            Some(t) => {
                // (A parked recorder may still have counts pending in the
                // blocks: see `Nes::set_flow_recording`.)
                let flow = flow_recorder(&mut self.probes.flow, &mut self.parked_flow);
                t.invalidate_written(&mut self.bus, flow)
            }
            None => {
                self.bus.code.clear_writes();
            }
        }
    }

    /// Switches the translator's idle-loop skipping (on by default). Off,
    /// wait-for-NMI loops run iteration by iteration like any code, which
    /// tells what the translation itself is worth (`run --no-idle-skip`);
    /// the results are identical either way.
    pub fn set_idle_skip(&mut self, on: bool) {
        self.no_idle_skip = !on;
        if let Some(t) = self.translator.as_mut() {
            t.set_no_idle_skip(!on);
        }
    }

    /// Chooses how the translator forms hot regions (`translate::region`;
    /// off by default): runs of blocks along hot paths run as one unit.
    /// The results are identical either way; the regions formed so far are
    /// dropped.
    pub fn set_regions(&mut self, choice: crate::translate::region::RegionChoice) {
        if let Some(t) = self.translator.as_mut() {
            t.set_regions(choice.clone());
        }
        self.regions = choice;
    }

    /// What the translator's regions did so far.
    pub fn region_stats(&self) -> crate::translate::region::RegionStats {
        self.translator
            .as_ref()
            .map_or_else(Default::default, |t| t.region_stats())
    }

    /// Whether idle-loop skipping is on.
    pub fn idle_skip(&self) -> bool {
        !self.no_idle_skip
    }

    /// Makes the translator leave every block after one instruction, so a
    /// lockstep test can compare the machines after each instruction.
    pub fn set_single_step_blocks(&mut self, on: bool) {
        self.single_step_blocks = on;
    }

    /// Runs at least one instruction or interrupt entry on the current engine
    /// (a whole block on the translator).
    #[inline]
    pub fn run_some(&mut self) {
        if self.engine == Engine::Interpreter {
            self.step();
            return;
        }
        let flow = flow_recorder(&mut self.probes.flow, &mut self.parked_flow);
        if let (Some(t), Some(flow)) = (self.translator.as_mut(), flow) {
            let banked = self.probes.code_map.banked();
            t.flush_if_due(&self.bus.cart.banks, banked, flow);
        }
        if self.cpu.interrupt_pending()
            || self.cpu.jammed.is_some()
            || self
                .probes
                .events
                .as_ref()
                .is_some_and(|l| l.in_iteration())
        {
            // Interrupt entries go through the interpreter's sequence, and
            // so does a wait-loop iteration the interpreter is following
            // (`EventLog::in_iteration`).
            self.step();
            return;
        }
        let no_idle_skip = self.no_idle_skip;
        let events = &self.probes.events;
        let taken = &self.probes.taken;
        let regions = &self.regions;
        let translator = self.translator.get_or_insert_with(|| {
            let mut t = Box::new(Translator::new(&self.bus));
            // (No block yet: no repeat to set again.)
            t.no_idle_skip = no_idle_skip;
            t.set_regions(regions.clone());
            if let Some(log) = events.as_deref() {
                t.watched = log.watched().map(|e| (e, ())).collect();
            }
            t.taken = taken.clone();
            t
        });
        let Some(id) = translator.block_at(&mut self.bus, self.cpu.pc) else {
            self.step();
            return;
        };
        let stop_at_cycle = if self.single_step_blocks { 0 } else { u64::MAX };
        self.retired += translator.run_chain(
            id,
            &mut self.cpu,
            &mut self.bus,
            &mut self.probes,
            stop_at_cycle,
        );
        if self.bus.code.written() {
            self.invalidate_code();
        }
    }

    /// Adds the translator's pending per-block counts to the flow counts, so
    /// that they are complete.
    fn flush_flow(&mut self) {
        let flow = flow_recorder(&mut self.probes.flow, &mut self.parked_flow);
        if let (Some(t), Some(flow)) = (self.translator.as_mut(), flow) {
            t.flush_counts(flow);
        }
    }

    /// Starts recording exact control-flow counts (the ground truth's input)
    /// from now, replacing any counts recorded so far.
    /// A memory profile being recorded starts over too (its contexts are
    /// the flow recorder's call-stack nodes).
    pub fn record_flow(&mut self) {
        self.flush_flow();
        self.parked_flow = None;
        self.probes.flow = Some(Box::new(FlowCounts::new()));
        let memory = self.bus.memory.as_ref().or(self.parked_memory.as_ref());
        if let Some(lifetime) = memory.map(|m| m.lifetime()) {
            self.record_memory(lifetime);
        }
    }

    /// The flow counts recorded so far, complete up to the last instruction
    /// run (`None` unless [`Nes::record_flow`] was called).
    pub fn flow_counts(&mut self) -> Option<&FlowCounts> {
        self.flush_flow();
        self.probes.flow.as_deref().or(self.parked_flow.as_deref())
    }

    /// Bursty truth recording (no effect without [`Nes::record_flow`]): off,
    /// the flow recorder counts nothing. While the memory recorder records
    /// or tracks writes, the engines still report to it what moves the call
    /// stacks ([`FlowCounts::set_paused`]), so that the memory recorder can
    /// go on attributing to them; otherwise it is parked and hears of
    /// nothing, so it costs nothing, and the call stacks are read back
    /// from the stack page when it is needed again
    /// ([`crate::call_stacks::CallStacks::resume`]). On again, it counts as
    /// before.
    pub fn set_flow_recording(&mut self, on: bool) {
        // The translator's pending block counts stay in the blocks until the
        // counts are read (or a block is dropped, or a switched bank puts
        // other code at a code address, or too many pushed-out links' counts
        // wait: `Translator::flush_if_due`),
        // parked or not: runs between bursts add none, and flushing at
        // each burst's end cost as much as the burst's own frame.
        if let Some(flow) = flow_recorder(&mut self.probes.flow, &mut self.parked_flow) {
            flow.set_paused(!on);
        }
        self.settle_flow();
    }

    /// Parks the flow recorder when it counts nothing and the memory
    /// recorder is not attached, and brings it back when either needs it
    /// (see [`Nes::set_flow_recording`]).
    fn settle_flow(&mut self) {
        let Some(paused) = self
            .probes
            .flow
            .as_deref()
            .or(self.parked_flow.as_deref())
            .map(FlowCounts::paused)
        else {
            return;
        };
        let needed = !paused || self.bus.memory.is_some();
        if !needed {
            if let Some(mut flow) = self.probes.flow.take() {
                // (Counts pending in the translator's blocks stay there:
                // `flush_flow` finds the parked recorder.)
                flow.park(self.bus.stack_page());
                self.parked_flow = Some(flow);
            }
        } else if let Some(mut flow) = self.parked_flow.take() {
            let (bus, code_map) = (&self.bus, &mut self.probes.code_map);
            flow.resume(bus.stack_page(), self.cpu.s, &mut |address| {
                let site = address.wrapping_sub(2);
                (bus.peek(site) == 0x20).then(|| {
                    let target = u16::from_le_bytes([
                        bus.peek(site.wrapping_add(1)),
                        bus.peek(site.wrapping_add(2)),
                    ]);
                    code_map.key(&bus.cart.banks, target)
                })
            });
            self.probes.flow = Some(flow);
        }
    }

    /// Starts recording memory accesses and read-after-write dependences
    /// (`memory_profile.rs`) from now, replacing any recorded so far, with
    /// an optional lifetime in instructions. The dependences are
    /// attributed to call-stack contexts, which the flow recorder follows:
    /// it is started too if it is not on.
    pub fn record_memory(&mut self, lifetime: Option<u64>) {
        if self.probes.flow.is_none() && self.parked_flow.is_none() {
            self.record_flow();
        }
        let cart = &self.bus.cart;
        self.parked_memory = None;
        self.bus.memory = Some(Box::new(MemoryRecorder::new(
            !cart.prg_ram.is_empty(),
            lifetime,
        )));
        self.settle_flow();
        if let (Some(m), Some(flow)) = (self.bus.memory.as_deref_mut(), self.probes.flow.as_deref())
        {
            m.resync(flow.call_stacks());
        }
    }

    /// The memory profile recorded so far (`None` unless
    /// [`Nes::record_memory`] was called). The recorder's worker thread
    /// first replays all it was sent (see `memory_log.rs`); hold the
    /// profile only briefly: the worker needs it to go on.
    pub fn memory_profile(&mut self) -> Option<MutexGuard<'_, MemoryProfile>> {
        let m = self
            .bus
            .memory
            .as_deref_mut()
            .or(self.parked_memory.as_deref_mut())?;
        Some(m.profile())
    }

    /// Stops recording memory accesses and hands the profile over.
    pub fn take_memory_profile(&mut self) -> Option<Box<MemoryProfile>> {
        let m = self.bus.memory.take().or(self.parked_memory.take());
        self.memory_detached();
        self.settle_flow();
        m.map(|m| Box::new(m.finish()))
    }

    /// The translator's blocks go back to the plain handlers.
    fn memory_detached(&mut self) {
        if let Some(t) = self.translator.as_mut() {
            t.plain_handlers();
        }
    }

    /// Bursty memory recording (no effect without [`Nes::record_memory`]):
    /// see [`MemoryState`]. Switching costs no translation: the
    /// translator's blocks point their ops at other handlers as they next
    /// run (`translate::op::handler`).
    pub fn set_memory_state(&mut self, state: MemoryState) {
        if state == MemoryState::Paused {
            if let Some(mut m) = self.bus.memory.take() {
                m.park(&self.memory_values());
                self.parked_memory = Some(m);
            }
            self.settle_flow();
            return;
        }
        if let Some(mut m) = self.parked_memory.take() {
            m.unpark(&self.memory_values());
            self.bus.memory = Some(m);
        }
        // The memory recorder attributes to the call stacks.
        self.settle_flow();
        if let Some(m) = self.bus.memory.as_deref_mut() {
            m.set_recording(state == MemoryState::Recording);
            if let Some(flow) = self.probes.flow.as_deref() {
                m.resync(flow.call_stacks());
            }
        }
    }

    /// What the CPU reads now at each byte the memory recorder records
    /// (`memory_profile::slot` order: RAM, then $6000-$7FFF where the board
    /// has PRG RAM), without side effects.
    fn memory_values(&self) -> Vec<u8> {
        let mut values = Vec::with_capacity(0x800 + 0x2000);
        values.extend_from_slice(&self.bus.ram);
        // Without PRG RAM only RAM is recorded: no need to read 8 K bytes of
        // open bus one by one at every pause and resume.
        if !self.bus.cart.prg_ram.is_empty() {
            match self.bus.cart.prg_ram_window() {
                Some(window) => values.extend_from_slice(window),
                None => values.extend((0x6000..=0x7FFF).map(|addr| self.bus.peek(addr))),
            }
        }
        values
    }

    /// Stops recording flow counts and hands them over. Memory recording,
    /// which needs the flow recorder's call stacks, stops too (its profile
    /// is dropped: take it first).
    pub fn take_flow_counts(&mut self) -> Option<Box<FlowCounts>> {
        let parked = self.parked_memory.take();
        if self.bus.memory.take().is_some() || parked.is_some() {
            self.memory_detached();
        }
        self.flush_flow();
        self.probes.flow.take().or(self.parked_flow.take())
    }

    /// Starts the code/data log's data side (`access_log.rs`) from now,
    /// replacing any log so far: PRG-ROM data reads, DMC fetches, CHR
    /// drawn and read. The code side comes from the flow counts.
    pub fn record_accesses(&mut self) {
        let cart = &mut self.bus.cart;
        cart.access_log = Some(Box::new(AccessLog::new(
            cart.prg_rom.len(),
            cart.chr().len(),
        )));
        // Attached before the first instruction: the reset already read its
        // vector (at power-on, under the banks mapped now), which the log
        // would otherwise miss (FCEUX, logging from power-on, marks it).
        if self.retired == 0 {
            cart.log_prg(0xFFFC, crate::access_log::DATA);
            cart.log_prg(0xFFFD, crate::access_log::DATA);
        }
    }

    /// The access log so far (`None` unless [`Nes::record_accesses`] was
    /// called).
    pub fn access_log(&self) -> Option<&AccessLog> {
        self.bus.cart.access_log.as_deref()
    }

    /// Stops the access log and hands it over.
    pub fn take_access_log(&mut self) -> Option<Box<AccessLog>> {
        self.bus.cart.access_log.take()
    }

    /// Attaches a sampler: from now on it sees every retired instruction.
    pub fn attach_sampler(&mut self, sampler: SampleCapture) {
        self.probes.sampler = Some(sampler);
    }

    /// Starts noting every address a branch is taken to (`taken_targets`),
    /// from now on; returns the set, which fills as the machine runs.
    pub fn record_taken_targets(&mut self) -> std::sync::Arc<TakenTargets> {
        let set = std::sync::Arc::new(TakenTargets::new(self.bus.cart.prg_rom.len()));
        self.probes.taken = Some(set.clone());
        if let Some(t) = self.translator.as_mut() {
            // Links made before now were marked by no one: start over.
            t.taken = Some(set.clone());
            t.forget_links();
        }
        set
    }

    pub fn sampler(&self) -> Option<&SampleCapture> {
        self.probes.sampler.as_ref()
    }

    /// The attached sampler, to take its completed batches.
    pub fn sampler_mut(&mut self) -> Option<&mut SampleCapture> {
        self.probes.sampler.as_mut()
    }

    /// Detaches the sampler and hands it over.
    pub fn take_sampler(&mut self) -> Option<SampleCapture> {
        self.probes.sampler.take()
    }

    /// Starts the frame-time profile's event log (`frame_events`) from
    /// now, replacing any log so far: both engines log each routine-level
    /// control transfer and count wait-loop cycles. Independent of the
    /// other probes.
    pub fn record_events(&mut self) {
        self.probes.events = Some(Box::new(EventLog::new()));
    }

    /// Watches `entries` (code addresses) in the event log, which must be
    /// attached: code falling or branching forward into one logs
    /// `EventKind::FallInto` (see there). The translator's blocks are
    /// translated again, each watched address starting one.
    pub fn watch_entries(&mut self, entries: &[u32]) {
        let Some(log) = self.probes.events.as_deref_mut() else {
            return;
        };
        log.watch(entries.iter().copied());
        self.flush_flow();
        if let Some(t) = self.translator.as_mut() {
            t.watch(entries.iter().copied(), &mut self.bus);
        }
    }

    /// Moves the events logged since the last call into `into` (cleared
    /// first; left empty without a log). The profiler calls it after each
    /// frame, so the log holds one frame's events at most.
    pub fn drain_events(&mut self, into: &mut Vec<FlowEvent>) {
        match self.probes.events.as_deref_mut() {
            Some(log) => log.drain_into(into),
            None => into.clear(),
        }
    }

    /// The event log, if one is attached.
    pub fn events(&self) -> Option<&EventLog> {
        self.probes.events.as_deref()
    }

    /// Stops the event log and hands it over.
    pub fn take_events(&mut self) -> Option<Box<EventLog>> {
        self.probes.events.take()
    }

    /// The counters an event carries, now: the cycle count, the DMA cycles
    /// and the controller reads since power-on, and the log's wait-loop
    /// cycles (0 without a log).
    pub fn stamp(&self) -> Stamp {
        Stamp::now(
            &self.bus,
            self.probes.events.as_ref().map_or(0, |l| l.idle()),
        )
    }

    /// Translator statistics (blocks translated, invalidated, run), if it ran.
    pub fn translator_stats(&self) -> Option<crate::translate::TranslatorStats> {
        self.translator.as_ref().map(|t| t.stats)
    }

    /// Runs until the PPU finishes the next visible frame (scanline 239).
    pub fn run_frame(&mut self) {
        self.begin_frame();
        while !self.frame_done() {
            self.run_some();
        }
        self.bus.sync_ppu();
    }

    /// Clears the end-of-frame flag: [`Nes::frame_done`] turns true when the
    /// PPU next finishes scanline 239. For callers that run a frame in
    /// smaller steps ([`Nes::run_some`], [`Nes::step`]), as lockstep does.
    pub fn begin_frame(&mut self) {
        self.bus.ppu.frame_complete = false;
    }

    /// Whether the PPU finished a visible frame since [`Nes::begin_frame`].
    pub fn frame_done(&self) -> bool {
        self.bus.ppu.frame_complete
    }

    /// Brings the lazily-run PPU up to the present, so its position and
    /// buffers can be inspected (traces, debuggers).
    pub fn sync(&mut self) {
        self.bus.sync_ppu();
    }

    /// Palette indices (0-63) of the last frame, 256×240 row-major.
    pub fn frame(&self) -> &[u8] {
        &self.bus.ppu.frame_buffer
    }

    /// Frames completed since power-on.
    pub fn frame_count(&self) -> u64 {
        self.bus.ppu.frame
    }

    pub fn frame_hash(&self) -> u64 {
        fnv1a64(self.frame())
    }

    pub fn ram(&self) -> &[u8] {
        &self.bus.ram
    }

    pub fn ram_hash(&self) -> u64 {
        fnv1a64(&self.bus.ram)
    }

    pub fn cpu_state(&self) -> CpuState {
        self.cpu.state()
    }

    /// CPU cycles since power-on.
    pub fn cycles(&self) -> u64 {
        self.bus.cycles
    }

    /// Instructions and interrupt entries executed since power-on.
    pub fn retired(&self) -> u64 {
        self.retired
    }

    /// The address of the next instruction.
    pub fn pc(&self) -> u16 {
        self.cpu.pc
    }

    /// The code address (`crate::code_addr`) of the next instruction, under
    /// the banks mapped now: how the profilers name where the CPU is.
    pub fn pc_code(&self) -> u32 {
        crate::code_addr::code_address(
            self.bus.cart.prg_rom.len(),
            &self.bus.cart.banks,
            self.cpu.pc,
        )
    }

    /// Moves the program counter (nestest's automation mode starts at $C000
    /// instead of the reset vector).
    pub fn set_pc(&mut self, pc: u16) {
        self.cpu.pc = pc;
    }

    /// Bus accesses since power-on (one per CPU cycle: see
    /// [`Bus::accesses`]); lockstep tests compare it.
    pub fn accesses(&self) -> u64 {
        self.bus.accesses()
    }

    /// The picture processor, read-only (its frame buffer, emphasis bits,
    /// VRAM through [`crate::ppu::Ppu::peek_vram`] with [`Nes::cartridge`]).
    pub fn ppu(&self) -> &crate::ppu::Ppu {
        &self.bus.ppu
    }

    /// The audio unit, read-only.
    pub fn apu(&self) -> &crate::apu::Apu {
        &self.bus.apu
    }

    /// The cartridge, read-only.
    pub fn cartridge(&self) -> &Cartridge {
        &self.bus.cart
    }

    /// Battery-backed PRG RAM, if the board has it.
    pub fn battery_ram(&self) -> Option<&[u8]> {
        self.bus.cart.battery_ram()
    }

    /// Restores battery-backed PRG RAM from a save.
    pub fn load_battery_ram(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.bus.cart.load_battery_ram(bytes)
    }

    /// The 2 KiB of CPU RAM, writable (tests set up machine states with it).
    pub fn ram_mut(&mut self) -> &mut [u8] {
        &mut self.bus.ram
    }

    /// Runs the PPU dot by dot with the CPU instead of catching it up lazily
    /// (slower; for tests proving both give the same results).
    pub fn set_eager_ppu(&mut self, eager: bool) {
        self.bus.set_eager_ppu(eager);
    }

    /// Sets the buttons held on controller `port` (0 or 1); see
    /// [`crate::controller::buttons`].
    pub fn set_buttons(&mut self, port: usize, buttons: u8) {
        self.bus.controllers[port].set_buttons(buttons);
    }

    /// Reads CPU memory without side effects.
    pub fn peek(&self, addr: u16) -> u8 {
        self.bus.peek(addr)
    }

    /// The byte at a code address (`crate::code_addr`): from the PRG-ROM
    /// bank it names whatever is mapped now, else as [`Nes::peek`].
    pub fn peek_code(&self, code: u32) -> u8 {
        match crate::code_addr::prg_offset(code) {
            Some(offset) => self.bus.cart.prg_rom.get(offset).copied().unwrap_or(0),
            None => self.bus.peek(code as u16),
        }
    }

    /// Starts audio synthesis at `sample_rate` Hz (NES-like output filters).
    /// Audio never changes emulation results.
    pub fn enable_audio(&mut self, sample_rate: u32) {
        self.bus
            .apu
            .enable_audio(sample_rate, crate::apu::FilterMode::Nes);
        self.audio_rate = Some(sample_rate);
    }

    /// The output rate audio was enabled with, if it was.
    pub fn audio_sample_rate(&self) -> Option<u32> {
        self.audio_rate
    }

    /// Appends the audio samples (mono f32, about -1..1) produced since the
    /// last call to `out`. Nothing when audio is off.
    pub fn take_audio(&mut self, out: &mut Vec<f32>) {
        self.bus.apu.take_samples(out);
    }

    /// Dynamic rate control: scales the audio sample rate by `ratio`
    /// (clamped to 0.95..1.05) from the next audio frame on.
    pub fn set_audio_rate_ratio(&mut self, ratio: f64) {
        self.bus.apu.set_audio_rate_ratio(ratio);
    }

    /// Mixes only the channels whose bit is set (see [`crate::apu::mixer`]:
    /// PULSE1, PULSE2, TRIANGLE, NOISE, DMC). Audio only; emulation is
    /// unaffected.
    pub fn set_audio_channel_mask(&mut self, mask: u8) {
        self.bus.apu.set_channel_mask(mask);
    }

    /// Where the CPU stopped, if a JAM opcode halted it.
    pub fn jammed(&self) -> Option<(u16, u8)> {
        self.cpu.jammed
    }
}

/// The flow recorder, attached or parked (`Nes::set_flow_recording`): a
/// function of the two fields, so that the translator can be borrowed
/// beside it.
fn flow_recorder<'a>(
    attached: &'a mut Option<Box<FlowCounts>>,
    parked: &'a mut Option<Box<FlowCounts>>,
) -> Option<&'a mut FlowCounts> {
    attached.as_deref_mut().or(parked.as_deref_mut())
}

#[cfg(test)]
impl Nes {
    /// The translator, once a block has run (tests look inside it).
    pub(crate) fn translator_mut(&mut self) -> Option<&mut Translator> {
        self.translator.as_deref_mut()
    }
}
