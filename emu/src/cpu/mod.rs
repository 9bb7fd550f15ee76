//! The 6502 core of the Ricoh 2A03 (NESdev wiki "CPU", "CPU interrupts",
//! "CPU unofficial opcodes", "DMA").
//!
//! Timing model: the CPU owns time. Every bus access the CPU makes is one CPU
//! cycle, and [`Bus::read`]/[`Bus::write`] clock the PPU (3 dots) and APU for
//! that cycle before returning. Instructions are written as their exact
//! per-cycle access sequences, dummy reads and writes included, so cycle counts
//! and bus side effects follow from the code rather than from a table.
//!
//! Interrupts: after every cycle the CPU samples the NMI line (edge detector)
//! and the IRQ line (level, masked by I). An instruction is followed by an
//! interrupt when the signal was present at the end of its second-to-last
//! cycle; this one rule yields the CLI/SEI/PLP one-instruction latency, RTI's
//! immediate effect, and, with the branch special case, the delayed IRQ after
//! a taken branch that does not cross a page. BRK and IRQ sequences are
//! hijacked by an NMI that arrives before their vector fetch.
//!
//! DMA: the 2A03's DMA unit halts the CPU on its next read cycle; the halted
//! read repeats once the DMA finishes. See [`Cpu::run_dma`].

mod addressing;
mod alu;
mod control;
mod dispatch;
mod implied;
pub mod opcodes;

use crate::bus::Bus;

pub const C: u8 = 0x01;
pub const Z: u8 = 0x02;
pub const I: u8 = 0x04;
pub const D: u8 = 0x08;
pub const B: u8 = 0x10;
pub const U: u8 = 0x20;
pub const V: u8 = 0x40;
pub const N: u8 = 0x80;

pub const NMI_VECTOR: u16 = 0xFFFA;
pub const RESET_VECTOR: u16 = 0xFFFC;
pub const IRQ_VECTOR: u16 = 0xFFFE;

/// How an instruction's bus cycles are carried out. Every instruction's
/// per-cycle sequence is written once, generic over this: the interpreter
/// ([`Interpreted`]) spends each cycle on the bus, reading its code bytes
/// through it; the translator (`translate::op::Translated`) supplies
/// pre-decoded code bytes and may count cycles in which nothing can happen
/// in bulk instead of clocking the machine through each.
pub(crate) trait Cycles {
    /// The instruction-stream byte at PC; advances PC. One read cycle.
    fn fetch(&mut self, cpu: &mut Cpu, bus: &mut Bus) -> u8;
    /// A read at PC that does not advance it (a 1-byte instruction's dummy
    /// read of the next byte, a taken branch's, JSR's high byte).
    fn read_pc(&mut self, cpu: &mut Cpu, bus: &mut Bus) -> u8;
    /// A data read cycle.
    fn read(&mut self, cpu: &mut Cpu, bus: &mut Bus, addr: u16) -> u8;
    /// A write cycle.
    fn write(&mut self, cpu: &mut Cpu, bus: &mut Bus, addr: u16, value: u8);
    /// The instruction read `addr` as data (after the cycle): reported to
    /// the memory recorder by [`Recorded`] cycles, nothing otherwise.
    #[inline(always)]
    fn note_read(&mut self, _bus: &mut Bus, _addr: u16) {}
    /// The instruction wrote `addr` as data (as [`Cycles::note_read`]).
    #[inline(always)]
    fn note_write(&mut self, _bus: &mut Bus, _addr: u16) {}
    /// A push wrote the stack byte at `addr` (as [`Cycles::note_read`]).
    #[inline(always)]
    fn note_push(&mut self, _bus: &mut Bus, _addr: u16) {}
}

/// `S`'s cycles with the data accesses reported to the memory recorder
/// (`crate::memory_log`): every read and write if `FULL`, else only the
/// writes' new last writers (between bursts, so that a burst's reads find
/// who wrote what they read). Further monomorphisations of the instruction
/// code, which the engines run only while the recorder is attached, so
/// that without it the accesses cost nothing extra.
///
/// Accesses are reported with the CPU address `op_pc` of the instruction
/// making them, so that the engines need not tell the recorder when each
/// instruction begins (`MemoryRecorder::read`, `MemoryRecorder::track_write`).
pub(crate) struct Recorded<S, const FULL: bool> {
    pub cycles: S,
    pub op_pc: u16,
}

impl<S: Cycles, const FULL: bool> Cycles for Recorded<S, FULL> {
    #[inline(always)]
    fn fetch(&mut self, cpu: &mut Cpu, bus: &mut Bus) -> u8 {
        self.cycles.fetch(cpu, bus)
    }

    #[inline(always)]
    fn read_pc(&mut self, cpu: &mut Cpu, bus: &mut Bus) -> u8 {
        self.cycles.read_pc(cpu, bus)
    }

