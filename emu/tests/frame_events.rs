//! The frame-event log (`emu::frame_events`) on small hand-assembled
//! programs whose events and wait-loop cycles are worked out by hand from
//! the 6502's cycle counts: each program runs on the interpreter and on the
//! translator (idle-loop skipping on and off, with and without the truth
//! recorder and the sampler), every run must give the expected log, and all
//! runs the same log and the same counters at every frame's end.

use emu::frame_events::{EventKind, FlowEvent, Stamp};
use emu::nes::Engine;
use emu::sampling::{SampleCapture, Spacing};
use emu::{Cartridge, Nes};

/// Cycles of the reset sequence at power-on: the first instruction starts
/// at this cycle count.
const RESET: u64 = 7;

/// An NROM-256 image whose PRG ROM holds `code` (each at its CPU address),
/// NOPs elsewhere, reset at $8000 and NMI and IRQ at `nmi` and `irq`.
fn nrom(code: &[(u16, &[u8])], nmi: u16, irq: u16) -> Vec<u8> {
    let mut prg = vec![0xEA; 0x8000];
    for (at, bytes) in code {
        let o = (*at - 0x8000) as usize;
        prg[o..o + bytes.len()].copy_from_slice(bytes);
    }
    prg[0x7FFA..0x7FFC].copy_from_slice(&nmi.to_le_bytes());
    prg[0x7FFC..0x7FFE].copy_from_slice(&0x8000u16.to_le_bytes());
    prg[0x7FFE..].copy_from_slice(&irq.to_le_bytes());
    let mut image = vec![b'N', b'E', b'S', 0x1A, 2, 1, 0, 0];
    image.resize(16, 0);
    image.extend_from_slice(&prg);
    image.resize(image.len() + 0x2000, 0);
    image
}

/// What one run logged: every event, and the counters at each frame's end.
#[derive(Debug, PartialEq, Eq)]
struct Log {
    events: Vec<FlowEvent>,
    frame_ends: Vec<Stamp>,
}

/// A way to run a program (see [`configurations`]).
#[derive(Debug, Clone, Copy)]
struct Config {
    engine: Engine,
    idle_skip: bool,
    truth: bool,
    sampler: bool,
}

/// The interpreter first (the reference), then the translator with
/// idle-loop skipping on and off, alone and with the other probes.
fn configurations() -> Vec<Config> {
    let mut out = vec![Config {
        engine: Engine::Interpreter,
        idle_skip: true,
        truth: false,
        sampler: false,
    }];
    for idle_skip in [true, false] {
        for (truth, sampler) in [(false, false), (true, false), (false, true), (true, true)] {
            out.push(Config {
                engine: Engine::Translator,
                idle_skip,
                truth,
                sampler,
            });
        }
    }
    out
}

fn run_with(image: &[u8], frames: u64, config: Config, watch: &[u32]) -> Log {
    let mut nes = Nes::new(Cartridge::from_bytes(image).expect("a valid image"));
    nes.set_engine(config.engine);
    nes.set_idle_skip(config.idle_skip);
    if config.truth {
        nes.record_flow();
    }
    if config.sampler {
        // Batches of 5 every 1000 cycles on average: many fall in the
        // skipped iterations of an idle loop.
        let cycles = nes.cycles();
        nes.attach_sampler(SampleCapture::emulated(
            1000,
            Spacing::Uniform,
            0,
            7,
            5,
            cycles,
        ));
    }
    nes.record_events();
    nes.watch_entries(watch);
    let mut log = Log {
        events: Vec::new(),
        frame_ends: Vec::new(),
    };
    let mut drained = Vec::new();
    for _ in 0..frames {
        nes.run_frame();
        nes.drain_events(&mut drained);
        log.events.extend_from_slice(&drained);
        let stamp = nes.stamp();
        assert_eq!(stamp.cycle, nes.cycles());
        log.frame_ends.push(stamp);
        if let Some(s) = nes.sampler_mut() {
            s.take_batches_into(&mut emu::sampling::Batches::default());
        }
    }
    log
}

/// The interpreter's log, after checking that every other configuration
/// logs exactly the same.
fn run(image: &[u8], frames: u64) -> Log {
    run_watching(image, frames, &[])
}

/// [`run`] with `watch` watched for falling into.
fn run_watching(image: &[u8], frames: u64, watch: &[u32]) -> Log {
    let mut configs = configurations().into_iter();
    let reference = configs.next().expect("the interpreter");
    let expected = run_with(image, frames, reference, watch);
    for config in configs {
        let log = run_with(image, frames, config, watch);
        assert_eq!(log.frame_ends, expected.frame_ends, "{config:?}");
        assert_eq!(log.events, expected.events, "{config:?}");
    }
    expected
}

