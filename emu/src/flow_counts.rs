//! Raw control-flow counts of a run, kept by whichever engine executes the
//! code: how often each address executed, how often each conditional branch
//! was taken, the (source, destination) transitions of instructions with
//! run-time targets, and interrupt entries per handler. The exact CFG (leaders,
//! blocks, edges) is derived from these afterwards by the `profiler` crate, so
//! recording costs an array increment per instruction and nothing depends on
//! the order in which code was discovered.
//!
//! Interrupt rule (DESIGN.md): NMI/IRQ entries and the RTI that returns from
//! them are not transitions; the interrupted flow continues after the RTI as
//! if uninterrupted. BRK is a software call: its entry and the RTI that
//! returns from it are transitions. A shadow stack of interrupt frames, keyed
//! by the stack pointer, tells the two kinds of RTI apart (frames a handler
//! abandons by resetting the stack are dropped when the stack unwinds past
//! them).

use crate::call_stacks::{CallCache, CallStacks, FrameKind};
use crate::code_addr;
use crate::cpu::opcodes::{Flow, OPCODES};
use crate::int_hash::IntMap;

/// How a handler was entered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// NMI or IRQ: asynchronous, not a transition.
    Hardware,
    /// BRK: a transition like a call.
    Software,
}

/// Entries per page of the tables: one 8 KiB window of CPU space, the
/// granularity at which mappers switch PRG ROM.
const PAGE: usize = 0x2000;

/// The per-address counts of one 8 KiB page of code addresses.
#[derive(Debug)]
struct Page {
    executed: Box<[u64; PAGE]>,
    static_count: Box<[u64; PAGE]>,
    static_target: Box<[u32; PAGE]>,
    opcode: Box<[u8; PAGE]>,
}

/// A page-sized array built on the heap (a `Box::new([..])` would build the
/// 64 KiB array on the stack first).
fn filled<T: Copy>(value: T) -> Box<[T; PAGE]> {
    vec![value; PAGE]
        .into_boxed_slice()
        .try_into()
        .unwrap_or_else(|_| unreachable!("the vector has PAGE entries"))
}

impl Page {
    fn new() -> Page {
        Page {
            executed: filled(0),
            static_count: filled(0),
            static_target: filled(0),
            opcode: filled(0xEA),
        }
    }
}

impl Clone for Page {
    fn clone(&self) -> Self {
        let mut page = Page::new();
        page.clone_from(self);
        page
    }

    fn clone_from(&mut self, other: &Self) {
        self.executed.copy_from_slice(&other.executed[..]);
        self.static_count.copy_from_slice(&other.static_count[..]);
        self.static_target.copy_from_slice(&other.static_target[..]);
        self.opcode.copy_from_slice(&other.opcode[..]);
    }
}

/// Per code address tables (see `code_addr`), in pages allocated when code
/// first runs there: a banked board's code addresses reach several MiB, of
/// which a game runs a few pages.
#[derive(Debug, Clone, Default)]
struct Pages(Vec<Option<Page>>);

impl Pages {
    #[inline(always)]
    fn get(&self, code: u32) -> Option<(&Page, usize)> {
        match self.0.get(code as usize / PAGE) {
            Some(Some(page)) => Some((page, code as usize % PAGE)),
            _ => None,
        }
    }

    #[inline(always)]
    fn get_mut(&mut self, code: u32) -> (&mut Page, usize) {
        let slot = code as usize / PAGE;
        if !matches!(self.0.get(slot), Some(Some(_))) {
            self.allocate(slot);
        }
        match &mut self.0[slot] {
            Some(page) => (page, code as usize % PAGE),
            None => unreachable!("allocated above"),
        }
    }

    #[cold]
    fn allocate(&mut self, slot: usize) {
        if self.0.len() <= slot {
            self.0.resize_with(slot + 1, || None);
        }
        self.0[slot] = Some(Page::new());
    }