    #[inline(always)]
    fn read(&mut self, cpu: &mut Cpu, bus: &mut Bus, addr: u16) -> u8 {
        self.cycles.read(cpu, bus, addr)
    }

    #[inline(always)]
    fn write(&mut self, cpu: &mut Cpu, bus: &mut Bus, addr: u16, value: u8) {
        self.cycles.write(cpu, bus, addr, value)
    }

    #[inline(always)]
    fn note_read(&mut self, bus: &mut Bus, addr: u16) {
        if FULL {
            if let Some(m) = bus.memory.as_deref_mut() {
                m.read(addr, self.op_pc);
            }
        }
    }

    #[inline(always)]
    fn note_write(&mut self, bus: &mut Bus, addr: u16) {
        if let Some(m) = bus.memory.as_deref_mut() {
            if FULL {
                m.write(addr, self.op_pc);
            } else {
                m.track_write(addr, self.op_pc);
            }
        }
    }

    #[inline(always)]
    fn note_push(&mut self, bus: &mut Bus, addr: u16) {
        if let Some(m) = bus.memory.as_deref_mut() {
            m.push(addr);
        }
    }
}

/// Every cycle on the bus: the interpreter.
pub(crate) struct Interpreted;

impl Cycles for Interpreted {
    #[inline(always)]
    fn fetch(&mut self, cpu: &mut Cpu, bus: &mut Bus) -> u8 {
        let v = cpu.read(bus, cpu.pc);
        cpu.pc = cpu.pc.wrapping_add(1);
        v
    }

    #[inline(always)]
    fn read_pc(&mut self, cpu: &mut Cpu, bus: &mut Bus) -> u8 {
        cpu.read(bus, cpu.pc)
    }

    #[inline(always)]
    fn read(&mut self, cpu: &mut Cpu, bus: &mut Bus, addr: u16) -> u8 {
        cpu.read(bus, addr)
    }

    #[inline(always)]
    fn write(&mut self, cpu: &mut Cpu, bus: &mut Bus, addr: u16, value: u8) {
        cpu.write(bus, addr, value)
    }
}

/// What one call of [`Cpu::step`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    /// Executed the instruction with this opcode.
    Instruction(u8),
    /// Entered an interrupt handler (the 7-cycle sequence).
    Nmi,
    Irq,
    /// The CPU is halted by a JAM opcode; one idle cycle passed.
    Jammed,
}

/// A snapshot of the programmer-visible registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CpuState {
    pub a: u8,
    pub x: u8,
    pub y: u8,
    pub s: u8,
    pub p: u8,
    pub pc: u16,
}

#[derive(Debug, Clone)]
pub struct Cpu {
    pub a: u8,
    pub x: u8,
    pub y: u8,
    pub s: u8,
    pub p: u8,
    pub pc: u16,
    /// Set when a JAM opcode stopped the CPU: (address, opcode).
    pub jammed: Option<(u16, u8)>,
    nmi_line_prev: bool,
    need_nmi: bool,
    prev_need_nmi: bool,
    run_irq: bool,
    prev_run_irq: bool,
    /// The last poll changed nothing and neither the lines (`seen_lines`)
    /// nor I have moved since, so polling again would change nothing either.
    poll_settled: bool,
    seen_lines: u32,
    /// Cycles the translator may still count in bulk instead of running
    /// them (`translate::op::Translated`): zeroed whenever the
    /// interrupt poll stops being settled, so a window never spans a cycle
    /// whose poll could change something.
    pub(crate) idle_budget: u32,
    /// The translator's hot regions' scratch (`translate::region`): the
    /// cycle the chain must stop at while a region runs, and the window
    /// cycles owed when a region's check between two blocks stopped it.
    pub(crate) region_stop: u64,
    pub(crate) region_owed: u32,
}

impl Default for Cpu {
    fn default() -> Self {
        Cpu::new()
    }
}

impl Cpu {
    pub fn new() -> Cpu {
        Cpu {
            a: 0,
            x: 0,
            y: 0,
            s: 0,
            p: I | U,
            pc: 0,
            jammed: None,
            nmi_line_prev: false,
            need_nmi: false,
            prev_need_nmi: false,
            run_irq: false,
            prev_run_irq: false,
            poll_settled: false,
            seen_lines: 0,
            idle_budget: 0,
            region_stop: 0,
            region_owed: 0,
        }
    }

    pub fn state(&self) -> CpuState {
        CpuState {
            a: self.a,
            x: self.x,
            y: self.y,
            s: self.s,
            p: self.p,
            pc: self.pc,
        }
    }

