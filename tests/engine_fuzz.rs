//! The engines agree on arbitrary programs (issue 22): random programs from
//! `nesprof::fuzz` (code in ROM, RAM, PRG RAM and the stack page, rewriting
//! itself, with interrupts, DMA and open-bus reads) run in lockstep, and the
//! divergences the fuzzer found are kept as regression tests. The long
//! campaign is `cargo run --release --example fuzz_engines` (BENCHMARKS.md,
//! "Engine fuzzing").

use nesprof::fuzz::{self, Program};
use nesprof::lockstep::Lockstep;

/// The CI budget: programs and frames per program.
const PROGRAMS: u64 = 300;
const FRAMES: u64 = 20;
/// Programs with planted wait loops.
const WAITING_PROGRAMS: u64 = 150;

/// Runs the programs `generate` makes from seeds `0..count` on both
/// engines, on every core; the divergences found, each shrunk.
fn campaign(count: u64, generate: fn(u64) -> Program) -> Vec<String> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    (0..count)
                        .filter(|seed| seed % threads == t)
                        .filter_map(|seed| {
                            let program = generate(seed);
                            fuzz::check(&program, FRAMES, seed).err().map(|e| {
                                let small = fuzz::shrink(&program, FRAMES, seed, 500);
                                format!("seed {seed}: {e}\nshrunk:\n{}", fuzz::describe(&small))
                            })
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    })
}

#[test]
fn random_programs_run_identically_on_both_engines() {
    let failures = campaign(PROGRAMS, Program::generate);
    assert!(
        failures.is_empty(),
        "{} of {PROGRAMS} programs diverged:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The same with wait loops planted in the programs
/// ([`Program::generate_with_wait_loops`]), so that the frame-event logs'
/// idle cycles are compared on many loops, in ROM and in rewritten RAM,
/// entered, cut by interrupts and left at random.
#[test]
fn random_programs_with_wait_loops_run_identically_on_both_engines() {
    let failures = campaign(WAITING_PROGRAMS, Program::generate_with_wait_loops);
    assert!(
        failures.is_empty(),
        "{} of {WAITING_PROGRAMS} programs with wait loops diverged:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Seeds on which the engines once differed (code run through a RAM mirror
/// or from both ends of the stack page; a JSR rewriting its own operand,
/// also from the zero page's last byte; a zero-page branch whose offset,
/// rewritten after its block went live, took it into a watched entry with
/// no `FallInto` from the translator: 9 011 487),
/// at the frame counts that showed it.
#[test]
fn programs_that_once_diverged() {
    for seed in [
        3, 103, 140, 145, 154, 164, 203, 220, 262, 1_005_088, 9_011_487,
    ] {
        let program = Program::generate(seed);
        if let Err(e) = fuzz::check(&program, FRAMES, seed) {
            panic!("seed {seed}: {e}");
        }
    }
}

/// An NROM image whose reset code is `code` at $8000 (the rest NOPs).
fn nrom(code: &[u8]) -> Vec<u8> {
    let mut prg = vec![0xEA; 0x8000];
    prg[..code.len()].copy_from_slice(code);
    prg[0x7FFC..0x7FFE].copy_from_slice(&0x8000u16.to_le_bytes());
    let mut rom = b"NES\x1A\x02\x00\x00\x00".to_vec();
    rom.resize(16, 0);
    rom.extend_from_slice(&prg);
    rom
}

/// JSR reads its target's high byte after pushing the return address
/// (cycle 6 of 6: the documented 6502 order), so a JSR in the stack page
/// whose push lands on that byte jumps where the pushed byte says. Here the
/// JSR at $014D with S = $4F pushes PCH ($01) onto $014F, its own high
/// operand byte: `JSR $EA00` goes to $0100.
#[test]
fn jsr_whose_push_rewrites_its_operand() {
    #[rustfmt::skip]
    let code = [
        0xA2, 0x4F, 0x9A,       // LDX #$4F; TXS
        0xA9, 0x20, 0x8D, 0x4D, 0x01, // JSR opcode at $014D
        0xA9, 0x00, 0x8D, 0x4E, 0x01, // low byte $00
        0xA9, 0xEA, 0x8D, 0x4F, 0x01, // high byte $EA (before the push)
        // At $0100: LDA #$42; STA $00; JMP $0104 (loops on itself).
        0xA9, 0xA9, 0x8D, 0x00, 0x01,
        0xA9, 0x42, 0x8D, 0x01, 0x01,
        0xA9, 0x85, 0x8D, 0x02, 0x01,
        0xA9, 0x00, 0x8D, 0x03, 0x01,
        0xA9, 0x4C, 0x8D, 0x04, 0x01,
        0xA9, 0x04, 0x8D, 0x05, 0x01,
        0xA9, 0x01, 0x8D, 0x06, 0x01,
        0x4C, 0x4D, 0x01,       // JMP $014D
    ];
    let rom = nrom(&code);
    for single_step in [false, true] {
        let mut pair = Lockstep::new(&rom, single_step).unwrap();
        pair.run(3, |_| 0).unwrap_or_else(|e| panic!("{e}"));
        for nes in [&pair.interp, &pair.translated] {
            assert_eq!(nes.ram()[0], 0x42, "the JSR went to $0100");
        }
    }
}