    /// The allocated pages with the code address of their first entry, in
    /// address order.
    fn iter(&self) -> impl Iterator<Item = (u32, &Page)> {
        self.0
            .iter()
            .enumerate()
            .filter_map(|(slot, p)| p.as_ref().map(|p| ((slot * PAGE) as u32, p)))
    }

    /// Makes `self` equal to `other`, reusing allocated pages.
    fn copy_from(&mut self, other: &Pages) {
        self.0.truncate(other.0.len());
        self.0.resize_with(other.0.len(), || None);
        for (mine, theirs) in self.0.iter_mut().zip(&other.0) {
            match (mine.as_mut(), theirs.as_ref()) {
                (Some(m), Some(t)) => m.clone_from(t),
                (_, Some(t)) => *mine = Some(t.clone()),
                (_, None) => *mine = None,
            }
        }
    }
}

/// Exact control-flow counts per code address (`crate::code_addr`: a CPU
/// address, or for banked PRG ROM one that names the bank too).
#[derive(Debug, Clone, Default)]
pub struct FlowCounts {
    /// Executions, opcode last executed (its length and flow class follow
    /// from it), and the current target of the branch / JMP abs / JSR at
    /// each address with how many transfers went there (taken branches;
    /// every JMP/JSR execution). When patched code changes the target, the
    /// old target's count moves to `dynamic`, so counts stay exact under
    /// self-modifying code.
    pages: Pages,
    /// (source, destination) counts of RTS, JMP (ind), BRK and software RTI,
    /// and of retired static targets.
    pub dynamic: IntMap<(u32, u32), u64>,
    /// Hardware interrupt entries per handler address.
    pub interrupts: IntMap<u32, u64>,
    /// Handler entry points entered by BRK (leaders).
    pub brk_handlers: IntMap<u32, u64>,
    /// Instructions retired (and hardware interrupt entries, not counted).
    pub instructions: u64,
    /// Open interrupt frames: (stack pointer after the pushes, kind).
    frames: Vec<(u8, EntryKind)>,
    /// Call stacks followed through JSR/RTS and interrupts, with the
    /// instructions retired under each (`call_stacks.rs`).
    stacks: CallStacks,
    /// Between truth bursts ([`FlowCounts::set_paused`]): nothing is
    /// counted, but the call stacks and interrupt frames are still
    /// followed.
    paused: bool,
    /// Since the recorder was last parked ([`FlowCounts::park`]): the
    /// stack pointer when it resumed. Interrupt frames above it may have
    /// been pushed while it heard nothing.
    resumed_at: Option<u8>,
}

impl FlowCounts {
    /// Makes `self` a copy of `other`, reusing `self`'s buffers (unlike the
    /// derived `clone_from`): the live overlay copies the counts once a second
    /// and should not allocate a megabyte each time.
    pub fn copy_from(&mut self, other: &FlowCounts) {
        self.pages.copy_from(&other.pages);
        self.dynamic.clone_from(&other.dynamic);
        self.interrupts.clone_from(&other.interrupts);
        self.brk_handlers.clone_from(&other.brk_handlers);
        self.instructions = other.instructions;
        self.frames.clone_from(&other.frames);
        self.stacks.clone_from(&other.stacks);
        self.paused = other.paused;
        self.resumed_at = other.resumed_at;
    }

    /// Stops hearing of anything (between bursts when nothing needs the
    /// call stacks, see [`crate::Nes::set_flow_recording`]): the engines
    /// no longer report to it at all, and [`FlowCounts::resume`] reads the
    /// call stacks back from the stack page `page`. Only while paused.
    pub fn park(&mut self, page: &[u8; 256]) {
        debug_assert!(self.paused);
        self.stacks.park(page);
    }

