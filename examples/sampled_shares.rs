//! Issue 43's check of the frame-time profile from the sampler alone
//! (`profiler::frame_profile::sampled`) against an exact reference, on
//! real workloads with their movies, at X = 3, 10 and 30 ms.
//!
//! The reference is computed here, instruction by instruction on the
//! interpreter (`Nes::step`, reading `Nes::cycles` before and after), with
//! the rules the exact side follows: an instruction's own cycles from the
//! 6502's cycle table (base cycles, a page crossed by an indexed read, a
//! branch taken and crossing a page), the rest of its step DMA; a wait
//! loop's complete iterations idle, as `emu::frame_events` counts them
//! (from the head back to it, cut by an interrupt or the frame's end); NMI
//! and IRQ context from the step kinds until the stack pointer rises above
//! the frame the entry pushed (by its RTI, or by a handler that drops the
//! frame and jumps, as fff's does; a BRK's handler in its caller's
//! context). fff also moves the stack pointer with `TXS` to stream data,
//! so its split between busy and NMI depends on the rule: matching RTIs
//! alone, it is 0.1 % busy and 54 % NMI; by the stack pointer, 37 % and
//! 18 %. Routines: every JSR target, interrupt
//! handler and the reset entry seen in the run; an instruction belongs to
//! the nearest entry at or below it in the same bank. The sampled side is
//! given the same routines and NMI handlers, and reads only the batches
//! (the three rates' samplers are driven from the same steps, so they see
//! one run; the 3 ms one is also attached to the machine, as `profile`
//! attaches it, and its batches are checked to be identical).
//!
//! Usage: `sampled_shares [--frames N] [--seed S] [--verbose] WORKLOAD...`
//! where WORKLOAD is a ROM's file stem: `roms-test/NAME.nes`, else
//! `$NESPROF_ROMS/games/NAME.nes` (default `../shared/roms`), with
//! `movies/NAME.fm2`.
//!
//! Per workload and rate it prints: batches; the worst |estimate − exact|
//! over routines above 2 % of the work (busy + NMI + IRQ cycles, the
//! routine table's "busy"), in points; how many routines above 1 % have
//! their interval around the exact share; the idle share's error and
//! whether its interval covers it; the busy, NMI and DMA shares' errors;
//! the share of cycles whose context the sampler could not tell; the
//! per-frame intervals' coverage of each frame's exact busy, idle and NMI
//! cycles; and the raw-cycle ratio's worst routine error (each batch's
//! cycles summed, not normalised: what the estimator avoids).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use emu::code_addr;
use emu::cpu::opcodes::{Mode, OPCODES};
use emu::movie::{Movie, Replay};
use emu::nes::{Engine, Nes};
use emu::sampling::{Retired, SampleCapture};
use emu::{wait_loop, StepKind};
use gfc::Sample;
use profiler::frame_profile::sampled::{
    Class, Classifier, Estimates, FrameEstimate, SampledProfile, WaitLoops,
};
use profiler::session::{self, ProfileSettings};

const RATES_MS: [f64; 3] = [3.0, 10.0, 30.0];

/// Base cycles of every opcode (NESdev wiki "6502 cycle times").
#[rustfmt::skip]
const BASE_CYCLES: [u8; 256] = [
    7,6,2,8,3,3,5,5,3,2,2,2,4,4,6,6, 2,5,2,8,4,4,6,6,2,4,2,7,4,4,7,7,
    6,6,2,8,3,3,5,5,4,2,2,2,4,4,6,6, 2,5,2,8,4,4,6,6,2,4,2,7,4,4,7,7,
    6,6,2,8,3,3,5,5,3,2,2,2,3,4,6,6, 2,5,2,8,4,4,6,6,2,4,2,7,4,4,7,7,
    6,6,2,8,3,3,5,5,4,2,2,2,5,4,6,6, 2,5,2,8,4,4,6,6,2,4,2,7,4,4,7,7,
    2,6,2,6,3,3,3,3,2,2,2,2,4,4,4,4, 2,6,2,6,4,4,4,4,2,5,2,5,5,5,5,5,
    2,6,2,6,3,3,3,3,2,2,2,2,4,4,4,4, 2,5,2,5,4,4,4,4,2,4,2,4,4,4,4,4,
    2,6,2,8,3,3,5,5,2,2,2,2,4,4,6,6, 2,5,2,8,4,4,6,6,2,4,2,7,4,4,7,7,
    2,6,2,8,3,3,5,5,2,2,2,2,4,4,6,6, 2,5,2,8,4,4,6,6,2,4,2,7,4,4,7,7,
];

