//! Which routine owns a piece of code, read from the code itself: the
//! instructions a routine's entry reaches by falling through, branching
//! and jumping, without calling and without running into another entry
//! (a disassembler's function bounds). What the sampled side uses to name
//! the routine of a sampled address when no `.proc` scope covers it.
//!
//! Why not the nearest entry below the address: the exact side follows
//! the calls (`accounting.rs`), and code that a routine reaches by a
//! branch or a `JMP` — a main loop placed after other routines, reached by
//! `jmp main_loop` from the reset code; a routine's error path placed
//! below its entry — runs in that routine's activation, whatever entry
//! happens to lie just below it. Reading the reach from the code gives
//! the sampled side the exact side's answer for such code without seeing
//! the calls. Where the reading cannot tell, the caller falls back to the
//! nearest entry below:
//!
//! - code reached from two entries (a shared tail, `jmp common_exit`):
//!   either routine's activation runs it, so neither owns it;
//! - code the reading cannot follow: in RAM (its bytes are not known
//!   ahead), or reached by a jump or a fall-through into another 8 KiB
//!   window of a banked board, unless the samples have only ever shown one
//!   bank there (`Routines::note_code`): which bank is mapped there is not
//!   in the code;
//! - `JMP (indirect)`, `RTS`, `RTI`, `BRK` and JAM end a reach (where they
//!   go is not in the code); a `JSR` continues after itself.
//!
//! A reach stops at another routine's entry: falling or jumping into it is
//! entering that routine, by address (the exact side counts a `JMP` to an
//! entry as a tail call; falling into one it does not see, which is the
//! one case where the two sides still differ: EXPERIMENTS.md).
//!
//! Memory: one map entry per reached instruction, bounded by the PRG ROM's
//! size.

use emu::code_addr;
use emu::cpu::opcodes::{Flow, Mode, OPCODES};
use emu::int_hash::IntMap;

/// Marks an instruction reached from more than one entry.
const SHARED: u32 = u32::MAX;

/// What the reading found: the entries (the roots given, and the `JSR`
/// targets in the code they reach, and in the code those reach, ...) and
/// the owner of each instruction reached.
#[derive(Debug, Clone, Default)]
pub struct Extents {
    /// Sorted.
    pub entries: Vec<u32>,
    /// Each reached instruction's code address → its entry.
    pub owner: IntMap<u32, u32>,
}

