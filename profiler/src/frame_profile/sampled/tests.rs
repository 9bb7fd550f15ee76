//! Synthetic batches whose answers are known by hand.

use super::*;

/// Code at $C000: `lda $10 ; cmp $11 ; beq $C000` (a wait loop of 6
/// bytes), then `sta $4014` at $C006; zeros elsewhere.
fn code(a: u32) -> Option<u8> {
    const LOOP: [u8; 9] = [0xA5, 0x10, 0xC5, 0x11, 0xF0, 0xFA, 0x8D, 0x14, 0x40];
    let off = a.checked_sub(0xC000)? as usize;
    Some(LOOP.get(off).copied().unwrap_or(0))
}

/// Routines: $8000.. is A, $9000.. is B, $A000.. the NMI handler,
/// $C000.. the main loop; the NMI's handler is at $A000.
fn classifier() -> Classifier {
    Classifier::new(
        |pc| Some(pc & 0xF000),
        |h| h == 0xA000,
        WaitLoops::new(code),
    )
}

/// Samples at `pcs` with cycles from `start`, each taking the given
/// cycles (the next sample starts then).
fn plain(pcs_cycles: &[(u32, u64)], start: u64) -> Vec<Sample> {
    let mut cycle = start;
    pcs_cycles
        .iter()
        .map(|&(pc, c)| {
            let mut s = Sample::plain(pc, 2);
            s.cycle = cycle;
            cycle += c;
            s
        })
        .collect()
}

/// One iteration of the wait loop (lda, cmp, beq taken) from `cycle`.
fn loop_iteration(cycle: u64, taken: bool) -> Vec<Sample> {
    let mut lda = Sample::plain(0xC000, 2);
    lda.cycle = cycle;
    let mut cmp = Sample::plain(0xC002, 2);
    cmp.cycle = cycle + 3;
    let next = if taken { 0xC000 } else { 0xC006 };
    let mut beq = Sample::control(0xC004, 2, Flow::Branch, next).with_target(0xC000);
    beq.cycle = cycle + 6;
    vec![lda, cmp, beq]
}

fn with_cycle(mut s: Sample, cycle: u64) -> Sample {
    s.cycle = cycle;
    s
}

#[test]
fn cycles_come_from_the_next_sample_and_the_last_is_left_out() {
    let mut p = SampledProfile::new(classifier(), 0);
    // Three observations in A of 2, 4 and 6 cycles; the fourth sample (in B)
    // has no successor.
    p.add_batch(&plain(
        &[(0x8000, 2), (0x8002, 4), (0x8004, 6), (0x9000, 99)],
        100,
    ));
    let e = p.estimates(1000);
    assert_eq!(e.observations, 3);
    assert_eq!(e.batches, 1);
    assert!((e.classes.busy.value - 1.0).abs() < 1e-12);
    let a = e.routine(Some(0x8000)).expect("A seen");
    assert!((a.share_of_work.value - 1.0).abs() < 1e-12);
    assert!(
        e.routine(Some(0x9000)).is_none(),
        "the last sample counts nothing"
    );
    assert_eq!(e.total_cycles, 1000);
}

#[test]
fn cycles_beyond_seven_are_dma() {
    let mut p = SampledProfile::new(classifier(), 0);
    // STA $4014 (4 cycles), then an instruction stalled by the OAM DMA:
    // 513 + 2 cycles, of which 7 are counted as its own.
    p.add_batch(&plain(&[(0xC006, 4), (0x8000, 515), (0x8002, 2)], 0));
    let e = p.estimates(519);
    let dma = 515.0 - 7.0;
    assert!((e.classes.dma.value - dma / 519.0).abs() < 1e-12);
    assert!((e.class_cycles.dma.value - dma).abs() < 1e-9);
    assert!((e.classes.busy.value - 11.0 / 519.0).abs() < 1e-12);
}

