//! Translated blocks: a run of pre-decoded instructions from one entry PC to
//! the first control-flow instruction (or a region boundary), with the code
//! location it was decoded from so lookups and invalidation can find it.

use super::op::Op;
use crate::call_stacks::CallCache;
use crate::code_watch::CodeKey;
use crate::cpu::opcodes::{Flow, Mode, OPCODES};
use crate::flow_counts::FlowCounts;
use crate::frame_events::EventKind;
use crate::sampling::Retired;

/// Longest straight run translated into one block.
pub const MAX_BLOCK_OPS: usize = 64;

/// A start cycle per op of a block, as the sampler's run of it notes them
/// (`Translator::run_block_sampled`).
#[derive(Debug)]
pub struct OpStarts(pub [u64; MAX_BLOCK_OPS]);

impl Default for OpStarts {
    fn default() -> OpStarts {
        OpStarts([0; MAX_BLOCK_OPS])
    }
}

#[derive(Debug, Clone)]
pub struct Block {
    pub key: CodeKey,
    /// The high bits of its ops' code addresses (`crate::code_addr`): a
    /// block never spans two 8 KiB windows, and is found again only where
    /// the same PRG bytes sit at the same CPU address.
    pub code_high: u32,
    /// Its first op's CPU address, kept beside the ops' pointer: the chain
    /// compares the PC with it after every run, and reading it through
    /// the ops was a dependent load and a bounds check per block.
    pub entry: u16,
    pub ops: Vec<Op>,
    /// Cleared when self-modifying code overwrote its bytes.
    pub valid: bool,
    /// Its operands are live: each op's bytes are read again from RAM as it
    /// runs (`Op::reread`), and only its opcode bytes are watched, so a
    /// write to an operand neither invalidates the block nor stops it. RAM
    /// code that patches its own operands (a routine computing with
    /// immediates or addresses it stores into itself) would otherwise be
    /// retranslated after every patch. Only RAM blocks, and never an idle
    /// loop: a patched address could turn a harmless poll into an I/O read.
    pub live: bool,
    /// Complete executions of the block not yet added to the flow counts
    /// whose last op was counted as it retired: each covers every op but
    /// the last.
    pub pending_body_runs: u64,
    /// Complete executions not yet added to the flow counts whose last op
    /// was not counted either: each covers every op, and the last op's
    /// transfer is counted on the link the chain took next (see
    /// `translate::flow`).
    pub pending_runs: u64,
    /// Whether a complete run may leave its last op's counts to
    /// `pending_runs` and the links (see `translate::flow`): its exit is a
    /// fall-through, branch, `JMP`, `JSR` or `RTS`, and a branch's, `JMP`
    /// absolute's or `JSR`'s target is fixed while the block is valid (its
    /// operands are not [`Block::live`]).
    pub counts_by_links: bool,
    /// The control-flow class of its last op.
    pub exit_flow: Flow,
    /// For a block ending in a `JSR`: the context its last call entered
    /// (the call stacks' lookup skipped when it repeats).
    pub call_cache: CallCache,
    /// Whether the block is a side-effect-free polling loop (see
    /// [`Block::is_idle_loop`] or [`Block::is_vblank_poll`]).
    pub idle_loop: bool,
    /// Whether the idle loop is a vblank poll ([`Block::is_vblank_poll`]):
    /// its skipped iterations read `$2002`, which the memory recorder
    /// would see as I/O reads, so it is skipped only with no recorder.
    pub polls_vblank: bool,
    /// Whether the block's branch was seen taken since the taken-target
    /// set was attached (`taken_targets`): it has one target, so noting it
    /// once is enough.
    pub branch_noted: bool,
    /// Whether its last op is a branch that may go back to its entry (a
    /// loop of one block): one whose target is the entry, or any branch of
    /// a block with [`Block::live`] operands.
    pub self_loop: bool,
    /// Where a complete run must end for the plain loop to run the block
    /// again straight away, with no link followed (see
    /// [`Block::repeat_at_for`]).
    pub repeat_at: Option<u16>,
    /// Whether the block is a wait loop (`crate::wait_loop`): its entry is
    /// a wait loop's head and its ops are that loop. Every wait loop's head
    /// starts a block (a block ends before one), so each iteration of a
    /// wait loop is one run of such a block, from its entry back to it
    /// (see `frame_events`).
    pub wait_loop: bool,
    /// With live operands (which may make a loop of it), whether its
    /// entry could be a wait loop's head by its opcodes
    /// (`crate::wait_loop::may_be_at_any_operands`): then whether a run was
    /// a wait loop's iteration is asked as it ends, of the bytes in RAM
    /// then (the loop's instructions write nothing). Never with
    /// [`Block::wait_loop`].
    pub wait_loop_dynamic: bool,
    /// The event its last op logs when it retires (`frame_events`), if
    /// any; for a `JMP` back into a wait loop it closes, none (decided at
    /// translation in PRG ROM). `FallInto` is a candidate, logged only
    /// where the run went forward into a watched address: given to an
    /// exit that could reach one as translated, and to every branch with
    /// [`Block::live`] operands, whose offset may change while the block
    /// stays valid.
    pub exit_event: Option<EventKind>,
    /// Whether a run may tell the event log anything: it is (or may be) a
    /// wait loop, or its last op logs an event (checked or not).
    pub logs: bool,
    /// The event a complete run logs with nothing to look at as it ends:
    /// [`Block::exit_event`] unless it is a fall into a watched address, a
    /// `JMP` to be checked, or the block is (or may be) a wait loop. Most
    /// logged runs are these (a `JSR` or `RTS` at the end of an ordinary
    /// block), and the chain logs them inline; calling out for each cost
    /// tracker's `profile` 2 % of its host instructions.
    pub plain_event: Option<EventKind>,
    /// Whether a run may be a wait loop's iteration ([`Block::wait_loop`]
    /// or [`Block::wait_loop_dynamic`]): one flag for the run to test.
    pub iterates: bool,
    /// The code address of its last op, the one an event is logged for.
    pub exit_code: u32,
    /// Its last op is a `JMP` absolute in RAM or PRG RAM, where the wait
    /// loop it may close can be rewritten (or lie before the block): whether
    /// it does is looked at when it retires with a log attached.
    pub exit_event_checked: bool,
    /// Its watched bytes in RAM or PRG RAM run from its entry to this
    /// offset: its ops' 3-byte windows, and the bytes the wait-loop rule
    /// read for them beyond (see `Translator::translate`).
    pub watch_end: u16,
    /// With live operands, the operand bytes watched besides the opcodes
    /// (offsets from the entry): those the wait-loop rule read, so that a
    /// write that could change what it found there drops the block.
    pub watch_extra: Box<[u16]>,
    /// For an idle loop, when its cycle timing has been seen: the period of
    /// one iteration and each op's start within it (see
    /// [`IdleTiming`]); `None` until a sampled batch recorded a whole
    /// iteration.
    pub idle_timing: Option<IdleTiming>,
    /// The blocks most recently run after this one (a branch has two
    /// successors), so a chain of blocks skips the lookup by PC.
    pub links: [Link; 2],
    /// For a region's head block (`translate::region`), its slot's index
    /// + 1; 0 for every other block.
    pub region: u32,
    /// Whether a region was formed through it since it was translated:
    /// dropping it then drops those regions.
    pub in_region: bool,
    /// Whether it was a region's head from which no region could be
    /// formed: it is not made one again.
    pub region_failed: bool,
    /// The memory level its ops' handlers are for (`op::PLAIN` when
    /// translated; see [`Block::set_handlers`]).
    pub handlers: u8,
}