/// An instruction's own cycles, from the machine before it runs: its base
/// cycles, plus one for an indexed read crossing a page (a branch's are
/// worked out where it is known where it went).
fn own_cycles(nes: &Nes, pc: u16, opcode: u8) -> u64 {
    let info = &OPCODES[opcode as usize];
    let mut cycles = BASE_CYCLES[opcode as usize] as u64;
    let regs = nes.cpu_state();
    let lo = nes.peek(pc.wrapping_add(1));
    let hi = nes.peek(pc.wrapping_add(2));
    let reads = matches!(
        info.mnemonic,
        "ADC"
            | "AND"
            | "CMP"
            | "EOR"
            | "LDA"
            | "LDX"
            | "LDY"
            | "ORA"
            | "SBC"
            | "LAX"
            | "NOP"
            | "LAS"
    );
    let crosses =
        |base: u16, index: u8| (base & 0xFF00) != (base.wrapping_add(index as u16) & 0xFF00);
    match info.mode {
        Mode::AbsoluteX if reads => cycles += crosses(u16::from_le_bytes([lo, hi]), regs.x) as u64,
        Mode::AbsoluteY if reads => cycles += crosses(u16::from_le_bytes([lo, hi]), regs.y) as u64,
        Mode::IndirectY if reads => {
            let base =
                u16::from_le_bytes([nes.peek(lo as u16), nes.peek(lo.wrapping_add(1) as u16)]);
            cycles += crosses(base, regs.y) as u64;
        }
        _ => {}
    }
    cycles
}

const MAIN: usize = 0;
const NMI: usize = 1;
const IRQ: usize = 2;

/// The exact reference of one run.
#[derive(Default)]
struct Exact {
    /// Per code address: own non-idle cycles in each context.
    work: HashMap<u32, [u64; 3]>,
    idle: u64,
    dma: u64,
    total: u64,
    /// Per frame: [busy, idle, NMI, IRQ, DMA] cycles.
    frames: Vec<[u64; 5]>,
    frame_ends: Vec<u64>,
    entries: BTreeSet<u32>,
    nmi_handlers: HashSet<u32>,
    /// Steps shorter than the cycle table says (the table's errors).
    model_errors: u64,
    /// Interrupt entries while a handler ran (nested).
    nested: u64,
}

/// A wait-loop iteration in progress: head, length, and its instructions'
/// (code address, context, own cycles).
struct Iteration {
    head: u32,
    len: u16,
    parts: Vec<(u32, usize, u64)>,
}

/// The estimator's expectation under the sampler's design, computed
/// exactly from every step (no sampling noise): each possible batch start
/// k weighted by its probability (the cycles of the step before it, at
/// most `STALL_CYCLES`), its first `WINDOW` observations divided by a
/// proxy of that step's cycles — the window's mean own cycles times
/// `WINDOW` (the estimator: each batch normalised by its own cycles), 1
/// (raw cycle sums), or the mean of its first q observations. Gives each
/// code address's expected share of the own (non-DMA) cycles, to set
/// against the exact share: the estimators' bias, apart from noise.
struct Design {
    /// Recent steps: (code address, own cycles, cycles, coefficient sums
    /// per proxy).
    ring: std::collections::VecDeque<(u32, f64, f64, [f64; PROXIES])>,
    /// Per code address and proxy: Σ own × coefficient.
    by_pc: HashMap<u32, [f64; PROXIES]>,
    /// Exact own cycles per code address.
    exact: HashMap<u32, f64>,
}

