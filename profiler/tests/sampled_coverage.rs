//! Do the sampled profile's 95 % intervals hold the exact shares about 95 %
//! of the time? A synthetic NES-like program whose every cycle is known —
//! routines of different cycles per instruction, visited in runs of loop
//! iterations whose number changes from frame to frame, a main loop that
//! waits for the NMI in a wait loop, an NMI handler with an OAM DMA and two
//! long subroutines — is run under the real sampler
//! (`emu::sampling::SampleCapture`, uniform intervals, as `profile` runs
//! it) for several seeds, its batches fed to `SampledProfile`, and each
//! interval compared with the exact share the program's run had.

use std::collections::{BTreeMap, VecDeque};

use emu::sampling::{Retired, SampleCapture, Spacing};
use profiler::frame_profile::sampled::{Class, Classifier, SampledProfile, WaitLoops};

const FRAME_CYCLES: u64 = 29_781;
/// Where in the frame the NMI comes (vblank).
const NMI_PHASE: u64 = 27_400;
const WAIT_HEAD: u32 = 0xC000;
const NMI_ENTRY: u32 = 0xA000;

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn below(state: &mut u64, n: u64) -> u64 {
    splitmix(state) % n.max(1)
}

#[derive(Clone, Copy, Debug)]
struct Instr {
    pc: u32,
    opcode: u8,
    next_pc: u32,
    target: u32,
    cycles: u64,
}

/// A routine: straight-line body at `entry`, closed by `BNE entry`, then
/// `RTS`.
struct Routine {
    entry: u32,
    /// (pc, opcode, cycles) of the body.
    body: Vec<(u32, u8, u64)>,
    branch_pc: u32,
    rts_pc: u32,
    /// Visits per frame (at most) and iterations per visit (at most).
    visits: u64,
    iterations: u64,
}

struct Program {
    memory: Vec<u8>,
    routines: Vec<Routine>,
    /// Indices of the NMI's subroutines in `routines`.
    music: usize,
    ppu: usize,
    entries: BTreeMap<u32, ()>,
}

impl Program {
    fn new(seed: u64) -> Program {
        let mut rng = seed;
        let mut memory = vec![0u8; 0x10000];
        let mut routines = Vec::new();
        let mut entries = BTreeMap::new();
        // Work routines: cycles per instruction from ~2.5 to ~5.5.
        let n = 8;
        for i in 0..n + 2 {
            let entry = if i < n {
                0x9000 + 0x100 * i as u32
            } else {
                0xB000 + 0x400 * (i - n) as u32
            };
            entries.insert(entry, ());
            let len = 6 + below(&mut rng, 20) as usize;
            let slow = i % 4; // 0 fast .. 3 slow
            let mut pc = entry;
            let mut body = Vec::new();
            for _ in 0..len {
                let (opcode, bytes) = match below(&mut rng, 3) {
                    0 => (0xE8u8, 1u32), // INX
                    1 => (0x85, 2),      // STA zp
                    _ => (0x8D, 3),      // STA abs
                };
                let cycles = match slow {
                    0 => 2 + below(&mut rng, 2),
                    1 => 2 + below(&mut rng, 4),
                    2 => 3 + below(&mut rng, 4),
                    _ => 4 + below(&mut rng, 4),
                };
                memory[pc as usize] = opcode;
                if opcode == 0x8D {
                    memory[pc as usize + 1] = 0x00;
                    memory[pc as usize + 2] = 0x03;
                }
                body.push((pc, opcode, cycles));
                pc += bytes;
            }
            let branch_pc = pc;
            memory[pc as usize] = 0xD0;
            memory[pc as usize + 1] = (entry as i64 - (pc as i64 + 2)) as u8;
            let rts_pc = pc + 2;
            memory[rts_pc as usize] = 0x60;
            let (visits, iterations) = if i < n {
                (1 + below(&mut rng, 6), 1 + below(&mut rng, 40))
            } else {
                (1, 60 + below(&mut rng, 80))
            };
            routines.push(Routine {
                entry,
                body,
                branch_pc,
                rts_pc,
                visits,
                iterations,
            });
        }
        // Main at $8000, the wait loop at $C000 (lda $10 ; cmp $11 ;
        // beq $C000 ; jmp $8000), the NMI handler at $A000.
        entries.insert(0x8000, ());
        entries.insert(WAIT_HEAD, ());
        entries.insert(NMI_ENTRY, ());
        memory[0xC000..0xC009]
            .copy_from_slice(&[0xA5, 0x10, 0xC5, 0x11, 0xF0, 0xFA, 0x4C, 0x00, 0x80]);
        // Scale the work so that a frame's expected work is ~60 % of the
        // time before the NMI: some frames are lighter, a few lag.
        let mut program = Program {
            memory,
            routines,
            music: n,
            ppu: n + 1,
            entries,
        };
        let expected: f64 = program.routines[..n]
            .iter()
            .map(|r| {
                let per_iter: u64 = r.body.iter().map(|b| b.2).sum::<u64>() + 3;
                (r.visits as f64 + 1.0) / 2.0
                    * ((r.iterations as f64 + 1.0) / 2.0)
                    * per_iter as f64
            })
            .sum();
        let scale = 0.6 * NMI_PHASE as f64 / expected;
        for r in &mut program.routines[..n] {
            r.visits = ((r.visits as f64 * scale.sqrt()).round() as u64).max(1);
            r.iterations = ((r.iterations as f64 * scale.sqrt()).round() as u64).max(1);
        }
        program
    }

