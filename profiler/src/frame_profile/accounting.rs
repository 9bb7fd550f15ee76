//! The exact frame-time accounting (issue 43): where every CPU cycle of a
//! run (or of a window of it) went — by frame, by routine, by class (busy,
//! idle, NMI, IRQ, OAM DMA, DMC DMA) and by call context — made from the
//! engines' event log (`emu::frame_events`) and nothing else, so that both
//! engines, which log the same events with the same stamps, give the same
//! numbers.
//!
//! # What comes in
//!
//! The events of each frame in order, then the [`Stamp`] at the frame's
//! end (`Nes::stamp()`). A stamp carries cumulative counters; an event's
//! is taken when its instruction retired (a `JSR`'s cycles are its
//! caller's, an `RTS`'s its callee's), an interrupt entry's when its
//! seven-cycle sequence began (they are the handler's).
//!
//! # Where the cycles between two events go
//!
//! To the routine on top of the shadow call stack (`shadow_stack.rs`),
//! split by the counters' differences: the DMA cycles are DMA (OAM and DMC
//! apart), the wait-loop cycles (`emu::wait_loop`: complete iterations,
//! DMA excluded) are idle, and the rest is the routine's **exclusive**
//! work. No wait loop and no DMA spans an event (a wait loop holds no
//! call, return or jump out; an iteration cut by an interrupt is not
//! idle), so each difference belongs to that routine's code. Work is
//! busy, NMI or IRQ by the innermost interrupt frame on the stack.
//! Busy + idle + NMI + IRQ + DMA is then the frame's cycles by
//! construction; counters that contradict each other (a stamp going
//! backwards, more DMA than cycles) are clamped so that the identity still
//! holds, and counted ([`Profile::anomalies`]).
//!
//! # The rules (each method says why)
//!
//! - calls, interrupts, returns: [`FrameProfile::enter`],
//!   [`FrameProfile::close_to`];
//! - tail calls by `JMP`: [`FrameProfile::jump`]; by falling into a
//!   watched entry (`EventKind::FallInto`): [`FrameProfile::dispatch`];
//! - the RTS trick: [`FrameProfile::ret`];
//! - interrupts as roots: [`FrameProfile::end_activation`];
//! - inclusive time: [`FrameProfile::credit`], [`FrameProfile::flush`];
//! - frames, lag and the vblank: [`FrameProfile::end_frame`];
//! - windows: [`Start`], [`FrameProfile::seed_stack`].
//!
//! # Memory
//!
//! Bounded by the code, not the run: a record and a histogram per routine,
//! a node per call context (at most `contexts::MAX_CONTEXTS`), at most 257
//! open frames, K worst frames; one frame's row is handed back at each
//! frame's end and not kept.

use emu::frame_events::{EventKind, FlowEvent, Stamp};
use emu::int_hash::IntMap;

use super::contexts::{CycleStacks, Weights};
use super::histogram::FrameHistogram;
use super::routines::Routines;
use super::rows::{ExactFrame, ExactRoutine, FrameRow, PerCall, PerFrame, RoutineRow};
use super::shadow_stack::{calls_on_page, Context, Frame, FrameKind};
use super::vblank::VblankWatch;
use super::worst::{top, WorstFrame, WorstFrames};

/// Where the accounting starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// At power-on, with the reset handler about to run: the root
    /// routine's activation is a call like any other, and the first frame
    /// has no vblank at its start (the PPU starts at scanline 0).
    PowerOn,
    /// At the end of a frame (`--from-frame`): the stack is what the
    /// window starts with — the root alone, or read back from the stack
    /// page ([`FrameProfile::seed_stack`]). The routines open at the start
    /// are credited from there on, but their activations began before the
    /// window: they count no call and no time per call.
    FrameStart,
    /// Mid-frame (`--start-at LABEL`): as `FrameStart`, and the first
    /// row covers the rest of its frame only, with no vblank known.
    MidFrame,
}

