//! Synthetic event sequences with hand-counted answers, and properties of
//! random well-formed ones.

use super::*;
use crate::frame_profile::rows::{ExactRoutine, PerCall};
use crate::frame_profile::vblank::Vblank;

const RESET: u32 = 0x8000;
const NMI: u32 = 0xC000;
const IRQ: u32 = 0xD000;

/// A program being run by hand: each step advances the stamp as the CPU
/// would and logs the events the engines log.
struct Run {
    at: Stamp,
    sp: u8,
    p: FrameProfile,
    rows: Vec<FrameRow>,
    frame: u64,
    /// Each frame's events and end, as an engine hands them over.
    log: Vec<(Vec<FlowEvent>, Stamp)>,
    pending: Vec<FlowEvent>,
    reference: Reference,
}

/// Inclusive time by its definition, counted the slow way beside the
/// accounting: the work between two events goes to every distinct
/// routine on the stack from the top down to the innermost NMI or IRQ
/// frame (or the root), per interval. The accounting credits the same at
/// each frame's close, a frame's end or the finish (`flush`); both must
/// agree.
#[derive(Default)]
struct Reference {
    last: Stamp,
    inclusive: std::collections::BTreeMap<u32, u64>,
    frame: std::collections::BTreeMap<u32, u64>,
    /// Per routine: frames with inclusive work, and the most in one.
    frames: std::collections::BTreeMap<u32, (u64, u64)>,
}

impl Reference {
    /// Credits the work up to `to` to the stack of `p` as it stands.
    fn advance(&mut self, p: &FrameProfile, to: Stamp) {
        let from = self.last;
        let cycles = to.cycle.saturating_sub(from.cycle);
        let dma = (to.oam_dma.saturating_sub(from.oam_dma)
            + to.dmc_dma.saturating_sub(from.dmc_dma))
        .min(cycles);
        let idle = to.idle.saturating_sub(from.idle).min(cycles - dma);
        let work = cycles - dma - idle;
        self.last = Stamp {
            cycle: from.cycle.max(to.cycle),
            oam_dma: from.oam_dma.max(to.oam_dma),
            dmc_dma: from.dmc_dma.max(to.dmc_dma),
            idle: from.idle.max(to.idle),
            controller_reads: from.controller_reads.max(to.controller_reads),
        };
        if work == 0 {
            return;
        }
        let mut seen = Vec::new();
        for f in p.stack.iter().rev() {
            let entry = p.stats[f.routine as usize].entry;
            if !seen.contains(&entry) {
                seen.push(entry);
                *self.inclusive.entry(entry).or_default() += work;
                *self.frame.entry(entry).or_default() += work;
            }
            if f.kind.is_interrupt() {
                break;
            }
        }
    }

    fn end_frame(&mut self) {
        for (entry, work) in std::mem::take(&mut self.frame) {
            let f = self.frames.entry(entry).or_default();
            f.0 += 1;
            f.1 = f.1.max(work);
        }
    }

    /// The profile's inclusive times and cycles per frame are the
    /// reference's.
    fn check(&self, p: &Profile) {
        for row in p.routine_rows() {
            let entry = row.entry.unwrap();
            let e = row.exact.unwrap();
            assert_eq!(
                e.inclusive_cycles,
                self.inclusive.get(&entry).copied().unwrap_or(0),
                "inclusive of {entry:#x}"
            );
            let (frames, max) = self.frames.get(&entry).copied().unwrap_or((0, 0));
            assert_eq!(e.frames, frames, "frames of {entry:#x}");
            assert_eq!(e.per_frame.map_or(0, |f| f.max), max, "max of {entry:#x}");
        }
        for (&entry, &work) in &self.inclusive {
            assert!(
                work == 0 || p.stats.iter().any(|s| s.entry == entry),
                "{entry:#x} credited by the reference only"
            );
        }
    }
}

impl Run {
    fn new() -> Run {
        Run::with(Routines::new(0x8000, RESET), Start::PowerOn)
    }

    fn with(routines: Routines, how: Start) -> Run {
        let at = Stamp::default();
        Run {
            at,
            sp: 0xFF,
            p: FrameProfile::new(routines, at, how),
            rows: Vec::new(),
            frame: 0,
            log: Vec::new(),
            pending: Vec::new(),
            reference: Reference {
                last: at,
                ..Reference::default()
            },
        }
    }

    fn log(&mut self, kind: EventKind, pc: u32, target: u32) {
        let event = FlowEvent {
            kind,
            pc,
            target,
            sp: self.sp,
            at: self.at,
        };
        self.reference.advance(&self.p, self.at);
        self.p.event(&event);
        self.pending.push(event);
    }

    /// `n` cycles of ordinary instructions.
    fn work(&mut self, n: u64) -> &mut Self {
        self.at.cycle += n;
        self
    }

    /// `n` cycles of complete wait-loop iterations.
    fn idle(&mut self, n: u64) -> &mut Self {
        self.at.cycle += n;
        self.at.idle += n;
        self
    }

    /// `STA $4014` (4 cycles) and its 513-cycle stall.
    fn oam_dma(&mut self) -> &mut Self {
        self.at.cycle += 4 + 513;
        self.at.oam_dma += 513;
        self
    }

    fn dmc_dma(&mut self, n: u64) -> &mut Self {
        self.at.cycle += n;
        self.at.dmc_dma += n;
        self
    }

