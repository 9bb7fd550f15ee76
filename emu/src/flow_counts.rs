//! Raw control-flow counts of a run, kept by whichever engine executes the
//! code: how often each address executed, how often each conditional branch
//! was taken, the (source, destination) transitions of instructions with
//! run-time targets, and interrupt entries per handler. The exact CFG (leaders,
//! blocks, edges) is derived from these afterwards by the `profiler` crate, so
//! recording costs an array increment per instruction and nothing depends on
//! the order in which code was discovered.
//!
//! Interrupt rule (DESIGN.md): NMI/IRQ entries and the RTI that returns from
//! them are not transitions; the interrupted flow continues after the RTI as
//! if uninterrupted. BRK is a software call: its entry and the RTI that
//! returns from it are transitions. A shadow stack of interrupt frames, keyed
//! by the stack pointer, tells the two kinds of RTI apart (frames a handler
//! abandons by resetting the stack are dropped when the stack unwinds past
//! them).

use std::collections::HashMap;

use crate::cpu::opcodes::{Flow, OPCODES};

/// How a handler was entered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// NMI or IRQ: asynchronous, not a transition.
    Hardware,
    /// BRK: a transition like a call.
    Software,
}

/// One entry per CPU address. A fixed-size array, so indexing by a `u16`
/// needs no bounds check: the recorder runs once per instruction.
pub type PerAddress<T> = Box<[T; 0x10000]>;

fn per_address<T: Clone>(value: T) -> PerAddress<T> {
    from_vec(vec![value; 0x10000])
}

fn from_vec<T>(v: Vec<T>) -> PerAddress<T> {
    v.into_boxed_slice()
        .try_into()
        .unwrap_or_else(|_| unreachable!("the vector has 0x10000 entries"))
}

/// Copies on the heap (a derived `Clone` would build each 0.5 MiB array on
/// the stack first).
fn clone_per_address<T: Clone>(a: &PerAddress<T>) -> PerAddress<T> {
    from_vec(a.to_vec())
}

#[derive(Debug)]
pub struct FlowCounts {
    /// Executions per CPU address.
    pub executed: PerAddress<u64>,
    /// Opcode of the instruction last executed at each address (its length
    /// and flow class follow from it).
    pub opcode: PerAddress<u8>,
    /// Current target of the branch / JMP abs / JSR at each address, and how
    /// many transfers went there (taken branches; every JMP/JSR execution).
    /// When patched code changes the target, the old target's count moves to
    /// `dynamic`, so counts stay exact under self-modifying code.
    pub static_target: PerAddress<u16>,
    pub static_count: PerAddress<u64>,
    /// (source, destination) counts of RTS, JMP (ind), BRK and software RTI,
    /// and of retired static targets.
    pub dynamic: HashMap<(u16, u16), u64>,
    /// Hardware interrupt entries per handler address.
    pub interrupts: HashMap<u16, u64>,
    /// Handler entry points entered by BRK (leaders).
    pub brk_handlers: HashMap<u16, u64>,
    /// Instructions retired (and hardware interrupt entries, not counted).
    pub instructions: u64,
    /// Open interrupt frames: (stack pointer after the pushes, kind).
    frames: Vec<(u8, EntryKind)>,
}

impl Clone for FlowCounts {
    fn clone(&self) -> Self {
        FlowCounts {
            executed: clone_per_address(&self.executed),
            opcode: clone_per_address(&self.opcode),
            static_target: clone_per_address(&self.static_target),
            static_count: clone_per_address(&self.static_count),
            dynamic: self.dynamic.clone(),
            interrupts: self.interrupts.clone(),
            brk_handlers: self.brk_handlers.clone(),
            instructions: self.instructions,
            frames: self.frames.clone(),
        }
    }
}

impl Default for FlowCounts {
    fn default() -> Self {
        FlowCounts::new()
    }
}

impl FlowCounts {
    /// Makes `self` a copy of `other`, reusing `self`'s buffers (unlike the
    /// derived `clone_from`): the live overlay copies the counts once a second
    /// and should not allocate a megabyte each time.
    pub fn copy_from(&mut self, other: &FlowCounts) {
        self.executed.copy_from_slice(&other.executed[..]);
        self.opcode.copy_from_slice(&other.opcode[..]);
        self.static_target.copy_from_slice(&other.static_target[..]);
        self.static_count.copy_from_slice(&other.static_count[..]);
        self.dynamic.clone_from(&other.dynamic);
        self.interrupts.clone_from(&other.interrupts);
        self.brk_handlers.clone_from(&other.brk_handlers);
        self.instructions = other.instructions;
        self.frames.clone_from(&other.frames);
    }

    pub fn new() -> FlowCounts {
        FlowCounts {
            executed: per_address(0),
            opcode: per_address(0xEA),
            static_target: per_address(0),
            static_count: per_address(0),
            dynamic: HashMap::new(),
            interrupts: HashMap::new(),
            brk_handlers: HashMap::new(),
            instructions: 0,
            frames: Vec::new(),
        }
    }

