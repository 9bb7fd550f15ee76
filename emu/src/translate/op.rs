//! A translated op: one pre-decoded instruction, and how it runs — its
//! opcode's handler, the interpreter's per-cycle sequence with the code
//! bytes supplied from the op, and the idle window in which cycles that
//! need no bus work are counted in bulk.

use crate::bus::Bus;
use crate::cpu::opcodes::{Flow, OPCODES};
use crate::cpu::{Cpu, Cycles, Recorded};

/// One pre-decoded instruction.
#[derive(Debug, Clone, Copy)]
pub struct Op {
    pub pc: u16,
    /// Its opcode's handler ([`OP_HANDLERS`]).
    pub run: OpHandler,
    /// The three bytes at `pc` (opcode, operands, and whatever follows a
    /// shorter instruction: 1-byte instructions and taken branches dummy-read
    /// the byte after them), padded to 4 so an index masked with 3 needs no
    /// bounds check.
    pub bytes: [u8; 4],
    /// Whether it can report anything to the memory recorder: with the
    /// operands it was decoded with ([`reports_accesses`] and
    /// [`may_report`]), or with any operands in a block whose operands are
    /// live ([`Op::with_live_operands`]). Worked out once: a burst's start
    /// and end switch every op of every block they run (in the struct's
    /// padding).
    pub reports: bool,
}

// `reports` sits in padding: an op stays 16 bytes, four to a cache line.
const _: () = assert!(std::mem::size_of::<Op>() == 16);

impl Op {
    pub fn new(pc: u16, bytes: [u8; 4]) -> Op {
        let mut op = Op {
            pc,
            run: OP_HANDLERS[bytes[0] as usize],
            bytes,
            reports: false,
        };
        op.reports = reports_accesses(bytes[0]) && may_report(&op);
        op
    }

    /// The op in a block whose operands are live (`Block::live`): they may
    /// address anything by the time it runs, so only its opcode says
    /// whether it can report.
    pub fn with_live_operands(self) -> Op {
        Op {
            reports: reports_accesses(self.opcode()),
            ..self
        }
    }

    /// The op with its bytes read again from console RAM, where its block
    /// has live operands (`Block::live`; only RAM blocks do).
    #[inline(always)]
    pub fn reread(&self, ram: &[u8; 0x800]) -> Op {
        let at = |i: u16| ram[(self.pc.wrapping_add(i) & 0x7FF) as usize];
        Op {
            bytes: [at(0), at(1), at(2), 0],
            ..*self
        }
    }

    /// Its code address, given its block's `Block::code_high`.
    #[inline(always)]
    pub fn code(&self, code_high: u32) -> u32 {
        code_high | self.pc as u32
    }

    pub fn opcode(&self) -> u8 {
        self.bytes[0]
    }

    /// Its length in bytes.
    pub fn len(&self) -> u16 {
        OPCODES[self.bytes[0] as usize].byte_len() as u16
    }

    /// For a conditional branch, the CPU address it goes to when taken.
    #[inline]
    pub fn branch_target(&self) -> Option<u16> {
        (self.flow() == Flow::Branch).then(|| crate::disasm::branch_target(self.pc, self.bytes[1]))
    }

    pub fn flow(&self) -> Flow {
        OPCODES[self.bytes[0] as usize].flow
    }
}

/// The longest instruction (an indexed read-modify-write): the most cycles
/// one op can spend.
pub(super) const LONGEST_INSTRUCTION: u32 = 8;

/// The cycles owed that a handler takes and returns when the window is
/// closed (see [`OpHandler`]).
pub(super) const CLOSED: u32 = u32::MAX;

/// A translated op's cycles: its bytes come from the op, and cycles in an
/// idle window are counted instead of run.
///
/// The idle window: while the interrupt poll is settled and nothing can
/// happen on its own for the next `cpu.idle_budget` cycles (no DMA, APU
/// event, PPU catch-up or strobe due: [`Bus::idle_cycles_available`]), a
/// read of RAM or PRG ROM or a write of RAM changes nothing but the memory,
/// the data bus and the cycle count; nor can an interrupt become pending.
/// Those cycles are `owed` and added to the machine in one step (after the
/// op, or after a whole block that fits the window: see
/// `Translator::run_ops`), or before the first access that needs the bus
/// (I/O, cartridge registers, PRG RAM), which closes the window; so does a
/// write into translated code (the block must stop after it). The ops that
/// change the interrupt state (CLI, SEI, PLP, RTI, BRK) run closed.
///
/// This is where the translation pays beyond skipping decode: the
/// interpreter, the reference, spends every cycle on the bus.
pub(crate) struct Translated<'a> {
    op: &'a Op,
    /// Whether the window is open: a flag of its own rather than `owed`
    /// being [`CLOSED`], so that in a handler entered with the window open
    /// the test folds away for every cycle before the first that can
    /// close it (the code fetches, and every access of the zero-page,
    /// immediate and implied instructions).
    open: bool,
    /// Whether every data access of the op was found plain before it ran
    /// ([`accesses_plain`]): a read then needs no fallback to the bus and
    /// a RAM write no look at the code marks, so the handler calls nothing
    /// and saves no registers. A constant in each handler.
    plain: bool,
    /// Cycles counted and not yet added to the machine (while `open`).
    owed: u32,
    /// The op's byte the next code read reads (`cpu.pc - op.pc`, kept
    /// apart so that in each opcode's handler it is a constant).
    next: usize,
}

impl<'a> Translated<'a> {
    /// Cycles for `op` with `owed` window cycles owed, or [`CLOSED`].
    #[inline(always)]
    fn new(op: &'a Op, owed: u32) -> Translated<'a> {
        Translated {
            op,
            open: owed != CLOSED,
            plain: false,
            owed: if owed != CLOSED { owed } else { 0 },
            next: 0,
        }
    }

    /// What the handler returns: the cycles owed, or [`CLOSED`].
    #[inline(always)]
    fn owed(&self) -> u32 {
        if self.open {
            self.owed
        } else {
            CLOSED
        }
    }

    /// Adds the owed cycles to the machine and closes the window, before
    /// a cycle that needs the bus.
    #[inline(always)]
    fn close(&mut self, cpu: &mut Cpu, bus: &mut Bus) {
        if self.open {
            close_window(cpu, bus, self.owed);
            self.open = false;
        }
    }

    #[inline(always)]
    fn code_byte(&mut self, cpu: &mut Cpu, bus: &mut Bus) -> u8 {
        let value = self.op.bytes[self.next & 3];
        if self.open {
            self.owed += 1;
            bus.open_bus = value;
        } else {
            cpu.read_known(bus, cpu.pc, value);
        }
        value
    }
}

/// Adds `owed` window cycles to the machine.
#[inline(always)]
pub(super) fn settle(cpu: &mut Cpu, bus: &mut Bus, owed: u32) {
    if owed > 0 {
        bus.skip_idle_cycles(owed as u64);
        cpu.idle_budget -= owed;
    }
}

/// Adds `owed` window cycles to the machine and closes the window: the
/// next op opens it again from the machine as it is.
#[inline(always)]
fn close_window(cpu: &mut Cpu, bus: &mut Bus, owed: u32) {
    settle(cpu, bus, owed);
    cpu.idle_budget = 0;
}

/// Opens the idle window for the next `cycles` cycles if it can be (see
/// [`Translated`]); returns whether it is open for them.
#[inline(always)]
pub(super) fn open_for(cycles: u32, cpu: &mut Cpu, bus: &Bus) -> bool {
    if cpu.idle_budget < cycles {
        cpu.idle_budget = if cpu.poll_is_settled(bus) {
            bus.idle_cycles_available().min(u32::MAX as u64) as u32
        } else {
            0
        };
    }
    cpu.idle_budget >= cycles
}

/// What the idle window can do for a block that may take `bound` cycles,
/// with `owed` window cycles owed ([`window_for`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Window {
    /// It holds them (opened again if need be, the cycles owed then
    /// settled).
    Holds,
    /// The stop could come within them: nothing was settled.
    InReach,
    /// It cannot open for them (the cycles owed were settled): the block
    /// runs an op at a time.
    Closed,
}

