//! The engines' notes for the frame-time profile (issue 43): what only they
//! know, cheaply and in their own terms — each routine-level control
//! transfer (`JSR`, `RTS`, `JMP`, `BRK`, `RTI`, NMI and IRQ entries, and
//! code falling into a watched routine entry) with the cycle it happened at, the DMA cycles and wait-loop cycles so far.
//! Everything made of them — frames, routines, tail calls, idle time,
//! interrupt handlers as roots — is the `profiler` crate's
//! (`profiler/src/frame_profile/`); the log is drained there after every
//! frame, so it holds one frame's events at most.
//!
//! Both engines write the same log, event for event: the interpreter after
//! each instruction, the translator after each block, whose last op is the
//! only one that can transfer control. The clock of an event is the CPU
//! cycle count when the instruction has retired (a `JSR`'s six cycles are
//! its caller's, an `RTS`'s its callee's), and for an interrupt entry the
//! count when its seven-cycle sequence begins (they are the handler's).
//!
//! Wait-loop cycles (`wait_loop`): the log counts, in [`EventLog::idle`],
//! the cycles of every complete iteration of a wait loop — one that starts
//! at the loop's head and ends with its jump back there — less any DMA
//! cycles inside it. The interpreter follows each iteration
//! ([`EventLog::instruction_starts`], [`EventLog::instruction_retired`]);
//! the translator, which starts a block at every wait loop's head, counts a
//! run of a wait-loop block that ends back at its head, and the iterations
//! its idle-loop skipping counts ([`EventLog::add_idle`]). An iteration cut
//! by an interrupt or by the frame's end is not counted by either engine
//! (the translator's block stops early there; the interpreter forgets the
//! iteration, [`EventLog::interrupted`]). A translator block stopped inside
//! an iteration with nothing to cut it (single-stepped blocks) hands the
//! iteration over to the interpreter ([`EventLog::iteration_begun`]), and
//! the translator leaves the instructions to the interpreter while it
//! follows one ([`EventLog::in_iteration`]): an iteration counts the same
//! whichever engine ran which part of it.

use crate::bus::Bus;
use crate::cpu::opcodes::{Flow, OPCODES};
use crate::int_hash::IntMap;

/// What a logged control transfer was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// `JSR`: `target` is the routine called.
    Call,
    /// `RTS`: `target` is where it returned to (for the "push address − 1,
    /// `RTS`" dispatch, the routine jumped to).
    Return,
    /// `JMP` absolute or indirect: `target` is where it went. Not the
    /// `JMP` back to the head of a wait loop from inside it (the one that
    /// closes `nop / jmp :-`, [`crate::wait_loop::jumps_back`]): that is
    /// the loop's own back edge, like a branch, and its iterations are
    /// idle time; a game spinning in `jmp *` would otherwise log one
    /// event every three cycles (and the translator's idle-loop skipping
    /// would have to make them up).
    Jump,
    /// `BRK`: `target` is the handler.
    Brk,
    /// `RTI` (from a hardware interrupt or a `BRK`).
    ReturnInterrupt,
    /// NMI entry: `target` is the handler, `pc` the code interrupted.
    Nmi,
    /// IRQ entry, as NMI.
    Irq,
    /// An instruction that is no transfer of its own (a conditional branch,
    /// or any instruction falling through) going forward into a *watched*
    /// address ([`EventLog::watch`]): the profiler watches routine entries,
    /// so that code falling into the next routine, or branching forward
    /// into it, is seen entering it (6502 code often ends a routine by
    /// falling into the one it would `JMP` to). A branch back to a watched
    /// address is a loop to the routine's own entry and logs nothing.
    FallInto,
}

impl EventKind {
    /// The event an instruction with `opcode` logs, if any: `JSR`, `RTS`,
    /// `JMP`, `BRK` and `RTI` (a `JMP` closing a wait loop aside, see
    /// [`EventKind::Jump`]).
    pub fn of_instruction(opcode: u8) -> Option<EventKind> {
        match OPCODES[opcode as usize].flow {
            Flow::Call => Some(EventKind::Call),
            Flow::Return => Some(EventKind::Return),
            Flow::Jump => Some(EventKind::Jump),
            Flow::Break => Some(EventKind::Brk),
            Flow::ReturnInterrupt => Some(EventKind::ReturnInterrupt),
            Flow::None | Flow::Branch | Flow::Jam => None,
        }
    }
}

