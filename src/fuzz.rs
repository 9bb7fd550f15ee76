//! Differential fuzzing of the two engines: random NROM programs run on the
//! interpreter and the translator in lockstep ([`crate::lockstep`]), and a
//! failing program shrunk to the fewest bytes that still make the engines
//! differ.
//!
//! A program is 32 KiB of PRG ROM. A fixed start-up stub copies three random
//! code blobs into console RAM ($0300), the stack page ($0100) and PRG RAM
//! ($6000), sets random PPU/APU controls (NMI, rendering, the frame IRQ, the
//! interrupt flag) and jumps into one of them or into random code in ROM.
//! Code everywhere is random instructions (every opcode but the twelve that
//! jam the CPU), with absolute operands drawn mostly from the addresses where
//! the engines could part ways: PPU and APU registers, OAM and DMC DMA,
//! controller ports, open bus ($4018-$5FFF), the copied code itself (so the
//! program rewrites its own code), the stack page and ROM. NMI and IRQ
//! vectors point into random code. Each program runs twice: with the
//! translator running whole blocks, compared at block boundaries, and with
//! one instruction per block, compared after every instruction; both compare
//! registers, cycles, bus accesses and instructions retired, and every frame
//! the frame hash, RAM and the frame-event logs (`emu::frame_events`).

use emu::cpu::opcodes::{Mode, OPCODES};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use crate::lockstep::Lockstep;

/// PRG ROM size (NROM-256).
const PRG_LEN: usize = 0x8000;
/// Where the random blobs to copy sit in ROM (CPU $9000, $9100, $9200).
const BLOBS: usize = 0x1000;
/// Random code in ROM: CPU $A000 up to the vectors.
const CODE: usize = 0x2000;
const VECTORS: usize = PRG_LEN - 6;
/// Offset of the start-up stub's closing `JMP entry`.
const STUB_JMP: usize = 43;

/// The opcodes that stop the CPU; a jammed program tests nothing more.
const JAMS: [u8; 12] = [
    0x02, 0x12, 0x22, 0x32, 0x42, 0x52, 0x62, 0x72, 0x92, 0xB2, 0xD2, 0xF2,
];

/// One random program: its PRG ROM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    pub prg: Vec<u8>,
}

/// Absolute addresses worth hitting more often than chance would.
fn interesting_address(rng: &mut Xoshiro256PlusPlus) -> u16 {
    match rng.random_range(0..12u8) {
        0 | 1 => 0x2000 + rng.random_range(0..8u16),
        2 => 0x4014,
        3 => 0x4015 + rng.random_range(0..3u16),
        4 => 0x4000 + rng.random_range(0..0x14u16),
        5 | 6 => 0x0300 + rng.random_range(0..0x100u16),
        7 => 0x0100 + rng.random_range(0..0x100u16),
        8 => 0x6000 + rng.random_range(0..0x100u16),
        9 => 0x4018 + rng.random_range(0..0x1FE8u16),
        10 => 0x3FF8 + rng.random_range(0..8u16),
        _ => 0x8000 + rng.random_range(0..0x8000u16),
    }
}

/// `len` bytes of random instructions.
fn random_code(rng: &mut Xoshiro256PlusPlus, len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len + 3);
    while out.len() < len {
        let opcode = loop {
            let op: u8 = rng.random();
            if !JAMS.contains(&op) {
                break op;
            }
        };
        out.push(opcode);
        let info = &OPCODES[opcode as usize];
        match info.mode {
            Mode::Implied | Mode::Accumulator => {}
            Mode::Relative => out.push(rng.random_range(-24i8..24) as u8),
            Mode::Immediate | Mode::ZeroPage | Mode::ZeroPageX | Mode::ZeroPageY => {
                out.push(rng.random())
            }
            Mode::IndirectX | Mode::IndirectY => out.push(rng.random()),
            Mode::Absolute | Mode::AbsoluteX | Mode::AbsoluteY | Mode::Indirect => {
                let addr = if rng.random_bool(0.75) {
                    interesting_address(rng)
                } else {
                    rng.random()
                };
                out.extend_from_slice(&addr.to_le_bytes());
            }
        }
    }
    out.truncate(len);
    out
}

