//! The engines' notes for the frame-time profile (issue 43): what only they
//! know, cheaply and in their own terms — each routine-level control
//! transfer (`JSR`, `RTS`, `JMP`, `BRK`, `RTI`, NMI and IRQ entries) with
//! the cycle it happened at, the DMA cycles and wait-loop cycles so far.
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
//! iteration, [`EventLog::interrupted`]).

use crate::int_hash::IntMap;

/// What a logged control transfer was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// `JSR`: `target` is the routine called.
    Call,
    /// `RTS`: `target` is where it returned to (for the "push address − 1,
    /// `RTS`" dispatch, the routine jumped to).
    Return,
    /// `JMP` absolute or indirect: `target` is where it went.
    Jump,
    /// `BRK`: `target` is the handler.
    Brk,
    /// `RTI` (from a hardware interrupt or a `BRK`).
    ReturnInterrupt,
    /// NMI entry: `target` is the handler, `pc` the code interrupted.
    Nmi,
    /// IRQ entry, as NMI.
    Irq,
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
/// address: ROM does not change, and code in RAM is re-examined when
/// written; see [`EventLog::code_written`]).
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
    /// The interpreter's wait-loop heads, by code address.
    heads: IntMap<u32, Head>,
    /// The interpreter's iteration in progress: (head code address, loop
    /// length, cycle and DMA total when it began).
    iteration: Option<(u32, u16, u64, u64)>,
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

    /// Moves the events logged since the last call into `into` (cleared
    /// first), keeping the log's buffer.
    pub fn drain_into(&mut self, into: &mut Vec<FlowEvent>) {
        into.clear();
        into.append(&mut self.events);
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

    /// The interpreter, before an instruction at code address `code` (CPU
    /// address `pc`) that starts at `cycle` with `dma` DMA cycles so far:
    /// an iteration begins when it is a wait loop's head (`byte` reads the
    /// code, to find out the first time).
    #[inline]
    pub fn instruction_starts(
        &mut self,
        code: u32,
        pc: u16,
        cycle: u64,
        dma: u64,
        byte: impl Fn(u16) -> u8,
    ) {
        let head =
            *self
                .heads
                .entry(code)
                .or_insert_with(|| match crate::wait_loop::at(pc, byte) {
                    Some(len) => Head::Loop(len),
                    None => Head::No,
                });
        if let Head::Loop(len) = head {
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

    /// Code at CPU addresses `lo..=hi` (in RAM) was written: the
    /// interpreter forgets what it knew of heads there.
    pub fn code_written(&mut self, lo: u32, hi: u32) {
        // A loop whose head is a little below `lo` may reach into it.
        let reach = 3 * crate::wait_loop::MAX_INSTRUCTIONS as u32;
        self.heads
            .retain(|&code, _| code > hi || code.saturating_add(reach) < lo);
    }
}