const WINDOW: usize = 24;
const PROXIES: usize = 5;
const PROXY_NAMES: [&str; PROXIES] = ["normalised", "raw", "first 1", "first 4", "first 8"];

impl Design {
    fn new() -> Design {
        Design {
            ring: std::collections::VecDeque::new(),
            by_pc: HashMap::new(),
            exact: HashMap::new(),
        }
    }

    fn step(&mut self, pc: u32, cycles: u64) {
        let own = cycles.min(7) as f64;
        *self.exact.entry(pc).or_default() += own;
        self.ring
            .push_back((pc, own, cycles as f64, [0.0; PROXIES]));
        if self.ring.len() == WINDOW + 1 {
            // The window starting at ring[1], its start's probability the
            // cycles of ring[0].
            let w = self.ring[0].2.min(emu::sampling::STALL_CYCLES as f64);
            let owns: Vec<f64> = self.ring.iter().skip(1).map(|r| r.1).collect();
            let mean = |q: usize| owns[..q].iter().sum::<f64>() / q as f64;
            let proxies = [mean(WINDOW), 1.0, mean(1), mean(4), mean(8)];
            for r in self.ring.iter_mut().skip(1) {
                for (c, p) in r.3.iter_mut().zip(proxies) {
                    *c += w / p;
                }
            }
            let (pc, own, _, coef) = self.ring.pop_front().expect("full");
            let acc = self.by_pc.entry(pc).or_default();
            for (a, c) in acc.iter_mut().zip(coef) {
                *a += own * c;
            }
        }
    }
}

/// The nearest routine entry at or below `pc` in the same bank.
fn routine_of(entries: &BTreeSet<u32>, pc: u32) -> Option<u32> {
    entries.range(pc & !0xFFFF..=pc).next_back().copied()
}

/// Offers a step to a manually driven sampler, as `Nes::step` does.
fn offer(
    capture: &mut SampleCapture,
    kind: StepKind,
    code: u32,
    next: u32,
    target: u32,
    cycle: u64,
) {
    if !(capture.collecting() || capture.sample_next(cycle)) {
        return;
    }
    match kind {
        StepKind::Instruction(opcode) => {
            capture.record_instruction(code, opcode, next, target, cycle)
        }
        StepKind::Nmi | StepKind::Irq => capture.record(Retired {
            pc: next,
            opcode: None,
            next_pc: next,
            target: next,
            cycle,
        }),
        StepKind::Jammed => {}
    }
}

struct Run {
    exact: Exact,
    start: u64,
    end: u64,
    prg: Vec<u8>,
    /// Per rate: every batch, in order.
    batches: Vec<Vec<Vec<Sample>>>,
    attached_identical: bool,
    design: Option<Design>,
    /// With `--whole`: the estimator's idle share when each frame's every
    /// step is one batch (its classification alone, no sampling).
    whole_idle: Option<f64>,
}