#[test]
fn each_batch_is_one_probe_whatever_its_cycles() {
    // Half of the probes in slow A (6 cycles an instruction), half in
    // fast B (2): the time is half A, half B, although the A batches span
    // three times the cycles (summing raw cycles would say 3/4).
    let mut p = SampledProfile::new(classifier(), 0);
    for k in 0..10u64 {
        let (pc, c) = if k % 2 == 0 { (0x8000, 6) } else { (0x9000, 2) };
        let batch: Vec<(u32, u64)> = (0..25).map(|i| (pc + 2 * i, c)).collect();
        p.add_batch(&plain(&batch, k * 10_000));
    }
    let e = p.estimates(100_000);
    let a = e.routine(Some(0x8000)).expect("A");
    let b = e.routine(Some(0x9000)).expect("B");
    assert!((a.share_of_work.value - 0.5).abs() < 1e-12, "{a:?}");
    assert!((b.share_of_work.value - 0.5).abs() < 1e-12);
    // Ten probes, five each way: the interval is wide and holds 1/2.
    assert!(a.share_of_work.low > 0.1 && a.share_of_work.high < 0.9);
    assert!((a.cycles.value - 50_000.0).abs() < 1e-6);
}

#[test]
fn complete_wait_loop_iterations_are_idle_the_leaving_one_is_not() {
    let mut p = SampledProfile::new(classifier(), 0);
    let mut batch = Vec::new();
    batch.extend(loop_iteration(0, true));
    batch.extend(loop_iteration(9, true));
    batch.extend(loop_iteration(18, false)); // leaves: 8 cycles
    batch.push(with_cycle(Sample::plain(0xC006, 3), 26)); // sta $4014
    batch.push(with_cycle(Sample::plain(0x8000, 2), 30));
    p.add_batch(&batch);
    let e = p.estimates(100);
    // Observations: 9 + 9 idle; 3 + 3 + 2 + 4 busy (the last left out).
    let total = 30.0;
    assert!((e.classes.idle.value - 18.0 / total).abs() < 1e-12, "{e:?}");
    assert!((e.classes.busy.value - 12.0 / total).abs() < 1e-12);
}

#[test]
fn an_iteration_cut_by_an_interrupt_is_not_idle() {
    let mut p = SampledProfile::new(classifier(), 0);
    let mut batch = loop_iteration(0, true);
    // lda, then the NMI: the iteration is cut.
    batch.push(with_cycle(Sample::plain(0xC000, 2), 9));
    batch.push(with_cycle(Sample::interrupt(0xA000), 12));
    batch.push(with_cycle(Sample::plain(0xA000, 2), 19));
    batch.push(with_cycle(
        Sample::control(0xA002, 1, Flow::ReturnInterrupt, 0xC002),
        21,
    ));
    // The rest of the cut iteration (cmp, beq) then a full one.
    batch.push(with_cycle(Sample::plain(0xC002, 2), 27));
    batch.push(with_cycle(
        Sample::control(0xC004, 2, Flow::Branch, 0xC000).with_target(0xC000),
        30,
    ));
    batch.extend(loop_iteration(33, true));
    batch.push(with_cycle(Sample::plain(0xC000, 2), 42));
    p.add_batch(&batch);
    let e = p.estimates(100);
    let total = 42.0;
    // Idle: the first and last iterations (9 + 9). NMI: entry 7, handler
    // 2 + RTI 6. Busy: lda (3) before the NMI, cmp + beq (6) after.
    assert!((e.classes.idle.value - 18.0 / total).abs() < 1e-12, "{e:?}");
    assert!((e.classes.nmi.value - 15.0 / total).abs() < 1e-12);
    assert!((e.classes.busy.value - 9.0 / total).abs() < 1e-12);
}