/// A wait loop whose head is at CPU address `head` (or, for a few, code
/// that looks like one but is not: a read of a controller port, a branch
/// that misses the head).
fn wait_loop_code(rng: &mut Xoshiro256PlusPlus, head: u16) -> Vec<u8> {
    const BRANCHES: [u8; 8] = [0x10, 0x30, 0x50, 0x70, 0x90, 0xB0, 0xD0, 0xF0];
    let branch = BRANCHES[rng.random_range(0..8)];
    let zero_page: u8 = rng.random_range(0..0x20);
    let [lo, hi] = head.to_le_bytes();
    let mut code = match rng.random_range(0..7u8) {
        // LDA zp ; Bxx head
        0 => vec![0xA5, zero_page, branch],
        // LDA zp ; CMP zp ; Bxx head
        1 => vec![0xA5, zero_page, 0xC5, rng.random_range(0..0x20), branch],
        // BIT $2002 ; Bxx head
        2 => vec![0x2C, 0x02, 0x20, branch],
        // LDA abs ; AND #imm ; Bxx head (abs may be a controller port)
        3 => {
            let [a, b] = interesting_address(rng).to_le_bytes();
            vec![0xAD, a, b, 0x29, rng.random(), branch]
        }
        // LDX abs ; CPX #imm ; NOP ; Bxx head
        4 => {
            let [a, b] = interesting_address(rng).to_le_bytes();
            vec![0xAE, a, b, 0xE0, rng.random(), 0xEA, branch]
        }
        // NOP ; JMP head
        5 => return vec![0xEA, 0x4C, lo, hi],
        // JMP head
        _ => return vec![0x4C, lo, hi],
    };
    // The branch back to the head (one in eight somewhere near instead).
    let back = -(code.len() as i16 + 1);
    let offset = if rng.random_bool(0.875) {
        back
    } else {
        back + rng.random_range(-3..4)
    };
    code.push(offset as u8);
    code
}

/// Random code entry points: somewhere in ROM code or in a copied blob.
fn random_entry(rng: &mut Xoshiro256PlusPlus) -> u16 {
    match rng.random_range(0..4u8) {
        0 => 0x0300 + rng.random_range(0..0x40u16),
        1 => 0x6000 + rng.random_range(0..0x40u16),
        2 => 0x0100 + rng.random_range(0..0x40u16),
        _ => 0xA000 + rng.random_range(0..0x5FF0u16),
    }
}