/// Checks the idle cycles of a wait loop of `period` cycles (DMA aside)
/// whose iterations start at cycle `start` (with `start_dma` DMA cycles so
/// far) at each of `cuts`, in cycle order: a frame's end (its counters and
/// its cycle) or an interrupt entry (its counters and the cycle its `RTI`
/// retired). By the rule, the iterations complete at a cut are idle, not
/// the one it cut: neither its part before the cut nor its rest after it
/// (after the handler's `RTI`), after which the loop's iterations go on.
fn check_iterations(period: u64, start: u64, start_dma: u64, cuts: &[(Stamp, u64)]) {
    let (mut resume, mut resume_dma, mut idle) = (start, start_dma, 0);
    for (i, (at, back)) in cuts.iter().enumerate() {
        let dma = at.oam_dma + at.dmc_dma - resume_dma;
        let ran = at.cycle - resume - dma;
        let partial = ran % period;
        idle += ran - partial;
        assert_eq!(
            at.idle, idle,
            "cut {i} at {at:?}: {ran} cycles since {resume}"
        );
        let rest = if partial > 0 { period - partial } else { 0 };
        resume = back + rest;
        resume_dma = at.oam_dma + at.dmc_dma;
    }
}

fn event(
    kind: EventKind,
    pc: u32,
    target: u32,
    sp: u8,
    cycle: u64,
) -> (EventKind, u32, u32, u8, u64) {
    (kind, pc, target, sp, cycle)
}

fn short(events: &[FlowEvent]) -> Vec<(EventKind, u32, u32, u8, u64)> {
    events
        .iter()
        .map(|e| (e.kind, e.pc, e.target, e.sp, e.at.cycle))
        .collect()
}

/// `JSR` to a routine of one `LDA #`, `RTS` back to a `JMP *`: a call at
/// 7 + 6, a return at 13 + 2 + 6; the `JMP` back to itself is a wait loop
/// (not logged), all of whose cycles from 21 on are idle.
#[test]
fn a_call_and_its_return() {
    let image = nrom(
        &[
            (0x8000, &[0x20, 0x10, 0x80]), // JSR $8010
            (0x8003, &[0x4C, 0x03, 0x80]), // JMP $8003
            (0x8010, &[0xA9, 0x01, 0x60]), // LDA #1 ; RTS
        ],
        0x8003,
        0x8003,
    );
    let log = run(&image, 3);
    assert_eq!(
        short(&log.events),
        vec![
            event(EventKind::Call, 0x8000, 0x8010, 0xFB, RESET + 6),
            event(EventKind::Return, 0x8012, 0x8003, 0xFD, RESET + 14),
        ]
    );
    assert_eq!(log.events[1].at.idle, 0);
    for end in &log.frame_ends {
        // Every iteration of the 3-cycle JMP is complete at an instruction
        // boundary.
        assert_eq!(end.idle, end.cycle - (RESET + 14), "{end:?}");
        assert_eq!((end.oam_dma, end.dmc_dma, end.controller_reads), (0, 0, 0));
    }
}

/// Falling into a watched entry, and leaving a loop by falling into
/// one, log `FallInto`; a branch back to a watched entry (a loop to the
/// routine's own start) does not. The routine at $8010: `LDX #3` (2)
/// falls into $8012 at 13 + 2; `DEX ; BNE $8012` (2 + 3, twice, then
/// 2 + 2) falls into $8015 at 15 + 14; its `RTS` returns at 29 + 6.
#[test]
fn falling_into_watched_entries() {
    let image = nrom(
        &[
            (0x8000, &[0x20, 0x10, 0x80]),       // JSR $8010
            (0x8003, &[0x4C, 0x03, 0x80]),       // JMP $8003
            (0x8010, &[0xA2, 0x03]),             // LDX #3
            (0x8012, &[0xCA, 0xD0, 0xFD, 0x60]), // DEX ; BNE $8012 ; RTS
        ],
        0x8003,
        0x8003,
    );
    let log = run_watching(&image, 2, &[0x8012, 0x8015]);
    assert_eq!(
        short(&log.events),
        vec![
            event(EventKind::Call, 0x8000, 0x8010, 0xFB, RESET + 6),
            event(EventKind::FallInto, 0x8010, 0x8012, 0xFB, RESET + 8),
            event(EventKind::FallInto, 0x8013, 0x8015, 0xFB, RESET + 22),
            event(EventKind::Return, 0x8015, 0x8003, 0xFD, RESET + 28),
        ]
    );
    // Unwatched, the same program logs only the call and the return.
    assert_eq!(run(&image, 2).events.len(), 2);
}