impl Block {
    /// [`Block::repeat_at`] under the translator's settings: the block's
    /// entry, except for an idle loop about to be skipped (that wants one
    /// run at a time: `no_idle_skip` off) and for a loop of one block whose
    /// branch back has not been noted while a taken-target set is attached
    /// (`taken_attached`). A repeat with no link goes unnoticed, so such a
    /// block goes through its link until the link's making notes the
    /// branch (`Translator::note_link`); the plain loop then pays nothing
    /// per run for noting taken branches, where a check of every run for
    /// a repeat cost the sampler's loop about 1 % of a run's host
    /// instructions (tracker).
    pub fn repeat_at_for(&self, no_idle_skip: bool, taken_attached: bool) -> Option<u16> {
        let skipped_idle_loop = self.idle_loop && !no_idle_skip;
        let unnoted = taken_attached && self.self_loop && !self.branch_noted;
        (!skipped_idle_loop && !unnoted).then_some(self.ops[0].pc)
    }
}

/// Iterations of an idle loop as a sampled batch saw one: the iterations
/// the translator counts without running are recorded from this when a
/// batch falls on them (see `Translator::sample_idle_iterations`). It is
/// only used for iterations of the same period, and every iteration from
/// the second on is alike (see [`Block::is_idle_loop`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdleTiming {
    /// Cycles per iteration.
    pub period: u64,
    /// The records of consecutive iterations, each op's `cycle` counted
    /// from the first iteration's start: as many iterations as a batch
    /// starting anywhere in the first one can span, so one copy, cycles
    /// shifted, records a whole batch (most idle loops are two or three
    /// ops, and copying an iteration at a time cost several times more).
    pub records: Vec<Retired>,
}

/// [`Link::code`] not yet looked up (no code address is this large: see
/// `crate::code_addr`).
pub const NO_CODE: u32 = u32::MAX;

/// A cached successor: block `id` runs next when the PC is `pc`, valid while
/// `stamp` (PRG mapping generation and the translator's invalidation epoch)
/// is unchanged.
#[derive(Debug, Clone, Copy, Default)]
pub struct Link {
    pub pc: u16,
    pub id: u32,
    pub stamp: u64,
    /// The code address (`crate::code_addr`) of `id`'s entry, once a
    /// counted run took the link ([`NO_CODE`] before: the plain chain does
    /// not look it up).
    pub code: u32,
    /// Runs of the block that went on through this link whose last op's
    /// transfer is not yet in the flow counts (see `translate::flow`).
    pub count: u64,
}