impl Program {
    /// The program drawn from `seed` (the same seed, the same program).
    pub fn generate(seed: u64) -> Program {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut prg = vec![0xEA; PRG_LEN];
        for blob in 0..3 {
            let at = BLOBS + blob * 0x100;
            prg[at..at + 0x100].copy_from_slice(&random_code(&mut rng, 0x100));
        }
        let code = random_code(&mut rng, VECTORS - CODE);
        prg[CODE..VECTORS].copy_from_slice(&code);
        let ctrl: u8 = if rng.random_bool(0.7) { 0x80 } else { 0 } | (rng.random::<u8>() & 0x3C);
        let mask: u8 = rng.random::<u8>() & 0x1E;
        let frame_counter: u8 = rng.random::<u8>() & 0xC0;
        let interrupts = if rng.random_bool(0.5) { 0x58 } else { 0x78 }; // CLI / SEI
        let entry = random_entry(&mut rng);
        #[rustfmt::skip]
        let stub: Vec<u8> = vec![
            0x78,                   // SEI
            0xA2, 0xFF, 0x9A,       // LDX #$FF; TXS
            0xA2, 0x00,             // LDX #0
            0xBD, 0x00, 0x90,       // loop: LDA $9000,X
            0x9D, 0x00, 0x03,       //   STA $0300,X
            0xBD, 0x00, 0x91,       //   LDA $9100,X
            0x9D, 0x00, 0x01,       //   STA $0100,X
            0xBD, 0x00, 0x92,       //   LDA $9200,X
            0x9D, 0x00, 0x60,       //   STA $6000,X
            0xE8,                   //   INX
            0xD0, 0xEE,             //   BNE loop
            0xA9, ctrl, 0x8D, 0x00, 0x20,          // LDA #ctrl; STA $2000
            0xA9, mask, 0x8D, 0x01, 0x20,          // LDA #mask; STA $2001
            0xA9, frame_counter, 0x8D, 0x17, 0x40, // LDA #fc; STA $4017
            interrupts,                            // CLI or SEI
            0x4C, entry as u8, (entry >> 8) as u8, // JMP entry
        ];
        debug_assert_eq!(stub[STUB_JMP], 0x4C);
        prg[..stub.len()].copy_from_slice(&stub);
        let nmi = random_entry(&mut rng);
        let irq = random_entry(&mut rng);
        prg[VECTORS..VECTORS + 2].copy_from_slice(&nmi.to_le_bytes());
        prg[VECTORS + 2..VECTORS + 4].copy_from_slice(&0x8000u16.to_le_bytes());
        prg[VECTORS + 4..VECTORS + 6].copy_from_slice(&irq.to_le_bytes());
        Program { prg }
    }