/// Reads the code from `roots` (code addresses: the vectors' targets and
/// the entries the samples showed). `boundary(code)` says where a reach
/// stops besides the entries (code covered by a `.proc` scope);
/// `byte(code)` reads the code (`None` where it cannot be known);
/// `resolve(from, to)` gives the code address of CPU address `to` as
/// reached from code address `from`, if the reading can follow there (see
/// [`same_window`]).
///
/// The entries are found by the reading itself (a recursive descent), not
/// by scanning PRG ROM for `$20` bytes: a data byte or an operand that
/// looks like a `JSR` would otherwise make an entry in the middle of a
/// routine and cut it in two.
pub fn read(
    roots: &[u32],
    boundary: impl Fn(u32) -> bool,
    byte: impl Fn(u32) -> Option<u8>,
    resolve: impl Fn(u32, u16) -> Option<u32>,
) -> Extents {
    // The successors of the instruction at `code` in the reading, and the
    // target of a `JSR` there.
    let step = |code: u32, out: &mut Vec<u32>| -> Option<u32> {
        let opcode = byte(code)?;
        let info = &OPCODES[opcode as usize];
        let next = code_addr::advance(code, info.byte_len() as u16) as u16;
        let operand = |i: u16| byte(code_addr::advance(code, i));
        let absolute = || Some(u16::from_le_bytes([operand(1)?, operand(2)?]));
        match info.flow {
            Flow::None => out.extend(resolve(code, next)),
            Flow::Call => {
                out.extend(resolve(code, next));
                // A call into RAM or PRG RAM (code copied there) names an
                // entry too, whose bytes the reading cannot know ahead.
                return absolute()
                    .and_then(|to| resolve(code, to).or((to < 0x8000).then_some(to as u32)));
            }
            Flow::Branch => {
                out.extend(resolve(code, next));
                if let Some(offset) = operand(1) {
                    out.extend(resolve(code, next.wrapping_add(offset as i8 as u16)));
                }
            }
            Flow::Jump if info.mode == Mode::Absolute => {
                out.extend(absolute().and_then(|to| resolve(code, to)));
            }
            // JMP (indirect), RTS, RTI, BRK, JAM: where they go is not in
            // the code.
            _ => {}
        }
        None
    };

    // The entries: everything the roots reach, calls followed.
    let mut entries: Vec<u32> = roots.to_vec();
    let mut seen: IntMap<u32, ()> = IntMap::default();
    let mut todo: Vec<u32> = roots.to_vec();
    let mut out = Vec::new();
    while let Some(code) = todo.pop() {
        if boundary(code) || seen.insert(code, ()).is_some() {
            continue;
        }
        out.clear();
        if let Some(callee) = step(code, &mut out) {
            entries.push(callee);
            todo.push(callee);
        }
        todo.extend_from_slice(&out);
    }
    entries.sort_unstable();
    entries.dedup();

    // The owners: each entry's reach without calls, up to other entries.
    let is_entry = |code: u32| entries.binary_search(&code).is_ok();
    let mut owner: IntMap<u32, u32> = IntMap::default();
    for &entry in &entries {
        todo.clear();
        todo.push(entry);
        while let Some(code) = todo.pop() {
            if code != entry && (is_entry(code) || boundary(code)) {
                continue;
            }
            if code == entry && boundary(code) {
                continue;
            }
            match owner.get(&code) {
                Some(&o) if o == entry || o == SHARED => continue,
                // Reached from another entry too: shared, and so is what
                // it reaches.
                Some(_) => owner.insert(code, SHARED),
                None => owner.insert(code, entry),
            };
            out.clear();
            step(code, &mut out);
            todo.extend_from_slice(&out);
        }
    }
    owner.retain(|_, o| *o != SHARED);
    Extents { entries, owner }
}

