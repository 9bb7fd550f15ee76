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
//! the frame hash and RAM.

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
        prg[..stub.len()].copy_from_slice(&stub);
        let nmi = random_entry(&mut rng);
        let irq = random_entry(&mut rng);
        prg[VECTORS..VECTORS + 2].copy_from_slice(&nmi.to_le_bytes());
        prg[VECTORS + 2..VECTORS + 4].copy_from_slice(&0x8000u16.to_le_bytes());
        prg[VECTORS + 4..VECTORS + 6].copy_from_slice(&irq.to_le_bytes());
        Program { prg }
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
/// divergence, if any.
pub fn check(program: &Program, frames: u64, seed: u64) -> Result<(), String> {
    let rom = program.rom();
    for single_step in [false, true] {
        let mut pair = Lockstep::new(&rom, single_step)?;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5EED);
        let pads: Vec<u8> = (0..frames).map(|_| rng.random()).collect();
        pair.run(frames, |f| pads[f as usize]).map_err(|e| {
            let mode = if single_step {
                "one instruction per block"
            } else {
                "whole blocks"
            };
            format!("{mode}: {e}")
        })?;
    }
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
    }
}