    /// The program drawn from `seed` by [`Program::generate`], with wait
    /// loops (`emu::wait_loop`) planted in its code, so that the frame-event
    /// logs' idle cycles are compared too (random code rarely makes one):
    /// a few dozen loops of the shapes games use (a zero-page or RAM
    /// counter, a `$2002` poll, a masked read of a register, `NOP ; JMP`
    /// back, `JMP *`), closed by a random branch, at random places in ROM
    /// and in the blobs copied to RAM, the stack page and PRG RAM (where the
    /// random code rewrites them), a few across an 8 KiB window's edge
    /// (not a wait loop there), and often one at the entry or the NMI
    /// handler. The planting has its own generator: [`Program::generate`]'s
    /// programs, and the seeds that once diverged, stay as they were.
    pub fn generate_with_wait_loops(seed: u64) -> Program {
        let mut program = Program::generate(seed);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x3A17_100B);
        let prg = &mut program.prg;
        // The CPU address of PRG offset `o` once running (the blobs are
        // copied to $0300, $0100 and $6000).
        let cpu_address = |o: usize| -> u16 {
            match o {
                _ if o >= CODE => 0x8000 + o as u16,
                _ => [0x0300, 0x0100, 0x6000][(o - BLOBS) / 0x100] + (o % 0x100) as u16,
            }
        };
        let plant = |prg: &mut Vec<u8>, rng: &mut Xoshiro256PlusPlus, o: usize| {
            let head = cpu_address(o);
            let code = wait_loop_code(rng, head);
            let room = if o >= CODE {
                VECTORS
            } else {
                BLOBS + ((o - BLOBS) / 0x100 + 1) * 0x100
            };
            let n = code.len().min(room - o);
            prg[o..o + n].copy_from_slice(&code[..n]);
        };
        for _ in 0..rng.random_range(8..32) {
            let o = if rng.random_bool(0.3) {
                BLOBS + rng.random_range(0..0x300)
            } else {
                rng.random_range(CODE..VECTORS)
            };
            plant(prg, &mut rng, o);
        }
        // Across the edges of the windows at $C000 and $E000.
        for edge in [0xC000usize, 0xE000] {
            if rng.random_bool(0.3) {
                let o = edge - 0x8000 - rng.random_range(1..6);
                plant(prg, &mut rng, o);
            }
        }
        // The stub's `JMP entry` and the NMI vector, when in ROM code.
        let entry = u16::from_le_bytes([prg[STUB_JMP + 1], prg[STUB_JMP + 2]]);
        let nmi = u16::from_le_bytes([prg[VECTORS], prg[VECTORS + 1]]);
        for (target, p) in [(entry, 0.5), (nmi, 0.3)] {
            if target >= 0xA000 && rng.random_bool(p) {
                plant(prg, &mut rng, (target - 0x8000) as usize);
            }
        }
        program
    }

    /// The iNES file: mapper 0, 32 KiB PRG ROM, 8 KiB CHR RAM, PRG RAM.
    pub fn rom(&self) -> Vec<u8> {
        let mut rom = b"NES\x1A".to_vec();
        rom.extend_from_slice(&[2, 0, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        rom.extend_from_slice(&self.prg);
        rom
    }

    /// The bytes a shrink may turn into NOPs: the random code, not the stub
    /// or the vectors.
    fn shrinkable() -> std::ops::Range<usize> {
        BLOBS..VECTORS
    }
}

/// Runs `program` for `frames` frames in both lockstep modes; the first
/// divergence, if any. Both machines keep a frame-event log
/// (`emu::frame_events`), compared after every frame: events, wait-loop
/// cycles and the other counters.
pub fn check(program: &Program, frames: u64, seed: u64) -> Result<(), String> {
    let rom = program.rom();
    check_regions(&rom, frames, seed)?;
    for single_step in [false, true] {
        let mode = if single_step {
            "one instruction per block"
        } else {
            "whole blocks"
        };
        let mut pair = Lockstep::new(&rom, single_step)?;
        pair.interp.record_events();
        pair.translated.record_events();
        // Entries to watch for falling into (`EventKind::FallInto`): a
        // eighth of the addresses of ROM and of RAM, drawn from the seed.
        let watched: Vec<u32> = (0x0000..0x0800u32)
            .chain(0x8000..0x8000 + program.prg.len() as u32)
            .filter(|a| (a ^ seed as u32).wrapping_mul(0x9E37_79B9) >> 29 < 1)
            .collect();
        pair.interp.watch_entries(&watched);
        pair.translated.watch_entries(&watched);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5EED);
        let pads: Vec<u8> = (0..frames).map(|_| rng.random()).collect();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for (frame, &pad) in pads.iter().enumerate() {
            pair.run(1, |_| pad)
                .map_err(|e| format!("{mode}, frame {frame}: {e}"))?;
            pair.interp.drain_events(&mut a);
            pair.translated.drain_events(&mut b);
            let (sa, sb) = (pair.interp.stamp(), pair.translated.stamp());
            if a != b || sa != sb {
                let i = a.iter().zip(&b).position(|(x, y)| x != y);
                return Err(format!(
                    "{mode}, frame {frame}: the event logs differ{}\n  interpreter {} events, {sa:?}\n  translator  {} events, {sb:?}",
                    i.map_or(String::new(), |i| format!(
                        " at event {i}: {:?} / {:?}",
                        a[i], b[i]
                    )),
                    a.len(),
                    b.len()
                ));
            }
        }
    }
    Ok(())
}