    /// `LDA $4016` (4 cycles).
    fn read_pad(&mut self) -> &mut Self {
        self.at.cycle += 4;
        self.at.controller_reads += 1;
        self
    }

    fn jsr(&mut self, target: u32) -> &mut Self {
        self.at.cycle += 6;
        self.sp = self.sp.wrapping_sub(2);
        self.log(EventKind::Call, 0, target);
        self
    }

    fn rts(&mut self, to: u32) -> &mut Self {
        self.at.cycle += 6;
        self.sp = self.sp.wrapping_add(2);
        self.log(EventKind::Return, 0, to);
        self
    }

    /// `JMP` absolute (3 cycles) at `pc`.
    fn jmp(&mut self, pc: u32, target: u32) -> &mut Self {
        self.at.cycle += 3;
        self.log(EventKind::Jump, pc, target);
        self
    }

    fn pha(&mut self) -> &mut Self {
        self.at.cycle += 3;
        self.sp = self.sp.wrapping_sub(1);
        self
    }

    fn pla(&mut self) -> &mut Self {
        self.at.cycle += 4;
        self.sp = self.sp.wrapping_add(1);
        self
    }

    /// `LDX #sp` `TXS`.
    fn txs(&mut self, sp: u8) -> &mut Self {
        self.at.cycle += 4;
        self.sp = sp;
        self
    }

    /// An interrupt's entry: logged when its 7 cycles begin.
    fn interrupt(&mut self, kind: EventKind, handler: u32) -> &mut Self {
        self.sp = self.sp.wrapping_sub(3);
        self.log(kind, 0x8000, handler);
        self.at.cycle += 7;
        self
    }

    fn nmi(&mut self) -> &mut Self {
        self.interrupt(EventKind::Nmi, NMI)
    }

    fn irq(&mut self) -> &mut Self {
        self.interrupt(EventKind::Irq, IRQ)
    }

    fn rti(&mut self) -> &mut Self {
        self.at.cycle += 6;
        self.sp = self.sp.wrapping_add(3);
        self.log(EventKind::ReturnInterrupt, 0, 0x8000);
        self
    }

    fn end_frame(&mut self) -> FrameRow {
        self.reference.advance(&self.p, self.at);
        self.reference.end_frame();
        let row = self.p.end_frame(self.frame, self.at);
        self.log.push((std::mem::take(&mut self.pending), self.at));
        self.frame += 1;
        check_sum(&row);
        self.rows.push(row.clone());
        row
    }

    /// The profile, checked against the reference.
    fn finish(self) -> Profile {
        let p = self.p.finish();
        self.reference.check(&p);
        p
    }
}

/// Busy + idle + NMI + IRQ + DMA = the frame's cycles.
fn check_sum(row: &FrameRow) {
    let e = row.exact.as_ref().unwrap();
    assert_eq!(
        e.busy + e.idle + e.nmi + e.irq + e.oam_dma + e.dmc_dma,
        row.cycles,
        "{row:?}"
    );
}

fn exact(row: &FrameRow) -> &ExactFrame {
    row.exact.as_ref().unwrap()
}

fn routine(profile: &Profile, entry: u32) -> ExactRoutine {
    profile
        .routine_rows()
        .into_iter()
        .find(|r| r.entry == Some(entry))
        .unwrap_or_else(|| panic!("no routine {entry:#x}"))
        .exact
        .unwrap()
}

fn per_call(r: &ExactRoutine) -> (u64, u64, u64) {
    let c = r.per_call.unwrap();
    (c.calls, c.min, c.max)
}

/// The lead may run the accounting on a thread of its own, and hand
/// `routine_of` to the sampled side's thread.
#[test]
fn the_accounting_and_the_routines_can_move_between_threads() {
    fn moves<T: Send + Sync + 'static>() {}
    moves::<FrameProfile>();
    moves::<Profile>();
    moves::<Routines>();
}

#[test]
fn a_call_and_its_return() {
    let mut run = Run::new();
    run.work(10).jsr(0x8100).work(20).rts(0x8003).work(8);
    let row = run.end_frame();
    assert_eq!(row.cycles, 50);
    assert_eq!(exact(&row).busy, 50);
    assert_eq!(exact(&row).top_routine, Some((0x8100, 26)));
    let p = run.finish();
    let sub = routine(&p, 0x8100);
    // The JSR's 6 cycles are the caller's, the RTS's the callee's.
    assert_eq!(
        (sub.calls, sub.exclusive_cycles, sub.inclusive_cycles),
        (1, 26, 26)
    );
    assert_eq!(per_call(&sub), (1, 26, 26));
    assert_eq!(sub.frames, 1);
    let reset = routine(&p, RESET);
    assert_eq!(
        (reset.calls, reset.exclusive_cycles, reset.inclusive_cycles),
        (1, 24, 50)
    );
    // The root never returned: no time per call.
    assert_eq!(reset.per_call, None);
    assert!((sub.exclusive_pct_of_busy - 52.0).abs() < 1e-9);
}