/// Whether the idle window holds a block's next `bound` cycles after
/// `owed` owed, before `stop_at_cycle`: as it stands, or opened again from
/// the machine once `owed` is settled. The one test a block's run and a
/// region's check between two blocks both make.
#[inline(always)]
pub(super) fn window_for(
    bound: u32,
    owed: &mut u32,
    cpu: &mut Cpu,
    bus: &mut Bus,
    stop_at_cycle: u64,
) -> Window {
    let end = *owed + bound;
    if end <= cpu.idle_budget && bus.cycles + (end as u64) < stop_at_cycle {
        return Window::Holds;
    }
    if bus.cycles + end as u64 >= stop_at_cycle {
        return Window::InReach;
    }
    settle(cpu, bus, *owed);
    *owed = 0;
    if bus.cycles + (bound as u64) < stop_at_cycle && open_for(bound, cpu, bus) {
        Window::Holds
    } else {
        Window::Closed
    }
}

impl Cycles for Translated<'_> {
    #[inline(always)]
    fn fetch(&mut self, cpu: &mut Cpu, bus: &mut Bus) -> u8 {
        let value = self.code_byte(cpu, bus);
        cpu.pc = cpu.pc.wrapping_add(1);
        self.next += 1;
        value
    }

    #[inline(always)]
    fn read_pc(&mut self, cpu: &mut Cpu, bus: &mut Bus) -> u8 {
        self.code_byte(cpu, bus)
    }

    #[inline(always)]
    fn read(&mut self, cpu: &mut Cpu, bus: &mut Bus, addr: u16) -> u8 {
        if self.open {
            if let Some(value) = bus.plain_read(addr) {
                self.owed += 1;
                bus.open_bus = value;
                return value;
            }
            if self.plain {
                debug_assert!(false, "${addr:04X} was found plain");
                return bus.open_bus;
            }
            self.close(cpu, bus);
        }
        cpu.read(bus, addr)
    }

    #[inline(always)]
    fn write(&mut self, cpu: &mut Cpu, bus: &mut Bus, addr: u16, value: u8) {
        if self.open {
            if addr < 0x2000 {
                self.owed += 1;
                bus.open_bus = value;
                if self.plain {
                    // Found holding no translated code before the op ran
                    // (and an op's own writes mark none).
                    bus.ram[addr as usize & 0x7FF] = value;
                    return;
                }
                if bus.store_ram(addr, value) {
                    // Translated code was written: the block must stop
                    // after this op, which a closed window tells it.
                    self.close(cpu, bus);
                }
                return;
            }
            if self.plain {
                debug_assert!(false, "${addr:04X} was found plain");
                return;
            }
            self.close(cpu, bus);
        }
        cpu.write(bus, addr, value)
    }
}

/// How a translated op runs: one function per opcode, chosen when the op
/// is decoded, so an op starts straight in its own instruction's code
/// instead of at a 256-way dispatch on its opcode. It takes the cycles
/// owed in the idle window so far (or [`CLOSED`]; open, the window must
/// hold the op's cycles) and returns them with its own added (or
/// [`CLOSED`], having added them to the machine, if it closed it).
pub(super) type OpHandler = fn(&Op, &mut Cpu, &mut Bus, u32) -> u32;