fn run(
    rom: &[u8],
    movie: &Movie,
    frames: u64,
    seed: u64,
    design: bool,
    whole: bool,
) -> Result<Run, String> {
    let mut design = design.then(Design::new);
    let replay = Replay::new(rom, movie).map_err(|e| e.to_string())?;
    let mut nes = replay.power_on().map_err(|e| e.to_string())?;
    nes.set_engine(Engine::Interpreter);
    let frames = frames.min(replay.len());
    let start = nes.cycles();
    let settings = |ms: f64| ProfileSettings {
        interval_ms: ms,
        seed,
        ..ProfileSettings::default()
    };
    let (attached, _) = session::sampler(&settings(RATES_MS[0]), start);
    nes.attach_sampler(attached);
    let mut captures: Vec<SampleCapture> = RATES_MS
        .iter()
        .map(|&ms| session::sampler(&settings(ms), start).0)
        .collect();
    let mut batches: Vec<Vec<Vec<Sample>>> = vec![Vec::new(); RATES_MS.len()];
    let mut attached_batches: Vec<Vec<Sample>> = Vec::new();
    let mut exact = Exact::default();
    exact.entries.insert(nes.pc_code());
    let mut heads: HashMap<u32, Option<u16>> = HashMap::new();
    // Handler contexts: (context, or None for a BRK's handler; the stack
    // pointer just after the entry pushed its frame). A level ends when
    // the stack pointer rises above it: its frame was popped, by RTI or by
    // a handler that drops it and jumps (as fff's NMI handler does).
    let mut stack: Vec<(Option<usize>, u8)> = vec![(Some(MAIN), 0xFF)];
    let mut iteration: Option<Iteration> = None;
    let mut frame = [0u64; 5];
    let prg = nes.cartridge().prg_rom.clone();
    let mut whole = whole.then(|| {
        let classifier = Classifier::new(|_| None, |_| true, WaitLoops::from_prg(prg.clone()));
        (SampledProfile::new(classifier, start), Vec::<Sample>::new())
    });
    while nes.frame_count() < frames {
        replay.apply(&mut nes, frames).map_err(|e| e.to_string())?;
        if nes.frame_count() >= frames {
            break;
        }
        nes.begin_frame();
        while !nes.frame_done() {
            let pc = nes.pc();
            let code = nes.pc_code();
            let c0 = nes.cycles();
            let opcode = nes.peek(pc);
            let head = *heads.entry(code).or_insert_with(|| {
                wait_loop::at(pc, |a| {
                    nes.peek_code(code_addr::advance(code, a.wrapping_sub(pc)))
                })
            });
            // The cycle table needs the registers and memory before (a
            // branch's, which needs where it went, is worked out after).
            let base_own = own_cycles(&nes, pc, opcode);
            let kind = nes.step();
            let c1 = nes.cycles();
            let next = nes.pc_code();
            let d = c1 - c0;
            exact.total += d;
            if let Some(design) = design.as_mut() {
                let at = if matches!(kind, StepKind::Instruction(_)) {
                    code
                } else {
                    next
                };
                design.step(at, d);
            }
            let context = stack.iter().rev().find_map(|c| c.0).unwrap_or(MAIN);
            let target = match kind {
                StepKind::Instruction(op) if OPCODES[op as usize].mode == Mode::Relative => {
                    let t =
                        emu::disasm::branch_target(pc, nes.peek_code(code_addr::advance(code, 1)));
                    code_addr::advance(code, t.wrapping_sub(pc))
                }
                _ => next,
            };
            if let Some((_, frame_steps)) = whole.as_mut() {
                let opcode = match kind {
                    StepKind::Instruction(op) => Some(op),
                    _ => None,
                };
                let (pc, target) = if opcode.is_some() {
                    (code, target)
                } else {
                    (next, next)
                };
                frame_steps.push(profiler::convert::sample(&Retired {
                    pc,
                    opcode,
                    next_pc: next,
                    target,
                    cycle: c0,
                }));
            }
            for (capture, batches) in captures.iter_mut().zip(&mut batches) {
                offer(capture, kind, code, next, target, c0);
                if capture.has_batches() {
                    for b in capture.take_batches().iter() {
                        batches.push(profiler::convert::batch(b));
                    }
                }
            }
            let sp = nes.cpu_state().s;
            while stack.len() > 1 && sp > stack[stack.len() - 1].1 {
                stack.pop();
            }
            match kind {
                StepKind::Nmi | StepKind::Irq => {
                    let c = if kind == StepKind::Nmi { NMI } else { IRQ };
                    if c == NMI {
                        exact.nmi_handlers.insert(next);
                    }
                    exact.entries.insert(next);
                    iteration = None;
                    exact.nested += (stack.len() > 1) as u64;
                    let own = d.min(7);
                    exact.dma += d - own;
                    frame[4] += d - own;
                    exact.work.entry(next).or_default()[c] += own;
                    frame[[0, 2, 3][c]] += own;
                    stack.push((Some(c), nes.cpu_state().s));
                }
                StepKind::Instruction(op) => {
                    let mut own = if OPCODES[op as usize].mode == Mode::Relative {
                        let fall = pc.wrapping_add(2);
                        let went = code_addr::cpu_address(next);
                        let base = BASE_CYCLES[op as usize] as u64;
                        if went != fall {
                            base + 1 + ((fall & 0xFF00) != (went & 0xFF00)) as u64
                        } else {
                            base
                        }
                    } else {
                        base_own
                    };
                    if d < own {
                        exact.model_errors += 1;
                        own = d;
                    }
                    exact.dma += d - own;
                    frame[4] += d - own;
                    exact.work.entry(code).or_default()[context] += own;
                    frame[[0, 2, 3][context]] += own;
                    if op == 0x20 {
                        exact.entries.insert(next);
                    }
                    // Wait-loop iterations, as emu::frame_events counts them.
                    if let Some(len) = head {
                        iteration = Some(Iteration {
                            head: code,
                            len,
                            parts: Vec::new(),
                        });
                    }
                    if let Some(it) = iteration.as_mut() {
                        let inside = |a: u32| a >= it.head && a < it.head + it.len as u32;
                        if !inside(code) {
                            iteration = None;
                        } else {
                            it.parts.push((code, context, own));
                            if next == it.head {
                                for &(a, c, cycles) in &it.parts {
                                    exact.work.entry(a).or_default()[c] -= cycles;
                                    exact.idle += cycles;
                                    frame[[0, 2, 3][c]] -= cycles;
                                    frame[1] += cycles;
                                }
                                iteration = None;
                            } else if !inside(next) {
                                iteration = None;
                            }
                        }
                    }
                    if op == 0x00 {
                        stack.push((None, nes.cpu_state().s));
                    }
                }
                StepKind::Jammed => {
                    exact.work.entry(code).or_default()[context] += d;
                    frame[[0, 2, 3][context]] += d;
                }
            }
        }
        nes.sync();
        iteration = None;
        if let Some((profile, frame_steps)) = whole.as_mut() {
            profile.add_batch(frame_steps);
            frame_steps.clear();
        }
        exact.frames.push(frame);
        exact.frame_ends.push(nes.cycles());
        frame = [0; 5];
        if let Some(s) = nes.sampler_mut() {
            for b in s.take_batches().iter() {
                attached_batches.push(profiler::convert::batch(b));
            }
        }
    }
    if let Some(s) = nes.sampler_mut() {
        for b in s.take_batches().iter() {
            attached_batches.push(profiler::convert::batch(b));
        }
    }
    let attached_identical = attached_batches == batches[0];
    let end = nes.cycles();
    Ok(Run {
        exact,
        start,
        end: nes.cycles(),
        prg,
        batches,
        attached_identical,
        design,
        whole_idle: whole.map(|(p, _)| p.finish(end).classes.idle.value),
    })
}