/// The counters an event carries: the CPU's cycle count, and how many of
/// the cycles so far went to DMA and to wait loops.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Stamp {
    /// CPU cycles since power-on.
    pub cycle: u64,
    /// Cycles the CPU was halted for OAM DMA ($4014) so far.
    pub oam_dma: u64,
    /// Cycles the CPU was halted for DMC sample fetches so far (those that
    /// ride on an OAM DMA count here, not there).
    pub dmc_dma: u64,
    /// Cycles of complete wait-loop iterations so far (DMA excluded).
    pub idle: u64,
    /// CPU reads of the controller ports $4016/$4017 so far (a frame with
    /// none is a lag frame, as FCEUX counts them).
    pub controller_reads: u64,
}

impl Stamp {
    /// The counters of `bus` now, with `idle` wait-loop cycles (the event
    /// log's count). (Here, not in `bus`: the machine's bus knows nothing
    /// of the log.)
    #[inline]
    pub(crate) fn now(bus: &Bus, idle: u64) -> Stamp {
        Stamp {
            cycle: bus.cycles,
            oam_dma: bus.oam_dma_cycles,
            dmc_dma: bus.dmc_dma_cycles,
            idle,
            controller_reads: bus.controller_reads,
        }
    }
}

/// One logged control transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FlowEvent {
    pub kind: EventKind,
    /// Code address (`code_addr`) of the instruction (for an interrupt
    /// entry: of the instruction it interrupted, the one that runs after
    /// its `RTI`).
    pub pc: u32,
    /// Code address where control went.
    pub target: u32,
    /// The stack pointer after the instruction (after an interrupt's
    /// pushes).
    pub sp: u8,
    pub at: Stamp,
}

/// What the interpreter knows of a wait-loop head (cached per code
/// address for PRG ROM, whose bytes a code address names; see
/// [`EventLog::head`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Head {
    /// Not the head of a wait loop.
    No,
    /// The head of a wait loop of this many bytes.
    Loop(u16),
}

/// The log (see the module doc).
#[derive(Debug, Default, Clone)]
pub struct EventLog {
    events: Vec<FlowEvent>,
    /// Cycles of complete wait-loop iterations so far.
    idle: u64,
    /// The interpreter's wait-loop heads in PRG ROM, by code address.
    heads: IntMap<u32, Head>,
    /// The PRG mapping `heads` is of, where code addresses do not name
    /// banks ([`EventLog::banks_are`]).
    rom_generation: u32,
    /// The interpreter's iteration in progress: (head code address, loop
    /// length, cycle and DMA total when it began).
    iteration: Option<(u32, u16, u64, u64)>,
    /// The code addresses entered by [`EventKind::FallInto`] events.
    watched: IntMap<u32, ()>,
}

impl EventLog {
    pub fn new() -> EventLog {
        EventLog::default()
    }

    /// Appends an event.
    #[inline]
    pub fn push(&mut self, event: FlowEvent) {
        self.events.push(event);
    }

    /// Watches `entries` (code addresses): falling or branching forward
    /// into one logs [`EventKind::FallInto`]. Set it through
    /// `Nes::watch_entries`, which makes the translator's blocks start at
    /// them.
    pub fn watch(&mut self, entries: impl IntoIterator<Item = u32>) {
        self.watched = entries.into_iter().map(|e| (e, ())).collect();
    }

    /// Whether code address `code` is watched.
    #[inline]
    pub fn watches(&self, code: u32) -> bool {
        !self.watched.is_empty() && self.watched.contains_key(&code)
    }