#[test]
fn an_open_iteration_at_the_end_counts_as_the_loop_usually_closes() {
    let mut p = SampledProfile::new(classifier(), 0);
    // Learn: three iterations close, one leaves (3/4 close).
    let mut batch = Vec::new();
    for k in 0..3 {
        batch.extend(loop_iteration(9 * k, true));
    }
    batch.extend(loop_iteration(27, false));
    batch.push(with_cycle(Sample::plain(0x8000, 2), 35));
    p.add_batch(&batch);
    // A batch of work ending in the loop's first two instructions: open.
    let mut batch = plain(&[(0x8000, 2), (0x8002, 2)], 1000);
    batch.push(with_cycle(Sample::plain(0xC000, 2), 1004));
    batch.push(with_cycle(Sample::plain(0xC002, 2), 1007));
    batch.push(with_cycle(
        Sample::control(0xC004, 2, Flow::Branch, 0xC000).with_target(0xC000),
        1010,
    ));
    let before = p.estimates(2000).classes.idle.value;
    let mut q = SampledProfile::new(classifier(), 0);
    q.add_batch(&batch[..4]);
    let e = q.estimates(2000);
    // Nothing learned there: the open iteration's lda (3 cycles) is idle.
    assert!((e.classes.idle.value - 3.0 / 7.0).abs() < 1e-12, "{e:?}");
    p.add_batch(&batch[..4]);
    let e = p.estimates(2000);
    // Learned: 3/4 of it. Batch 1 (nothing learned before it: weighs 1
    // over its mean cycles, 12/35): idle 27 of 35. Batch 2 starts at
    // $8000, seen in batch 1 after a 2-cycle step: weighs 1/2; idle 2.25
    // of 7.
    let want = (27.0 * 12.0 / 35.0 + 2.25 / 2.0) / (12.0 + 7.0 / 2.0);
    assert!(
        (e.classes.idle.value - want).abs() < 1e-12,
        "{before} {e:?}"
    );
}

#[test]
fn handler_context_within_a_batch_and_learned_for_the_next() {
    let mut p = SampledProfile::new(classifier(), 0);
    // Main (B), NMI entry, handler code in A (called from the NMI's
    // routine), RTI, main again.
    let batch = vec![
        with_cycle(Sample::plain(0x9000, 2), 0),
        with_cycle(Sample::interrupt(0xA000), 2),
        with_cycle(Sample::control(0xA000, 3, Flow::Call, 0x8000), 9),
        with_cycle(Sample::plain(0x8000, 2), 15),
        with_cycle(Sample::control(0x8002, 1, Flow::Return, 0xA003), 17),
        with_cycle(
            Sample::control(0xA003, 1, Flow::ReturnInterrupt, 0x9002),
            23,
        ),
        with_cycle(Sample::plain(0x9002, 2), 29),
        with_cycle(Sample::plain(0x9004, 2), 31),
    ];
    p.add_batch(&batch);
    let e = p.estimates(100);
    // NMI: 7 + 6 + 2 + 6 + 6 = 27; main: 2 + 2 = 4.
    assert!((e.classes.nmi.value - 27.0 / 31.0).abs() < 1e-12, "{e:?}");
    assert!((e.classes.busy.value - 4.0 / 31.0).abs() < 1e-12);
    // A batch wholly inside A, with no event: learned as NMI code.
    let mut q = SampledProfile::new(classifier(), 0);
    q.add_batch(&batch);
    q.add_batch(&plain(&[(0x8000, 2), (0x8002, 2), (0x8004, 2)], 1000));
    let e = q.estimates(2000);
    // Batch 1 weighs 7/31 (nothing learned: its mean cycles' inverse);
    // batch 2 starts at $8000, seen after the 6-cycle JSR: weighs 1/6.
    let want = (27.0 * 7.0 / 31.0 + 4.0 / 6.0) / (7.0 + 4.0 / 6.0);
    assert!((e.classes.nmi.value - want).abs() < 1e-12, "{e:?}");
    // Inside B: main code.
    let mut r = SampledProfile::new(classifier(), 0);
    r.add_batch(&batch);
    r.add_batch(&plain(&[(0x9000, 2), (0x9002, 2), (0x9004, 2)], 1000));
    let e = r.estimates(2000);
    // Batch 2 starts at $9000, never seen after anything: weighs 2/4.
    let want = (4.0 * 7.0 / 31.0 + 2.0) / (7.0 + 2.0);
    assert!((e.classes.busy.value - want).abs() < 1e-12, "{e:?}");
}