#[test]
fn nested_calls() {
    let mut run = Run::new();
    // reset → A (5 + JSR 6) → B (30, RTS 6) → A (4, RTS 6), twice.
    for _ in 0..2 {
        run.jsr(0x8100).work(5).jsr(0x8200).work(30).rts(0x8105);
        run.work(4).rts(0x8003);
    }
    run.end_frame();
    let p = run.finish();
    let a = routine(&p, 0x8100);
    let b = routine(&p, 0x8200);
    assert_eq!(
        (b.calls, b.exclusive_cycles, b.inclusive_cycles),
        (2, 72, 72)
    );
    assert_eq!((a.calls, a.exclusive_cycles), (2, 2 * (5 + 6 + 4 + 6)));
    assert_eq!(a.inclusive_cycles, 2 * (21 + 36));
    assert_eq!(per_call(&a), (2, 57, 57));
    assert_eq!(p.routine_rows()[0].entry, Some(0x8200));
}

#[test]
fn falling_into_an_entry_is_a_tail_call() {
    let mut run = Run::new();
    // A: 20 cycles, then its code falls into B's entry (the event comes
    // with the instruction that falls, its cycles A's); B's 30 cycles and
    // its RTS are B's, which returns for A. B was never called before: a
    // watched entry is one.
    run.jsr(0x8100).work(20);
    run.log(EventKind::FallInto, 0x8114, 0x8200);
    run.work(30).rts(0x8003);
    let row = run.end_frame();
    let p = run.finish();
    let a = routine(&p, 0x8100);
    let b = routine(&p, 0x8200);
    assert_eq!((a.calls, a.exclusive_cycles), (1, 20));
    assert_eq!((b.calls, b.exclusive_cycles), (1, 30 + 6));
    assert_eq!(a.inclusive_cycles, 20);
    let reset = routine(&p, RESET);
    assert_eq!(reset.inclusive_cycles, row.cycles);
}

#[test]
fn a_tail_call_by_jmp() {
    let mut run = Run::new();
    // B becomes an entry by a call.
    run.jsr(0x8200).work(10).rts(0x8003);
    // A: 20 cycles, then `jmp B` (3 cycles): B runs in A's frame and
    // returns for it.
    run.jsr(0x8100)
        .work(20)
        .jmp(0x8150, 0x8200)
        .work(40)
        .rts(0x8006);
    // A jump to a label that is no entry stays in the caller; a jump to
    // the routine's own entry is a loop.
    run.jsr(0x8100)
        .work(5)
        .jmp(0x8110, 0x8120)
        .work(5)
        .jmp(0x8130, 0x8100)
        .work(5)
        .rts(0x8009);
    let row = run.end_frame();
    let p = run.finish();
    let a = routine(&p, 0x8100);
    let b = routine(&p, 0x8200);
    assert_eq!((b.calls, b.exclusive_cycles), (2, 16 + 46));
    assert_eq!(per_call(&b), (2, 16, 46));
    assert_eq!(a.calls, 2);
    assert_eq!(a.exclusive_cycles, 23 + (5 + 3 + 5 + 3 + 5 + 6));
    assert_eq!(per_call(&a), (2, 23, 27));
    // The root is not charged with B's time.
    let reset = routine(&p, RESET);
    assert_eq!(reset.exclusive_cycles, 3 * 6);
    assert_eq!(reset.inclusive_cycles, row.cycles);
}

#[test]
fn jmp_main_at_the_end_of_reset_replaces_the_root() {
    let mut run = Run::new();
    // `main` is known (say, a scope or an earlier call).
    run.jsr(0x9000).rts(0x8003);
    run.work(100)
        .jmp(0x8010, 0x9000)
        .work(50)
        .jsr(0x9100)
        .work(10)
        .rts(0x9003);
    run.work(7);
    run.end_frame();
    let p = run.finish();
    let reset = routine(&p, RESET);
    // Reset's activation ended at the jump: 6 + 100 + 3.
    assert_eq!(per_call(&reset), (1, 6 + 6 + 100 + 3, 6 + 6 + 100 + 3));
    let main = routine(&p, 0x9000);
    assert_eq!(main.calls, 2);
    assert_eq!(main.exclusive_cycles, 6 + 50 + 6 + 7);
    assert_eq!(main.inclusive_cycles, 6 + 50 + 6 + 16 + 7);
    let lines = p.folded();
    assert!(lines.contains(&"$9000;$9100 16".to_string()), "{lines:?}");
}

#[test]
fn jmp_indirect_dispatches_and_learns_its_target() {
    let mut prg = vec![0xEA; 0x8000];
    prg[0x0120] = 0x6C; // $8120: JMP ($0010)
    let routines = Routines::new(0x8000, RESET).with_prg(prg.into());
    let mut run = Run::with(routines, Start::PowerOn);
    run.jsr(0x8100)
        .work(10)
        .jmp(0x8120, 0xA000)
        .work(30)
        .rts(0x8003);
    run.end_frame();
    let p = run.finish();
    assert!(p.routines.is_entry(0xA000));
    let target = routine(&p, 0xA000);
    assert_eq!((target.calls, target.exclusive_cycles), (1, 30 + 6));
    assert_eq!(routine(&p, 0x8100).exclusive_cycles, 10 + 3);
}