    /// Power-on: registers as on hardware (A=X=Y=0, S=$00, P=$34 once the reset
    /// sequence has run), then the reset sequence.
    pub fn power_on(&mut self, bus: &mut Bus) {
        *self = Cpu::new();
        self.reset(bus);
    }

    /// The reset sequence: 7 cycles like an interrupt, but the three stack
    /// writes are reads (S still decrements by 3), I is set, and the vector is
    /// $FFFC. A, X, Y and the other flags are kept.
    pub fn reset(&mut self, bus: &mut Bus) {
        self.jammed = None;
        self.read(bus, self.pc);
        self.read(bus, self.pc);
        for _ in 0..3 {
            self.read(bus, 0x100 | self.s as u16);
            self.s = self.s.wrapping_sub(1);
        }
        self.p |= I | U;
        let lo = self.read(bus, RESET_VECTOR);
        let hi = self.read(bus, RESET_VECTOR + 1);
        bus.cart.log_prg(RESET_VECTOR, crate::access_log::DATA);
        bus.cart.log_prg(RESET_VECTOR + 1, crate::access_log::DATA);
        self.pc = u16::from_le_bytes([lo, hi]);
        self.need_nmi = false;
        self.prev_need_nmi = false;
        self.run_irq = false;
        self.prev_run_irq = false;
        self.unsettle_poll();
    }

    /// Runs one instruction, or the interrupt sequence if an interrupt was
    /// pending at the end of the previous instruction. Kept out of line as
    /// it always was (inlined into `Nes::step` it costs the interpreter 7 %
    /// more host instructions).
    #[inline(never)]
    pub fn step(&mut self, bus: &mut Bus) -> StepKind {
        self.step_with(bus, &mut Interpreted)
    }

    /// [`Cpu::step`] with the data accesses reported to the memory recorder
    /// attached to `bus` (`crate::memory_profile`).
    #[inline(never)]
    pub fn step_recorded(&mut self, bus: &mut Bus) -> StepKind {
        let op_pc = self.pc;
        self.step_with(
            bus,
            &mut Recorded::<_, true> {
                cycles: Interpreted,
                op_pc,
            },
        )
    }

    /// [`Cpu::step`] with only the writes reported to the memory recorder
    /// (between its bursts).
    #[inline(never)]
    pub fn step_tracked(&mut self, bus: &mut Bus) -> StepKind {
        let op_pc = self.pc;
        self.step_with(
            bus,
            &mut Recorded::<_, false> {
                cycles: Interpreted,
                op_pc,
            },
        )
    }