#[test]
fn a_batch_ending_a_handler_was_in_it() {
    let mut p = SampledProfile::new(classifier(), 0);
    // An NMI seen once (so NMIs exist), then a batch in unknown code
    // ($7000, no record) that returns with RTI: the NMI handler.
    p.add_batch(&[
        with_cycle(Sample::interrupt(0xA000), 0),
        with_cycle(Sample::plain(0xA000, 2), 7),
    ]);
    p.add_batch(&[
        with_cycle(Sample::plain(0x7000, 2), 100),
        with_cycle(
            Sample::control(0x7002, 1, Flow::ReturnInterrupt, 0x9000),
            102,
        ),
        with_cycle(Sample::plain(0x9000, 2), 108),
        with_cycle(Sample::plain(0x9002, 2), 110),
    ]);
    let e = p.estimates(200);
    // Batch 1 (weight 1/7): NMI 7 of 7. Batch 2 (nothing learned before
    // $7000: weight 3/10, its mean cycles' inverse): NMI 8 of 10, main 2.
    let want = (7.0 / 7.0 + 8.0 * 0.3) / (7.0 / 7.0 + 10.0 * 0.3);
    assert!((e.classes.nmi.value - want).abs() < 1e-12, "{e:?}");
}

#[test]
fn frames_take_the_observations_before_their_end() {
    let mut p = SampledProfile::new(classifier(), 0);
    // One batch across the end of frame 0 at cycle 106: 3 observations
    // before (A, 2 cycles each), 2 after (B).
    p.add_batch(&plain(
        &[
            (0x8000, 2),
            (0x8002, 2),
            (0x8004, 2),
            (0x9000, 2),
            (0x9002, 2),
            (0x9004, 2),
        ],
        100,
    ));
    let f0 = p.end_frame(0, 106);
    assert_eq!((f0.frame, f0.cycles, f0.batches), (0, 106, 1));
    assert!((f0.classes.busy.value - 106.0).abs() < 1e-9, "{f0:?}");
    assert_eq!(f0.top_routine.map(|t| t.0), Some(Some(0x8000)));
    let f1 = p.end_frame(1, 206);
    assert_eq!((f1.cycles, f1.batches), (100, 1));
    assert_eq!(f1.top_routine.map(|t| t.0), Some(Some(0x9000)));
    // An empty frame.
    let f2 = p.end_frame(2, 300);
    assert_eq!(f2.batches, 0);
    assert_eq!(f2.classes.busy, Cycles::default());
    // A batch of frame 2 coming late counts in the run only.
    p.add_batch(&plain(&[(0x8000, 2), (0x8002, 2)], 250));
    assert_eq!(p.estimates(300).late_observations, 1);
    assert_eq!(p.end_frame(3, 400).batches, 0);
}

#[test]
fn a_frames_interval_is_wide_but_never_empty() {
    let mut p = SampledProfile::new(classifier(), 0);
    for k in 0..5u64 {
        let batch: Vec<(u32, u64)> = (0..25).map(|i| (0x8000 + 2 * i, 3)).collect();
        p.add_batch(&plain(&batch, k * 5000));
    }
    let f = p.end_frame(0, 29_780);
    assert_eq!(f.batches, 5);
    let busy = f.classes.busy;
    assert!((busy.value - 29_780.0).abs() < 1e-6);
    // Wilson with 5 trials, all busy: the lower end near 57 %.
    assert!(
        busy.low > 0.5 * 29_780.0 && busy.low < 0.6 * 29_780.0,
        "{busy:?}"
    );
    assert!(f.classes.idle.high > 0.4 * 29_780.0);
}

#[test]
fn a_share_never_seen_has_the_poisson_bound() {
    let mut p = SampledProfile::new(classifier(), 0);
    for k in 0..100u64 {
        p.add_batch(&plain(&[(0x8000, 2), (0x8002, 2), (0x8004, 2)], k * 1000));
    }
    let e = p.estimates(100_000);
    assert_eq!(e.classes.irq.value, 0.0);
    assert!((e.classes.irq.high - 0.03689).abs() < 1e-12);
    // No interrupt ever seen and no event in any batch: nothing tells
    // whether this code is the main program's, so the busy interval is
    // as wide as that.
    assert_eq!(e.classes.busy.value, 1.0);
    assert_eq!(e.unresolved, 1.0);
    assert_eq!(e.classes.busy.low, 0.0);
    assert_eq!(e.classes.nmi.high, 1.0);
}