    fn routine_of(entries: &BTreeMap<u32, ()>, pc: u32) -> Option<u32> {
        entries.range(..=pc).next_back().map(|(&e, _)| e)
    }

    /// One visit to routine `r` called from `call_pc`, `iterations` times.
    fn visit(&self, r: usize, call_pc: u32, iterations: u64, out: &mut VecDeque<Instr>) {
        let routine = &self.routines[r];
        out.push_back(Instr {
            pc: call_pc,
            opcode: 0x20,
            next_pc: routine.entry,
            target: routine.entry,
            cycles: 6,
        });
        for k in 0..iterations {
            for &(pc, opcode, cycles) in &routine.body {
                let bytes = match opcode {
                    0xE8 => 1,
                    0x85 => 2,
                    _ => 3,
                };
                out.push_back(Instr {
                    pc,
                    opcode,
                    next_pc: pc + bytes,
                    target: pc + bytes,
                    cycles,
                });
            }
            let again = k + 1 < iterations;
            out.push_back(Instr {
                pc: routine.branch_pc,
                opcode: 0xD0,
                next_pc: if again {
                    routine.entry
                } else {
                    routine.branch_pc + 2
                },
                target: routine.entry,
                cycles: if again { 3 } else { 2 },
            });
        }
        out.push_back(Instr {
            pc: routine.rts_pc,
            opcode: 0x60,
            next_pc: call_pc + 3,
            target: call_pc + 3,
            cycles: 6,
        });
    }
}

/// Exact cycles of the run, as the exact side counts them.
#[derive(Default)]
struct Truth {
    class: [f64; 5],
    /// Non-idle, non-DMA cycles per routine.
    work: BTreeMap<Option<u32>, f64>,
}

impl Truth {
    fn total(&self) -> f64 {
        self.class.iter().sum()
    }

    fn work_total(&self) -> f64 {
        self.class[0] + self.class[2] + self.class[3]
    }
}

fn class_index(c: Class) -> usize {
    Class::ALL.iter().position(|&k| k == c).unwrap()
}

struct Trial {
    run: Truth,
    frames: Vec<([f64; 5], u64)>,
    estimates: profiler::frame_profile::sampled::Estimates,
    frame_estimates: Vec<profiler::frame_profile::sampled::FrameEstimate>,
    naive: BTreeMap<Option<u32>, f64>,
}