#[test]
fn an_rts_dispatch_table() {
    let mut run = Run::new();
    // main calls the dispatcher, which pushes a handler's address − 1 and
    // RTSes to it: the handler runs in the dispatcher's frame and returns
    // to main.
    for handler in [0xA000, 0xA100, 0xA000] {
        run.jsr(0x8200).work(12).pha().pha().rts(handler);
        run.work(50).rts(0x8003);
    }
    run.end_frame();
    let p = run.finish();
    let dispatch = routine(&p, 0x8200);
    assert_eq!(dispatch.calls, 3);
    assert_eq!(per_call(&dispatch), (3, 12 + 6 + 6, 12 + 6 + 6));
    let a = routine(&p, 0xA000);
    let b = routine(&p, 0xA100);
    // The dispatching RTS's 6 cycles are the dispatcher's.
    assert_eq!((a.calls, a.exclusive_cycles), (2, 2 * 56));
    assert_eq!((b.calls, b.exclusive_cycles), (1, 56));
    assert!(p.routines.is_entry(0xA100));
    assert_eq!(p.routines.routine_of(0xA150), Some(0xA100));
}

#[test]
fn an_nmi_leaves_the_interrupted_routines_time_alone() {
    let mut run = Run::new();
    run.jsr(0x8100).work(100);
    run.nmi().work(200).jsr(0xC100).work(30).rts(0xC003).rti();
    run.work(50).rts(0x8003);
    let row = run.end_frame();
    let p = run.finish();
    let a = routine(&p, 0x8100);
    assert_eq!(a.exclusive_cycles, 156);
    assert_eq!(a.inclusive_cycles, 156);
    assert_eq!(per_call(&a), (1, 156, 156));
    let nmi = routine(&p, NMI);
    assert_eq!(nmi.exclusive_cycles, 7 + 200 + 6 + 6);
    assert_eq!(nmi.inclusive_cycles, 7 + 200 + 6 + 6 + 36);
    assert_eq!(per_call(&nmi), (1, 255, 255));
    let e = exact(&row);
    assert_eq!(e.nmi, 255);
    assert_eq!(e.busy, 6 + 156);
    assert_eq!(e.nmi_handler_cycles, 255);
    // The NMI is a root of its own in the flame graph.
    let lines = p.folded();
    assert!(
        lines.contains(&"[NMI];$C000;$C100 36".to_string()),
        "{lines:?}"
    );
    assert!(lines.contains(&"$8000;$8100 156".to_string()), "{lines:?}");
}

#[test]
fn an_nmi_interrupting_a_wait_loop() {
    let mut run = Run::new();
    // An NMI-less main loop waiting for the NMI to count a frame: 300
    // cycles of complete iterations, 5 of the one the NMI cuts.
    run.work(20).idle(300).work(5);
    run.nmi().work(400).rti();
    run.work(3).idle(90).work(9);
    let row = run.end_frame();
    let e = exact(&row);
    assert_eq!(e.idle, 390);
    assert_eq!(e.nmi, 7 + 400 + 6);
    assert_eq!(e.busy, 20 + 5 + 3 + 9);
    assert_eq!(row.cycles, 20 + 300 + 5 + 413 + 3 + 90 + 9);
    // The work is the NMI's: it tops the frame.
    assert_eq!(e.top_routine, Some((NMI, 413)));
    let p = run.finish();
    let lines = p.folded();
    assert!(lines.contains(&"[idle];$8000 390".to_string()), "{lines:?}");
    assert!(lines.contains(&"$8000 37".to_string()), "{lines:?}");
    // Idle time is in nobody's exclusive or inclusive time.
    assert_eq!(routine(&p, RESET).inclusive_cycles, 37);
}

#[test]
fn an_irq_nested_in_the_nmi() {
    let mut run = Run::new();
    run.work(10);
    run.nmi().work(100);
    run.irq().work(50).rti();
    run.work(20).rti();
    run.work(10);
    let row = run.end_frame();
    let e = exact(&row);
    assert_eq!(e.irq, 7 + 50 + 6);
    assert_eq!(e.nmi, 7 + 100 + 20 + 6);
    assert_eq!(e.busy, 20);
    // The handler's running time holds the IRQ it let in.
    assert_eq!(e.nmi_handler_cycles, 133 + 63);
    let p = run.finish();
    let nmi = routine(&p, NMI);
    assert_eq!((nmi.inclusive_cycles, per_call(&nmi)), (133, (1, 133, 133)));
    let irq = routine(&p, IRQ);
    assert_eq!((irq.inclusive_cycles, per_call(&irq)), (63, (1, 63, 63)));
    let lines = p.folded();
    assert!(lines.contains(&"[IRQ];$D000 63".to_string()), "{lines:?}");
}

#[test]
fn recursion_counts_each_cycle_once() {
    let mut run = Run::new();
    // reset → A → A → B, each returning.
    run.jsr(0x8100)
        .work(10)
        .jsr(0x8100)
        .work(20)
        .jsr(0x8200)
        .work(30);
    run.rts(0x8203)
        .work(5)
        .rts(0x8103)
        .work(7)
        .rts(0x8003)
        .work(4);
    let row = run.end_frame();
    assert_eq!(row.cycles, 6 + 16 + 26 + 36 + 11 + 13 + 4);
    let p = run.finish();
    let a = routine(&p, 0x8100);
    let b = routine(&p, 0x8200);
    // A: 10 + 6 (outer), 20 + 6 and 5 + 6 (inner), 7 + 6 (outer).
    assert_eq!((a.calls, a.exclusive_cycles), (2, 16 + 26 + 11 + 13));
    // B's 30 + 6 under both A frames, counted once.
    assert_eq!(a.inclusive_cycles, 66 + 36);
    assert_eq!((b.exclusive_cycles, b.inclusive_cycles), (36, 36));
    // Per call: the inner 26 + 36 + 11, the outer 16 + 73 + 13.
    assert_eq!(per_call(&a), (2, 73, 102));
    assert!((a.per_call.unwrap().avg - 87.5).abs() < 1e-9);
    assert_eq!(a.per_frame.unwrap().max, 102);
    assert_eq!(routine(&p, RESET).inclusive_cycles, row.cycles);
}