#[test]
fn the_window_starts_inside_a_batch() {
    let mut p = SampledProfile::new(classifier(), 104);
    p.add_batch(&plain(
        &[(0x8000, 2), (0x8002, 2), (0x9000, 2), (0x9002, 2)],
        100,
    ));
    let e = p.estimates(200);
    assert_eq!(e.observations, 1);
    assert!(e.routine(Some(0x8000)).is_none());
    // The kept part is a third of the probe.
    assert!((e.routine(Some(0x9000)).expect("B").share_of_work.value - 1.0).abs() < 1e-12);
}

#[test]
fn wait_loops_are_found_from_any_of_their_instructions() {
    let mut w = WaitLoops::new(code);
    let l = WaitLoop {
        head: 0xC000,
        len: 6,
    };
    for pc in [0xC000, 0xC002, 0xC004] {
        assert_eq!(w.loop_of(pc), Some(l), "{pc:04X}");
    }
    // Inside an operand, or after the loop: not in it.
    assert_eq!(w.loop_of(0xC001), None);
    assert_eq!(w.loop_of(0xC006), None);
    assert_eq!(w.loop_of(0x8000), None);
    assert_eq!(w.at_head(0xC000), Some(6));
    assert_eq!(w.at_head(0xC002), None);
    // Unknown bytes (RAM): no loop.
    assert_eq!(WaitLoops::none().loop_of(0x0300), None);
}

#[test]
fn prg_bytes_by_code_address() {
    // NROM-128: 16 KiB mirrored at $8000 and $C000.
    let mut prg = vec![0u8; 0x4000];
    prg[..6].copy_from_slice(&[0xA5, 0x10, 0xC5, 0x11, 0xF0, 0xFA]);
    let mut w = WaitLoops::from_prg(prg);
    assert_eq!(w.at_head(0x8000), Some(6));
    assert_eq!(w.at_head(0xC000), Some(6));
    assert_eq!(w.loop_of(0xC004).map(|l| l.head), Some(0xC000));
    assert_eq!(w.at_head(0x0300), None);
    // A banked code address names its PRG offset.
    let mut prg = vec![0u8; 0x20000];
    prg[0x4010..0x4015].copy_from_slice(&[0x2C, 0x02, 0x20, 0x10, 0xFB]);
    let banks = {
        let mut b = emu::mapper::banks::Banks::new();
        b.prg = [0x4000, 0x6000, 0x1C000, 0x1E000];
        b
    };
    let head = emu::code_addr::code_address(0x20000, &banks, 0x8010);
    let mut w = WaitLoops::from_prg(prg);
    assert_eq!(w.at_head(head), Some(5));
    assert_eq!(
        w.loop_of(emu::code_addr::advance(head, 3)).map(|l| l.head),
        Some(head)
    );
}

#[test]
fn a_routine_called_from_nmi_code_is_nmi_code_through_the_calls() {
    let mut p = SampledProfile::new(classifier(), 0);
    // Batch 1: the NMI's entry, its routine calls A ($8000).
    p.add_batch(&[
        with_cycle(Sample::interrupt(0xA000), 0),
        with_cycle(Sample::control(0xA000, 3, Flow::Call, 0x8000), 7),
        with_cycle(Sample::plain(0x8000, 2), 13),
    ]);
    // Batch 2: no event; A calls B ($9000).
    p.add_batch(&[
        with_cycle(Sample::plain(0x8010, 2), 100),
        with_cycle(Sample::control(0x8012, 3, Flow::Call, 0x9000), 102),
        with_cycle(Sample::plain(0x9000, 2), 108),
    ]);
    // Batch 3: wholly inside B, no event: NMI code (called from A, called
    // from the NMI's routine).
    p.add_batch(&plain(&[(0x9002, 2), (0x9004, 2), (0x9006, 2)], 200));
    assert_eq!(p.routine_context(Some(0x9000)), Some([0.0, 1.0, 0.0]));
    let e = p.estimates(300);
    assert!((e.classes.nmi.value - 1.0).abs() < 1e-12, "{e:?}");
    assert_eq!(e.unresolved, 0.0);
}