/// A branch in RAM whose offset the program rewrites before every call
/// (issue 45, fuzz seed 9011487): after eight rewrites the translator reads
/// the offset live, and rewriting it drops the block no more, so a branch
/// translated while it went elsewhere must still log `FallInto` when the
/// new offset takes it forward into a watched entry. ROM fills
/// $0302-$0321 with NOPs, puts an RTS at $0322 and `BCC` at $0300, then
/// calls $0300 with the offsets 0 to 15 (`CLC` first, so it is taken):
/// offsets 0-9 land before the watched $030C and the NOPs fall into it,
/// offset 10 branches into it, 11-15 land past it.
#[test]
fn a_rewritten_branch_offset_into_a_watched_entry() {
    let image = nrom(
        &[
            (0x8000, &[0xA9, 0xEA, 0xA2, 0x1F]),       // LDA #$EA ; LDX #$1F
            (0x8004, &[0x9D, 0x02, 0x03]),             // fill: STA $0302,X
            (0x8007, &[0xCA, 0x10, 0xFA]),             // DEX ; BPL fill
            (0x800A, &[0xA9, 0x60, 0x8D, 0x22, 0x03]), // LDA #$60 ; STA $0322
            (0x800F, &[0xA9, 0x90, 0x8D, 0x00, 0x03]), // LDA #$90 ; STA $0300
            (0x8014, &[0xA0, 0x00]),                   // LDY #0
            (0x8016, &[0x8C, 0x01, 0x03]),             // call: STY $0301
            (0x8019, &[0x18, 0x20, 0x00, 0x03]),       // CLC ; JSR $0300
            (0x801D, &[0xC8, 0xC0, 0x10, 0xD0, 0xF4]), // INY ; CPY #16 ; BNE call
            (0x8022, &[0x4C, 0x22, 0x80]),             // JMP *
        ],
        0x8022,
        0x8022,
    );
    let log = run_watching(&image, 1, &[0x030C]);
    let into: Vec<u32> = log
        .events
        .iter()
        .filter(|e| e.kind == EventKind::FallInto)
        .map(|e| {
            assert_eq!(e.target, 0x030C);
            e.pc
        })
        .collect();
    let mut expected = vec![0x030B; 10];
    expected.push(0x0300);
    assert_eq!(into, expected);
}

/// A `JMP` into a wait loop from outside it is logged; the loop's
/// iterations (`LDA $10 ; BEQ` = 3 + 3 cycles) are idle, but for the one
/// the frame's end cuts (then its `LDA` ran, 3 cycles, and the `BEQ` after
/// is not counted either).
#[test]
fn a_jump_into_a_wait_loop() {
    let image = nrom(
        &[
            (0x8000, &[0x4C, 0x10, 0x80]),       // JMP $8010
            (0x8010, &[0xA5, 0x10, 0xF0, 0xFC]), // LDA $10 ; BEQ $8010
        ],
        0x8000,
        0x8000,
    );
    let log = run(&image, 3);
    assert_eq!(
        short(&log.events),
        vec![event(EventKind::Jump, 0x8000, 0x8010, 0xFD, RESET + 3)]
    );
    let cuts: Vec<_> = log.frame_ends.iter().map(|e| (*e, e.cycle)).collect();
    check_iterations(6, RESET + 3, 0, &cuts);
}

/// A wait loop entered by falling into it (`LDA #0` before it): the
/// translator's block for `LDA #0` ends before the loop's head, so both
/// engines count every iteration from cycle 7 + 2.
#[test]
fn a_wait_loop_entered_by_fall_through() {
    let image = nrom(
        &[(0x8000, &[0xA9, 0x00, 0xA5, 0x10, 0xF0, 0xFC])], // LDA #0 ; LDA $10 ; BEQ $8002
        0x8000,
        0x8000,
    );
    let log = run(&image, 2);
    assert!(log.events.is_empty());
    assert!(log.frame_ends[0].idle > 25_000, "{:?}", log.frame_ends[0]);
    let cuts: Vec<_> = log.frame_ends.iter().map(|e| (*e, e.cycle)).collect();
    check_iterations(6, RESET + 2, 0, &cuts);
}