/// Runs the program of `seed` for `frames` frames under a sampler with
/// mean interval `interval` cycles.
fn trial(seed: u64, frames: u64, interval: u64) -> Trial {
    let program = Program::new(seed);
    let mut rng = seed ^ 0x5555;
    let entries = program.entries.clone();
    let memory = program.memory.clone();
    let classifier = Classifier::new(
        move |pc| Program::routine_of(&entries, pc),
        |h| h == NMI_ENTRY,
        WaitLoops::new(move |a| memory.get(a as usize).copied()),
    );
    let mut profile = SampledProfile::new(classifier, 0);
    let mut capture = SampleCapture::emulated(interval, Spacing::Uniform, 0, seed * 7 + 1, 25, 0);

    let mut cycle = 0u64;
    let mut next_nmi = NMI_PHASE;
    let mut nmi_count = 0u64;
    let mut seen_count = 0u64;
    let mut main: VecDeque<Instr> = VecDeque::new();
    let mut waiting: Option<u32> = None; // the wait loop's next pc
    let mut nmi: VecDeque<Instr> = VecDeque::new();
    let mut in_nmi = false;
    let mut iteration: Option<f64> = None; // own cycles of the iteration so far
    let mut stall_next = 0u64;
    let mut run = Truth::default();
    let mut frame_truth = [0.0; 5];
    let mut frame_list = Vec::new();
    let mut frame_estimates = Vec::new();
    let mut frame_end = FRAME_CYCLES;
    let mut naive_sums: BTreeMap<Option<u32>, f64> = BTreeMap::new();
    let mut naive_total = 0.0;
    let routine_of = |pc| Program::routine_of(&program.entries, pc);

    let fill_main = |main: &mut VecDeque<Instr>, rng: &mut u64| {
        let mut call_pc = 0x8000;
        for (r, routine) in program.routines.iter().enumerate().take(program.music) {
            for _ in 0..below(rng, routine.visits + 1) {
                let iterations = 1 + below(rng, routine.iterations);
                program.visit(r, call_pc, iterations, main);
                call_pc += 3;
            }
        }
        main.push_back(Instr {
            pc: call_pc,
            opcode: 0x4C,
            next_pc: WAIT_HEAD,
            target: WAIT_HEAD,
            cycles: 3,
        });
    };
    fill_main(&mut main, &mut rng);

    let take = |capture: &mut SampleCapture,
                profile: &mut SampledProfile,
                naive_sums: &mut BTreeMap<Option<u32>, f64>,
                naive_total: &mut f64| {
        for batch in capture.take_batches().iter() {
            let samples = profiler::convert::batch(batch);
            // The raw-cycle ratio, for comparison.
            for w in samples.windows(2) {
                let d = (w[1].cycle - w[0].cycle).min(7) as f64;
                *naive_total += d;
                *naive_sums.entry(routine_of(w[0].pc)).or_default() += d;
            }
            profile.add_batch(&samples);
        }
    };

    while frame_list.len() < frames as usize {
        // Frame end (before the instruction starting at or after it).
        if cycle >= frame_end {
            take(
                &mut capture,
                &mut profile,
                &mut naive_sums,
                &mut naive_total,
            );
            frame_estimates.push(profile.end_frame(frame_list.len() as u64, frame_end));
            frame_list.push((frame_truth, FRAME_CYCLES));
            frame_truth = [0.0; 5];
            frame_end += FRAME_CYCLES;
        }
        // The NMI, between instructions.
        if !in_nmi && cycle >= next_nmi {
            next_nmi += FRAME_CYCLES;
            in_nmi = true;
            iteration = None;
            if capture.collecting() || capture.sample_next(cycle) {
                capture.record(Retired {
                    pc: NMI_ENTRY,
                    opcode: None,
                    next_pc: NMI_ENTRY,
                    target: NMI_ENTRY,
                    cycle,
                });
            }
            for c in [&mut run.class[2], &mut frame_truth[2]] {
                *c += 7.0;
            }
            *run.work.entry(routine_of(NMI_ENTRY)).or_default() += 7.0;
            cycle += 7;
            // The handler: a few instructions, sta $4014, the stalled
            // one, the two subroutines, inc $10, rti.
            let mut pc = NMI_ENTRY;
            for _ in 0..3 {
                nmi.push_back(Instr {
                    pc,
                    opcode: 0x85,
                    next_pc: pc + 2,
                    target: pc + 2,
                    cycles: 3,
                });
                pc += 2;
            }
            nmi.push_back(Instr {
                pc,
                opcode: 0x8D,
                next_pc: pc + 3,
                target: pc + 3,
                cycles: 4,
            });
            pc += 3;
            nmi.push_back(Instr {
                pc,
                opcode: 0xE8,
                next_pc: pc + 1,
                target: pc + 1,
                cycles: 2 | 0x1000, // marked: stalled by the DMA
            });
            pc += 1;
            let music = 1 + below(&mut rng, program.routines[program.music].iterations);
            program.visit(program.music, pc, music, &mut nmi);
            pc += 3;
            let ppu = 1 + below(&mut rng, program.routines[program.ppu].iterations / 2);
            program.visit(program.ppu, pc, ppu, &mut nmi);
            pc += 3;
            nmi.push_back(Instr {
                pc,
                opcode: 0xE6,
                next_pc: pc + 2,
                target: pc + 2,
                cycles: 5,
            });
            pc += 2;
            nmi.push_back(Instr {
                pc,
                opcode: 0x40,
                next_pc: 0, // where it returns: set when it runs
                target: 0,
                cycles: 6,
            });
            continue;
        }
        // The next instruction.
        let mut instr = if in_nmi {
            nmi.pop_front().expect("the handler ends with RTI")
        } else if let Some(pc) = waiting {
            let (opcode, cycles, next) = match pc {
                0xC000 => (0xA5, 3, 0xC002),
                0xC002 => (0xC5, 3, 0xC004),
                0xC004 => {
                    if seen_count == nmi_count {
                        (0xF0, 3, WAIT_HEAD)
                    } else {
                        (0xF0, 2, 0xC006)
                    }
                }
                _ => (0x4C, 3, 0x8000),
            };
            Instr {
                pc,
                opcode,
                next_pc: next,
                target: if opcode == 0xF0 { WAIT_HEAD } else { next },
                cycles,
            }
        } else {
            main.pop_front().expect("main ends with a jump")
        };
        if instr.opcode == 0x40 {
            instr.next_pc = waiting.or(main.front().map(|i| i.pc)).unwrap_or(0x8000);
            instr.target = instr.next_pc;
        }
        let stalled = instr.cycles & 0x1000 != 0;
        let own = instr.cycles & 0xFFF;
        let stall = if stalled {
            stall_next = 1 - stall_next;
            513 + stall_next
        } else {
            0
        };
        if capture.collecting() || capture.sample_next(cycle) {
            capture.record_instruction(instr.pc, instr.opcode, instr.next_pc, instr.target, cycle);
        }
        // Exact classes.
        let routine = routine_of(instr.pc);
        let own_f = own as f64;
        let mut idle_done = 0.0;
        if !in_nmi && waiting.is_some() && instr.pc < 0xC006 {
            if instr.pc == WAIT_HEAD {
                iteration = Some(0.0);
            }
            if let Some(so_far) = iteration.as_mut() {
                *so_far += own_f;
                if instr.next_pc == WAIT_HEAD {
                    idle_done = *so_far;
                    iteration = None;
                } else if instr.next_pc >= 0xC006 {
                    iteration = None;
                }
            }
        }
        // Iteration cycles are booked when it completes: the instructions
        // before were booked as work, move them.
        let ctx = if in_nmi { 2 } else { 0 };
        for t in [&mut run.class, &mut frame_truth] {
            t[ctx] += own_f - idle_done;
            t[1] += idle_done;
            t[4] += stall as f64;
        }
        let w = run.work.entry(routine).or_default();
        *w += own_f - idle_done;
        cycle += own + stall;
        // State changes.
        if in_nmi {
            if instr.opcode == 0xE6 {
                nmi_count += 1;
            }
            if instr.opcode == 0x40 {
                in_nmi = false;
            }
        } else if waiting.is_some() {
            waiting = match instr.next_pc {
                0x8000 => {
                    seen_count = nmi_count;
                    fill_main(&mut main, &mut rng);
                    None
                }
                pc => Some(pc),
            };
        } else if instr.next_pc == WAIT_HEAD {
            waiting = Some(WAIT_HEAD);
        }
    }
    take(
        &mut capture,
        &mut profile,
        &mut naive_sums,
        &mut naive_total,
    );
    let estimates = profile.finish(cycle);
    // Instructions past the last frame's end belong to the run.
    let naive = naive_sums
        .into_iter()
        .map(|(r, c)| (r, c / naive_total))
        .collect();
    Trial {
        run,
        frames: frame_list,
        estimates,
        frame_estimates,
        naive,
    }
}