/// Every opcode's handler, in opcode order.
#[rustfmt::skip]
pub(super) static OP_HANDLERS: [OpHandler; 256] = [
    run_op::<0x00>, run_op::<0x01>, run_op::<0x02>, run_op::<0x03>, run_op::<0x04>, run_op::<0x05>,
    run_op::<0x06>, run_op::<0x07>, run_op::<0x08>, run_op::<0x09>, run_op::<0x0A>, run_op::<0x0B>,
    run_op::<0x0C>, run_op::<0x0D>, run_op::<0x0E>, run_op::<0x0F>, run_op::<0x10>, run_op::<0x11>,
    run_op::<0x12>, run_op::<0x13>, run_op::<0x14>, run_op::<0x15>, run_op::<0x16>, run_op::<0x17>,
    run_op::<0x18>, run_op::<0x19>, run_op::<0x1A>, run_op::<0x1B>, run_op::<0x1C>, run_op::<0x1D>,
    run_op::<0x1E>, run_op::<0x1F>, run_op::<0x20>, run_op::<0x21>, run_op::<0x22>, run_op::<0x23>,
    run_op::<0x24>, run_op::<0x25>, run_op::<0x26>, run_op::<0x27>, run_op::<0x28>, run_op::<0x29>,
    run_op::<0x2A>, run_op::<0x2B>, run_op::<0x2C>, run_op::<0x2D>, run_op::<0x2E>, run_op::<0x2F>,
    run_op::<0x30>, run_op::<0x31>, run_op::<0x32>, run_op::<0x33>, run_op::<0x34>, run_op::<0x35>,
    run_op::<0x36>, run_op::<0x37>, run_op::<0x38>, run_op::<0x39>, run_op::<0x3A>, run_op::<0x3B>,
    run_op::<0x3C>, run_op::<0x3D>, run_op::<0x3E>, run_op::<0x3F>, run_op::<0x40>, run_op::<0x41>,
    run_op::<0x42>, run_op::<0x43>, run_op::<0x44>, run_op::<0x45>, run_op::<0x46>, run_op::<0x47>,
    run_op::<0x48>, run_op::<0x49>, run_op::<0x4A>, run_op::<0x4B>, run_op::<0x4C>, run_op::<0x4D>,
    run_op::<0x4E>, run_op::<0x4F>, run_op::<0x50>, run_op::<0x51>, run_op::<0x52>, run_op::<0x53>,
    run_op::<0x54>, run_op::<0x55>, run_op::<0x56>, run_op::<0x57>, run_op::<0x58>, run_op::<0x59>,
    run_op::<0x5A>, run_op::<0x5B>, run_op::<0x5C>, run_op::<0x5D>, run_op::<0x5E>, run_op::<0x5F>,
    run_op::<0x60>, run_op::<0x61>, run_op::<0x62>, run_op::<0x63>, run_op::<0x64>, run_op::<0x65>,
    run_op::<0x66>, run_op::<0x67>, run_op::<0x68>, run_op::<0x69>, run_op::<0x6A>, run_op::<0x6B>,
    run_op::<0x6C>, run_op::<0x6D>, run_op::<0x6E>, run_op::<0x6F>, run_op::<0x70>, run_op::<0x71>,
    run_op::<0x72>, run_op::<0x73>, run_op::<0x74>, run_op::<0x75>, run_op::<0x76>, run_op::<0x77>,
    run_op::<0x78>, run_op::<0x79>, run_op::<0x7A>, run_op::<0x7B>, run_op::<0x7C>, run_op::<0x7D>,
    run_op::<0x7E>, run_op::<0x7F>, run_op::<0x80>, run_op::<0x81>, run_op::<0x82>, run_op::<0x83>,
    run_op::<0x84>, run_op::<0x85>, run_op::<0x86>, run_op::<0x87>, run_op::<0x88>, run_op::<0x89>,
    run_op::<0x8A>, run_op::<0x8B>, run_op::<0x8C>, run_op::<0x8D>, run_op::<0x8E>, run_op::<0x8F>,
    run_op::<0x90>, run_op::<0x91>, run_op::<0x92>, run_op::<0x93>, run_op::<0x94>, run_op::<0x95>,
    run_op::<0x96>, run_op::<0x97>, run_op::<0x98>, run_op::<0x99>, run_op::<0x9A>, run_op::<0x9B>,
    run_op::<0x9C>, run_op::<0x9D>, run_op::<0x9E>, run_op::<0x9F>, run_op::<0xA0>, run_op::<0xA1>,
    run_op::<0xA2>, run_op::<0xA3>, run_op::<0xA4>, run_op::<0xA5>, run_op::<0xA6>, run_op::<0xA7>,
    run_op::<0xA8>, run_op::<0xA9>, run_op::<0xAA>, run_op::<0xAB>, run_op::<0xAC>, run_op::<0xAD>,
    run_op::<0xAE>, run_op::<0xAF>, run_op::<0xB0>, run_op::<0xB1>, run_op::<0xB2>, run_op::<0xB3>,
    run_op::<0xB4>, run_op::<0xB5>, run_op::<0xB6>, run_op::<0xB7>, run_op::<0xB8>, run_op::<0xB9>,
    run_op::<0xBA>, run_op::<0xBB>, run_op::<0xBC>, run_op::<0xBD>, run_op::<0xBE>, run_op::<0xBF>,
    run_op::<0xC0>, run_op::<0xC1>, run_op::<0xC2>, run_op::<0xC3>, run_op::<0xC4>, run_op::<0xC5>,
    run_op::<0xC6>, run_op::<0xC7>, run_op::<0xC8>, run_op::<0xC9>, run_op::<0xCA>, run_op::<0xCB>,
    run_op::<0xCC>, run_op::<0xCD>, run_op::<0xCE>, run_op::<0xCF>, run_op::<0xD0>, run_op::<0xD1>,
    run_op::<0xD2>, run_op::<0xD3>, run_op::<0xD4>, run_op::<0xD5>, run_op::<0xD6>, run_op::<0xD7>,
    run_op::<0xD8>, run_op::<0xD9>, run_op::<0xDA>, run_op::<0xDB>, run_op::<0xDC>, run_op::<0xDD>,
    run_op::<0xDE>, run_op::<0xDF>, run_op::<0xE0>, run_op::<0xE1>, run_op::<0xE2>, run_op::<0xE3>,
    run_op::<0xE4>, run_op::<0xE5>, run_op::<0xE6>, run_op::<0xE7>, run_op::<0xE8>, run_op::<0xE9>,
    run_op::<0xEA>, run_op::<0xEB>, run_op::<0xEC>, run_op::<0xED>, run_op::<0xEE>, run_op::<0xEF>,
    run_op::<0xF0>, run_op::<0xF1>, run_op::<0xF2>, run_op::<0xF3>, run_op::<0xF4>, run_op::<0xF5>,
    run_op::<0xF6>, run_op::<0xF7>, run_op::<0xF8>, run_op::<0xF9>, run_op::<0xFA>, run_op::<0xFB>,
    run_op::<0xFC>, run_op::<0xFD>, run_op::<0xFE>, run_op::<0xFF>,
];