/// The run's (or window's) totals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Totals {
    pub frames: u64,
    /// All cycles of the frames ended (the sum of their rows' cycles).
    pub cycles: u64,
    pub busy: u64,
    pub idle: u64,
    pub nmi: u64,
    pub irq: u64,
    pub oam_dma: u64,
    pub dmc_dma: u64,
    pub lag_frames: u64,
    pub vblank_overruns: u64,
}

impl Totals {
    /// Non-idle, non-DMA cycles: what "busy" means in the routine
    /// table's percentages.
    pub fn work(&self) -> u64 {
        self.busy + self.nmi + self.irq
    }
}

/// One routine's running record.
#[derive(Debug, Clone)]
struct RoutineStats {
    entry: u32,
    calls: u64,
    exclusive: u64,
    inclusive: u64,
    /// Complete activations: count, sum, min, max of their inclusive work.
    completed: u64,
    completed_sum: u64,
    min: u64,
    max: u64,
    per_frame: FrameHistogram,
    // This frame's.
    frame_inclusive: u64,
    frame_exclusive: u64,
    touched: bool,
}

impl RoutineStats {
    fn new(entry: u32) -> RoutineStats {
        RoutineStats {
            entry,
            calls: 0,
            exclusive: 0,
            inclusive: 0,
            completed: 0,
            completed_sum: 0,
            min: u64::MAX,
            max: 0,
            per_frame: FrameHistogram::new(),
            frame_inclusive: 0,
            frame_exclusive: 0,
            touched: false,
        }
    }
}

/// The frame in progress.
#[derive(Debug, Clone, Default)]
struct FrameAcc {
    busy: u64,
    idle: u64,
    nmi: u64,
    irq: u64,
    oam_dma: u64,
    dmc_dma: u64,
    nmi_handler: u64,
    vblank: Option<VblankWatch>,
}

/// A call context entered lately: `(parent_node, target, kind)` gave
/// `(routine, node)`. Most calls repeat (a loop's, a frame's), and the two
/// lookups they save were a third of a call's cost.
#[derive(Debug, Clone, Copy, Default)]
struct CallSlot {
    parent_node: u32,
    target: u32,
    /// The frame kind + 1 (0: empty).
    kind: u8,
    routine: u32,
    node: u32,
}

/// Slots of the call cache (16 KiB).
const CALL_SLOTS: usize = 1024;

impl CallSlot {
    fn index(parent_node: u32, target: u32, kind: FrameKind) -> usize {
        let key = (parent_node as u64) << 32 | (target as u64) << 3 | kind as u64;
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 54) as usize % CALL_SLOTS
    }

    fn is(&self, parent_node: u32, target: u32, kind: FrameKind) -> bool {
        self.kind == kind as u8 + 1 && self.target == target && self.parent_node == parent_node
    }
}

/// The accounting (see the module doc).
#[derive(Debug, Clone)]
pub struct FrameProfile {
    routines: Routines,
    stats: Vec<RoutineStats>,
    /// Routine entry → index in `stats`.
    index: IntMap<u32, u32>,
    /// Call, interrupt and dispatch targets → routine index.
    targets: IntMap<u32, u32>,
    /// `JMP` absolute targets → the routine a jump there tail-calls, if
    /// any (forgotten when an entry is learned there).
    jumps: IntMap<u32, Option<u32>>,
    /// Recent calls' routines and contexts.
    calls: Box<[CallSlot]>,
    /// Open frames; `stack[0]` is the root, never closed.
    stack: Vec<Frame>,
    /// NMI frames open.
    nmi_open: u32,
    contexts: CycleStacks,
    /// The stamp up to which cycles are credited.
    last: Stamp,
    frame_start: Stamp,
    frame: FrameAcc,
    /// Routines credited in the frame in progress.
    touched: Vec<u32>,
    /// Work done so far at each interrupt level (`Frame::level`).
    level_work: Vec<u64>,
    totals: Totals,
    worst: WorstFrames,
    anomalies: u64,
}