#[test]
fn an_nmi_calling_the_routine_it_interrupted() {
    let mut run = Run::new();
    run.jsr(0x8100).work(100);
    run.nmi()
        .work(10)
        .jsr(0x8100)
        .work(40)
        .rts(0xC013)
        .work(5)
        .rti();
    run.work(20).rts(0x8003);
    let row = run.end_frame();
    let e = exact(&row);
    assert_eq!(e.busy, 6 + 100 + 26);
    assert_eq!(e.nmi, 7 + 10 + 6 + 46 + 5 + 6);
    let p = run.finish();
    let a = routine(&p, 0x8100);
    // The main activation: 100 + 20 + 6, the handler's time left out;
    // the handler's: 40 + 6. A's inclusive time is both, nothing twice.
    assert_eq!((a.calls, a.exclusive_cycles), (2, 126 + 46));
    assert_eq!(a.inclusive_cycles, 126 + 46);
    assert_eq!(per_call(&a), (2, 46, 126));
    let nmi = routine(&p, NMI);
    assert_eq!(
        (nmi.exclusive_cycles, nmi.inclusive_cycles),
        (7 + 10 + 6 + 5 + 6, 80)
    );
    assert_eq!(routine(&p, RESET).inclusive_cycles, 6 + 126);
}

#[test]
fn pla_pla_returns_to_the_callers_caller() {
    let mut run = Run::new();
    run.jsr(0x8100).work(10).jsr(0x8200).work(20).pla().pla();
    run.rts(0x8003);
    assert_eq!(p_depth(&run), 1);
    run.work(30);
    run.end_frame();
    let p = run.finish();
    let a = routine(&p, 0x8100);
    let b = routine(&p, 0x8200);
    assert_eq!(per_call(&b), (1, 20 + 8 + 6, 20 + 8 + 6));
    assert_eq!(per_call(&a), (1, 16 + 34, 16 + 34));
    assert_eq!(routine(&p, RESET).exclusive_cycles, 6 + 30);
}

fn p_depth(run: &Run) -> usize {
    run.p.stack.len()
}

#[test]
fn a_stack_reset_by_txs_abandons_frames() {
    let mut run = Run::new();
    run.jsr(0x8100).work(10).jsr(0x8200).work(10);
    // The NMI handler resets the stack and jumps back into the main loop,
    // which calls C: every frame before is gone, and C is main code.
    run.nmi().work(50).txs(0xFF).jmp(0xC020, 0x8010).work(5);
    run.jsr(0x8300).work(40).rts(0x8013).work(5);
    assert_eq!(p_depth(&run), 1);
    assert_eq!(run.p.nmi_open, 0);
    let row = run.end_frame();
    let e = exact(&row);
    // Until the jump the handler's; the jump closed it (SP $FF).
    assert_eq!(e.nmi, 7 + 50 + 4 + 3);
    assert_eq!(e.busy, row.cycles - e.nmi);
    let p = run.finish();
    let c = routine(&p, 0x8300);
    assert_eq!(per_call(&c), (1, 46, 46));
    assert_eq!(routine(&p, NMI).per_call.unwrap().max, 64);
}

#[test]
fn oam_dma_in_the_nmi_handler_is_dma() {
    let mut run = Run::new();
    run.work(100)
        .nmi()
        .work(20)
        .oam_dma()
        .work(30)
        .dmc_dma(4)
        .work(10)
        .rti();
    let row = run.end_frame();
    let e = exact(&row);
    assert_eq!(e.oam_dma, 513);
    assert_eq!(e.dmc_dma, 4);
    assert_eq!(e.nmi, 7 + 20 + 4 + 30 + 10 + 6);
    assert_eq!(e.nmi_handler_cycles, e.nmi + 517);
    let p = run.finish();
    assert_eq!(routine(&p, NMI).inclusive_cycles, e.nmi);
    let lines = p.folded();
    assert!(
        lines.contains(&"[DMA];OAM;[NMI];$C000 513".to_string()),
        "{lines:?}"
    );
    assert!(
        lines.contains(&"[DMA];DMC;[NMI];$C000 4".to_string()),
        "{lines:?}"
    );
}

#[test]
fn lag_frames_read_no_controller() {
    let mut run = Run::new();
    run.work(100).read_pad().work(10);
    assert!(!run.end_frame().lag);
    run.work(200);
    assert!(run.end_frame().lag);
    run.read_pad().read_pad();
    assert!(!run.end_frame().lag);
    assert_eq!(run.p.totals().lag_frames, 1);
}