/// Every opcode's handler with its data accesses reported to the memory
/// recorder ([`run_op_recorded`]), in opcode order.
#[rustfmt::skip]
static RECORDED_HANDLERS: [OpHandler; 256] = [
    run_op_recorded::<0x00>, run_op_recorded::<0x01>, run_op_recorded::<0x02>, run_op_recorded::<0x03>, run_op_recorded::<0x04>, run_op_recorded::<0x05>,
    run_op_recorded::<0x06>, run_op_recorded::<0x07>, run_op_recorded::<0x08>, run_op_recorded::<0x09>, run_op_recorded::<0x0A>, run_op_recorded::<0x0B>,
    run_op_recorded::<0x0C>, run_op_recorded::<0x0D>, run_op_recorded::<0x0E>, run_op_recorded::<0x0F>, run_op_recorded::<0x10>, run_op_recorded::<0x11>,
    run_op_recorded::<0x12>, run_op_recorded::<0x13>, run_op_recorded::<0x14>, run_op_recorded::<0x15>, run_op_recorded::<0x16>, run_op_recorded::<0x17>,
    run_op_recorded::<0x18>, run_op_recorded::<0x19>, run_op_recorded::<0x1A>, run_op_recorded::<0x1B>, run_op_recorded::<0x1C>, run_op_recorded::<0x1D>,
    run_op_recorded::<0x1E>, run_op_recorded::<0x1F>, run_op_recorded::<0x20>, run_op_recorded::<0x21>, run_op_recorded::<0x22>, run_op_recorded::<0x23>,
    run_op_recorded::<0x24>, run_op_recorded::<0x25>, run_op_recorded::<0x26>, run_op_recorded::<0x27>, run_op_recorded::<0x28>, run_op_recorded::<0x29>,
    run_op_recorded::<0x2A>, run_op_recorded::<0x2B>, run_op_recorded::<0x2C>, run_op_recorded::<0x2D>, run_op_recorded::<0x2E>, run_op_recorded::<0x2F>,
    run_op_recorded::<0x30>, run_op_recorded::<0x31>, run_op_recorded::<0x32>, run_op_recorded::<0x33>, run_op_recorded::<0x34>, run_op_recorded::<0x35>,
    run_op_recorded::<0x36>, run_op_recorded::<0x37>, run_op_recorded::<0x38>, run_op_recorded::<0x39>, run_op_recorded::<0x3A>, run_op_recorded::<0x3B>,
    run_op_recorded::<0x3C>, run_op_recorded::<0x3D>, run_op_recorded::<0x3E>, run_op_recorded::<0x3F>, run_op_recorded::<0x40>, run_op_recorded::<0x41>,
    run_op_recorded::<0x42>, run_op_recorded::<0x43>, run_op_recorded::<0x44>, run_op_recorded::<0x45>, run_op_recorded::<0x46>, run_op_recorded::<0x47>,
    run_op_recorded::<0x48>, run_op_recorded::<0x49>, run_op_recorded::<0x4A>, run_op_recorded::<0x4B>, run_op_recorded::<0x4C>, run_op_recorded::<0x4D>,
    run_op_recorded::<0x4E>, run_op_recorded::<0x4F>, run_op_recorded::<0x50>, run_op_recorded::<0x51>, run_op_recorded::<0x52>, run_op_recorded::<0x53>,
    run_op_recorded::<0x54>, run_op_recorded::<0x55>, run_op_recorded::<0x56>, run_op_recorded::<0x57>, run_op_recorded::<0x58>, run_op_recorded::<0x59>,
    run_op_recorded::<0x5A>, run_op_recorded::<0x5B>, run_op_recorded::<0x5C>, run_op_recorded::<0x5D>, run_op_recorded::<0x5E>, run_op_recorded::<0x5F>,
    run_op_recorded::<0x60>, run_op_recorded::<0x61>, run_op_recorded::<0x62>, run_op_recorded::<0x63>, run_op_recorded::<0x64>, run_op_recorded::<0x65>,
    run_op_recorded::<0x66>, run_op_recorded::<0x67>, run_op_recorded::<0x68>, run_op_recorded::<0x69>, run_op_recorded::<0x6A>, run_op_recorded::<0x6B>,
    run_op_recorded::<0x6C>, run_op_recorded::<0x6D>, run_op_recorded::<0x6E>, run_op_recorded::<0x6F>, run_op_recorded::<0x70>, run_op_recorded::<0x71>,
    run_op_recorded::<0x72>, run_op_recorded::<0x73>, run_op_recorded::<0x74>, run_op_recorded::<0x75>, run_op_recorded::<0x76>, run_op_recorded::<0x77>,
    run_op_recorded::<0x78>, run_op_recorded::<0x79>, run_op_recorded::<0x7A>, run_op_recorded::<0x7B>, run_op_recorded::<0x7C>, run_op_recorded::<0x7D>,
    run_op_recorded::<0x7E>, run_op_recorded::<0x7F>, run_op_recorded::<0x80>, run_op_recorded::<0x81>, run_op_recorded::<0x82>, run_op_recorded::<0x83>,
    run_op_recorded::<0x84>, run_op_recorded::<0x85>, run_op_recorded::<0x86>, run_op_recorded::<0x87>, run_op_recorded::<0x88>, run_op_recorded::<0x89>,
    run_op_recorded::<0x8A>, run_op_recorded::<0x8B>, run_op_recorded::<0x8C>, run_op_recorded::<0x8D>, run_op_recorded::<0x8E>, run_op_recorded::<0x8F>,
    run_op_recorded::<0x90>, run_op_recorded::<0x91>, run_op_recorded::<0x92>, run_op_recorded::<0x93>, run_op_recorded::<0x94>, run_op_recorded::<0x95>,
    run_op_recorded::<0x96>, run_op_recorded::<0x97>, run_op_recorded::<0x98>, run_op_recorded::<0x99>, run_op_recorded::<0x9A>, run_op_recorded::<0x9B>,
    run_op_recorded::<0x9C>, run_op_recorded::<0x9D>, run_op_recorded::<0x9E>, run_op_recorded::<0x9F>, run_op_recorded::<0xA0>, run_op_recorded::<0xA1>,
    run_op_recorded::<0xA2>, run_op_recorded::<0xA3>, run_op_recorded::<0xA4>, run_op_recorded::<0xA5>, run_op_recorded::<0xA6>, run_op_recorded::<0xA7>,
    run_op_recorded::<0xA8>, run_op_recorded::<0xA9>, run_op_recorded::<0xAA>, run_op_recorded::<0xAB>, run_op_recorded::<0xAC>, run_op_recorded::<0xAD>,
    run_op_recorded::<0xAE>, run_op_recorded::<0xAF>, run_op_recorded::<0xB0>, run_op_recorded::<0xB1>, run_op_recorded::<0xB2>, run_op_recorded::<0xB3>,
    run_op_recorded::<0xB4>, run_op_recorded::<0xB5>, run_op_recorded::<0xB6>, run_op_recorded::<0xB7>, run_op_recorded::<0xB8>, run_op_recorded::<0xB9>,
    run_op_recorded::<0xBA>, run_op_recorded::<0xBB>, run_op_recorded::<0xBC>, run_op_recorded::<0xBD>, run_op_recorded::<0xBE>, run_op_recorded::<0xBF>,
    run_op_recorded::<0xC0>, run_op_recorded::<0xC1>, run_op_recorded::<0xC2>, run_op_recorded::<0xC3>, run_op_recorded::<0xC4>, run_op_recorded::<0xC5>,
    run_op_recorded::<0xC6>, run_op_recorded::<0xC7>, run_op_recorded::<0xC8>, run_op_recorded::<0xC9>, run_op_recorded::<0xCA>, run_op_recorded::<0xCB>,
    run_op_recorded::<0xCC>, run_op_recorded::<0xCD>, run_op_recorded::<0xCE>, run_op_recorded::<0xCF>, run_op_recorded::<0xD0>, run_op_recorded::<0xD1>,
    run_op_recorded::<0xD2>, run_op_recorded::<0xD3>, run_op_recorded::<0xD4>, run_op_recorded::<0xD5>, run_op_recorded::<0xD6>, run_op_recorded::<0xD7>,
    run_op_recorded::<0xD8>, run_op_recorded::<0xD9>, run_op_recorded::<0xDA>, run_op_recorded::<0xDB>, run_op_recorded::<0xDC>, run_op_recorded::<0xDD>,
    run_op_recorded::<0xDE>, run_op_recorded::<0xDF>, run_op_recorded::<0xE0>, run_op_recorded::<0xE1>, run_op_recorded::<0xE2>, run_op_recorded::<0xE3>,
    run_op_recorded::<0xE4>, run_op_recorded::<0xE5>, run_op_recorded::<0xE6>, run_op_recorded::<0xE7>, run_op_recorded::<0xE8>, run_op_recorded::<0xE9>,
    run_op_recorded::<0xEA>, run_op_recorded::<0xEB>, run_op_recorded::<0xEC>, run_op_recorded::<0xED>, run_op_recorded::<0xEE>, run_op_recorded::<0xEF>,
    run_op_recorded::<0xF0>, run_op_recorded::<0xF1>, run_op_recorded::<0xF2>, run_op_recorded::<0xF3>, run_op_recorded::<0xF4>, run_op_recorded::<0xF5>,
    run_op_recorded::<0xF6>, run_op_recorded::<0xF7>, run_op_recorded::<0xF8>, run_op_recorded::<0xF9>, run_op_recorded::<0xFA>, run_op_recorded::<0xFB>,
    run_op_recorded::<0xFC>, run_op_recorded::<0xFD>, run_op_recorded::<0xFE>, run_op_recorded::<0xFF>,
];