/// What [`FrameProfile::finish`] gives.
#[derive(Debug, Clone)]
pub struct Profile {
    pub totals: Totals,
    /// The routine table the accounting learned (names, sources, and
    /// `routine_of` with every entry the run showed).
    pub routines: Routines,
    /// The worst frames, worst first.
    pub worst_frames: Vec<WorstFrame>,
    /// The call contexts by cycles (`flame::folded_cycles`).
    pub contexts: CycleStacks,
    /// Intervals whose counters contradicted each other and were clamped
    /// (0 when the engines' stamps are consistent).
    pub anomalies: u64,
    stats: Vec<RoutineStats>,
}

impl FrameProfile {
    /// Starts the accounting at `start` (the engines' stamp now) as `how`
    /// says, with `routines` (whose root is the reset handler's routine).
    pub fn new(routines: Routines, start: Stamp, how: Start) -> FrameProfile {
        let mut p = FrameProfile {
            routines,
            stats: Vec::new(),
            index: IntMap::default(),
            targets: IntMap::default(),
            jumps: IntMap::default(),
            calls: vec![CallSlot::default(); CALL_SLOTS].into_boxed_slice(),
            stack: Vec::new(),
            nmi_open: 0,
            contexts: CycleStacks::new(),
            last: start,
            frame_start: start,
            frame: FrameAcc {
                vblank: (how == Start::FrameStart).then(|| VblankWatch::new(start.cycle)),
                ..FrameAcc::default()
            },
            touched: Vec::new(),
            level_work: vec![0],
            totals: Totals::default(),
            worst: WorstFrames::default(),
            anomalies: 0,
        };
        let root = p.routine_index(p.routines.root());
        let node = p.contexts.child(0, p.routines.root(), FrameKind::Root);
        if how == Start::PowerOn {
            p.stats[root as usize].calls += 1;
        }
        p.stack.push(Frame {
            routine: root,
            ret_sp: 0,
            kind: FrameKind::Root,
            context: Context::Main,
            node,
            parent_node: 0,
            level: 0,
            entry_mark: 0,
            credit_mark: 0,
            dup: false,
            partial: how != Start::PowerOn,
        });
        p
    }

    /// Seeds the stack of a window from the 6502's stack page `page` with
    /// the stack pointer at `sp` (call it before the first event): the
    /// calls `shadow_stack::calls_on_page` reads there are opened above
    /// the root, as begun before the window. Without it the window starts
    /// with the root alone, and until the routines open at its start
    /// return, their time is the root's; their returns, which close no
    /// frame, are then taken for dispatches (the RTS trick) — seeding
    /// avoids both. Interrupt frames are not on the page's reading: a
    /// window started inside a handler counts the handler's rest as the
    /// root's work (frames start at the end of the visible picture, where
    /// games are rarely in a handler).
    pub fn seed_stack(
        &mut self,
        page: &[u8; 256],
        sp: u8,
        jsr_target: &mut dyn FnMut(u16) -> Option<u32>,
    ) {
        self.stack.truncate(1);
        self.nmi_open = 0;
        for (target, ret_sp) in calls_on_page(page, sp, jsr_target) {
            let r = self.target_routine(target);
            let entry = self.stats[r as usize].entry;
            let node =
                self.contexts
                    .child(self.parent_node(FrameKind::Call), entry, FrameKind::Call);
            self.push(r, FrameKind::Call, ret_sp, node, true);
        }
    }

    /// The routine table (names and sources for the rows).
    pub fn routines(&self) -> &Routines {
        &self.routines
    }

    /// The totals of the frames ended so far.
    pub fn totals(&self) -> &Totals {
        &self.totals
    }

    /// Index in `stats` of the routine entered at `entry`.
    fn routine_index(&mut self, entry: u32) -> u32 {
        if let Some(&i) = self.index.get(&entry) {
            return i;
        }
        let i = self.stats.len() as u32;
        self.stats.push(RoutineStats::new(entry));
        self.index.insert(entry, i);
        i
    }

    /// The routine a call, interrupt or dispatch to `target` enters
    /// (`Routines::enter`: its scope, or `target` learned as an entry).
    fn target_routine(&mut self, target: u32) -> u32 {
        if let Some(&r) = self.targets.get(&target) {
            return r;
        }
        let entry = self.routines.enter(target);
        // A jump there may now be a tail call.
        self.jumps.remove(&entry);
        let r = self.routine_index(entry);
        self.targets.insert(target, r);
        r
    }