/// The plain reading of where code at `from` goes to CPU address `to`:
/// anywhere in PRG ROM on a board whose code addresses are CPU addresses;
/// on a banked one only inside `from`'s 8 KiB window, whose bank is
/// `from`'s (the caller may know more: `Routines::refresh_owners`).
pub fn same_window(from: u32, to: u16) -> Option<u32> {
    if code_addr::prg_offset(from).is_some() {
        (to >> 13 == (from as u16) >> 13).then_some((from & !0xFFFF) | to as u32)
    } else {
        (to >= 0x8000).then_some(to as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The owners of `code` placed at $8000 (NROM), read from `roots`.
    fn owners_of(code: &[u8], roots: &[u32]) -> IntMap<u32, u32> {
        let byte = |c: u32| {
            let i = c.checked_sub(0x8000)? as usize;
            code.get(i).copied()
        };
        read(roots, |_| false, byte, same_window).owner
    }

    #[test]
    fn a_main_loop_reached_by_jmp_is_the_reset_code_s() {
        // $8000 reset: JMP $8008
        // $8003 sub:   LDA #1; RTS   (a JSR target, placed between)
        // $8006        NOP; NOP
        // $8008 main:  JSR $8003; JMP $8008
        let code = [
            0x4C, 0x08, 0x80, 0xA9, 0x01, 0x60, 0xEA, 0xEA, 0x20, 0x03, 0x80, 0x4C, 0x08, 0x80,
        ];
        // The subroutine's entry is found by the reading.
        let o = owners_of(&code, &[0x8000]);
        assert_eq!(o.get(&0x8008), Some(&0x8000));
        assert_eq!(o.get(&0x800B), Some(&0x8000));
        assert_eq!(o.get(&0x8005), Some(&0x8003));
        // Never reached: the fallback decides.
        assert_eq!(o.get(&0x8006), None);
    }

    #[test]
    fn a_reach_stops_at_another_entry_and_shared_code_has_no_owner() {
        // $8000 a: BEQ $8004; NOP; NOP
        // $8004    JMP $800A (a shared tail)
        // $8007 b: JMP $800A
        // $800A    RTS
        // $800B c: NOP; RTS
        let code = [
            0xF0, 0x02, 0xEA, 0xEA, 0x4C, 0x0A, 0x80, 0x4C, 0x0A, 0x80, 0x60, 0xEA, 0x60,
        ];
        let o = owners_of(&code, &[0x8000, 0x8007, 0x800B]);
        assert_eq!(o.get(&0x8002), Some(&0x8000));
        assert_eq!(o.get(&0x8004), Some(&0x8000));
        assert_eq!(o.get(&0x8007), Some(&0x8007));
        assert_eq!(o.get(&0x800A), None, "reached from a and from b");
        assert_eq!(o.get(&0x800B), Some(&0x800B));
        // Falling into an entry stops there.
        let fall = [0xEA, 0xEA, 0x60];
        let o = owners_of(&fall, &[0x8000, 0x8001]);
        assert_eq!(o.get(&0x8000), Some(&0x8000));
        assert_eq!(o.get(&0x8001), Some(&0x8001));
        assert_eq!(o.get(&0x8002), Some(&0x8001));
    }

    #[test]
    fn bytes_that_look_like_a_jsr_make_no_entry() {
        // $8000: LDX #$20; NOP $80 (unofficial); NOP; RTS. Read as bytes,
        // $8001 holds `20 04 80`, a JSR $8004 into the middle of it.
        let code = [0xA2, 0x20, 0x04, 0x80, 0xEA, 0x60];
        let o = owners_of(&code, &[0x8000]);
        assert_eq!(o.get(&0x8004), Some(&0x8000));
        assert_eq!(o.get(&0x8005), Some(&0x8000));
    }

    #[test]
    fn a_call_into_ram_is_an_entry() {
        // $8000: JSR $0300; RTS
        let code = [0x20, 0x00, 0x03, 0x60];
        let byte = |c: u32| code.get(c.checked_sub(0x8000)? as usize).copied();
        let read = read(&[0x8000], |_| false, byte, same_window);
        assert_eq!(read.entries, [0x0300, 0x8000]);
        assert_eq!(read.owner.get(&0x8003), Some(&0x8000));
    }

    #[test]
    fn banked_code_is_followed_inside_its_window_only() {
        // A banked code address: PRG offset 0x4000 mapped at $C000.
        let base = ((0x4000u32 + 0x10000 - 0xC000) << 3) | 0xC000;
        assert_eq!(code_addr::prg_offset(base), Some(0x4000));
        let mut prg = vec![0xEAu8; 0x8000];
        // $C000: JMP $A000 (another window: not followed); $DFFF: NOP then
        // the window ends.
        prg[0x4000..0x4003].copy_from_slice(&[0x4C, 0x00, 0xA0]);
        let byte = |c: u32| code_addr::prg_offset(c).and_then(|o| prg.get(o).copied());
        let o = read(&[base], |_| false, byte, same_window).owner;
        assert_eq!(o.len(), 1);
        let high = base & !0xFFFF;
        prg[0x4000..0x4003].fill(0xEA);
        let byte = |c: u32| code_addr::prg_offset(c).and_then(|o| prg.get(o).copied());
        let o = read(&[base], |_| false, byte, same_window).owner;
        assert_eq!(o.get(&(high | 0xDFFF)), Some(&base));
        assert_eq!(o.get(&(high | 0xE000)), None);
    }
}