    /// Hears of events again after [`FlowCounts::park`], the stack pointer
    /// at `sp` (see [`CallStacks::resume`]). The interrupt frames still
    /// above it are kept; an RTI that closes none of them but returns
    /// through stack bytes that were above the stack pointer here is taken
    /// as returning from a hardware interrupt entered while parked (a BRK
    /// in a game is far rarer than an NMI), so no transfer is counted.
    pub fn resume(
        &mut self,
        page: &[u8; 256],
        sp: u8,
        jsr_target: &mut dyn FnMut(u16) -> Option<u32>,
    ) {
        self.stacks.resume(page, sp, jsr_target);
        self.frames.retain(|&(frame_sp, _)| frame_sp >= sp);
        // (Any frame pushed while parked and still open is above `sp`.)
        self.resumed_at = Some(sp);
    }

    /// Truth bursts: paused, nothing is counted (no executions, transfers,
    /// interrupt entries or instructions credited to contexts) and the
    /// engines report only the instructions that move the call stacks
    /// (JSR, RTS, BRK, RTI, interrupt entries), so that the stacks, which
    /// the memory recorder attributes to, stay true across the pause.
    /// (The translator's pending counts may be added while paused: they
    /// are the burst's.)
    pub fn set_paused(&mut self, paused: bool) {
        self.paused = paused;
    }

    /// Whether counting is paused ([`FlowCounts::set_paused`]).
    #[inline(always)]
    pub fn paused(&self) -> bool {
        self.paused
    }

    pub fn new() -> FlowCounts {
        FlowCounts::default()
    }

    /// How many times the instruction at `code` executed.
    #[inline]
    pub fn executed(&self, code: u32) -> u64 {
        self.pages.get(code).map_or(0, |(p, i)| p.executed[i])
    }

    /// Opcode of the instruction last executed at `code` (NOP where none
    /// ran).
    #[inline]
    pub fn opcode(&self, code: u32) -> u8 {
        self.pages.get(code).map_or(0xEA, |(p, i)| p.opcode[i])
    }

    /// Every code address that executed, with its count, in address order.
    pub fn executed_addresses(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.pages.iter().flat_map(|(base, page)| {
            page.executed
                .iter()
                .enumerate()
                .filter(|(_, &n)| n > 0)
                .map(move |(i, &n)| (base + i as u32, n))
        })
    }