#[test]
fn vblank_use_and_overrun() {
    // A window starting at a frame's end, at cycle 0: vblank is [114, 2387).
    let mut run = Run::with(Routines::new(0x8000, RESET), Start::FrameStart);
    run.work(114).nmi().work(1000).rti().work(28_000);
    let row = run.end_frame();
    let v = exact(&row).vblank.unwrap();
    assert_eq!(
        v,
        Vblank {
            overrun: false,
            cycles_used: 1013,
            cycles_left: 2387 - 1127
        }
    );
    assert_eq!(exact(&row).nmi_handler_cycles, 1013);
    // The next frame's handler is still running when rendering starts.
    let start = run.at.cycle;
    run.work(114).nmi().work(3000).rti().work(26_000);
    let row = run.end_frame();
    let v = exact(&row).vblank.unwrap();
    assert!(v.overrun);
    assert_eq!((v.cycles_used, v.cycles_left), (2273, 0));
    assert_eq!(run.at.cycle - start, row.cycles);
    assert_eq!(run.p.totals().vblank_overruns, 1);
    // After power-on the first frame has no vblank.
    let mut run = Run::new();
    run.work(30_000);
    assert_eq!(exact(&run.end_frame()).vblank, None);
    run.work(30_000);
    assert!(exact(&run.end_frame()).vblank.is_some());
}

#[test]
fn routines_per_frame() {
    let mut run = Run::new();
    // A routine taking 100, 200, ..., 1000 cycles in frames 1-10, called
    // twice in frame 10, absent in frame 0.
    run.work(50);
    run.end_frame();
    for k in 1..=10u64 {
        run.jsr(0x8100).work(k * 100 - 6).rts(0x8003);
        if k == 10 {
            run.jsr(0x8100).work(94).rts(0x8003);
        }
        run.work(50);
        run.end_frame();
    }
    let p = run.finish();
    let a = routine(&p, 0x8100);
    assert_eq!(a.frames, 10);
    let f = a.per_frame.unwrap();
    assert_eq!(f.max, 1100);
    // Median by nearest rank: the 5th of 10, 500 cycles (bin [496, 512)).
    assert_eq!(f.median, 504);
    // The 99th percentile by nearest rank is the maximum, read from its
    // bin [1088, 1104): its middle.
    assert_eq!(f.p99, 1096);
    assert_eq!(per_call(&a), (11, 100, 1000));
    assert!((a.per_call.unwrap().avg - 5600.0 / 11.0).abs() < 1e-9);
}

#[test]
fn worst_frames_keep_their_top_routines() {
    let mut run = Run::new();
    for k in 0..30u64 {
        run.jsr(0x8100).work(1000 + (k * 7919) % 500).rts(0x8003);
        run.jsr(0x8200).work(100).rts(0x8003);
        run.idle(5000);
        run.end_frame();
    }
    let p = run.finish();
    assert_eq!(p.worst_frames.len(), 10);
    let works: Vec<u64> = p.worst_frames.iter().map(|w| w.work).collect();
    let mut sorted = works.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(works, sorted);
    let worst = &p.worst_frames[0];
    assert_eq!(worst.top_exclusive[0].0, 0x8100);
    assert_eq!(worst.top_inclusive[0], (RESET, worst.work));
    assert_eq!(worst.row.exact.as_ref().unwrap().idle, 5000);
}

#[test]
fn a_window_seeded_from_the_stack_page() {
    let mut page = [0u8; 256];
    // main ($8000) called A ($8100) from $8010; A called B ($8200) from
    // $8105; the window starts in B with SP $FB.
    page[0xFF] = 0x80;
    page[0xFE] = 0x12;
    page[0xFD] = 0x81;
    page[0xFC] = 0x07;
    let mut jsr = |address: u16| match address {
        0x8012 => Some(0x8100),
        0x8107 => Some(0x8200),
        _ => None,
    };
    let mut run = Run::with(Routines::new(0x8000, RESET), Start::FrameStart);
    run.at.cycle = 1_000_000;
    run.p = FrameProfile::new(Routines::new(0x8000, RESET), run.at, Start::FrameStart);
    run.reference.last = run.at;
    run.p.seed_stack(&page, 0xFB, &mut jsr);
    run.sp = 0xFB;
    run.work(30).rts(0x8107).work(20).rts(0x8012).work(10);
    run.end_frame();
    let p = run.finish();
    let b = routine(&p, 0x8200);
    let a = routine(&p, 0x8100);
    // Their time is theirs; their calls began before the window.
    assert_eq!((b.calls, b.exclusive_cycles, b.per_call), (0, 36, None));
    assert_eq!(
        (a.calls, a.exclusive_cycles, a.inclusive_cycles),
        (0, 26, 62)
    );
    // No return was taken for a dispatch.
    assert_eq!(routine(&p, RESET).exclusive_cycles, 10);
    assert!(!p.routines.is_entry(0x8107));
}

#[test]
fn an_unseeded_window_takes_unknown_returns_for_dispatches() {
    // (What seeding avoids; documented on `seed_stack`.)
    let mut run = Run::with(Routines::new(0x8000, RESET), Start::FrameStart);
    run.sp = 0xFB;
    run.work(30).rts(0x8107).work(20);
    run.end_frame();
    let p = run.finish();
    assert!(p.routines.is_entry(0x8107));
}