    /// One event of the log. The cycles since the last change of the
    /// stack are credited before the event changes it; an event that
    /// changes nothing (a `JMP` within a routine, most of them) credits
    /// nothing yet: the top frame, hence where the cycles go, is the same
    /// until the next change, so one interval or two is the same sum —
    /// and such events, thousands a frame in some games, cost a lookup.
    pub fn event(&mut self, event: &FlowEvent) {
        let sp = event.sp;
        let kind = match event.kind {
            EventKind::Call => FrameKind::Call,
            EventKind::Brk => FrameKind::Brk,
            EventKind::Nmi => FrameKind::Nmi,
            EventKind::Irq => FrameKind::Irq,
            EventKind::Return | EventKind::ReturnInterrupt => {
                return self.ret(event.target, sp, event.at)
            }
            EventKind::Jump => return self.jump(event.pc, event.target, sp, event.at),
            // Falling (or branching forward) into a routine's entry is
            // entering it as a `JMP` there would: a tail call.
            EventKind::FallInto => return self.dispatch(event.target, event.at),
        };
        self.advance(event.at);
        let pushed = if kind == FrameKind::Call { 2 } else { 3 };
        self.enter(event.target, kind, sp.wrapping_add(pushed));
    }

    /// Whether the stack pointer at `sp` closes the top frame.
    fn closes(&self, sp: u8) -> bool {
        self.stack.len() > 1 && self.stack.last().is_some_and(|f| f.ret_sp <= sp)
    }

    /// A `JSR`, `BRK` or interrupt entered `target` and pushed its return
    /// address just below `ret_sp`. Every frame whose `ret_sp` is at or
    /// below this one's is gone (the stack pointer was back at or above
    /// it, or the push overwrote it), then the new frame opens. An NMI
    /// or IRQ frame starts a context of its own (`Context`) and a root of
    /// its own in the cycle trie; a `BRK` is nested like a call (a
    /// software call to the system), as the sampled side takes it.
    fn enter(&mut self, target: u32, kind: FrameKind, ret_sp: u8) {
        self.close_to(ret_sp);
        let parent_node = self.parent_node(kind);
        let slot = CallSlot::index(parent_node, target, kind);
        let cached = self.calls[slot];
        let (routine, node) = if cached.is(parent_node, target, kind) {
            (cached.routine, cached.node)
        } else {
            let routine = self.target_routine(target);
            let entry = self.stats[routine as usize].entry;
            let node = self.contexts.child(parent_node, entry, kind);
            self.calls[slot] = CallSlot {
                parent_node,
                target,
                kind: kind as u8 + 1,
                routine,
                node,
            };
            (routine, node)
        };
        self.push(routine, kind, ret_sp, node, false);
    }

    /// The context a frame entered by `kind` hangs off: the top frame's,
    /// or for an interrupt the trie's root.
    fn parent_node(&self, kind: FrameKind) -> u32 {
        match kind {
            FrameKind::Nmi | FrameKind::Irq => 0,
            _ => self.stack.last().expect("the root is never closed").node,
        }
    }

    /// Opens a frame for `routine` at context `node` (see
    /// [`FrameProfile::parent_node`]).
    fn push(&mut self, routine: u32, kind: FrameKind, ret_sp: u8, node: u32, partial: bool) {
        let below = *self.stack.last().expect("the root is never closed");
        let (parent_node, context, level) = match kind {
            FrameKind::Nmi => (0, Context::Nmi, below.level + 1),
            FrameKind::Irq => (0, Context::Irq, below.level + 1),
            _ => (below.node, below.context, below.level),
        };
        if self.level_work.len() <= level as usize {
            self.level_work.resize(level as usize + 1, 0);
        }
        let dup = !kind.is_interrupt() && self.open_at(routine, level, self.stack.len());
        if !partial {
            self.stats[routine as usize].calls += 1;
        }
        if kind == FrameKind::Nmi {
            self.nmi_open += 1;
        }
        let now = self.level_work[level as usize];
        self.stack.push(Frame {
            routine,
            ret_sp,
            kind,
            context,
            node,
            parent_node,
            level,
            entry_mark: now,
            credit_mark: now,
            dup,
            partial,
        });
    }