    /// Every (source, current static target, count) with a count.
    pub fn static_transfers(&self) -> impl Iterator<Item = (u32, u32, u64)> + '_ {
        self.pages.iter().flat_map(|(base, page)| {
            page.static_count
                .iter()
                .enumerate()
                .filter(|(_, &n)| n > 0)
                .map(move |(i, &n)| (base + i as u32, page.static_target[i], n))
        })
    }

    /// Length in bytes of the instruction last executed at `code`.
    #[inline]
    pub fn length(&self, code: u32) -> u8 {
        OPCODES[self.opcode(code) as usize].byte_len()
    }

    /// Control-flow class of the instruction last executed at `code`.
    #[inline]
    pub fn flow(&self, code: u32) -> Flow {
        OPCODES[self.opcode(code) as usize].flow
    }

    /// An instruction at `pc` retired; the CPU then was at `next_pc` with
    /// stack pointer `sp` (before any interrupt that follows).
    ///
    /// Inlined up to the transfer: the interpreter calls it at every
    /// instruction, and most fall through (the call, its prologue and the
    /// `match` were most of what it cost there).
    #[inline(always)]
    pub fn instruction(&mut self, pc: u32, opcode: u8, next_pc: u32, sp: u8) {
        if self.paused {
            self.follow_stack(opcode, next_pc, sp);
            return;
        }
        let (page, i) = self.pages.get_mut(pc);
        page.executed[i] += 1;
        page.opcode[i] = opcode;
        self.instructions += 1;
        self.stacks.retired(1);
        if OPCODES[opcode as usize].flow != Flow::None {
            self.transfer(pc, opcode, next_pc, sp);
        }
    }

    /// The transfer part of [`FlowCounts::instruction`], for an
    /// instruction that is not a fall-through.
    #[inline(never)]
    fn transfer(&mut self, pc: u32, opcode: u8, next_pc: u32, sp: u8) {
        let info = &OPCODES[opcode as usize];
        match info.flow {
            Flow::None => {}
            Flow::Branch => {
                if next_pc != code_addr::advance(pc, 2) {
                    self.static_transfer(pc, next_pc);
                }
            }
            Flow::Jump if info.mode == crate::cpu::opcodes::Mode::Absolute => {
                self.static_transfer(pc, next_pc);
            }
            Flow::Call => {
                self.static_transfer(pc, next_pc);
                self.stacks.call(next_pc, sp);
            }
            Flow::Jump => self.dynamic_transition(pc, next_pc),
            Flow::Return => {
                self.dynamic_transition(pc, next_pc);
                self.stacks.ret(sp);
            }
            Flow::Break => {
                self.dynamic_transition(pc, next_pc);
                *self.brk_handlers.entry(next_pc).or_insert(0) += 1;
                self.open_frame(sp, EntryKind::Software);
                self.stacks.interrupt(next_pc, FrameKind::Brk, sp);
            }
            Flow::ReturnInterrupt => {
                self.stacks.ret(sp);
                // The RTI pulled 3 bytes: the frame it closes had the stack
                // pointer 3 below the current one.
                let frame_sp = sp.wrapping_sub(3);
                let hardware = match self.close_frame(frame_sp) {
                    Some(kind) => kind == EntryKind::Hardware,
                    None => self.resumed_at.is_some_and(|at| frame_sp >= at),
                };
                if !hardware {
                    self.dynamic_transition(pc, next_pc);
                }
            }
            Flow::Jam => {}
        }
    }

    /// A hardware interrupt entered `handler` (stack pointer `sp` after the
    /// three pushes).
    pub fn hardware_interrupt(&mut self, handler: u32, sp: u8) {
        self.interrupt_entered(handler, sp, FrameKind::Interrupt);
    }

    /// An NMI entered `handler` (as [`FlowCounts::hardware_interrupt`]; the
    /// call stacks name the frame as an NMI's).
    pub fn nmi(&mut self, handler: u32, sp: u8) {
        self.interrupt_entered(handler, sp, FrameKind::Nmi);
    }

    /// An IRQ entered `handler` (as [`FlowCounts::nmi`]).
    pub fn irq(&mut self, handler: u32, sp: u8) {
        self.interrupt_entered(handler, sp, FrameKind::Irq);
    }

    /// While paused: only what the instruction does to the call stacks
    /// and interrupt frames (as [`FlowCounts::instruction`] would).
    #[inline]
    fn follow_stack(&mut self, opcode: u8, next_pc: u32, sp: u8) {
        match OPCODES[opcode as usize].flow {
            Flow::Call => self.stacks.call(next_pc, sp),
            Flow::Return => self.stacks.ret(sp),
            Flow::Break => {
                self.open_frame(sp, EntryKind::Software);
                self.stacks.interrupt(next_pc, FrameKind::Brk, sp);
            }
            Flow::ReturnInterrupt => {
                self.stacks.ret(sp);
                self.close_frame(sp.wrapping_sub(3));
            }
            _ => {}
        }
    }

    /// Whether [`FlowCounts::add_transfers`] can count the transfers of an
    /// instruction of class `flow` in bulk: a fall-through, branch, `JMP`,
    /// `JSR` or `RTS`, whose counts do not depend on the order of events
    /// (BRK and RTI open and close interrupt frames, and an RTI counts as a
    /// transfer or not by the frame it closes).
    pub fn transfers_in_bulk(flow: Flow) -> bool {
        matches!(
            flow,
            Flow::None | Flow::Branch | Flow::Jump | Flow::Call | Flow::Return
        )
    }

    /// Whether `opcode`'s transfers are counted against one current target
    /// per address (a branch, `JMP` absolute or `JSR`), whose count moves to
    /// `dynamic` when patched code changes the target: counting those in
    /// bulk needs the code fixed until the counts are added.
    pub fn has_static_target(opcode: u8) -> bool {
        let info = &OPCODES[opcode as usize];
        match info.flow {
            Flow::Branch | Flow::Call => true,
            Flow::Jump => info.mode == crate::cpu::opcodes::Mode::Absolute,
            _ => false,
        }
    }

    /// Whether `opcode`'s transfers are counted by (source, target) pair in
    /// `dynamic`: `RTS` and `JMP` indirect, whose targets vary.
    pub fn has_dynamic_target(opcode: u8) -> bool {
        let info = &OPCODES[opcode as usize];
        match info.flow {
            Flow::Return => true,
            Flow::Jump => info.mode != crate::cpu::opcodes::Mode::Absolute,
            _ => false,
        }
    }

    /// `n` transfers from the instruction at `pc`, an `RTS` or `JMP`
    /// indirect ([`FlowCounts::has_dynamic_target`]), to `target`: what
    /// [`FlowCounts::add_transfers`] does for those.
    pub fn add_dynamic_transfers(&mut self, pc: u32, target: u32, n: u64) {
        *self.dynamic.entry((pc, target)).or_insert(0) += n;
    }

    /// `n` transfers from the instruction at `pc` (`opcode`, of a class
    /// [`FlowCounts::transfers_in_bulk`] takes) to `target`, counted in
    /// bulk: what `n` calls of [`FlowCounts::instruction`] with that
    /// `next_pc` would add to the transfer counts (not the executions, the
    /// instruction count or the call stacks: see
    /// [`FlowCounts::add_body_executions`], [`FlowCounts::body_retired`],
    /// [`FlowCounts::stack_call`] and [`FlowCounts::stack_return`]). Under
    /// self-modifying code a static target's count moves to `dynamic` when
    /// the target changes; the translator flushes a block's counts before
    /// its code changes, so the order of these calls does not matter.
    pub fn add_transfers(&mut self, pc: u32, opcode: u8, target: u32, n: u64) {
        match OPCODES[opcode as usize].flow {
            Flow::Branch if target == code_addr::advance(pc, 2) => {}
            _ if Self::has_static_target(opcode) => self.static_transfer_n(pc, target, n),
            _ if Self::has_dynamic_target(opcode) => self.add_dynamic_transfers(pc, target, n),
            _ => {}
        }
    }

    /// The call stacks' part of a JSR to `target` that left the stack
    /// pointer at `sp`, whose other counts are added in bulk
    /// ([`FlowCounts::add_transfers`]) or, between truth bursts, not kept
    /// (all a paused recorder hears of a JSR). `cache` is the call site's
    /// ([`CallStacks::call_cached`]).
    #[inline]
    pub fn stack_call(&mut self, target: u32, sp: u8, cache: &mut CallCache) {
        self.stacks.call_cached(target, sp, cache);
    }

    /// The call stacks' part of an RTS that left the stack pointer at `sp`
    /// (as [`FlowCounts::stack_call`]).
    #[inline]
    pub fn stack_return(&mut self, sp: u8) {
        self.stacks.ret(sp);
    }

    /// Whether an instruction of class `flow` moves the call stacks (what
    /// a paused recorder still needs to hear of).
    #[inline(always)]
    pub fn moves_stacks(flow: Flow) -> bool {
        matches!(
            flow,
            Flow::Call | Flow::Return | Flow::Break | Flow::ReturnInterrupt
        )
    }

    fn interrupt_entered(&mut self, handler: u32, sp: u8, kind: FrameKind) {
        if !self.paused {
            *self.interrupts.entry(handler).or_insert(0) += 1;
        }
        self.open_frame(sp, EntryKind::Hardware);
        self.stacks.interrupt(handler, kind, sp);
    }

    /// `n` straight-line instructions retired now that are counted later in
    /// bulk ([`FlowCounts::add_body_executions`]): the translator's block
    /// bodies. The call stacks credit instructions to the context they ran
    /// in, which is lost by the time the bodies are counted, so the
    /// translator reports them here as each block runs.
    #[inline(always)]
    pub fn body_retired(&mut self, n: u64) {
        if !self.paused {
            self.stacks.retired(n);
        }
    }

    /// The call stacks recorded (every instruction counted by
    /// [`FlowCounts::instruction`], [`FlowCounts::instruction_repeated`] and
    /// [`FlowCounts::body_retired`], credited to its context).
    pub fn call_stacks(&self) -> &CallStacks {
        &self.stacks
    }

    /// Counts `count` executions of each straight-line (pc, opcode) at once:
    /// the translator's per-block accounting. Equivalent to calling
    /// [`FlowCounts::instruction`] `count` times for each.
    /// `n` executions of the branch or absolute `JMP` at `pc` going to
    /// `target` (a loop's closing instruction, counted in bulk).
    pub fn instruction_repeated(&mut self, pc: u32, opcode: u8, target: u32, n: u64) {
        let (page, i) = self.pages.get_mut(pc);
        page.executed[i] += n;
        page.opcode[i] = opcode;
        self.instructions += n;
        self.stacks.retired(n);
        self.static_transfer_n(pc, target, n);
    }

    pub fn add_body_executions(&mut self, ops: impl Iterator<Item = (u32, u8)>, count: u64) {
        for (pc, opcode) in ops {
            let (page, i) = self.pages.get_mut(pc);
            page.executed[i] += count;
            page.opcode[i] = opcode;
            self.instructions += count;
        }
    }

    /// `n` transfers of the branch, `JMP` absolute or `JSR` at `pc` to
    /// `target` (as `n` calls of [`FlowCounts::static_transfer`]).
    fn static_transfer_n(&mut self, pc: u32, target: u32, n: u64) {
        if n > 0 {
            self.static_transfer(pc, target);
            let (page, i) = self.pages.get_mut(pc);
            page.static_count[i] += n - 1;
        }
    }

    #[inline]
    fn static_transfer(&mut self, pc: u32, target: u32) {
        let (page, i) = self.pages.get_mut(pc);
        if page.static_target[i] != target {
            let (old, n) = (page.static_target[i], page.static_count[i]);
            page.static_target[i] = target;
            page.static_count[i] = 1;
            if n > 0 {
                *self.dynamic.entry((pc, old)).or_insert(0) += n;
            }
        } else {
            page.static_count[i] += 1;
        }
    }

    /// All (source, destination, count) transfers recorded for the
    /// instruction at `pc` (taken branches, jumps, calls, returns, BRK,
    /// software RTI).
    pub fn transfers_from(&self, pc: u32) -> Vec<(u32, u64)> {
        let mut out: Vec<(u32, u64)> = self
            .dynamic
            .iter()
            .filter(|((src, _), _)| *src == pc)
            .map(|((_, dst), &n)| (*dst, n))
            .collect();
        if let Some((page, i)) = self.pages.get(pc) {
            let (target, n) = (page.static_target[i], page.static_count[i]);
            if n > 0 {
                match out.iter_mut().find(|(dst, _)| *dst == target) {
                    Some(entry) => entry.1 += n,
                    None => out.push((target, n)),
                }
            }
        }
        out.sort_unstable();
        out
    }

    fn dynamic_transition(&mut self, pc: u32, next_pc: u32) {
        *self.dynamic.entry((pc, next_pc)).or_insert(0) += 1;
    }

    fn open_frame(&mut self, sp: u8, kind: EntryKind) {
        // Frames at or below this stack depth were abandoned.
        self.frames.retain(|&(frame_sp, _)| frame_sp > sp);
        self.frames.push((sp, kind));
    }

    fn close_frame(&mut self, sp: u8) -> Option<EntryKind> {
        while let Some(&(frame_sp, kind)) = self.frames.last() {
            if frame_sp < sp {
                // Abandoned deeper frame (the stack was reset under it).
                self.frames.pop();
                continue;
            }
            if frame_sp == sp {
                self.frames.pop();
                return Some(kind);
            }
            return None;
        }
        None
    }
}