/// `BIT $2002 ; BPL` waits for the vertical blank (4 + 3 cycles an
/// iteration); the iteration that sees it leaves (4 + 2) and is not idle,
/// nor is one cut by the frame's end (the visible frame ends two scanlines
/// before the vertical blank begins).
#[test]
fn a_vblank_poll() {
    let image = nrom(
        &[
            (0x8000, &[0x2C, 0x02, 0x20, 0x10, 0xFB]), // BIT $2002 ; BPL $8000
            (0x8005, &[0x4C, 0x00, 0x90]),             // JMP $9000
            (0x9000, &[0x4C, 0x00, 0x90]),             // JMP $9000
        ],
        0x9000,
        0x9000,
    );
    let log = run(&image, 2);
    let [jump] = &log.events[..] else {
        panic!("one jump: {:?}", log.events);
    };
    assert_eq!(
        (jump.kind, jump.pc, jump.target),
        (EventKind::Jump, 0x8005, 0x9000)
    );
    let waited = jump.at.cycle - 3 - 6 - RESET;
    assert_eq!(jump.at.idle % 7, 0);
    // The frame's end cut one iteration, or came at its end.
    let lost = waited - jump.at.idle;
    assert!(lost == 0 || lost == 7, "lost {lost} of {waited}");
    let frame_end = &log.frame_ends[0];
    assert!(frame_end.cycle < jump.at.cycle);
    // The second JMP * is idle from its first iteration on.
    let last = &log.frame_ends[1];
    assert_eq!(last.idle - jump.at.idle, last.cycle - jump.at.cycle);
}

/// With NMIs on, a wait loop (`LDA $10 ; BEQ`, 6 cycles) whose handler is
/// an `RTI`: each NMI entry is logged at the cycle its sequence begins
/// (pc = where it returns to) and its `RTI` 7 + 6 cycles later. The
/// iteration it cuts (after the `LDA`: it returns to the `BEQ`) is not idle,
/// nor the `BEQ` it returns to; an NMI after the `BEQ` cuts nothing.
#[test]
fn an_nmi_during_a_wait_loop() {
    let image = nrom(
        &[
            (0x8000, &[0xA9, 0x80, 0x8D, 0x00, 0x20]), // LDA #$80 ; STA $2000
            (0x8005, &[0xA5, 0x10, 0xF0, 0xFC]),       // LDA $10 ; BEQ $8005
            (0x8100, &[0x40]),                         // RTI
        ],
        0x8100,
        0x8100,
    );
    let log = run(&image, 4);
    let mut cuts: Vec<_> = log.frame_ends.iter().map(|e| (*e, e.cycle)).collect();
    let mut cut_after_lda = 0;
    for pair in log.events.chunks(2) {
        let [nmi, rti] = pair else {
            panic!("an NMI and its RTI: {pair:?}");
        };
        assert_eq!(
            (nmi.kind, nmi.target, nmi.sp),
            (EventKind::Nmi, 0x8100, 0xFA)
        );
        assert_eq!(
            (rti.kind, rti.pc, rti.target, rti.sp),
            (EventKind::ReturnInterrupt, 0x8100, nmi.pc, 0xFD)
        );
        assert_eq!(rti.at.cycle, nmi.at.cycle + 13);
        assert_eq!(rti.at.idle, nmi.at.idle);
        assert!(
            nmi.pc == 0x8005 || nmi.pc == 0x8007,
            "NMI at {:04X}",
            nmi.pc
        );
        cut_after_lda += (nmi.pc == 0x8007) as u32;
        cuts.push((nmi.at, rti.at.cycle));
    }
    // The first vertical blank comes after the first frame's end.
    assert_eq!(log.events.len(), 6, "one NMI a frame");
    assert!(cut_after_lda > 0, "an NMI cut an iteration");
    cuts.sort_by_key(|(at, _)| at.cycle);
    check_iterations(6, RESET + 6, 0, &cuts);
}

/// An OAM DMA started in a routine halts the CPU on the next read (the
/// `RTS`'s opcode fetch) for 513 or 514 cycles, counted as OAM DMA and
/// inside the routine's cycles.
#[test]
fn an_oam_dma_inside_a_routine() {
    let image = nrom(
        &[
            (0x8000, &[0x20, 0x10, 0x80]),                   // JSR $8010
            (0x8003, &[0x4C, 0x03, 0x80]),                   // JMP $8003
            (0x8010, &[0xA9, 0x02, 0x8D, 0x14, 0x40, 0x60]), // LDA #2 ; STA $4014 ; RTS
        ],
        0x8003,
        0x8003,
    );
    let log = run(&image, 2);
    let [call, ret] = &log.events[..] else {
        panic!("a call and a return: {:?}", log.events);
    };
    assert_eq!((call.kind, ret.kind), (EventKind::Call, EventKind::Return));
    assert_eq!(call.at.cycle, RESET + 6);
    assert_eq!(call.at.oam_dma, 0);
    let dma = ret.at.oam_dma;
    assert!(dma == 513 || dma == 514, "{dma}");
    assert_eq!(ret.at.cycle - call.at.cycle, 2 + 4 + dma + 6);
    assert_eq!(ret.at.dmc_dma, 0);
    for end in &log.frame_ends {
        assert_eq!(end.oam_dma, dma);
        assert_eq!(end.idle, end.cycle - ret.at.cycle);
    }
}