    /// Length in bytes of the instruction last executed at `pc`.
    #[inline]
    pub fn length(&self, pc: u16) -> u8 {
        OPCODES[self.opcode[pc as usize] as usize].byte_len()
    }

    /// Control-flow class of the instruction last executed at `pc`.
    #[inline]
    pub fn flow(&self, pc: u16) -> Flow {
        OPCODES[self.opcode[pc as usize] as usize].flow
    }

    /// An instruction at `pc` retired; the CPU then was at `next_pc` with
    /// stack pointer `sp` (before any interrupt that follows).
    #[inline]
    pub fn instruction(&mut self, pc: u16, opcode: u8, next_pc: u16, sp: u8) {
        let i = pc as usize;
        self.executed[i] += 1;
        self.instructions += 1;
        let info = &OPCODES[opcode as usize];
        self.opcode[i] = opcode;
        match info.flow {
            Flow::None => {}
            Flow::Branch => {
                if next_pc != pc.wrapping_add(2) {
                    self.static_transfer(pc, next_pc);
                }
            }
            Flow::Jump if info.mode == crate::cpu::opcodes::Mode::Absolute => {
                self.static_transfer(pc, next_pc);
            }
            Flow::Call => self.static_transfer(pc, next_pc),
            Flow::Jump | Flow::Return => self.dynamic_transition(pc, next_pc),
            Flow::Break => {
                self.dynamic_transition(pc, next_pc);
                *self.brk_handlers.entry(next_pc).or_insert(0) += 1;
                self.open_frame(sp, EntryKind::Software);
            }
            Flow::ReturnInterrupt => {
                // The RTI pulled 3 bytes: the frame it closes had the stack
                // pointer 3 below the current one.
                if self.close_frame(sp.wrapping_sub(3)) != Some(EntryKind::Hardware) {
                    self.dynamic_transition(pc, next_pc);
                }
            }
            Flow::Jam => {}
        }
    }

    /// A hardware interrupt entered `handler` (stack pointer `sp` after the
    /// three pushes).
    pub fn hardware_interrupt(&mut self, handler: u16, sp: u8) {
        *self.interrupts.entry(handler).or_insert(0) += 1;
        self.open_frame(sp, EntryKind::Hardware);
    }

    /// Counts `count` executions of each straight-line (pc, opcode) at once:
    /// the translator's per-block accounting. Equivalent to calling
    /// [`FlowCounts::instruction`] `count` times for each.
    /// `n` executions of the branch or absolute `JMP` at `pc` going to
    /// `target` (a loop's closing instruction, counted in bulk).
    pub fn instruction_repeated(&mut self, pc: u16, opcode: u8, target: u16, n: u64) {
        let i = pc as usize;
        self.executed[i] += n;
        self.instructions += n;
        self.opcode[i] = opcode;
        self.static_transfer(pc, target);
        self.static_count[i] += n - 1;
    }

    pub fn add_body_executions(&mut self, ops: impl Iterator<Item = (u16, u8)>, count: u64) {
        for (pc, opcode) in ops {
            let i = pc as usize;
            self.executed[i] += count;
            self.opcode[i] = opcode;
            self.instructions += count;
        }
    }

    #[inline]
    fn static_transfer(&mut self, pc: u16, target: u16) {
        let i = pc as usize;
        if self.static_target[i] != target {
            if self.static_count[i] > 0 {
                *self.dynamic.entry((pc, self.static_target[i])).or_insert(0) +=
                    self.static_count[i];
                self.static_count[i] = 0;
            }
            self.static_target[i] = target;
        }
        self.static_count[i] += 1;
    }

    /// All (source, destination, count) transfers recorded for the
    /// instruction at `pc` (taken branches, jumps, calls, returns, BRK,
    /// software RTI).
    pub fn transfers_from(&self, pc: u16) -> Vec<(u16, u64)> {
        let mut out: Vec<(u16, u64)> = self
            .dynamic
            .iter()
            .filter(|((src, _), _)| *src == pc)
            .map(|((_, dst), &n)| (*dst, n))
            .collect();
        let i = pc as usize;
        if self.static_count[i] > 0 {
            match out
                .iter_mut()
                .find(|(dst, _)| *dst == self.static_target[i])
            {
                Some(entry) => entry.1 += self.static_count[i],
                None => out.push((self.static_target[i], self.static_count[i])),
            }
        }
        out.sort_unstable();
        out
    }

    fn dynamic_transition(&mut self, pc: u16, next_pc: u16) {
        *self.dynamic.entry((pc, next_pc)).or_insert(0) += 1;
    }

    fn open_frame(&mut self, sp: u8, kind: EntryKind) {
        // Frames at or below this stack depth were abandoned.
        self.frames.retain(|&(frame_sp, _)| frame_sp > sp);
        self.frames.push((sp, kind));
    }

    fn close_frame(&mut self, sp: u8) -> Option<EntryKind> {
        while let Some(&(frame_sp, kind)) = self.frames.last() {
            if frame_sp < sp {
                // Abandoned deeper frame (the stack was reset under it).
                self.frames.pop();
                continue;
            }
            if frame_sp == sp {
                self.frames.pop();
                return Some(kind);
            }
            return None;
        }
        None
    }
}