/// Every opcode's handler with its writes reported to the memory recorder
/// ([`run_op_tracked`]), in opcode order.
#[rustfmt::skip]
static TRACKED_HANDLERS: [OpHandler; 256] = [
    run_op_tracked::<0x00>, run_op_tracked::<0x01>, run_op_tracked::<0x02>, run_op_tracked::<0x03>, run_op_tracked::<0x04>, run_op_tracked::<0x05>,
    run_op_tracked::<0x06>, run_op_tracked::<0x07>, run_op_tracked::<0x08>, run_op_tracked::<0x09>, run_op_tracked::<0x0A>, run_op_tracked::<0x0B>,
    run_op_tracked::<0x0C>, run_op_tracked::<0x0D>, run_op_tracked::<0x0E>, run_op_tracked::<0x0F>, run_op_tracked::<0x10>, run_op_tracked::<0x11>,
    run_op_tracked::<0x12>, run_op_tracked::<0x13>, run_op_tracked::<0x14>, run_op_tracked::<0x15>, run_op_tracked::<0x16>, run_op_tracked::<0x17>,
    run_op_tracked::<0x18>, run_op_tracked::<0x19>, run_op_tracked::<0x1A>, run_op_tracked::<0x1B>, run_op_tracked::<0x1C>, run_op_tracked::<0x1D>,
    run_op_tracked::<0x1E>, run_op_tracked::<0x1F>, run_op_tracked::<0x20>, run_op_tracked::<0x21>, run_op_tracked::<0x22>, run_op_tracked::<0x23>,
    run_op_tracked::<0x24>, run_op_tracked::<0x25>, run_op_tracked::<0x26>, run_op_tracked::<0x27>, run_op_tracked::<0x28>, run_op_tracked::<0x29>,
    run_op_tracked::<0x2A>, run_op_tracked::<0x2B>, run_op_tracked::<0x2C>, run_op_tracked::<0x2D>, run_op_tracked::<0x2E>, run_op_tracked::<0x2F>,
    run_op_tracked::<0x30>, run_op_tracked::<0x31>, run_op_tracked::<0x32>, run_op_tracked::<0x33>, run_op_tracked::<0x34>, run_op_tracked::<0x35>,
    run_op_tracked::<0x36>, run_op_tracked::<0x37>, run_op_tracked::<0x38>, run_op_tracked::<0x39>, run_op_tracked::<0x3A>, run_op_tracked::<0x3B>,
    run_op_tracked::<0x3C>, run_op_tracked::<0x3D>, run_op_tracked::<0x3E>, run_op_tracked::<0x3F>, run_op_tracked::<0x40>, run_op_tracked::<0x41>,
    run_op_tracked::<0x42>, run_op_tracked::<0x43>, run_op_tracked::<0x44>, run_op_tracked::<0x45>, run_op_tracked::<0x46>, run_op_tracked::<0x47>,
    run_op_tracked::<0x48>, run_op_tracked::<0x49>, run_op_tracked::<0x4A>, run_op_tracked::<0x4B>, run_op_tracked::<0x4C>, run_op_tracked::<0x4D>,
    run_op_tracked::<0x4E>, run_op_tracked::<0x4F>, run_op_tracked::<0x50>, run_op_tracked::<0x51>, run_op_tracked::<0x52>, run_op_tracked::<0x53>,
    run_op_tracked::<0x54>, run_op_tracked::<0x55>, run_op_tracked::<0x56>, run_op_tracked::<0x57>, run_op_tracked::<0x58>, run_op_tracked::<0x59>,
    run_op_tracked::<0x5A>, run_op_tracked::<0x5B>, run_op_tracked::<0x5C>, run_op_tracked::<0x5D>, run_op_tracked::<0x5E>, run_op_tracked::<0x5F>,
    run_op_tracked::<0x60>, run_op_tracked::<0x61>, run_op_tracked::<0x62>, run_op_tracked::<0x63>, run_op_tracked::<0x64>, run_op_tracked::<0x65>,
    run_op_tracked::<0x66>, run_op_tracked::<0x67>, run_op_tracked::<0x68>, run_op_tracked::<0x69>, run_op_tracked::<0x6A>, run_op_tracked::<0x6B>,
    run_op_tracked::<0x6C>, run_op_tracked::<0x6D>, run_op_tracked::<0x6E>, run_op_tracked::<0x6F>, run_op_tracked::<0x70>, run_op_tracked::<0x71>,
    run_op_tracked::<0x72>, run_op_tracked::<0x73>, run_op_tracked::<0x74>, run_op_tracked::<0x75>, run_op_tracked::<0x76>, run_op_tracked::<0x77>,
    run_op_tracked::<0x78>, run_op_tracked::<0x79>, run_op_tracked::<0x7A>, run_op_tracked::<0x7B>, run_op_tracked::<0x7C>, run_op_tracked::<0x7D>,
    run_op_tracked::<0x7E>, run_op_tracked::<0x7F>, run_op_tracked::<0x80>, run_op_tracked::<0x81>, run_op_tracked::<0x82>, run_op_tracked::<0x83>,
    run_op_tracked::<0x84>, run_op_tracked::<0x85>, run_op_tracked::<0x86>, run_op_tracked::<0x87>, run_op_tracked::<0x88>, run_op_tracked::<0x89>,
    run_op_tracked::<0x8A>, run_op_tracked::<0x8B>, run_op_tracked::<0x8C>, run_op_tracked::<0x8D>, run_op_tracked::<0x8E>, run_op_tracked::<0x8F>,
    run_op_tracked::<0x90>, run_op_tracked::<0x91>, run_op_tracked::<0x92>, run_op_tracked::<0x93>, run_op_tracked::<0x94>, run_op_tracked::<0x95>,
    run_op_tracked::<0x96>, run_op_tracked::<0x97>, run_op_tracked::<0x98>, run_op_tracked::<0x99>, run_op_tracked::<0x9A>, run_op_tracked::<0x9B>,
    run_op_tracked::<0x9C>, run_op_tracked::<0x9D>, run_op_tracked::<0x9E>, run_op_tracked::<0x9F>, run_op_tracked::<0xA0>, run_op_tracked::<0xA1>,
    run_op_tracked::<0xA2>, run_op_tracked::<0xA3>, run_op_tracked::<0xA4>, run_op_tracked::<0xA5>, run_op_tracked::<0xA6>, run_op_tracked::<0xA7>,
    run_op_tracked::<0xA8>, run_op_tracked::<0xA9>, run_op_tracked::<0xAA>, run_op_tracked::<0xAB>, run_op_tracked::<0xAC>, run_op_tracked::<0xAD>,
    run_op_tracked::<0xAE>, run_op_tracked::<0xAF>, run_op_tracked::<0xB0>, run_op_tracked::<0xB1>, run_op_tracked::<0xB2>, run_op_tracked::<0xB3>,
    run_op_tracked::<0xB4>, run_op_tracked::<0xB5>, run_op_tracked::<0xB6>, run_op_tracked::<0xB7>, run_op_tracked::<0xB8>, run_op_tracked::<0xB9>,
    run_op_tracked::<0xBA>, run_op_tracked::<0xBB>, run_op_tracked::<0xBC>, run_op_tracked::<0xBD>, run_op_tracked::<0xBE>, run_op_tracked::<0xBF>,
    run_op_tracked::<0xC0>, run_op_tracked::<0xC1>, run_op_tracked::<0xC2>, run_op_tracked::<0xC3>, run_op_tracked::<0xC4>, run_op_tracked::<0xC5>,
    run_op_tracked::<0xC6>, run_op_tracked::<0xC7>, run_op_tracked::<0xC8>, run_op_tracked::<0xC9>, run_op_tracked::<0xCA>, run_op_tracked::<0xCB>,
    run_op_tracked::<0xCC>, run_op_tracked::<0xCD>, run_op_tracked::<0xCE>, run_op_tracked::<0xCF>, run_op_tracked::<0xD0>, run_op_tracked::<0xD1>,
    run_op_tracked::<0xD2>, run_op_tracked::<0xD3>, run_op_tracked::<0xD4>, run_op_tracked::<0xD5>, run_op_tracked::<0xD6>, run_op_tracked::<0xD7>,
    run_op_tracked::<0xD8>, run_op_tracked::<0xD9>, run_op_tracked::<0xDA>, run_op_tracked::<0xDB>, run_op_tracked::<0xDC>, run_op_tracked::<0xDD>,
    run_op_tracked::<0xDE>, run_op_tracked::<0xDF>, run_op_tracked::<0xE0>, run_op_tracked::<0xE1>, run_op_tracked::<0xE2>, run_op_tracked::<0xE3>,
    run_op_tracked::<0xE4>, run_op_tracked::<0xE5>, run_op_tracked::<0xE6>, run_op_tracked::<0xE7>, run_op_tracked::<0xE8>, run_op_tracked::<0xE9>,
    run_op_tracked::<0xEA>, run_op_tracked::<0xEB>, run_op_tracked::<0xEC>, run_op_tracked::<0xED>, run_op_tracked::<0xEE>, run_op_tracked::<0xEF>,
    run_op_tracked::<0xF0>, run_op_tracked::<0xF1>, run_op_tracked::<0xF2>, run_op_tracked::<0xF3>, run_op_tracked::<0xF4>, run_op_tracked::<0xF5>,
    run_op_tracked::<0xF6>, run_op_tracked::<0xF7>, run_op_tracked::<0xF8>, run_op_tracked::<0xF9>, run_op_tracked::<0xFA>, run_op_tracked::<0xFB>,
    run_op_tracked::<0xFC>, run_op_tracked::<0xFD>, run_op_tracked::<0xFE>, run_op_tracked::<0xFF>,
];