#[test]
fn scopes_make_jumps_into_them_tail_calls() {
    let dbg = "version\tmajor=2,minor=0\n\
seg\tid=0,name=\"CODE\",start=0x008000,size=0x2000,addrsize=absolute,type=ro,oname=\"g.nes\",ooffs=16\n\
span\tid=0,seg=0,start=0,size=0x100\n\
span\tid=1,seg=0,start=0x100,size=0x100\n\
scope\tid=1,name=\"reset\",type=scope,sym=0,span=0\n\
scope\tid=2,name=\"main\",type=scope,sym=1,span=1\n\
sym\tid=0,name=\"reset\",addrsize=absolute,scope=0,val=0x8000,seg=0,type=lab\n\
sym\tid=1,name=\"main\",addrsize=absolute,scope=0,val=0x8100,seg=0,type=lab\n";
    let mut symbols = crate::symbols::Symbols::new(0x8000);
    symbols
        .load_text(dbg, std::path::Path::new("g.dbg"))
        .unwrap();
    let mut run = Run::with(Routines::with_symbols(&symbols, RESET), Start::PowerOn);
    // `jmp main` though nothing called main; then a jump inside main.
    run.work(100)
        .jmp(0x8050, 0x8100)
        .work(10)
        .jmp(0x8120, 0x8110)
        .work(10);
    run.end_frame();
    let p = run.finish();
    let main = routine(&p, 0x8100);
    assert_eq!((main.calls, main.exclusive_cycles), (1, 23));
    let rows = p.routine_rows();
    assert_eq!(rows[0].name, "reset");
    assert_eq!(rows[1].name, "main");
}

#[test]
fn contradicting_stamps_are_clamped_and_counted() {
    let mut run = Run::new();
    run.work(100);
    // More idle than cycles.
    run.at.idle += 500;
    run.work(10);
    let row = run.end_frame();
    assert_eq!(row.cycles, 110);
    let p = run.finish();
    assert_eq!(p.anomalies, 1);
}