    /// Whether `routine` is open at interrupt level `level` among the
    /// frames below index `below` (they are the top ones of that level).
    fn open_at(&self, routine: u32, level: u32, below: usize) -> bool {
        self.stack[..below]
            .iter()
            .rev()
            .take_while(|f| f.level == level)
            .any(|f| f.routine == routine)
    }

    /// Credits the inclusive work frame `i` has pending: the work done at
    /// its level since it was last credited.
    fn flush(&mut self, i: usize) {
        let f = &mut self.stack[i];
        let now = self.level_work[f.level as usize];
        let work = now - f.credit_mark;
        f.credit_mark = now;
        if work > 0 && !f.dup {
            let r = f.routine;
            let s = &mut self.stats[r as usize];
            s.inclusive += work;
            s.frame_inclusive += work;
            if !s.touched {
                s.touched = true;
                self.touched.push(r);
            }
        }
    }

    /// Closes every frame (the root aside) whose return address is gone
    /// with the stack pointer at `sp` (`ret_sp <= sp`; see
    /// `shadow_stack.rs`): an `RTS` closes its frame, a `PLA PLA` then
    /// `RTS` its frame and its caller's, a stack reset by `TXS` every
    /// frame it abandoned, at the next event.
    fn close_to(&mut self, sp: u8) {
        while self.stack.len() > 1 {
            let top = *self.stack.last().expect("checked");
            if top.ret_sp > sp {
                break;
            }
            self.flush(self.stack.len() - 1);
            self.stack.pop();
            if top.kind == FrameKind::Nmi {
                self.nmi_open -= 1;
            }
            self.end_activation(&top);
        }
    }

    /// An activation ended (closed, or replaced by a tail call). Its
    /// inclusive work is the work done at its interrupt level while it
    /// was open: **interrupts are roots**, and an NMI that fell in the
    /// middle of a routine is not that routine's time. Each NMI or IRQ
    /// frame raises the level of what runs above it, and the work of each
    /// level is counted apart (`level_work`), so what a handler does —
    /// less the handlers nested in it, one level up — is its level's, and
    /// what the interrupted code does is the level below's. An activation
    /// begun before the window (`partial`) gives no time per call.
    fn end_activation(&mut self, frame: &Frame) {
        if frame.partial {
            return;
        }
        let inclusive = self.level_work[frame.level as usize] - frame.entry_mark;
        let s = &mut self.stats[frame.routine as usize];
        s.completed += 1;
        s.completed_sum += inclusive;
        s.min = s.min.min(inclusive);
        s.max = s.max.max(inclusive);
    }

    /// Replaces the top frame's routine by `routine`: the activation ends
    /// and the new one keeps the frame's `ret_sp` (the new routine returns
    /// for both) and kind (a handler that tail-calls stays the NMI's).
    fn tail_call(&mut self, routine: u32) {
        let i = self.stack.len() - 1;
        self.flush(i);
        let old = self.stack[i];
        self.end_activation(&old);
        let entry = self.stats[routine as usize].entry;
        let node = self.contexts.child(old.parent_node, entry, old.kind);
        let dup = !old.kind.is_interrupt() && self.open_at(routine, old.level, i);
        self.stats[routine as usize].calls += 1;
        let now = self.level_work[old.level as usize];
        self.stack[i] = Frame {
            routine,
            node,
            entry_mark: now,
            credit_mark: now,
            dup,
            partial: false,
            ..old
        };
    }