/// What the memory recorder asks of the instruction code, as a level of
/// handlers ([`handler`]): nothing (none attached), writes only (between
/// bursts), every access, or every access and each op's beginning (a
/// lifetime counts instructions at each access).
pub(super) const PLAIN: u8 = 0;
pub(super) const TRACKED: u8 = 1;
pub(super) const RECORDED: u8 = 2;
pub(super) const RECORDED_EACH_OP: u8 = 3;

/// The level of handlers `bus`'s memory recorder asks for now.
#[inline(always)]
pub(super) fn memory_level(bus: &Bus) -> u8 {
    match bus.memory.as_deref() {
        None => PLAIN,
        Some(m) if m.counts_each_op() => RECORDED_EACH_OP,
        Some(m) if m.recording() => RECORDED,
        Some(_) => TRACKED,
    }
}

/// The handler opcode `opcode` runs at memory level `level`. An op that
/// reports nothing to the recorder (no data access, no push: the
/// register, flag, immediate and branch instructions, `JMP` absolute, and
/// the pulls, whose stack reads are not data) keeps its plain handler
/// unless each op's beginning is counted. Why it matters: a burst's
/// cost was mostly the switch itself — after an op's handler changes, the
/// host's branch predictors relearn the new target, for several frames,
/// and again when the burst ends (fff, bursts of 8 frames in 60, with
/// handlers switched to trivial wrappers around the plain ones: +30 µs in
/// the first frame, +14 µs in the first frame after, decaying over five
/// more), so the fewer ops switch, the cheaper a burst. For the same
/// reason, and because a recorded handler costs more to run, an op whose
/// fixed operand addresses only I/O or the cartridge's ROM side (`STA
/// $2007`, `LDA table,X` from ROM: [`may_report`]) keeps its plain handler
/// too, unless its block's operands are live (patched as it runs). Both
/// are in [`Op::reports`].
pub(super) fn handler(level: u8, op: &Op) -> OpHandler {
    let opcode = op.opcode();
    let table = match level {
        PLAIN => return OP_HANDLERS[opcode as usize],
        TRACKED => &TRACKED_HANDLERS,
        RECORDED_EACH_OP => return run_op_counted,
        _ => &RECORDED_HANDLERS,
    };
    if op.reports {
        table[opcode as usize]
    } else {
        OP_HANDLERS[opcode as usize]
    }
}

/// Whether `op` (of an opcode that [`reports_accesses`]), with the operand
/// bytes it has, can touch a byte the memory recorder keeps (console RAM
/// or PRG RAM, `memory_profile::slot`): false for an absolute address, or
/// an absolute base indexed by X or Y (any index, without wrapping past
/// `$FFFF`), that stays off `$0000-$1FFF` and `$6000-$7FFF`. `JSR`
/// pushes, whatever its target; the unstable indexed stores (`SHY`,
/// `SHX`, `TAS`, `SHA`) write elsewhere when the index crosses a page
/// (the address's high byte ANDed with the value).
fn may_report(op: &Op) -> bool {
    use crate::cpu::opcodes::Mode::*;
    let opcode = op.opcode();
    let span = match OPCODES[opcode as usize].mode {
        _ if matches!(opcode, 0x20 | 0x9B | 0x9C | 0x9E | 0x9F) => return true,
        Absolute => 0,
        AbsoluteX | AbsoluteY => 0xFF,
        _ => return true,
    };
    let first = u16::from_le_bytes([op.bytes[1], op.bytes[2]]) as u32;
    let last = first + span;
    let kept = |from: u32, to: u32| first <= to && last >= from;
    last > 0xFFFF || kept(0x0000, 0x1FFF) || kept(0x6000, 0x7FFF)
}

/// Whether opcode `opcode`'s instruction code reports anything to the
/// memory recorder (`cpu::Cycles::note_read`, `note_write`, `note_push`):
/// every mode with an address in memory, and the pushes.
fn reports_accesses(opcode: u8) -> bool {
    use crate::cpu::opcodes::Mode::*;
    match opcode {
        // BRK, PHP, PHA, JSR push.
        0x00 | 0x08 | 0x48 | 0x20 => true,
        // JMP absolute only reads its operand bytes.
        0x4C => false,
        _ => !matches!(
            OPCODES[opcode as usize].mode,
            Implied | Accumulator | Immediate | Relative
        ),
    }
}