/// DMC sample fetches while the CPU waits in a loop (`LDA $10 ; BEQ`,
/// 6 cycles): each halts the CPU 3 or 4 cycles, counted as DMC DMA and
/// left out of the idle cycles, which stay whole iterations.
#[test]
fn dmc_fetches_during_a_wait_loop() {
    let image = nrom(
        &[
            // LDA #$0F ; STA $4010 (loop, fastest rate) ; LDA #$FF ;
            // STA $4013 (longest sample) ; LDA #$10 ; STA $4015 (start)
            (
                0x8000,
                &[
                    0xA9, 0x4F, 0x8D, 0x10, 0x40, 0xA9, 0xFF, 0x8D, 0x13, 0x40, 0xA9, 0x10, 0x8D,
                    0x15, 0x40,
                ],
            ),
            (0x800F, &[0x20, 0x20, 0x80]),       // JSR $8020
            (0x8012, &[0xA5, 0x10, 0xF0, 0xFC]), // LDA $10 ; BEQ $8012
            (0x8020, &[0x60]),                   // RTS
        ],
        0x8012,
        0x8012,
    );
    let log = run(&image, 3);
    let [_, ret] = &log.events[..] else {
        panic!("a call and a return: {:?}", log.events);
    };
    assert_eq!(ret.target, 0x8012);
    let cuts: Vec<_> = log.frame_ends.iter().map(|e| (*e, e.cycle)).collect();
    check_iterations(6, ret.at.cycle, ret.at.dmc_dma, &cuts);
    let last = log.frame_ends.last().unwrap();
    assert_eq!(last.oam_dma, 0);
    // A fetch every 8 x 54 cycles at the fastest rate, 3 or 4 cycles each.
    let fetches = (last.cycle - ret.at.cycle) / 432;
    assert!(
        (3 * fetches..=4 * (fetches + 1)).contains(&(last.dmc_dma - ret.at.dmc_dma)),
        "{last:?}"
    );
}

/// Reading $4016 and $4017 counts; an OAM DMA from page $40 reads the
/// registers' addresses but not them (the CPU's own address is in ROM), so
/// it does not (the DMA's own cycles on them: `dma::cycles`' tests).
#[test]
fn controller_reads_are_the_cpus() {
    let image = nrom(
        &[
            // LDA #$40 ; STA $4014 (DMA from page $40: reads the registers
            // only with the CPU's own address on them) ; LDA $4016 ;
            // LDA $4017 ; JMP *
            (
                0x8000,
                &[
                    0xA9, 0x40, 0x8D, 0x14, 0x40, 0xAD, 0x16, 0x40, 0xAD, 0x17, 0x40, 0x4C, 0x0B,
                    0x80,
                ],
            ),
        ],
        0x800B,
        0x800B,
    );
    let log = run(&image, 1);
    assert_eq!(log.frame_ends[0].controller_reads, 2);
    assert!([513, 514].contains(&log.frame_ends[0].oam_dma));
}

/// `NOP ; JMP` back to it: a wait loop closed by a jump, whose jumps are
/// not logged; a `JMP` from outside to the same head is.
#[test]
fn a_jump_closing_a_wait_loop_is_not_logged() {
    let image = nrom(
        &[
            (0x8000, &[0x4C, 0x10, 0x80]),       // JMP $8010
            (0x8010, &[0xEA, 0x4C, 0x10, 0x80]), // NOP ; JMP $8010
        ],
        0x8010,
        0x8010,
    );
    let log = run(&image, 2);
    assert_eq!(
        short(&log.events),
        vec![event(EventKind::Jump, 0x8000, 0x8010, 0xFD, RESET + 3)]
    );
    let cuts: Vec<_> = log.frame_ends.iter().map(|e| (*e, e.cycle)).collect();
    check_iterations(5, RESET + 3, 0, &cuts);
}