    /// An `RTS` or `RTI` to `target` left the stack pointer at `sp`. One
    /// that closes a frame is a return. **The RTS trick**: one that closes
    /// none — the stack pointer stays below the top frame's `ret_sp`, so
    /// it pulled only what the routine pushed itself (an address − 1 from
    /// a table) — is a jump: a dispatch to `target`, which is entered as a
    /// tail call (it runs in the frame and returns for it), and learned as
    /// a routine entry. A dispatch to the current routine (inside its own
    /// scope) is a jump within it. An `RTI` used so (status and address
    /// pushed, `RTI`) is the same.
    fn ret(&mut self, target: u32, sp: u8, at: Stamp) {
        if self.closes(sp) {
            self.advance(at);
            self.close_to(sp);
        } else {
            self.dispatch(target, at);
        }
    }

    /// A computed transfer to `target` (see [`FrameProfile::ret`] and
    /// [`FrameProfile::jump`]).
    fn dispatch(&mut self, target: u32, at: Stamp) {
        let r = self.target_routine(target);
        if r != self.stack.last().expect("the root is never closed").routine {
            self.advance(at);
            self.tail_call(r);
        }
    }

    /// A `JMP` at code address `pc` to `target`, the stack pointer at
    /// `sp`. Frames whose return address is gone close first (a
    /// dispatcher that pulled its own return address to read the table
    /// after its `JSR`, then jumps: the target replaces the dispatcher's
    /// caller, whose caller it returns to). **Tail calls**: a `JMP` to
    /// another routine's entry is a call that returns for the caller —
    /// `jmp sub` as the last instruction of a routine, or `jmp main` at the
    /// end of reset — so the target replaces the top frame (same
    /// `ret_sp`); without it the target's time stays in the caller and it
    /// never appears. `JMP (indirect)` is computed dispatch (state
    /// machines, jump tables) and always enters its target's routine. A
    /// `JMP` to the current routine's own entry is a loop (`jmp main_loop`
    /// in `main_loop`), not a call. With `.proc` scopes, a jump into any
    /// other scope enters that scope's routine (its code is that
    /// routine's); without, only a jump to a known entry does, since where
    /// a routine ends is not known (a jump to a label inside the caller
    /// would otherwise leave it).
    fn jump(&mut self, pc: u32, target: u32, sp: u8, at: Stamp) {
        if self.closes(sp) {
            self.advance(at);
            self.close_to(sp);
        }
        if self.routines.is_indirect_jump(pc) {
            self.dispatch(target, at);
            return;
        }
        let to = match self.jumps.get(&target) {
            Some(&to) => to,
            None => {
                let entry = self
                    .routines
                    .scope_of(target)
                    .or_else(|| self.routines.is_entry(target).then_some(target));
                let to = entry.map(|e| self.routine_index(e));
                self.jumps.insert(target, to);
                to
            }
        };
        if let Some(r) = to {
            if r != self.stack.last().expect("the root is never closed").routine {
                self.advance(at);
                self.tail_call(r);
            }
        }
    }

    /// Credits the cycles from the last stamp to `to` (see the module
    /// doc) to the top frame.
    fn advance(&mut self, to: Stamp) {
        let from = self.last;
        let backwards = to.cycle < from.cycle
            || to.oam_dma < from.oam_dma
            || to.dmc_dma < from.dmc_dma
            || to.idle < from.idle
            || to.controller_reads < from.controller_reads;
        let cycles = to.cycle.saturating_sub(from.cycle);
        let oam = to.oam_dma.saturating_sub(from.oam_dma);
        let dmc = to.dmc_dma.saturating_sub(from.dmc_dma);
        let waited = to.idle.saturating_sub(from.idle);
        let oam_dma = oam.min(cycles);
        let dmc_dma = dmc.min(cycles - oam_dma);
        let idle = waited.min(cycles - oam_dma - dmc_dma);
        if backwards || oam_dma != oam || dmc_dma != dmc || idle != waited {
            self.anomalies += 1;
        }
        self.last = Stamp {
            cycle: from.cycle.max(to.cycle),
            oam_dma: from.oam_dma.max(to.oam_dma),
            dmc_dma: from.dmc_dma.max(to.dmc_dma),
            idle: from.idle.max(to.idle),
            controller_reads: from.controller_reads.max(to.controller_reads),
        };
        if cycles == 0 {
            return;
        }
        let work = cycles - oam_dma - dmc_dma - idle;
        self.credit(
            from.cycle,
            cycles,
            Weights {
                work,
                idle,
                oam_dma,
                dmc_dma,
            },
        );
    }