/// The handler of opcode `OPCODE`: the interpreter's per-cycle sequence
/// for it (the dispatch folds to one arm), with [`Translated`] cycles.
/// Never inlined: the block loop and the sampler's recording loop share
/// one copy of each.
///
/// Three ways through it, so that the common one calls nothing and saves
/// no registers (a call anywhere in a handler made it save six on every
/// run: the split took 600 frames of hello_mmc3 from 804.7 M host
/// instructions to 755.0 M, fff from 982.5 M to 879.7 M):
/// entered with the window closed, the op runs in [`run_op_closed`]; with
/// it open and every data access found plain beforehand
/// ([`accesses_plain`]), inline with nothing to fall back on; with some
/// access that needs the bus, in [`run_op_open`], which closes the window
/// where it must. All three run the same instruction code.
#[inline(never)]
fn run_op<const OPCODE: u8>(op: &Op, cpu: &mut Cpu, bus: &mut Bus, owed: u32) -> u32 {
    // CLI, SEI, PLP, RTI and BRK change the interrupt state: their cycles
    // all run on the bus, and they close the window for the ops after them.
    if owed == CLOSED || matches!(OPCODE, 0x58 | 0x78 | 0x28 | 0x40 | 0x00) {
        if owed != CLOSED {
            close_window(cpu, bus, owed);
        }
        return run_op_closed::<OPCODE>(op, cpu, bus);
    }
    match accesses_plain::<OPCODE>(op, cpu, bus) {
        Some(false) => run_op_open::<OPCODE>(op, cpu, bus, owed),
        plain => run_translated::<OPCODE>(op, cpu, bus, owed, plain == Some(true)),
    }
}

/// [`run_op`] with the window open and an access that needs the bus.
#[inline(never)]
fn run_op_open<const OPCODE: u8>(op: &Op, cpu: &mut Cpu, bus: &mut Bus, owed: u32) -> u32 {
    run_translated::<OPCODE>(op, cpu, bus, owed, false)
}

/// [`run_op`] with the window open (`plain`: see [`Translated::plain`]).
#[inline(always)]
fn run_translated<const OPCODE: u8>(
    op: &Op,
    cpu: &mut Cpu,
    bus: &mut Bus,
    owed: u32,
    plain: bool,
) -> u32 {
    let mut cycles = Translated {
        op,
        open: true,
        plain,
        owed,
        next: 0,
    };
    cpu.pc = op.pc;
    cycles.fetch(cpu, bus);
    cpu.execute(bus, &mut cycles, OPCODE);
    cycles.owed()
}

/// [`run_op`] with the window closed: every cycle on the bus.
#[inline(never)]
fn run_op_closed<const OPCODE: u8>(op: &Op, cpu: &mut Cpu, bus: &mut Bus) -> u32 {
    let mut cycles = Translated {
        op,
        open: false,
        plain: false,
        owed: 0,
        next: 0,
    };
    cpu.pc = op.pc;
    cycles.fetch(cpu, bus);
    cpu.execute(bus, &mut cycles, OPCODE);
    // Opaque, so that `run_op` tail-calls this: a constant result made
    // the compiler return it in the caller, which then needed a stack
    // frame on every run.
    std::hint::black_box(CLOSED)
}

/// What an instruction does with its data address.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    Read,
    Write,
    ReadModifyWrite,
    /// No data access of its own (implied, immediate, the control
    /// transfers, the stack instructions), or one not looked at here (the
    /// `SH*` stores, whose address depends on the value).
    Other,
}

/// Opcode `opcode`'s [`Access`], by its mnemonic.
const fn access(opcode: u8) -> Access {
    let info = &OPCODES[opcode as usize];
    match info.mnemonic.as_bytes() {
        b"LDA" | b"LDX" | b"LDY" | b"CMP" | b"CPX" | b"CPY" | b"ADC" | b"SBC" | b"AND" | b"ORA"
        | b"EOR" | b"BIT" | b"LAX" | b"LAS" | b"NOP" => Access::Read,
        b"STA" | b"STX" | b"STY" | b"SAX" => Access::Write,
        b"ASL" | b"LSR" | b"ROL" | b"ROR" | b"INC" | b"DEC" | b"SLO" | b"RLA" | b"SRE" | b"RRA"
        | b"DCP" | b"ISB" => Access::ReadModifyWrite,
        _ => Access::Other,
    }
}

/// Whether every data access `op` can make when it runs now (with the
/// machine as it is) is plain: each read one of console RAM or PRG ROM
/// (`Bus::plain_read`), each write one of console RAM that holds no
/// translated code. `None` for an op this does not look at ([`Access::Other`],
/// and modes without a data address). Reads no byte through the bus: the
/// pointers of the indirect modes are in zero page.
///
/// The addresses are the instruction code's own (`cpu::addressing`): the
/// effective address, and for an indexed mode the uncorrected address of
/// its dummy read, checked whether or not the page is crossed. A
/// conditional branch's only data access is its dummy read when it is
/// taken across a page; the pushes are writes, and `RTS` ends with a
/// dummy read at the address it pulled (the other stack reads are of
/// console RAM, plain whatever `S` is).
#[inline(always)]
fn accesses_plain<const OPCODE: u8>(op: &Op, cpu: &Cpu, bus: &Bus) -> Option<bool> {
    use crate::cpu::opcodes::Mode::*;
    let readable = |addr: u16| bus.plain_read(addr).is_some();
    if const { matches!(OPCODES[OPCODE as usize].flow, Flow::Branch) } {
        let next = op.pc.wrapping_add(2);
        let target = next.wrapping_add(op.bytes[1] as i8 as u16);
        return Some((target ^ next) & 0xFF00 == 0 || readable((next & 0xFF00) | (target & 0xFF)));
    }
    let writable = |addr: u16| addr < 0x2000 && !bus.code.ram_marked(addr as usize & 0x7FF);
    let stack = |offset: u8| 0x100 | cpu.s.wrapping_add(offset) as u16;
    match OPCODE {
        // JSR pushes the return address; PHA and PHP push a byte.
        0x20 => return Some(writable(stack(0)) && writable(stack(0xFF))),
        0x48 | 0x08 => return Some(writable(stack(0))),
        // RTS's last cycle reads the byte at the address it pulled.
        0x60 => {
            let to = u16::from_le_bytes([bus.ram[stack(1) as usize], bus.ram[stack(2) as usize]]);
            return Some(readable(to));
        }
        _ => {}
    }
    let kind = const { access(OPCODE) };
    if matches!(kind, Access::Other) {
        return None;
    }
    let data = |addr: u16| match kind {
        Access::Read => readable(addr),
        _ => writable(addr),
    };
    let zero_page =
        |at: u8| u16::from_le_bytes([bus.ram[at as usize], bus.ram[at.wrapping_add(1) as usize]]);
    let indexed = |base: u16, index: u8| {
        let addr = base.wrapping_add(index as u16);
        readable((base & 0xFF00) | (addr & 0xFF)) && data(addr)
    };
    let absolute = u16::from_le_bytes([op.bytes[1], op.bytes[2]]);
    Some(match const { OPCODES[OPCODE as usize].mode } {
        ZeroPage => data(op.bytes[1] as u16),
        ZeroPageX => data(op.bytes[1].wrapping_add(cpu.x) as u16),
        ZeroPageY => data(op.bytes[1].wrapping_add(cpu.y) as u16),
        Absolute => data(absolute),
        AbsoluteX => indexed(absolute, cpu.x),
        AbsoluteY => indexed(absolute, cpu.y),
        IndirectX => data(zero_page(op.bytes[1].wrapping_add(cpu.x))),
        IndirectY => indexed(zero_page(op.bytes[1]), cpu.y),
        _ => return None,
    })
}