#[test]
fn csv_rows_of_a_run() {
    use crate::frame_profile::csv::{frames_header, frames_line, routines_line, Columns};
    let mut run = Run::new();
    run.work(10).jsr(0x8100).work(20).rts(0x8003).read_pad();
    let row = run.end_frame();
    let both = Columns {
        exact: true,
        sampled: false,
    };
    assert_eq!(
        frames_header(both),
        "frame,cycles,busy,idle,nmi,irq,oam_dma,dmc_dma,lag,nmi_handler_cycles,\
vblank_overrun,vblank_cycles_left,top_routine,top_routine_cycles"
    );
    let name = |e: u32| run.p.routines().name(e);
    assert_eq!(
        frames_line(&row, both, &name),
        "0,46,46,0,0,0,0,0,0,0,,,$8100,26"
    );
    let p = run.finish();
    let rows = p.routine_rows();
    assert_eq!(
        routines_line(&rows[0], both),
        "$8100,$8100,,1,26,56.52,26,56.52,26.0,26,26,1,26,26,26"
    );
    assert_eq!(rows[1].exact.as_ref().unwrap().per_call, None::<PerCall>);
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    const TARGETS: [u32; 8] = [
        0x8100, 0x8200, 0x8300, 0x8400, 0xA000, 0xA100, 0x9000, RESET,
    ];

    #[derive(Debug, Clone)]
    enum Op {
        Work(u64),
        Idle(u64),
        Oam,
        Dmc(u64),
        Pad,
        Jsr(usize),
        Rts,
        RtsTrick(usize),
        Nmi,
        Irq,
        Brk(usize),
        Rti,
        Jmp(usize, bool),
        PlaPlaRts,
        Txs,
        EndFrame,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0u64..300).prop_map(Op::Work),
            1 => (0u64..300).prop_map(Op::Idle),
            1 => Just(Op::Oam),
            1 => (1u64..5).prop_map(Op::Dmc),
            1 => Just(Op::Pad),
            3 => (0..TARGETS.len()).prop_map(Op::Jsr),
            3 => Just(Op::Rts),
            1 => (0..TARGETS.len()).prop_map(Op::RtsTrick),
            1 => Just(Op::Nmi),
            1 => Just(Op::Irq),
            1 => (0..TARGETS.len()).prop_map(Op::Brk),
            2 => Just(Op::Rti),
            2 => (0..TARGETS.len(), any::<bool>()).prop_map(|(t, i)| Op::Jmp(t, i)),
            1 => Just(Op::PlaPlaRts),
            1 => Just(Op::Txs),
            1 => Just(Op::EndFrame),
        ]
    }

    /// Runs `ops` as a well-formed program: returns and RTIs only where a
    /// frame of their kind is open (as the model stack says), nesting
    /// bounded so the stack page does not wrap.
    fn run(ops: &[Op], how: Start) -> (Run, Profile) {
        // $8F00 holds `JMP (ind)`, $8E00 `JMP abs`.
        let mut prg = vec![0x4C; 0x8000];
        prg[0x0F00] = 0x6C;
        let routines = Routines::new(0x8000, RESET).with_prg(prg.into());
        let mut r = Run::with(routines, how);
        let mut model: Vec<char> = Vec::new();
        for op in ops {
            match *op {
                Op::Work(n) => {
                    r.work(n);
                }
                Op::Idle(n) => {
                    r.idle(n);
                }
                Op::Oam => {
                    r.oam_dma();
                }
                Op::Dmc(n) => {
                    r.dmc_dma(n);
                }
                Op::Pad => {
                    r.read_pad();
                }
                Op::Jsr(t) if model.len() < 40 => {
                    r.jsr(TARGETS[t]);
                    model.push('c');
                }
                Op::Rts if model.last() == Some(&'c') => {
                    r.rts(0x8003);
                    model.pop();
                }
                Op::RtsTrick(t) => {
                    r.pha().pha().rts(TARGETS[t]);
                }
                Op::Nmi if model.len() < 40 && !model.contains(&'n') => {
                    r.nmi();
                    model.push('n');
                }
                Op::Irq if model.len() < 40 && !model.contains(&'i') => {
                    r.irq();
                    model.push('i');
                }
                Op::Brk(t) if model.len() < 40 => {
                    r.interrupt(EventKind::Brk, TARGETS[t]);
                    model.push('b');
                }
                Op::Rti if matches!(model.last(), Some('n' | 'i' | 'b')) => {
                    r.rti();
                    model.pop();
                }
                Op::Jmp(t, indirect) => {
                    r.jmp(if indirect { 0x8F00 } else { 0x8E00 }, TARGETS[t]);
                }
                Op::PlaPlaRts if model.len() >= 2 && model[model.len() - 2..] == ['c', 'c'] => {
                    r.pla().pla().rts(0x8003);
                    model.truncate(model.len() - 2);
                }
                Op::Txs => {
                    r.txs(0xFF);
                    model.clear();
                }
                Op::EndFrame => {
                    r.end_frame();
                }
                _ => {}
            }
        }
        r.end_frame();
        let p = r.p.clone().finish();
        r.reference.check(&p);
        (r, p)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn every_cycle_is_counted_once(
            ops in proptest::collection::vec(op(), 0..400),
            power_on in any::<bool>(),
        ) {
            let how = if power_on { Start::PowerOn } else { Start::FrameStart };
            let (r, p) = run(&ops, how);
            let t = p.totals;
            // Frames add up to the run; every row's classes to its cycles
            // (checked as each ended).
            prop_assert_eq!(r.rows.iter().map(|row| row.cycles).sum::<u64>(), r.at.cycle);
            prop_assert_eq!(t.cycles, r.at.cycle);
            prop_assert_eq!(t.busy + t.idle + t.nmi + t.irq + t.oam_dma + t.dmc_dma, t.cycles);
            prop_assert_eq!(t.idle, r.at.idle);
            prop_assert_eq!(t.oam_dma, r.at.oam_dma);
            prop_assert_eq!(t.dmc_dma, r.at.dmc_dma);
            prop_assert_eq!(p.anomalies, 0);
            // Routines: exclusive shares add up to the work, inclusive
            // is at least exclusive and at most the work.
            let rows = p.routine_rows();
            let work = t.work();
            prop_assert_eq!(
                rows.iter().map(|row| row.exact.as_ref().unwrap().exclusive_cycles).sum::<u64>(),
                work
            );
            for row in &rows {
                let e = row.exact.as_ref().unwrap();
                prop_assert!(e.inclusive_cycles >= e.exclusive_cycles, "{row:?}");
                prop_assert!(e.inclusive_cycles <= work, "{row:?}");
                prop_assert!(e.exclusive_pct_of_busy <= 100.0 + 1e-9);
                if let Some(c) = e.per_call {
                    prop_assert!(c.min <= c.max && c.max <= work, "{row:?}");
                    prop_assert!(c.calls <= e.calls + 1);
                    prop_assert!(c.avg >= c.min as f64 - 1e-9 && c.avg <= c.max as f64 + 1e-9);
                }
                if let Some(f) = e.per_frame {
                    prop_assert!(f.median <= f.max && f.p99 <= f.max, "{row:?}");
                    prop_assert!(f.max <= e.inclusive_cycles);
                }
            }
            for row in &r.rows {
                let e = exact(row);
                prop_assert!(e.nmi_handler_cycles <= row.cycles);
                if let Some((_, c)) = e.top_routine {
                    prop_assert!(c <= e.work());
                }
                if let Some(v) = e.vblank {
                    prop_assert!(v.cycles_used + v.cycles_left <= crate::frame_profile::vblank::VBLANK_CYCLES);
                }
            }
            // The flame graph holds every cycle.
            prop_assert_eq!(p.contexts.total(), t.cycles);
            let folded: u64 = p
                .folded()
                .iter()
                .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
                .sum();
            prop_assert_eq!(folded, t.cycles);
            // The shadow stack stays bounded.
            prop_assert!(r.p.stack.len() <= 257);
            prop_assert!(p.worst_frames.len() <= crate::frame_profile::worst::WORST_FRAMES);
        }

        /// Feeding a frame's events one by one or at once is the same,
        /// and the output is a function of the events and stamps alone.
        #[test]
        fn frames_fed_at_once_give_the_same_output(ops in proptest::collection::vec(op(), 0..200)) {
            let (r, p) = run(&ops, Start::PowerOn);
            let mut prg = vec![0x4C; 0x8000];
            prg[0x0F00] = 0x6C;
            let routines = Routines::new(0x8000, RESET).with_prg(prg.into());
            let mut again = FrameProfile::new(routines, Stamp::default(), Start::PowerOn);
            let rows: Vec<FrameRow> = r
                .log
                .iter()
                .enumerate()
                .map(|(n, (events, end))| again.frame(n as u64, events, *end))
                .collect();
            prop_assert_eq!(&rows, &r.rows);
            let q = again.finish();
            prop_assert_eq!(q.routine_rows(), p.routine_rows());
            prop_assert_eq!(q.folded(), p.folded());
        }
    }
}