/// The sampled profile of one rate's batches, with its frames.
type Contexts = HashMap<Option<u32>, Option<[f64; 3]>>;

fn sampled(run: &Run, rate: usize) -> (Estimates, Vec<FrameEstimate>, Contexts) {
    let entries = run.exact.entries.clone();
    let nmi = run.exact.nmi_handlers.clone();
    let classifier = Classifier::new(
        move |pc| routine_of(&entries, pc),
        move |h| nmi.contains(&h),
        WaitLoops::from_prg(run.prg.clone()),
    );
    let mut profile = SampledProfile::new(classifier, run.start);
    let mut frames = Vec::new();
    let ends = &run.exact.frame_ends;
    for batch in &run.batches[rate] {
        // Frames end once a batch starts after them (a batch across an
        // end comes in before it, as the feeder would order them).
        let first = batch.first().map_or(0, |s| s.cycle);
        while frames.len() < ends.len() && ends[frames.len()] <= first {
            frames.push(profile.end_frame(frames.len() as u64, ends[frames.len()]));
        }
        profile.add_batch(batch);
    }
    while frames.len() < ends.len() {
        frames.push(profile.end_frame(frames.len() as u64, ends[frames.len()]));
    }
    let contexts = run
        .exact
        .entries
        .iter()
        .map(|&e| (Some(e), profile.routine_context(Some(e))))
        .collect();
    (profile.finish(run.end), frames, contexts)
}