/// Runs `seeds` trials of `frames` frames at a mean interval of
/// `interval` cycles and checks the coverage of the intervals.
fn coverage(interval: u64, frames: u64, seeds: u64) {
    let (mut routine_pairs, mut routine_covered) = (0u32, 0u32);
    let (mut class_pairs, mut class_covered) = (0u32, 0u32);
    let (mut frame_pairs, mut frame_covered) = (0u32, 0u32);
    let mut worst = 0.0f64;
    let mut naive_worst = 0.0f64;
    let mut z_sum = 0.0;
    for seed in 1..=seeds {
        let t = trial(seed, frames, interval);
        let work = t.run.work_total();
        let total = t.run.total();
        for (&routine, &cycles) in &t.run.work {
            let exact = cycles / work;
            if exact < 0.01 {
                continue;
            }
            let est = t
                .estimates
                .routine(routine)
                .map(|r| r.share_of_work)
                .unwrap_or_default();
            routine_pairs += 1;
            routine_covered += est.covers(exact) as u32;
            worst = worst.max((est.value - exact).abs());
            let half = (est.high - est.low) / 2.0;
            if half > 0.0 {
                z_sum += (est.value - exact) / (half / 1.96);
            }
            // The raw-cycle ratio's share of the work, for comparison.
            let naive_work: f64 = t
                .naive
                .iter()
                .filter(|(r, _)| **r != Some(WAIT_HEAD))
                .map(|(_, s)| s)
                .sum();
            let naive = t.naive.get(&routine).copied().unwrap_or(0.0) / naive_work;
            naive_worst = naive_worst.max((naive - exact).abs());
        }
        for class in Class::ALL {
            let exact = t.run.class[class_index(class)] / total;
            if exact == 0.0 {
                continue;
            }
            class_pairs += 1;
            let est = t.estimates.classes.get(class);
            class_covered += est.covers(exact) as u32;
            if !est.covers(exact) {
                eprintln!(
                    "seed {seed} {}: exact {exact:.5} estimate {est:?}",
                    class.name()
                );
            }
        }
        for ((truth, cycles), est) in t.frames.iter().zip(&t.frame_estimates) {
            for class in [Class::Busy, Class::Idle, Class::Nmi] {
                let exact = truth[class_index(class)];
                let e = est.classes.get(class);
                if est.batches == 0 {
                    continue;
                }
                frame_pairs += 1;
                // Per-frame truth counts instructions by their start, as
                // the estimate does; allow a cycle of rounding.
                frame_covered += (e.low - 1.0 <= exact && exact <= e.high + 1.0) as u32;
                let _ = cycles;
            }
        }
    }
    let routine_rate = routine_covered as f64 / routine_pairs as f64;
    let class_rate = class_covered as f64 / class_pairs as f64;
    let frame_rate = frame_covered as f64 / frame_pairs as f64;
    eprintln!(
        "X = {interval} cycles, {frames} frames: routines above 1 %: {routine_covered}/{routine_pairs} covered ({:.1} %), worst error {:.2} points \
         (raw-cycle ratio: {:.2}), mean z {:.2}; classes {class_covered}/{class_pairs} ({:.1} %); \
         frames {frame_covered}/{frame_pairs} ({:.1} %)",
        100.0 * routine_rate,
        100.0 * worst,
        100.0 * naive_worst,
        z_sum / routine_pairs as f64,
        100.0 * class_rate,
        100.0 * frame_rate,
    );
    assert!(routine_pairs >= 150, "enough pairs: {routine_pairs}");
    // Without dividing each batch by its cycles, slow routines come out
    // too large: the raw-cycle ratio's worst error is several times ours.
    assert!(naive_worst > 2.0 * worst, "{naive_worst} against {worst}");
    assert!(routine_rate >= 0.85, "routine coverage {routine_rate}");
    assert!(class_rate >= 0.85, "class coverage {class_rate}");
    assert!(frame_rate >= 0.85, "frame coverage {frame_rate}");
}

#[test]
fn intervals_hold_the_exact_shares_at_the_default_rate() {
    // X = 3 ms, 300 frames (about 1,700 batches) per seed.
    coverage(5369, 300, 24);
}

#[test]
fn intervals_hold_the_exact_shares_at_a_tenth_of_the_rate() {
    // X = 30 ms, 900 frames (about 500 batches) per seed: fewer batches a
    // routine, rarer events (the NMI's DMA in ~15 batches).
    coverage(53_687, 900, 24);
}