/// [`run_op`] while the memory recorder is attached: tells it which
/// instruction begins, and runs the instruction with [`Recorded`] cycles
/// (a separate monomorphisation, so the plain handlers pay nothing).
#[inline(never)]
fn run_op_recorded<const OPCODE: u8>(op: &Op, cpu: &mut Cpu, bus: &mut Bus, owed: u32) -> u32 {
    run_op_reporting::<OPCODE, true>(op, cpu, bus, owed)
}

/// [`run_op_recorded`] counting the op's beginning first: every op's
/// handler when a lifetime needs the instruction count at each access.
/// One function for every opcode, through the recorded handlers' table:
/// the indirect call costs only runs with a lifetime, where a check in
/// every recorded op cost every recording.
#[inline(never)]
fn run_op_counted(op: &Op, cpu: &mut Cpu, bus: &mut Bus, owed: u32) -> u32 {
    if let Some(m) = bus.memory.as_deref_mut() {
        m.begin_op();
    }
    RECORDED_HANDLERS[op.opcode() as usize](op, cpu, bus, owed)
}

/// [`run_op`] between the memory recorder's bursts: only its writes are
/// reported (see [`Recorded`]).
#[inline(never)]
fn run_op_tracked<const OPCODE: u8>(op: &Op, cpu: &mut Cpu, bus: &mut Bus, owed: u32) -> u32 {
    run_op_reporting::<OPCODE, false>(op, cpu, bus, owed)
}

#[inline(always)]
fn run_op_reporting<const OPCODE: u8, const FULL: bool>(
    op: &Op,
    cpu: &mut Cpu,
    bus: &mut Bus,
    owed: u32,
) -> u32 {
    // Accesses are reported with their op's address: no call per op (but
    // see `run_op_counted`).
    let mut cycles = Recorded::<_, FULL> {
        cycles: Translated::new(op, owed),
        op_pc: op.pc,
    };
    if matches!(OPCODE, 0x58 | 0x78 | 0x28 | 0x40 | 0x00) {
        cycles.cycles.close(cpu, bus);
    }
    cpu.pc = op.pc;
    cycles.fetch(cpu, bus);
    cpu.execute(bus, &mut cycles, OPCODE);
    cycles.cycles.owed()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cartridge::Cartridge;
    use crate::memory_log::MemoryRecorder;

    /// The entries opcode `opcode` (with operand bytes `$10 $00`, run by
    /// the interpreter with every access reported) adds to a recorder in
    /// which every RAM byte has a last writer, so that a push is logged
    /// too.
    fn entries_logged_by(opcode: u8) -> usize {
        entries_logged_by_op(opcode, [0x10, 0x00], 0)
    }

    /// [`entries_logged_by`] with operand bytes `operand` and both index
    /// registers `index`.
    fn entries_logged_by_op(opcode: u8, operand: [u8; 2], index: u8) -> usize {
        let mut image = vec![b'N', b'E', b'S', 0x1A, 1, 1, 0, 0];
        image.resize(16, 0);
        image.resize(16 + 0x4000 + 0x2000, 0);
        // The code at $8000, the reset vector pointing there.
        image[16..19].copy_from_slice(&[opcode, operand[0], operand[1]]);
        image[16 + 0x3FFC..16 + 0x3FFE].copy_from_slice(&[0x00, 0x80]);
        let mut bus = Bus::new(Cartridge::from_bytes(&image).expect("valid NROM image"));
        let mut cpu = Cpu::new();
        cpu.pc = 0x8000;
        cpu.s = 0xF0;
        cpu.x = index;
        cpu.y = index;
        let mut m = MemoryRecorder::new(false, None);
        for addr in 0..0x800 {
            m.write(addr, 0x9000);
        }
        let before = m.entries_in_buffer();
        bus.memory = Some(Box::new(m));
        cpu.step_recorded(&mut bus);
        bus.memory
            .as_ref()
            .expect("still attached")
            .entries_in_buffer()
            - before
    }

    /// An op that keeps its plain handler while memory is recorded
    /// ([`reports_accesses`] false) would report nothing anyway: run with
    /// every access reported, each such opcode logs no entry, where a load
    /// from zero page, a store and a push do.
    #[test]
    fn ops_kept_plain_report_nothing() {
        for opcode in 0..=255u8 {
            if !reports_accesses(opcode) {
                assert_eq!(entries_logged_by(opcode), 0, "opcode {opcode:02X}");
            }
        }
        for reporting in [0xA5, 0x85, 0x48, 0x20, 0x6C, 0xB1] {
            assert!(reports_accesses(reporting));
            assert!(entries_logged_by(reporting) > 0, "opcode {reporting:02X}");
        }
    }

    /// An op kept plain for its operand address ([`may_report`] false)
    /// reports nothing, at both ends of its index range; the same opcodes
    /// with a RAM address report.
    #[test]
    fn ops_kept_plain_for_their_address_report_nothing() {
        let mut kept = 0;
        for opcode in 0..=255u8 {
            if !reports_accesses(opcode) {
                continue;
            }
            for base in [0x2000u16, 0x2002, 0x4016, 0x5F00, 0x8000, 0xC123, 0xFF00] {
                let operand = base.to_le_bytes();
                let op = Op::new(0x8000, [opcode, operand[0], operand[1], 0]);
                if may_report(&op) {
                    continue;
                }
                kept += 1;
                for index in [0, 0xFF] {
                    let logged = entries_logged_by_op(opcode, operand, index);
                    assert_eq!(
                        logged, 0,
                        "opcode {opcode:02X} ${base:04X} index {index:02X}"
                    );
                }
            }
        }
        assert!(kept > 7 * 30, "{kept} ops kept plain");
        for (opcode, base) in [
            (0xAD, 0x07FFu16),
            (0xBD, 0x1F80),
            (0x99, 0x5F80),
            (0x8D, 0x6000),
        ] {
            let operand = base.to_le_bytes();
            assert!(may_report(&Op::new(
                0x8000,
                [opcode, operand[0], operand[1], 0]
            )));
        }
        assert!(
            may_report(&Op::new(0x8000, [0xBD, 0x80, 0xFF, 0])),
            "wraps to $0000"
        );
        assert!(
            may_report(&Op::new(0x8000, [0x20, 0x00, 0x80, 0])),
            "JSR pushes"
        );
    }
}