/// The raw-cycle ratio's routine shares of the work (no normalisation).
fn raw_ratio(run: &Run, rate: usize) -> HashMap<Option<u32>, f64> {
    let mut by: HashMap<Option<u32>, f64> = HashMap::new();
    let mut total = 0.0;
    for batch in &run.batches[rate] {
        for w in batch.windows(2) {
            let d = (w[1].cycle - w[0].cycle).min(7) as f64;
            *by.entry(routine_of(&run.exact.entries, w[0].pc))
                .or_default() += d;
            total += d;
        }
    }
    by.values_mut().for_each(|v| *v /= total);
    by
}

fn rom_path(name: &str) -> Option<PathBuf> {
    let test = PathBuf::from(format!("roms-test/{name}.nes"));
    if test.exists() {
        return Some(test);
    }
    let roms = std::env::var("NESPROF_ROMS").unwrap_or_else(|_| "../shared/roms".into());
    let game = Path::new(&roms).join("games").join(format!("{name}.nes"));
    game.exists().then_some(game)
}

fn main() {
    let mut frames = u64::MAX;
    let mut seed = 0u64;
    let mut verbose = false;
    let mut design = false;
    let mut whole = false;
    let mut names = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--frames" => {
                frames = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--frames N")
            }
            "--seed" => seed = args.next().and_then(|v| v.parse().ok()).expect("--seed S"),
            "--verbose" => verbose = true,
            "--design" => design = true,
            "--whole" => whole = true,
            _ => names.push(a),
        }
    }
    if names.is_empty() {
        eprintln!("usage: sampled_shares [--frames N] [--seed S] [--verbose] WORKLOAD...");
        std::process::exit(2);
    }
    println!(
        "| workload | X ms | batches | worst routine >2 % (pts) | routines >1 % covered | idle err (pts) | idle covered | busy err | NMI err | DMA err | unresolved % | frames covered busy/idle/NMI | raw-ratio worst (pts) | bar |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for name in names {
        let Some(path) = rom_path(&name) else {
            eprintln!("{name}: no ROM");
            continue;
        };
        let rom = std::fs::read(&path).expect("read the ROM");
        let movie = Movie::load(Path::new(&format!("movies/{name}.fm2"))).expect("the movie");
        let t = std::time::Instant::now();
        let run = match run(&rom, &movie, frames, seed, design, whole) {
            Ok(run) => run,
            Err(e) => {
                eprintln!("{name}: {e}");
                continue;
            }
        };
        let ex = &run.exact;
        let work_by_routine = {
            let mut by: HashMap<Option<u32>, u64> = HashMap::new();
            for (&pc, w) in &ex.work {
                *by.entry(routine_of(&ex.entries, pc)).or_default() += w.iter().sum::<u64>();
            }
            by
        };
        let class = |c: usize| ex.work.values().map(|w| w[c]).sum::<u64>();
        let (busy, nmi, irq) = (class(MAIN), class(NMI), class(IRQ));
        let work_total = (busy + nmi + irq) as f64;
        let total = ex.total as f64;
        eprintln!(
            "{name}: {} frames, {:.1} s; cycles {} (run {}), busy {:.2} % idle {:.2} % NMI {:.2} % IRQ {:.2} % DMA {:.3} %; {} routines; cycle-table errors {}; nested interrupts {}; attached sampler identical: {}",
            ex.frames.len(),
            t.elapsed().as_secs_f64(),
            ex.total,
            run.end - run.start,
            100.0 * busy as f64 / total,
            100.0 * ex.idle as f64 / total,
            100.0 * nmi as f64 / total,
            100.0 * irq as f64 / total,
            100.0 * ex.dma as f64 / total,
            ex.entries.len(),
            ex.model_errors,
            ex.nested,
            run.attached_identical,
        );
        if let Some(idle) = run.whole_idle {
            eprintln!(
                "{name}: idle share classifying every step (each frame one batch): {:.3} %, exact {:.3} %",
                100.0 * idle,
                100.0 * ex.idle as f64 / ex.total as f64
            );
        }
        if let Some(d) = &run.design {
            // Shares of the own cycles by routine: exact, and each proxy's
            // expectation.
            let mut exact: HashMap<Option<u32>, f64> = HashMap::new();
            let mut expected: HashMap<Option<u32>, [f64; PROXIES]> = HashMap::new();
            for (&pc, &own) in &d.exact {
                *exact.entry(routine_of(&ex.entries, pc)).or_default() += own;
            }
            for (&pc, acc) in &d.by_pc {
                let e = expected.entry(routine_of(&ex.entries, pc)).or_default();
                for (x, a) in e.iter_mut().zip(acc) {
                    *x += a;
                }
            }
            let exact_total: f64 = exact.values().sum();
            let mut totals = [0.0; PROXIES];
            for e in expected.values() {
                for (t, x) in totals.iter_mut().zip(e) {
                    *t += x;
                }
            }
            let mut worst = [0.0f64; PROXIES];
            let mut rows: Vec<(Option<u32>, f64)> =
                exact.iter().map(|(&r, &c)| (r, c / exact_total)).collect();
            rows.sort_by(|a, b| b.1.total_cmp(&a.1));
            for &(r, share) in &rows {
                if share < 0.02 {
                    continue;
                }
                let e = expected.get(&r).copied().unwrap_or_default();
                for p in 0..PROXIES {
                    worst[p] = worst[p].max((e[p] / totals[p] - share).abs());
                }
                if verbose {
                    eprintln!(
                        "  design {:>10} exact {:6.2} %{}",
                        r.map_or("-".into(), code_addr::label),
                        100.0 * share,
                        (0..PROXIES)
                            .map(|p| format!(
                                "  {} {:+.2}",
                                PROXY_NAMES[p],
                                100.0 * (e[p] / totals[p] - share)
                            ))
                            .collect::<String>()
                    );
                }
            }
            eprintln!(
                "{name}: design bias, worst over routines above 2 % of own cycles (points):{}",
                (0..PROXIES)
                    .map(|p| format!(" {} {:.2};", PROXY_NAMES[p], 100.0 * worst[p]))
                    .collect::<String>()
            );
        }
        for (rate, &ms) in RATES_MS.iter().enumerate() {
            let fed = std::time::Instant::now();
            let (est, frame_est, contexts) = sampled(&run, rate);
            if verbose {
                eprintln!(
                    "  {ms} ms: {} batches fed in {:.3} s ({:.1} µs a batch, frames and estimates included)",
                    run.batches[rate].len(),
                    fed.elapsed().as_secs_f64(),
                    1e6 * fed.elapsed().as_secs_f64() / run.batches[rate].len().max(1) as f64
                );
            }
            let raw = raw_ratio(&run, rate);
            let raw_work: f64 = raw.values().sum::<f64>();
            let mut worst = 0.0f64;
            let mut raw_worst = 0.0f64;
            let (mut above1, mut covered1) = (0, 0);
            let mut rows = Vec::new();
            for (&routine, &w) in &work_by_routine {
                let exact = w as f64 / work_total;
                if exact < 0.01 {
                    continue;
                }
                let e = est
                    .routine(routine)
                    .map(|r| r.share_of_work)
                    .unwrap_or_default();
                above1 += 1;
                covered1 += e.covers(exact) as u32;
                if exact >= 0.02 {
                    worst = worst.max((e.value - exact).abs());
                    let r = raw.get(&routine).copied().unwrap_or(0.0) / raw_work;
                    raw_worst = raw_worst.max((r - exact).abs());
                }
                rows.push((routine, exact, e));
            }
            // The raw ratio's denominator includes idle: compare it only
            // as a ratio among routines (its idle routine's share left in).
            let idle_exact = ex.idle as f64 / total;
            let idle = est.classes.idle;
            let err =
                |c: Class, exact: u64| 100.0 * (est.classes.get(c).value - exact as f64 / total);
            let frame_cover = |c: Class, i: usize| {
                let (mut n, mut k) = (0, 0);
                for (f, fe) in ex.frames.iter().zip(&frame_est) {
                    if fe.batches == 0 {
                        continue;
                    }
                    n += 1;
                    let e = fe.classes.get(c);
                    k += (e.low - 1.0 <= f[i] as f64 && f[i] as f64 <= e.high + 1.0) as u32;
                }
                if n == 0 {
                    0.0
                } else {
                    100.0 * k as f64 / n as f64
                }
            };
            let bar = worst <= 0.01
                && covered1 as f64 >= 0.9 * above1 as f64
                && (idle.value - idle_exact).abs() <= 0.01;
            println!(
                "| {name} | {ms} | {} | {:.2} | {covered1}/{above1} | {:+.2} | {} | {:+.2} | {:+.2} | {:+.3} | {:.1} | {:.0}/{:.0}/{:.0} % | {:.2} | {} |",
                est.batches,
                100.0 * worst,
                100.0 * (idle.value - idle_exact),
                if idle.covers(idle_exact) { "yes" } else { "no" },
                err(Class::Busy, busy),
                err(Class::Nmi, nmi),
                err(Class::Dma, ex.dma),
                100.0 * est.unresolved,
                frame_cover(Class::Busy, 0),
                frame_cover(Class::Idle, 1),
                frame_cover(Class::Nmi, 2),
                100.0 * raw_worst,
                if bar { "met" } else { "MISSED" },
            );
            if verbose {
                rows.sort_by(|a, b| b.1.total_cmp(&a.1));
                for (routine, exact, e) in rows {
                    let ctx = ex
                        .work
                        .iter()
                        .filter(|(&pc, _)| routine_of(&ex.entries, pc) == routine)
                        .fold([0u64; 3], |mut a, (_, w)| {
                            for c in 0..3 {
                                a[c] += w[c];
                            }
                            a
                        });
                    eprintln!(
                        "  {ms} ms {:>10} (NMI {:3.0} %, sampled {}) exact {:6.2} % est {:6.2} % [{:6.2}, {:6.2}]{}",
                        routine.map_or("-".into(), code_addr::label),
                        100.0 * ctx[NMI] as f64 / ctx.iter().sum::<u64>().max(1) as f64,
                        contexts.get(&routine).copied().flatten().map_or("?".into(), |m| format!("{:3.0} %", 100.0 * m[1])),
                        100.0 * exact,
                        100.0 * e.value,
                        100.0 * e.low,
                        100.0 * e.high,
                        if e.covers(exact) { "" } else { "  MISS" }
                    );
                }
                eprintln!(
                    "  {ms} ms classes: busy {:.2} [{:.2}, {:.2}] exact {:.2}; idle {:.2} [{:.2}, {:.2}] exact {:.2}; NMI {:.2} [{:.2}, {:.2}] exact {:.2}; DMA {:.3} [{:.3}, {:.3}] exact {:.3}",
                    100.0 * est.classes.busy.value, 100.0 * est.classes.busy.low, 100.0 * est.classes.busy.high, 100.0 * busy as f64 / total,
                    100.0 * idle.value, 100.0 * idle.low, 100.0 * idle.high, 100.0 * idle_exact,
                    100.0 * est.classes.nmi.value, 100.0 * est.classes.nmi.low, 100.0 * est.classes.nmi.high, 100.0 * nmi as f64 / total,
                    100.0 * est.classes.dma.value, 100.0 * est.classes.dma.low, 100.0 * est.classes.dma.high, 100.0 * ex.dma as f64 / total,
                );
            }
        }
    }
}