    /// Credits `w` (`cycles` from CPU cycle `from`) to the top frame.
    /// **Inclusive time**: the work also counts at the top frame's
    /// interrupt level (`level_work`), and every frame open at that level
    /// takes its share when it closes, at a frame's end, or at the
    /// finish ([`FrameProfile::flush`]): every routine on the stack from
    /// the top down to the innermost interrupt frame (or the root) gets
    /// it — its callees' work, but not the handlers that interrupted it
    /// (a level up) — and a routine open twice at a level (recursion)
    /// only once, so no routine's inclusive time exceeds the work done.
    /// Crediting per frame when it closes, not per interval, keeps an
    /// interval's cost independent of the stack's depth.
    fn credit(&mut self, from: u64, cycles: u64, w: Weights) {
        let top = *self.stack.last().expect("the root is never closed");
        self.contexts.credit(top.node, w);
        let f = &mut self.frame;
        f.idle += w.idle;
        f.oam_dma += w.oam_dma;
        f.dmc_dma += w.dmc_dma;
        match top.context {
            Context::Main => f.busy += w.work,
            Context::Nmi => f.nmi += w.work,
            Context::Irq => f.irq += w.work,
        }
        if self.nmi_open > 0 {
            f.nmi_handler += cycles;
            if let Some(v) = &mut f.vblank {
                v.nmi_running(from, from + cycles);
            }
        }
        if w.work == 0 {
            return;
        }
        self.level_work[top.level as usize] += w.work;
        let s = &mut self.stats[top.routine as usize];
        s.exclusive += w.work;
        s.frame_exclusive += w.work;
        if !s.touched {
            s.touched = true;
            self.touched.push(top.routine);
        }
    }

    /// The frame numbered `frame` (the movie's) ended at `end`: credits
    /// its last cycles and hands back its row. **Lag**: no controller read
    /// in the frame (FCEUX's lag flag, which FCEUX also draws at the end
    /// of scanline 239). **Vblank**: see `vblank.rs`; the next frame's
    /// vblank starts 114 cycles after this end. **Top routine**: the most
    /// exclusive work in the frame (busy, NMI or IRQ). The routines' cycles
    /// per frame go into their histograms here, and the frame into the
    /// worst frames if it is one.
    pub fn end_frame(&mut self, frame: u64, end: Stamp) -> FrameRow {
        self.advance(end);
        for i in 0..self.stack.len() {
            self.flush(i);
        }
        let acc = std::mem::take(&mut self.frame);
        let vblank = acc.vblank.and_then(|v| v.finish(self.last.cycle));
        let mut exact = ExactFrame {
            busy: acc.busy,
            idle: acc.idle,
            nmi: acc.nmi,
            irq: acc.irq,
            oam_dma: acc.oam_dma,
            dmc_dma: acc.dmc_dma,
            nmi_handler_cycles: acc.nmi_handler,
            vblank,
            top_routine: None,
        };
        let work = exact.work();
        let keep = self.worst.qualifies(work);
        let (mut inclusive, mut exclusive) = (Vec::new(), Vec::new());
        let mut top_routine: Option<(u32, u64)> = None;
        for &r in &self.touched {
            let s = &mut self.stats[r as usize];
            if s.frame_inclusive > 0 {
                s.per_frame.add(s.frame_inclusive);
            }
            let better = match top_routine {
                None => s.frame_exclusive > 0,
                Some((e, c)) => {
                    (s.frame_exclusive, std::cmp::Reverse(s.entry)) > (c, std::cmp::Reverse(e))
                }
            };
            if better {
                top_routine = Some((s.entry, s.frame_exclusive));
            }
            if keep {
                inclusive.push((s.entry, s.frame_inclusive));
                exclusive.push((s.entry, s.frame_exclusive));
            }
            s.frame_inclusive = 0;
            s.frame_exclusive = 0;
            s.touched = false;
        }
        self.touched.clear();
        exact.top_routine = top_routine;
        let row = FrameRow {
            frame,
            cycles: exact.total(),
            lag: self.last.controller_reads == self.frame_start.controller_reads,
            exact: Some(exact),
            sampled: None,
        };
        let t = &mut self.totals;
        let e = row.exact.as_ref().expect("just made");
        t.frames += 1;
        t.cycles += row.cycles;
        t.busy += e.busy;
        t.idle += e.idle;
        t.nmi += e.nmi;
        t.irq += e.irq;
        t.oam_dma += e.oam_dma;
        t.dmc_dma += e.dmc_dma;
        t.lag_frames += row.lag as u64;
        t.vblank_overruns += e.vblank.is_some_and(|v| v.overrun) as u64;
        if keep {
            self.worst.offer(WorstFrame {
                row: row.clone(),
                work,
                top_inclusive: top(inclusive),
                top_exclusive: top(exclusive),
            });
        }
        self.frame_start = self.last;
        self.frame.vblank = Some(VblankWatch::new(self.last.cycle));
        row
    }