/// The translator with hot regions (`translate::region`) against the
/// interpreter, with no probe attached (regions run only in the plain
/// chain): chosen by NET, formed at a head's first visit so that short
/// programs form many, then guided by the program's own hot paths (the
/// busy code's H90 of the truth the interpreter recorded in the first
/// run, as `run --regions exact` takes it).
fn check_regions(rom: &[u8], frames: u64, seed: u64) -> Result<(), String> {
    use emu::translate::region::RegionChoice;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5EED);
    let pads: Vec<u8> = (0..frames).map(|_| rng.random()).collect();
    let run = |choice: RegionChoice, mode: &str, truth: bool| {
        let mut pair = Lockstep::new(rom, false)?;
        pair.translated.set_regions(choice);
        if truth {
            pair.interp.record_flow();
        }
        for (frame, &pad) in pads.iter().enumerate() {
            pair.run(1, |_| pad)
                .map_err(|e| format!("hot regions chosen by {mode}, frame {frame}: {e}"))?;
        }
        Ok::<_, String>(pair.interp.take_flow_counts())
    };
    let counts = run(RegionChoice::Net { threshold: 0 }, "NET", true)?
        .ok_or("the interpreter's flow counts are missing")?;
    let mut waits = profiler::frame_profile::sampled::WaitLoops::from_prg(rom[16..].to_vec());
    let hot = profiler::region_guide::busy_hot(&profiler::truth::build(&counts), &mut waits);
    let paths = std::sync::Arc::new(profiler::region_guide::hot_paths(&hot));
    run(RegionChoice::Guided(paths), "the program's own H90", false)?;
    Ok(())
}

/// The smallest program found, by turning runs of random code into NOPs,
/// that still diverges; at most `budget` checks.
pub fn shrink(program: &Program, frames: u64, seed: u64, budget: usize) -> Program {
    let mut best = program.clone();
    let mut checks = 0;
    let range = Program::shrinkable();
    let mut chunk = range.len().next_power_of_two();
    while chunk >= 1 && checks < budget {
        let mut at = range.start;
        while at < range.end && checks < budget {
            let end = (at + chunk).min(range.end);
            if best.prg[at..end].iter().any(|&b| b != 0xEA) {
                let mut trial = best.clone();
                trial.prg[at..end].fill(0xEA);
                checks += 1;
                if check(&trial, frames, seed).is_err() {
                    best = trial;
                }
            }
            at = end;
        }
        chunk /= 2;
    }
    best
}

/// The bytes of `program` that are not NOPs in its random code, as
/// `$ADDR: bytes` runs (for a shrunk program's report).
pub fn describe(program: &Program) -> String {
    let mut out = String::new();
    let range = Program::shrinkable();
    let mut i = range.start;
    while i < range.end {
        if program.prg[i] == 0xEA {
            i += 1;
            continue;
        }
        let start = i;
        while i < range.end && program.prg[i] != 0xEA {
            i += 1;
        }
        let bytes: Vec<String> = program.prg[start..i]
            .iter()
            .map(|b| format!("{b:02X}"))
            .collect();
        out.push_str(&format!("  ${:04X}: {}\n", 0x8000 + start, bytes.join(" ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_reproducible_and_jam_free_where_random() {
        let a = Program::generate(7);
        assert_eq!(a, Program::generate(7));
        assert_ne!(a, Program::generate(8));
        assert_eq!(a.rom().len(), 16 + PRG_LEN);
        assert_eq!(&a.prg[VECTORS + 2..VECTORS + 4], &[0x00, 0x80]);
        assert_eq!(a.prg[STUB_JMP], 0x4C);
    }

    /// Planting keeps the program reproducible and its stub and vectors,
    /// and plants loops the wait-loop rule finds, in ROM and in the blobs.
    #[test]
    fn planted_wait_loops_are_wait_loops() {
        for seed in 0..20 {
            let plain = Program::generate(seed);
            let a = Program::generate_with_wait_loops(seed);
            assert_eq!(a, Program::generate_with_wait_loops(seed));
            assert_eq!(a.prg[..STUB_JMP + 3], plain.prg[..STUB_JMP + 3]);
            assert_eq!(a.prg[VECTORS..], plain.prg[VECTORS..]);
            // Loops found in ROM code, read as the CPU sees it.
            let byte = |addr: u16| a.prg[(addr as usize).wrapping_sub(0x8000) % PRG_LEN];
            let in_rom = (0xA000..0xFFFAu16)
                .filter(|&h| emu::wait_loop::at(h, byte).is_some())
                .count();
            assert!(in_rom >= 4, "seed {seed}: {in_rom} loops in ROM");
        }
    }
}