    #[inline(always)]
    fn step_with<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) -> StepKind {
        if self.jammed.is_some() {
            // A jammed 6502 keeps the bus busy but does nothing; keep the rest
            // of the machine running so the screen stays live.
            self.read(bus, 0xFFFF);
            return StepKind::Jammed;
        }
        if self.prev_need_nmi {
            self.interrupt_sequence(bus, src, false);
            return StepKind::Nmi;
        }
        if self.prev_run_irq {
            return if self.interrupt_sequence(bus, src, false) {
                StepKind::Nmi
            } else {
                StepKind::Irq
            };
        }
        let opcode = src.fetch(self, bus);
        self.execute(bus, src, opcode);
        StepKind::Instruction(opcode)
    }

    /// Whether an interrupt will be taken before the next instruction,
    /// ignoring a JAM (for callers that know the CPU is not jammed).
    #[inline(always)]
    pub(crate) fn interrupt_signalled(&self) -> bool {
        self.prev_need_nmi | self.prev_run_irq
    }

    /// Whether an interrupt will be taken before the next instruction.
    pub fn interrupt_pending(&self) -> bool {
        self.jammed.is_none() && (self.prev_need_nmi || self.prev_run_irq)
    }

    /// The hardware interrupt sequence, shared with BRK. Returns whether the
    /// NMI vector was used (an NMI hijacks an IRQ or BRK whose vector fetch has
    /// not started yet).
    fn interrupt_sequence<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S, brk: bool) -> bool {
        if !brk {
            // The opcode fetch and the operand fetch happen, but are discarded
            // and PC does not advance. (BRK did its two fetches already.)
            self.load(bus, src, self.pc);
            self.load(bus, src, self.pc);
        }
        self.push(bus, src, (self.pc >> 8) as u8);
        self.push(bus, src, self.pc as u8);
        let pushed_p = if brk {
            self.p | B | U
        } else {
            (self.p & !B) | U
        };
        self.push(bus, src, pushed_p);
        self.p |= I;
        // The vector is chosen from the NMI signal as it stood at the end of
        // the previous cycle: an NMI detected on the P push itself is too
        // late to hijack (blargg's 2-nmi_and_brk).
        let nmi = self.prev_need_nmi;
        let vector = if nmi {
            self.need_nmi = false;
            NMI_VECTOR
        } else {
            IRQ_VECTOR
        };
        let lo = self.load(bus, src, vector);
        let hi = self.load(bus, src, vector + 1);
        // Vectors are data (as FCEUX's `LogCDVectors` logs them).
        bus.cart.log_prg(vector, crate::access_log::DATA);
        bus.cart.log_prg(vector + 1, crate::access_log::DATA);
        self.pc = u16::from_le_bytes([lo, hi]);
        // The first instruction of a handler always runs before another
        // interrupt is taken.
        self.prev_need_nmi = false;
        self.prev_run_irq = false;
        self.unsettle_poll();
        nmi
    }

    /// Samples the interrupt lines at the end of a cycle. Skipped while it
    /// would change nothing: the previous poll left every value as it found
    /// it and neither the lines nor the I flag moved since (anything that
    /// changes I or the interrupt state clears `poll_settled`).
    #[inline(always)]
    pub(crate) fn poll_interrupts(&mut self, bus: &Bus) {
        if self.poll_settled && bus.lines_epoch == self.seen_lines {
            return;
        }
        self.poll_interrupts_now(bus);
    }

    #[inline]
    fn poll_interrupts_now(&mut self, bus: &Bus) {
        self.seen_lines = bus.lines_epoch;
        self.prev_need_nmi = self.need_nmi;
        let nmi = bus.nmi_line();
        if nmi && !self.nmi_line_prev {
            self.need_nmi = true;
        }
        self.nmi_line_prev = nmi;
        self.prev_run_irq = self.run_irq;
        self.run_irq = bus.irq_line() && self.p & I == 0;
        self.poll_settled =
            self.prev_need_nmi == self.need_nmi && self.prev_run_irq == self.run_irq;
    }

    /// Whether polling now would change nothing (see `poll_interrupts`).
    #[inline(always)]
    pub(crate) fn poll_is_settled(&self, bus: &Bus) -> bool {
        self.poll_settled && bus.lines_epoch == self.seen_lines
    }

    /// Called whenever I or the interrupt state changes outside a poll.
    #[inline(always)]
    pub(super) fn unsettle_poll(&mut self) {
        self.poll_settled = false;
        self.idle_budget = 0;
    }

    /// One CPU read cycle (after any DMA the read lets in).
    #[inline(always)]
    pub(crate) fn read(&mut self, bus: &mut Bus, addr: u16) -> u8 {
        if bus.dma_pending() {
            self.run_dma(bus, addr);
        }
        let value = bus.read(addr);
        self.poll_interrupts(bus);
        value
    }

    /// One CPU write cycle. DMA never halts the CPU on a write.
    #[inline(always)]
    pub(crate) fn write(&mut self, bus: &mut Bus, addr: u16, value: u8) {
        bus.write(addr, value);
        self.poll_interrupts(bus);
    }

    /// A read cycle whose value the caller already knows: the translator's
    /// fetches of pre-decoded code bytes. Identical bus behaviour (DMA halts,
    /// PPU/APU clocking, open bus, interrupt polling), minus the address
    /// decode.
    #[inline(always)]
    pub(crate) fn read_known(&mut self, bus: &mut Bus, addr: u16, value: u8) -> u8 {
        if bus.dma_pending() {
            self.run_dma(bus, addr);
        }
        bus.read_known(value);
        self.poll_interrupts(bus);
        value
    }

    /// An instruction's data read cycle, as `src` carries it out.
    #[inline(always)]
    fn load<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S, addr: u16) -> u8 {
        src.read(self, bus, addr)
    }

    /// An instruction's write cycle, as `src` carries it out.
    #[inline(always)]
    fn store<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S, addr: u16, value: u8) {
        src.write(self, bus, addr, value)
    }

    /// An instruction's data write cycle (a store, a read-modify-write's
    /// result), reported to the memory recorder.
    #[inline(always)]
    fn store_data<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S, addr: u16, value: u8) {
        src.write(self, bus, addr, value);
        src.note_write(bus, addr);
    }

    /// An instruction's data read cycle (a pointer byte), reported to the
    /// memory recorder.
    #[inline(always)]
    fn load_data<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S, addr: u16) -> u8 {
        let value = src.read(self, bus, addr);
        src.note_read(bus, addr);
        value
    }

    #[inline(always)]
    fn push<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S, value: u8) {
        src.note_push(bus, 0x100 | self.s as u16);
        self.store(bus, src, 0x100 | self.s as u16, value);
        self.s = self.s.wrapping_sub(1);
    }

    #[inline(always)]
    fn pull<S: Cycles>(&mut self, bus: &mut Bus, src: &mut S) -> u8 {
        self.s = self.s.wrapping_add(1);
        self.load(bus, src, 0x100 | self.s as u16)
    }
}