impl Block {
    /// Its last op can move the call stacks (JSR, RTS, BRK, RTI): the only
    /// blocks a paused truth recorder hears of
    /// ([`crate::flow_counts::FlowCounts::moves_stacks`]; a live block's
    /// opcodes are watched, so this holds while it is valid).
    #[inline(always)]
    pub fn moves_stacks(&self) -> bool {
        FlowCounts::moves_stacks(self.exit_flow)
    }

    /// Its last op's code address and opcode (the op whose transfers the
    /// links count, see `translate::flow`).
    #[inline]
    pub fn exit(&self) -> (u32, u8) {
        let last = &self.ops[self.ops.len() - 1];
        (last.code(self.code_high), last.opcode())
    }

    /// Points every op at its opcode's handler for memory level `level`
    /// (`op::handler`: VMAD's switch between instrumented and plain code,
    /// per block and with no retranslation).
    pub fn set_handlers(&mut self, level: u8) {
        for op in &mut self.ops {
            op.run = super::op::handler(level, op);
        }
        self.handlers = level;
    }

    /// A polling loop whose iterations, from the second on, are all alike:
    /// it ends in a branch or `JMP` back to its own entry, and every other
    /// instruction is a load, compare, `BIT`, `AND`, `ORA` or `NOP` reading
    /// an immediate or a fixed console-RAM address (no indexing, no writes,
    /// no I/O, no stack). Such a sequence cannot change memory; its register
    /// results are idempotent functions of memory (`x -> (x & a) | b` for
    /// AND/ORA chains), so after one iteration the registers are fixed and
    /// every later iteration reads the same bytes, takes the same branch and
    /// costs the same cycles. The translator may then count whole iterations
    /// without running them (see `Translator::run_chain`). Games' "wait for
    /// NMI" loops are this shape and are most of their executed instructions.
    /// A loop waiting for vblank, `:- BIT $2002 / BPL :-` (or `LDA`, `LDX`,
    /// `LDY` of `$2002` or a mirror): also skippable, though `$2002` is I/O.
    /// Its read has side effects, and none of them can be told apart from
    /// the iteration after the skipped ones, which the chain runs for
    /// real: the VBL flag it clears is already clear (the skip asks, as
    /// the flag may have been set since the iteration just run read it; it
    /// is set only at line 241's dot 1, a PPU output change, where the
    /// skip window ends); the write toggle it resets is already reset; the
    /// PPU's open-bus bits 7-5 it refreshes (and the CPU's data bus) are
    /// refreshed again by that next read before anything can see them (a
    /// read decays bits 4-0 by their own age alone); `A` and the flags are
    /// overwritten by it. The sprite
    /// flags it reads do not decide the branch (`BPL` tests bit 7 only),
    /// which is why a `BVC` (sprite 0) wait is not this shape: the sprite
    /// 0 hit is no PPU output change, so the window does not end at it.
    pub fn is_vblank_poll(ops: &[Op]) -> bool {
        const BPL: u8 = 0x10;
        let [read, branch] = ops else {
            return false;
        };
        let addr = u16::from_le_bytes([read.bytes[1], read.bytes[2]]);
        // BIT, LDA, LDY, LDX absolute.
        matches!(read.opcode(), 0x2C | 0xAD | 0xAC | 0xAE)
            && (0x2000..0x4000).contains(&addr)
            && addr & 7 == 2
            && branch.opcode() == BPL
            && branch.branch_target() == Some(read.pc)
    }

    pub fn is_idle_loop(ops: &[Op]) -> bool {
        let Some((last, body)) = ops.split_last() else {
            return false;
        };
        let entry = ops[0].pc;
        let info = &OPCODES[last.opcode() as usize];
        let loops_back = match (info.flow, info.mode) {
            (Flow::Branch, _) => {
                last.pc
                    .wrapping_add(2)
                    .wrapping_add(last.bytes[1] as i8 as u16)
                    == entry
            }
            (Flow::Jump, Mode::Absolute) => {
                u16::from_le_bytes([last.bytes[1], last.bytes[2]]) == entry
            }
            _ => false,
        };
        loops_back
            && body.iter().all(|op| {
                let info = &OPCODES[op.opcode() as usize];
                let reads = matches!(
                    info.mnemonic,
                    "LDA" | "LDX" | "LDY" | "CMP" | "CPX" | "CPY" | "BIT" | "AND" | "ORA"
                );
                info.official
                    && match info.mode {
                        Mode::Immediate | Mode::ZeroPage => reads,
                        Mode::Absolute => {
                            reads && u16::from_le_bytes([op.bytes[1], op.bytes[2]]) < 0x2000
                        }
                        Mode::Implied => info.mnemonic == "NOP",
                        _ => false,
                    }
            })
    }
}