    /// A whole frame: its `events` in order, then its end at `end`.
    pub fn frame(&mut self, frame: u64, events: &[FlowEvent], end: Stamp) -> FrameRow {
        for event in events {
            self.event(event);
        }
        self.end_frame(frame, end)
    }

    /// The run's results. Activations still open (the main loop's) count
    /// their calls and cycles but no time per call. Cycles after the last
    /// frame's end (events of a frame not ended) are in the routines' and
    /// contexts' totals but in no frame: end every frame first.
    pub fn finish(mut self) -> Profile {
        for i in 0..self.stack.len() {
            self.flush(i);
        }
        Profile {
            totals: self.totals,
            routines: self.routines,
            worst_frames: self.worst.into_vec(),
            contexts: self.contexts,
            anomalies: self.anomalies,
            stats: self.stats,
        }
    }
}

impl Profile {
    /// The routine table's exact rows, by exclusive work (most first),
    /// then entry; routines never credited nor called left out.
    pub fn routine_rows(&self) -> Vec<RoutineRow> {
        let work = self.totals.work();
        let pct = |x: u64| {
            if work == 0 {
                0.0
            } else {
                x as f64 * 100.0 / work as f64
            }
        };
        let mut rows: Vec<RoutineRow> = self
            .stats
            .iter()
            .filter(|s| s.calls > 0 || s.inclusive > 0)
            .map(|s| RoutineRow {
                entry: Some(s.entry),
                name: self.routines.name(s.entry),
                source: self.routines.source(s.entry).map(str::to_owned),
                exact: Some(ExactRoutine {
                    calls: s.calls,
                    exclusive_cycles: s.exclusive,
                    exclusive_pct_of_busy: pct(s.exclusive),
                    inclusive_cycles: s.inclusive,
                    inclusive_pct: pct(s.inclusive),
                    per_call: (s.completed > 0).then(|| PerCall {
                        calls: s.completed,
                        avg: s.completed_sum as f64 / s.completed as f64,
                        min: s.min,
                        max: s.max,
                    }),
                    frames: s.per_frame.frames(),
                    per_frame: s.per_frame.max().map(|max| PerFrame {
                        median: s.per_frame.median().unwrap_or(0),
                        p99: s.per_frame.p99().unwrap_or(0),
                        max,
                    }),
                }),
                sampled: None,
            })
            .collect();
        rows.sort_by(|a, b| {
            let x = |r: &RoutineRow| r.exact.as_ref().map_or(0, |e| e.exclusive_cycles);
            x(b).cmp(&x(a)).then(a.entry.cmp(&b.entry))
        });
        rows
    }

    /// The flame graph's folded lines by cycles (`flame::folded_cycles`),
    /// routines named by the table.
    pub fn folded(&self) -> Vec<String> {
        crate::flame::folded_cycles(&self.contexts, &|entry| self.routines.name(entry))
    }
}

#[cfg(test)]
mod tests;