    /// The watched code addresses.
    pub fn watched(&self) -> impl Iterator<Item = u32> + '_ {
        self.watched.keys().copied()
    }

    /// Moves the events logged since the last call into `into` (its
    /// contents dropped), the log taking `into`'s buffer in exchange.
    pub fn drain_into(&mut self, into: &mut Vec<FlowEvent>) {
        // The buffers trade places: nothing is copied.
        into.clear();
        std::mem::swap(into, &mut self.events);
    }

    /// The events logged since the last [`EventLog::drain_into`].
    pub fn events(&self) -> &[FlowEvent] {
        &self.events
    }

    /// Cycles of complete wait-loop iterations so far.
    #[inline]
    pub fn idle(&self) -> u64 {
        self.idle
    }

    /// The translator's count: `cycles` of complete wait-loop iterations.
    #[inline]
    pub fn add_idle(&mut self, cycles: u64) {
        self.idle += cycles;
    }

    /// The length of the wait loop whose head is the instruction at code
    /// address `code` (CPU address `pc`), if it is one (`byte` reads the
    /// code as the CPU would fetch it now). Remembered for PRG ROM, where a
    /// code address names the bytes of its whole 8 KiB window (see
    /// `code_addr`; on boards of at most 32 KiB, whose code addresses are
    /// CPU addresses, as long as no bank is switched:
    /// [`EventLog::banks_are`]); RAM and PRG RAM code is looked at
    /// again every time, as it may have been rewritten.
    #[inline]
    pub fn head(&mut self, code: u32, pc: u16, byte: impl Fn(u16) -> u8) -> Option<u16> {
        if pc < 0x8000 {
            return crate::wait_loop::at(pc, byte);
        }
        let head =
            *self
                .heads
                .entry(code)
                .or_insert_with(|| match crate::wait_loop::at(pc, byte) {
                    Some(len) => Head::Loop(len),
                    None => Head::No,
                });
        match head {
            Head::Loop(len) => Some(len),
            Head::No => None,
        }
    }

    /// The PRG mapping is at `generation` (`Banks::prg_generation`), on a
    /// board whose code addresses are CPU addresses: if it changed, what
    /// [`EventLog::head`] remembers may be of other code, and is forgotten.
    pub fn banks_are(&mut self, generation: u32) {
        if generation != self.rom_generation {
            self.rom_generation = generation;
            self.heads.clear();
        }
    }

    /// The interpreter, before an instruction at code address `code` (CPU
    /// address `pc`) that starts at `cycle` with `dma` DMA cycles so far:
    /// an iteration begins when it is a wait loop's head (`byte` reads the
    /// code, to find out).
    #[inline]
    pub fn instruction_starts(
        &mut self,
        code: u32,
        pc: u16,
        cycle: u64,
        dma: u64,
        byte: impl Fn(u16) -> u8,
    ) {
        if let Some(len) = self.head(code, pc, byte) {
            self.iteration = Some((code, len, cycle, dma));
        }
    }

    /// The interpreter, after an instruction at code address `code` retired
    /// with the CPU at `next` (a code address), at `cycle` with `dma` DMA
    /// cycles so far: an iteration that jumps back to its head is counted.
    /// Any instruction outside the iteration's loop ends it uncounted.
    #[inline]
    pub fn instruction_retired(&mut self, code: u32, next: u32, cycle: u64, dma: u64) {
        let Some((head, len, start, start_dma)) = self.iteration else {
            return;
        };
        let inside = code >= head && code < head + len as u32;
        if !inside {
            self.iteration = None;
        } else if next == head {
            self.idle += (cycle - start) - (dma - start_dma);
            self.iteration = None;
        } else if next < head || next >= head + len as u32 {
            self.iteration = None;
        }
    }

    /// An interrupt was entered, or the frame ended: the interpreter's
    /// iteration in progress is not counted (the translator's block stops
    /// there too).
    #[inline]
    pub fn interrupted(&mut self) {
        self.iteration = None;
    }

    /// Whether the interpreter is following an iteration (begun by
    /// [`EventLog::instruction_starts`] or handed over by
    /// [`EventLog::iteration_begun`]): the translator leaves the next
    /// instructions to it until the iteration ends.
    #[inline]
    pub fn in_iteration(&self) -> bool {
        self.iteration.is_some()
    }

    /// The translator ran the first instructions of an iteration of the
    /// wait loop at code address `head` (`len` bytes), begun at `cycle`
    /// with `dma` DMA cycles so far, and stopped inside it with nothing to
    /// cut it (a cycle limit: single-stepped blocks): the interpreter
    /// follows the rest, as if it had run the whole iteration.
    pub fn iteration_begun(&mut self, head: u32, len: u16, cycle: u64, dma: u64) {
        self.iteration = Some((head, len, cycle, dma));
    }
}
