//! Where the cycles go, estimated from the sampler alone (issue 43): the
//! share of the CPU's cycles that is busy, idle (in wait loops), in the NMI
//! handler, in IRQ handlers and in DMA, each routine's share of the work,
//! per run (or window) and per frame, each with a 95 % interval. What a
//! user can leave on: it reads the count-and-time sampler's batches and
//! nothing else, as they come (a streaming API, called from the feeder
//! thread, which sees every batch), in memory bounded by the code's size
//! plus one frame's batches.
//!
//! # What one batch tells
//!
//! A batch is N consecutive instructions (interrupt entries as entries of
//! their own), each with the CPU cycle it started at. Sample i took
//! `s[i+1].cycle − s[i].cycle` cycles, any DMA stall during it included (an
//! interrupt entry's seven cycles are its handler's). The batch's last
//! sample has no successor and is left out of the cycle estimates. That
//! costs no bias: where a batch ends is fixed by the count N, not by any
//! code, so leaving the last sample out only makes every batch a window of
//! N − 1 observations instead of N (its flow still helps classify the ones
//! before it: whether a wait loop's iteration closed, say).
//!
//! **DMA.** A sample's cycles beyond [`OWN_CYCLES_MAX`] (7: no official
//! instruction and no interrupt entry takes more) are a DMA stall: the
//! CPU halts for an OAM DMA (513–514 cycles) at the opcode fetch that
//! follows `STA $4014`, so that instruction's sample spans the stall. The
//! stalled instruction's own cycles are then taken as 7 where they are 2
//! to 7: at most 5 cycles of the DMA counted as the instruction's, once a
//! frame (under 0.02 % of a frame). What the rule cannot see: a DMC fetch
//! (3–4 cycles) that leaves its instruction at 7 cycles or fewer counts as
//! the instruction's, so the DMA share misses most of the DMC's (at most
//! ~1 % of the cycles, with the fastest sample rate; 0 for games without
//! DMC samples), and the classes it stole from are over-counted by it in
//! proportion to their time. An unofficial 8-cycle instruction has one
//! cycle counted as DMA.
//!
//! # The estimator, and why each batch is weighted
//!
//! The emulated trigger starts a batch at the first instruction boundary at
//! or after a random time T, and drops the request when T fell more than
//! `emu::sampling::STALL_CYCLES` (8) cycles before that boundary (inside a
//! stall). So a batch starts at instruction k with a probability
//! proportional to the cycles of the step before it, k − 1 (capped at 8):
//! the CPU's *instruction time*, DMA stalls left out. Then it takes N − 1
//! observations whatever their cycles. Summing raw cycles over batches
//! (`Σ class cycles / Σ cycles`) therefore weights each instruction by the
//! cycles of the N − 1 steps before it: slow routines come out too large by
//! their cycles per instruction over their neighbours' (worst error 10
//! points in the coverage test's program, 1.4–2.8 points on the bundled
//! workloads: `examples/sampled_shares.rs`, last column). The unbiased
//! (Horvitz–Thompson) weight of a batch is the inverse of its start's
//! probability, 1 / cycles(k − 1); so
//!
//! ```text
//! w_b = 1 / cycles of the step before b's first sample
//! y_b(c) = w_b · cycles of class c in b,   x_b = w_b · cycles of b
//! share(c) = R = Σ_b y_b(c) / Σ_b x_b
//! ```
//!
//! Every instruction then counts N − 1 times its cycles in expectation,
//! exactly. The step before a batch is not sampled, but the step before
//! the same code is, in other batches: its cycles are learned per code
//! address from every pair of consecutive samples (for most code always
//! the same instruction; for a loop's head or a routine's entry the mean
//! over the ways in), and the first time an address starts a batch, before
//! anything was learned, the batch's mean cycles a sample stand in. The
//! first stand-in tried, that mean for every batch (each batch one
//! probe of its own cycles), left a bias of up to 0.7 points on the
//! bundled workloads (a routine of slower instructions inside the window
//! lowers the weight of its neighbours); the learned predecessor leaves
//! about none (same example, `--design`).
//! DMA stall cycles ride on the batch that holds them, which makes `R(DMA)`
//! consistent although no batch starts inside a stall. A routine's share of
//! the work (its non-idle, non-DMA cycles over all non-idle, non-DMA
//! cycles) is the same ratio with `z_b = w_b · non-idle non-DMA cycles of
//! b` as denominator.
//!
//! **Interval.** Batches are clusters, not independent instructions (a
//! batch sits in one routine for a while, and its instructions are
//! consecutive): the variance of the ratio is the cluster-robust
//! (linearisation) one, with the batch as the unit,
//!
//! ```text
//! Var(R) ≈ n/(n−1) · Σ_b (y_b − R·x_b)² / (Σ_b x_b)²
//! ```
//!
//! and the interval R ± 1.96·√Var, clamped to [0, 1]. Where few batches
//! hold a share (k < 20 of them, and at most a tenth of all), its total is
//! about as uncertain as that count, a Poisson count, and the interval
//! is widened to hold R scaled by the exact (Garwood) bounds of k; with
//! none, the upper end is 3.69 batches' worth of it in n (for the DMA
//! share, whose batches weigh several each, 3.69 OAM DMAs in batches of the
//! mean weight). The normal interval alone
//! missed the DMA share in a quarter of the coverage test's runs at 30 ms.
//! Chosen over a cluster bootstrap because it streams: five running sums
//! per class and four per routine give it at any moment, where a bootstrap
//! needs the batches kept or per-routine replicate sums. The batches' start
//! times are spread more evenly than independent draws (intervals are
//! uniform on [X/2, 3X/2]), which makes the formula conservative, not
//! optimistic. Checked empirically: `profiler/tests/sampled_coverage.rs`
//! samples a synthetic program the way the sampler does and counts how often
//! the intervals contain the exact shares.
//!
//! Estimated cycles are shares times the cycles the caller knows exactly
//! (the run's or the frame's, with no recorder).
//!
//! # Classes of an instruction
//!
//! Per observation, in this order: its cycles beyond [`OWN_CYCLES_MAX`] are
//! **DMA**; its own cycles are **idle** when it runs in a wait loop's
//! complete iteration (see [`WaitLoops`] and `emu::wait_loop`), else
//! **NMI** or **IRQ** when it runs in that handler (see
//! "Handler context" below), else **busy**. A wait loop inside
//! the NMI handler (a sprite-0 wait) is idle, not NMI: it is waiting.
//! Routines (by the caller's `routine_of`: `Routines::owner_of`, which
//! reads from the code where the exact side's calls lead) get an
//! instruction's non-idle, non-DMA cycles, whatever
//! its context: their shares are of the *work* (busy + NMI + IRQ), which is
//! what the routine table calls "busy time".
//!
//! **Idle, as the exact side counts it.** `emu::wait_loop` counts an
//! iteration as idle when it starts at the loop's head and ends by jumping
//! back there with no interrupt in between; the iteration that leaves the
//! loop, or one cut by an interrupt, is the code around it. In a batch the
//! same is followed sample by sample: an iteration starts at a sample at
//! the head (or at the batch's first sample, whose past is unseen: it
//! started at the head unless an RTI returned into the loop's middle just
//! before, which is rare), and is idle when a sample of the loop goes back
//! to the head (the batch's last sample included, as flow). An iteration
//! still open at the batch's end counts as idle with the probability that
//! an iteration of that loop, once seen, closes (learned per loop from the
//! iterations seen to end in batches; 1 before any is seen). An iteration
//! cut by the frame's end, which the exact side leaves out, counts here:
//! a few cycles per frame.
//!
//! # Handler context
//!
//! Within a batch, everything after an interrupt entry (`len` 0, flow
//! `interrupt`; the caller says whether its handler is the NMI's) up to the
//! matching `RTI` runs in that handler; a `BRK`'s handler runs in the
//! context that executed the `BRK` (a software call). What ran before the
//! batch's first entry — and after an `RTI` that matches no entry in the
//! batch — is a *segment of unknown context*. A segment that ends with an
//! unmatched `RTI` was in a handler (its kind as below, else by the share
//! of NMI entries among those seen); any other is decided by what was
//! learned, per instruction, from the strongest evidence there is:
//!
//! 1. the contexts its routine is *called in*: every call seen in a batch
//!    (`JSR`, `BRK`, a `JMP` to a routine's entry, an `RTS` landing on one —
//!    the "push address − 1, `RTS`" dispatch) is an edge from the caller's
//!    routine to the callee's; an interrupt handler's routine is a root of
//!    its interrupt's context; a routine's contexts are the mix of its
//!    callers', weighted by the calls seen, solved to a fixed point
//!    (`call_graph`); a caller never seen called (the main loop, the reset
//!    code) is in the contexts of its record (2–4), else the main program's.
//!    A routine called from both the main program and the NMI handler gets
//!    both, in the proportion of its calls.
//! 2. else its record of segments *proven* by a batch: after an entry, or
//!    before an unmatched `RTI`;
//! 3. else *inferred*: segments decided from other code's evidence teach
//!    their other routines (the deep parts of a long handler, which no batch
//!    sees with the entry or the `RTI`, are learned through the routines
//!    around them);
//! 4. else *presumed*: code interrupted by an interrupt entry is presumed
//!    the main program's (an NMI handler is not normally re-entered, and
//!    the 6502 masks IRQs in handlers) — the weakest, as a game that runs
//!    its logic in a re-entered NMI handler has that logic interrupted too;
//! 5. with nothing learned, the main program.
//!
//! A segment's instructions pool their mixes (weighted by cycles) and its
//! cycles are shared out fractionally. The run's estimate decides the
//! learned segments again at the end, from all that was learned by then
//! (kept per routine: the work it had in such segments and the contexts it
//! was given), so early batches, which came before their code was known,
//! count as it is known at the end; the variance keeps them as they were
//! classified, which widens it by at most the change over √n. Code that
//! nothing ever told about (5) is counted as busy, its share reported
//! ([`Estimates::unresolved`]) and added to the widths of the busy, NMI
//! and IRQ intervals: nothing the sampler saw says which it was.
//!
//! Limits: few batches see an interrupt entry or a handler's `RTI` (a
//! given point of the frame falls in a batch in 1.6 % of the frames at the
//! default rate, 0.16 % at 30 ms), so learning takes seconds at the
//! default rate, a minute at 30 ms — short runs at low rates leave more
//! unresolved; per-frame estimates use what was learned when their frame
//! ended; a handler that leaves without `RTI` (dropping its interrupt
//! frame with `TXS` or `PLA`s and jumping back into the main loop, as
//! fff's NMI handler does) is not seen to end, as the samples carry no
//! stack pointer: there the split between busy and NMI is off (by 6 to 29
//! points on fff, against a reference that follows the stack pointer; see
//! `examples/sampled_shares.rs`); a batch starting in a `BRK` handler and
//! reaching its `RTI` is taken for an interrupt handler. Routine shares and
//! the idle share do not depend on any of this.
//!
//! # Per frame
//!
//! The caller says where each frame ends ([`SampledProfile::end_frame`]);
//! the observations of the batches added since the previous end that fell
//! before it make that frame's estimate (a batch across a frame's end is
//! split at it, each part weighted by its share of the batch's own cycles).
//! Observations after the end wait for the next frame, so batches may come
//! before or after the end they straddle — but a batch added after its
//! frame was ended has its part in that frame counted in the run only (at
//! most one batch per frame, the one in progress when it ended; counted in
//! [`Estimates::late_observations`]). A frame holds 5–6 batches at the
//! default rate (0–1 at 30 ms), each one short window, so a frame's
//! estimate is rough: its interval is the Wilson score interval with the
//! frame's batches as the trials (a batch across the frame's end counted
//! by the share of its cycles in the frame; each batch's share of a class
//! lies in
//! [0, 1], so its variance is at most the Bernoulli one: conservative, and
//! never of zero width when all batches agree), typically ±30 points at
//! the default rate. The frame's batch count is reported with it.

use std::collections::BTreeMap;

use emu::int_hash::IntMap;
use emu::sampling::STALL_CYCLES;
use emu::{code_addr, wait_loop};
use gfc::{Flow, Sample};

/// The most cycles an instruction or an interrupt entry takes by itself:
/// a sample's cycles beyond this are a DMA stall (see the module doc).
pub const OWN_CYCLES_MAX: u64 = 7;

/// An OAM DMA's stall, in cycles (513 or 514).
const OAM_DMA_CYCLES: f64 = 513.5;

/// The normal quantile of a two-sided 95 % interval.
const Z95: f64 = 1.959_963_984_540_054;

/// Observations kept for the frame not yet ended at most (about 25 frames
/// at the default rate): past this, without any [`SampledProfile::end_frame`]
/// call, the oldest are left out of per-frame estimates, so memory stays
/// bounded when the caller does not follow frames.
const MAX_PENDING: usize = 1 << 12;

// ---------------------------------------------------------------------
// Wait loops
// ---------------------------------------------------------------------

/// A wait loop: the code addresses `head .. head + len`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaitLoop {
    pub head: u32,
    pub len: u16,
}

impl WaitLoop {
    /// Whether the instruction at code address `pc` is in the loop.
    pub fn contains(&self, pc: u32) -> bool {
        pc >= self.head && pc < self.head + self.len as u32
    }
}

/// The code byte at a code address (`emu::code_addr`), or `None` where the
/// caller cannot tell (code in RAM, read from the feeder's thread).
pub type CodeBytes = Box<dyn Fn(u32) -> Option<u8> + Send>;

/// Which sampled instructions lie in a wait loop, decided from the code's
/// bytes by `emu::wait_loop::at`, the rule the exact side applies.
///
/// Finding the loop of an instruction: its head is at most
/// `3 * wait_loop::MAX_INSTRUCTIONS` bytes before it (a loop has at most
/// that many instructions of at most 3 bytes), so every address from the
/// instruction back that far is tried as a head, and the instruction is in
/// the loop when decoding from that head passes through it. Chosen over
/// learning heads from the closing branches seen in samples: it needs no
/// sample of the branch (a batch may hold only the loop's first
/// instructions), decides the first time an address is seen, and at most
/// one head can qualify (two loops through one instruction would share
/// their closing branch, hence their head). Results are cached per head and
/// per instruction: bounded by the code's size. The cache assumes the code
/// does not change: give it ROM (see [`WaitLoops::from_prg`]), not RAM.
pub struct WaitLoops {
    byte: CodeBytes,
    heads: IntMap<u32, Option<u16>>,
    holding: IntMap<u32, Option<WaitLoop>>,
}

impl std::fmt::Debug for WaitLoops {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WaitLoops")
            .field("heads", &self.heads.len())
            .field("holding", &self.holding.len())
            .finish()
    }
}

impl WaitLoops {
    /// Wait loops of the code `byte` reads.
    pub fn new(byte: impl Fn(u32) -> Option<u8> + Send + 'static) -> WaitLoops {
        WaitLoops {
            byte: Box::new(byte),
            heads: IntMap::default(),
            holding: IntMap::default(),
        }
    }

    /// No wait loops at all (every instruction works).
    pub fn none() -> WaitLoops {
        WaitLoops::new(|_| None)
    }

    /// Wait loops of the code in a cartridge's PRG ROM (`prg`, the whole
    /// ROM), as code addresses name it: a banked code address reads the
    /// offset it names; a plain one at `$8000`–`$FFFF` reads the ROM as
    /// NROM maps it (16 KiB mirrored). Code in RAM is never a wait loop
    /// here (its bytes are not known on the feeder's thread).
    pub fn from_prg(prg: Vec<u8>) -> WaitLoops {
        WaitLoops::new(move |code| {
            if prg.is_empty() {
                return None;
            }
            let offset = match code_addr::prg_offset(code) {
                Some(offset) => offset,
                None if (0x8000..0x10000).contains(&code) => (code as usize - 0x8000) % prg.len(),
                None => return None,
            };
            prg.get(offset).copied()
        })
    }

    /// The length in bytes of the wait loop whose head is at code address
    /// `head`, if the code there is one.
    pub fn at_head(&mut self, head: u32) -> Option<u16> {
        if let Some(&known) = self.heads.get(&head) {
            return known;
        }
        let cpu = code_addr::cpu_address(head);
        let unknown = std::cell::Cell::new(false);
        let byte = &self.byte;
        let len = wait_loop::at(cpu, |a| {
            let code = code_addr::advance(head, a.wrapping_sub(cpu));
            byte(code).unwrap_or_else(|| {
                unknown.set(true);
                0
            })
        });
        let len = if unknown.get() { None } else { len };
        self.heads.insert(head, len);
        len
    }

    /// The wait loop holding the instruction at code address `pc`, if any.
    pub fn loop_of(&mut self, pc: u32) -> Option<WaitLoop> {
        if let Some(&known) = self.holding.get(&pc) {
            return known;
        }
        let reach = 3 * wait_loop::MAX_INSTRUCTIONS as u16;
        let mut found = None;
        for back in 0..=reach {
            if (pc as u16) < back {
                break;
            }
            let head = code_addr::advance(pc, 0u16.wrapping_sub(back));
            let Some(len) = self.at_head(head) else {
                continue;
            };
            if back >= len || !self.passes_through(head, len, pc) {
                continue;
            }
            found = Some(WaitLoop { head, len });
            break;
        }
        self.holding.insert(pc, found);
        found
    }

    /// Whether decoding the loop at `head` (of `len` bytes) meets an
    /// instruction at `pc`.
    fn passes_through(&self, head: u32, len: u16, pc: u32) -> bool {
        let mut at = head;
        while at < head + len as u32 {
            if at == pc {
                return true;
            }
            let Some(opcode) = (self.byte)(at) else {
                return false;
            };
            let step = emu::cpu::opcodes::OPCODES[opcode as usize].byte_len();
            at = code_addr::advance(at, step as u16);
        }
        false
    }
}

// ---------------------------------------------------------------------
// The classifier the caller supplies
// ---------------------------------------------------------------------

/// What the sampled profile needs to know of the code, from the caller, so
/// that the exact side and this one share one definition of routines and
/// interrupts.
pub struct Classifier {
    /// The routine holding the instruction at a code address: the
    /// routine's entry (from ld65 `.dbg` scopes, or call targets).
    pub routine_of: Box<dyn Fn(u32) -> Option<u32> + Send>,
    /// Whether a hardware interrupt whose handler starts at this code
    /// address is the NMI (else it is an IRQ).
    pub is_nmi: Box<dyn Fn(u32) -> bool + Send>,
    pub wait_loops: WaitLoops,
}

impl Classifier {
    pub fn new(
        routine_of: impl Fn(u32) -> Option<u32> + Send + 'static,
        is_nmi: impl Fn(u32) -> bool + Send + 'static,
        wait_loops: WaitLoops,
    ) -> Classifier {
        Classifier {
            routine_of: Box::new(routine_of),
            is_nmi: Box::new(is_nmi),
            wait_loops,
        }
    }
}

// ---------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------

/// An estimated share (of cycles, in [0, 1]) with its 95 % interval.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Share {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

impl Share {
    /// Whether `x` lies in the interval.
    pub fn covers(&self, x: f64) -> bool {
        self.low <= x && x <= self.high
    }

    /// The share of `total` cycles: (estimate, low, high).
    pub fn of(&self, total: u64) -> Cycles {
        let t = total as f64;
        Cycles {
            value: self.value * t,
            low: self.low * t,
            high: self.high * t,
        }
    }
}

/// Estimated cycles with their 95 % interval.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Cycles {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

/// The classes a cycle falls in (see the module doc), in the order of
/// [`Class::ALL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    Busy,
    Idle,
    Nmi,
    Irq,
    Dma,
}

impl Class {
    pub const ALL: [Class; 5] = [Class::Busy, Class::Idle, Class::Nmi, Class::Irq, Class::Dma];

    pub fn name(self) -> &'static str {
        match self {
            Class::Busy => "busy",
            Class::Idle => "idle",
            Class::Nmi => "nmi",
            Class::Irq => "irq",
            Class::Dma => "dma",
        }
    }
}

/// One value per [`Class`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ByClass<T> {
    pub busy: T,
    pub idle: T,
    pub nmi: T,
    pub irq: T,
    pub dma: T,
}

impl<T: Copy> ByClass<T> {
    fn from_fn(mut f: impl FnMut(Class) -> T) -> ByClass<T> {
        ByClass {
            busy: f(Class::Busy),
            idle: f(Class::Idle),
            nmi: f(Class::Nmi),
            irq: f(Class::Irq),
            dma: f(Class::Dma),
        }
    }

    pub fn get(&self, class: Class) -> T {
        match class {
            Class::Busy => self.busy,
            Class::Idle => self.idle,
            Class::Nmi => self.nmi,
            Class::Irq => self.irq,
            Class::Dma => self.dma,
        }
    }
}

/// One routine's estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct RoutineEstimate {
    /// The routine's entry (`None`: code outside every routine).
    pub routine: Option<u32>,
    /// Its non-idle, non-DMA cycles over all non-idle, non-DMA cycles (the
    /// routine table's "share of busy time").
    pub share_of_work: Share,
    /// Its non-idle, non-DMA cycles over all cycles.
    pub share_of_cycles: Share,
    /// `share_of_cycles` of the known total.
    pub cycles: Cycles,
    /// Batches in which it was seen.
    pub batches: u64,
}

/// The estimates for the run (or window) so far.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimates {
    /// The cycles the estimates are shares of (known exactly).
    pub total_cycles: u64,
    /// Batches that gave observations.
    pub batches: u64,
    /// Observations (samples with a successor in their batch).
    pub observations: u64,
    /// Each class's share of all cycles.
    pub classes: ByClass<Share>,
    /// The same, in cycles of `total_cycles`.
    pub class_cycles: ByClass<Cycles>,
    /// Non-idle, non-DMA cycles (busy + NMI + IRQ) over all cycles.
    pub work: Share,
    /// Routines by estimated share of the work, largest first.
    pub routines: Vec<RoutineEstimate>,
    /// Observations of batches added after the frame they fell in had
    /// ended: in the run's estimates, not in any frame's.
    pub late_observations: u64,
    /// The share of the cycles whose context (main program or handler)
    /// nothing learned told: counted as busy, and the busy, NMI and IRQ
    /// intervals widened by it (see the module doc).
    pub unresolved: f64,
}

impl Estimates {
    /// The estimate for `routine`, if it was seen.
    pub fn routine(&self, routine: Option<u32>) -> Option<&RoutineEstimate> {
        self.routines.iter().find(|r| r.routine == routine)
    }
}

/// One frame's estimate (rough: see the module doc).
#[derive(Debug, Clone, PartialEq)]
pub struct FrameEstimate {
    pub frame: u64,
    /// The frame's CPU cycles (known exactly).
    pub cycles: u64,
    /// Batches with observations in the frame.
    pub batches: u32,
    /// The frame's cycles by class, estimated, with 95 % intervals (all
    /// zero with no batch in the frame).
    pub classes: ByClass<Cycles>,
    /// The routine with the most sampled work in the frame, and its
    /// estimated cycles.
    pub top_routine: Option<(Option<u32>, f64)>,
}

// ---------------------------------------------------------------------
// Running sums
// ---------------------------------------------------------------------

/// Running sums of a ratio estimator over batches: Σy, Σy², Σy·d for the
/// numerator against a denominator d.
#[derive(Debug, Clone, Copy, Default)]
struct RatioSums {
    y: f64,
    yy: f64,
    yd: f64,
    /// Batches with some of it.
    k: u64,
}

impl RatioSums {
    fn add(&mut self, y: f64, d: f64) {
        self.y += y;
        self.yy += y * y;
        self.yd += y * d;
        self.k += (y > 0.0) as u64;
    }

    /// The ratio and its cluster-robust 95 % interval over `n` batches
    /// whose denominators sum to `d` and their squares to `dd`.
    fn share(&self, n: u64, d: f64, dd: f64) -> Share {
        if n == 0 || d <= 0.0 {
            return Share::default();
        }
        let r = self.y / d;
        if self.y <= 0.0 {
            return Share {
                value: 0.0,
                low: 0.0,
                high: (GARWOOD[0].1 / n as f64).min(1.0),
            };
        }
        let n_f = n as f64;
        let ss = (self.yy - 2.0 * r * self.yd + r * r * dd).max(0.0);
        let var = if n > 1 {
            n_f / (n_f - 1.0) * ss / (d * d)
        } else {
            f64::INFINITY
        };
        let half = Z95 * var.sqrt();
        let (mut low, mut high) = (r - half, r + half);
        let rare = self.k * 10 <= n;
        if let (true, Some(&(k_low, k_high))) = (rare, GARWOOD.get(self.k as usize)) {
            // Few batches hold it, and a small part of them: its total is
            // about as uncertain as the count of those batches, a Poisson
            // count (the normal interval is too narrow below ~20 of them:
            // the coverage test's DMA share); take the wider.
            let k = self.k as f64;
            low = low.min(r * k_low / k);
            high = high.max(r * k_high / k);
        }
        Share {
            value: r,
            low: low.max(0.0),
            high: high.min(1.0),
        }
    }
}

/// Exact (Garwood) 95 % bounds of a Poisson mean for counts 0 to 19.
const GARWOOD: [(f64, f64); 20] = [
    (0.0, 3.689),
    (0.0253, 5.572),
    (0.2422, 7.225),
    (0.6187, 8.767),
    (1.0899, 10.242),
    (1.6235, 11.668),
    (2.2019, 13.059),
    (2.8144, 14.423),
    (3.4538, 15.763),
    (4.1154, 17.085),
    (4.7954, 18.390),
    (5.4912, 19.682),
    (6.2006, 20.962),
    (6.9220, 22.230),
    (7.6539, 23.490),
    (8.3954, 24.740),
    (9.1454, 25.983),
    (9.9031, 27.219),
    (10.6679, 28.448),
    (11.4392, 29.671),
];

/// Per-routine running sums: numerator against all cycles (x) and against
/// the work (z).
#[derive(Debug, Clone, Copy, Default)]
struct RoutineSums {
    y: f64,
    yy: f64,
    yx: f64,
    yz: f64,
    batches: u64,
}

// ---------------------------------------------------------------------
// Contexts
// ---------------------------------------------------------------------

const MAIN: usize = 0;
const NMI: usize = 1;
const IRQ: usize = 2;

/// Where a sample runs, as far as the batch shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    /// In this context (main, NMI or IRQ).
    Known(usize),
    /// In the segment of unknown context of this index.
    Unknown(usize),
    /// In a BRK handler: as the level below.
    Brk,
}

/// What a batch shows of a segment's context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Evidence {
    /// Nothing.
    None,
    /// Interrupted by an interrupt: the main program.
    Interrupted,
    /// Ended by an `RTI` matching no entry: a handler, of either kind.
    Handler,
    /// Both (an IRQ handler interrupted by the NMI, say): a handler.
    Both,
}

/// How an observation's context was decided (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Resolution {
    /// By the batch: an interrupt entry before it, or its segment's
    /// evidence naming one context.
    Decided,
    /// In a handler of unknown kind: shared out by what is learned.
    Handler,
    /// Unknown: by what is learned.
    Learned,
}

/// Contexts learned for a piece of code (a routine): cycles seen in each,
/// `[main, NMI, IRQ, handler of unknown kind]`.
#[derive(Debug, Clone, Copy, Default)]
struct ContextRecord {
    /// Proven by a batch: after an interrupt entry, or before an `RTI`
    /// matching none.
    proven: [f64; 4],
    /// In segments decided by other code's records.
    inferred: [f64; 4],
    /// Interrupted by an interrupt: main code, unless the handler is
    /// re-entered (the NMI handler of a game that runs in it, and takes
    /// the next NMI before it returns), so the weakest evidence.
    presumed_main: f64,
}

impl ContextRecord {
    /// The mix of contexts `[main, NMI, IRQ]` the record gives, if it has
    /// one, with handlers of unknown kind shared out as `nmi_share` says;
    /// with `handler`, among the handlers only. The strongest evidence
    /// counts alone: proven, else inferred, else presumed.
    fn mix(&self, nmi_share: f64, handler: bool) -> Option<[f64; 3]> {
        for counts in [self.proven, self.inferred] {
            if let Some(mix) = mix_of(counts, nmi_share, handler) {
                return Some(mix);
            }
        }
        (!handler && self.presumed_main > 0.0).then_some([1.0, 0.0, 0.0])
    }
}

/// Counts `[main, NMI, IRQ, handler]` as a mix (see `ContextRecord::mix`).
fn mix_of(counts: [f64; 4], nmi_share: f64, handler: bool) -> Option<[f64; 3]> {
    let mut mix = [
        if handler { 0.0 } else { counts[0] },
        counts[1] + counts[3] * nmi_share,
        counts[2] + counts[3] * (1.0 - nmi_share),
    ];
    let total: f64 = mix.iter().sum();
    if total > 0.0 {
        for m in &mut mix {
            *m /= total;
        }
        Some(mix)
    } else {
        None
    }
}

/// Per code key (see `context_key`): the work of observations whose
/// context was learned (divided by their batch's own cycles), and the
/// contexts it was given when its batch came — so that the run's estimate
/// can decide it again, at the end, from all that was learned.
#[derive(Debug, Clone, Copy, Default)]
struct Deferred {
    learned: f64,
    learned_given: [f64; 3],
    handler: f64,
    handler_given: [f64; 3],
}

/// The key a sample's predecessors are learned under: its code address,
/// tagged for an interrupt entry (whose address is its handler's first
/// instruction's too).
fn sample_key(s: &Sample) -> u32 {
    if s.flow == Flow::Interrupt {
        s.pc | 1 << 31
    } else {
        s.pc
    }
}

/// The key the context record of an instruction is kept under: its routine,
/// or its address (tagged) when no routine holds it.
fn context_key(routine: Option<u32>, pc: u32) -> u32 {
    routine.unwrap_or(pc | 1 << 31)
}

// ---------------------------------------------------------------------
// One observation
// ---------------------------------------------------------------------

/// One observation of a batch, classified.
#[derive(Debug, Clone, Copy)]
struct Observation {
    pc: u32,
    cycle: u64,
    /// Own cycles (at most OWN_CYCLES_MAX) and DMA cycles.
    own: f64,
    dma: f64,
    /// The fraction of the own cycles that is idle.
    idle: f64,
    /// Context weights of the non-idle own cycles (main, NMI, IRQ).
    context: [f64; 3],
    resolution: Resolution,
    routine: Option<u32>,
}

impl Observation {
    fn class_cycles(&self) -> ByClass<f64> {
        let work = self.own * (1.0 - self.idle);
        ByClass {
            busy: work * self.context[MAIN],
            idle: self.own * self.idle,
            nmi: work * self.context[NMI],
            irq: work * self.context[IRQ],
            dma: self.dma,
        }
    }

    fn work(&self) -> f64 {
        self.own * (1.0 - self.idle)
    }
}

/// An observation waiting for its frame's end, its values already divided
/// by its batch's own cycles.
#[derive(Debug, Clone, Copy)]
struct Pending {
    cycle: u64,
    batch: u64,
    /// Its share of its batch's own cycles (a frame's batches are counted
    /// by these, so that a batch across its end counts in part).
    probe: f64,
    classes: ByClass<f64>,
    routine: Option<u32>,
}

// ---------------------------------------------------------------------
// The profile
// ---------------------------------------------------------------------

/// The sampled frame-time profile, fed batch by batch (see the module doc).
pub struct SampledProfile {
    classifier: Classifier,
    start_cycle: u64,
    /// Where the last ended frame ended.
    frame_start: u64,
    // Run-level sums.
    batches: u64,
    observations: u64,
    /// Σ of the batches' weights.
    weights: f64,
    /// Per code key of a sample (see `sample_key`): the cycles (at most
    /// `STALL_CYCLES`) of the steps seen just before it, summed, and how
    /// many.
    predecessors: IntMap<u32, (f64, u64)>,
    x: f64,
    xx: f64,
    z: f64,
    zz: f64,
    zx: f64,
    classes: [RatioSums; 5],
    routines: IntMap<Option<u32>, RoutineSums>,
    // What is learned as batches come.
    contexts: IntMap<u32, ContextRecord>,
    /// Per code key: work whose context was learned, to be decided again
    /// (ordered, so that the sums at the end are made in one order).
    deferred: BTreeMap<u32, Deferred>,
    /// Calls seen: (caller's routine, callee's routine) → count.
    calls: BTreeMap<(Option<u32>, Option<u32>), u64>,
    /// Interrupt handlers' routines → entries seen, NMI and IRQ.
    roots: BTreeMap<Option<u32>, [u64; 2]>,
    /// The contexts routines are called in (see `call_graph_mix`), as of
    /// batch `graph_at`.
    graph: BTreeMap<Option<u32>, [f64; 3]>,
    graph_at: u64,
    /// Interrupt entries seen, NMI and IRQ.
    entries: [u64; 2],
    /// Per wait-loop head: iterations seen to close, and to end otherwise.
    iterations: IntMap<u32, (u64, u64)>,
    // The frame in progress.
    pending: Vec<Pending>,
    late: u64,
}

impl std::fmt::Debug for SampledProfile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SampledProfile")
            .field("batches", &self.batches)
            .field("observations", &self.observations)
            .field("routines", &self.routines.len())
            .finish()
    }
}

impl SampledProfile {
    /// A profile of the run from CPU cycle `start_cycle` on (observations
    /// before it are left out: a window may start inside a batch).
    pub fn new(classifier: Classifier, start_cycle: u64) -> SampledProfile {
        SampledProfile {
            classifier,
            start_cycle,
            frame_start: start_cycle,
            batches: 0,
            observations: 0,
            weights: 0.0,
            predecessors: IntMap::default(),
            x: 0.0,
            xx: 0.0,
            z: 0.0,
            zz: 0.0,
            zx: 0.0,
            classes: [RatioSums::default(); 5],
            routines: IntMap::default(),
            contexts: IntMap::default(),
            deferred: BTreeMap::new(),
            calls: BTreeMap::new(),
            roots: BTreeMap::new(),
            graph: BTreeMap::new(),
            graph_at: 0,
            entries: [0; 2],
            iterations: IntMap::default(),
            pending: Vec::new(),
            late: 0,
        }
    }

    /// Adds one batch (consecutive samples, in order, as the sampler
    /// recorded them).
    pub fn add_batch(&mut self, batch: &[Sample]) {
        if batch.len() < 2 {
            return;
        }
        self.learn_calls(batch);
        if self.batches >= self.graph_at * 2 || self.batches >= self.graph_at + 1024 {
            // Cheap (the code's routines), and as often as the graph can
            // change much: doubling at first, then every 1024 batches.
            self.graph = self.call_graph();
            self.graph_at = self.batches.max(1);
        }
        let observations = self.classify(batch);
        let kept: Vec<Observation> = observations
            .into_iter()
            .filter(|o| o.cycle >= self.start_cycle)
            .collect();
        let own: f64 = kept.iter().map(|o| o.own).sum();
        let batch_own: f64 = batch
            .windows(2)
            .map(|w| w[1].cycle.saturating_sub(w[0].cycle).min(OWN_CYCLES_MAX) as f64)
            .sum();
        let norm = self.weight(batch, batch_own);
        self.learn_predecessors(batch);
        if kept.is_empty() || own <= 0.0 || batch_own <= 0.0 {
            return;
        }
        self.batches += 1;
        self.observations += kept.len() as u64;
        self.weights += norm;
        let mut y = ByClass::<f64>::default();
        let mut z = 0.0;
        let mut by_routine: Vec<(Option<u32>, f64)> = Vec::new();
        for o in &kept {
            let c = o.class_cycles();
            y.busy += c.busy;
            y.idle += c.idle;
            y.nmi += c.nmi;
            y.irq += c.irq;
            y.dma += c.dma;
            z += o.work();
            if o.work() > 0.0 {
                match by_routine.iter_mut().find(|(r, _)| *r == o.routine) {
                    Some(entry) => entry.1 += o.work(),
                    None => by_routine.push((o.routine, o.work())),
                }
            }
        }
        let x = (y.busy + y.idle + y.nmi + y.irq + y.dma) * norm;
        let z = z * norm;
        self.x += x;
        self.xx += x * x;
        self.z += z;
        self.zz += z * z;
        self.zx += z * x;
        for (i, class) in Class::ALL.into_iter().enumerate() {
            self.classes[i].add(y.get(class) * norm, x);
        }
        for o in &kept {
            if o.resolution == Resolution::Decided || o.work() <= 0.0 {
                continue;
            }
            let w = o.work() * norm;
            let d = self
                .deferred
                .entry(context_key(o.routine, o.pc))
                .or_default();
            let (total, given) = match o.resolution {
                Resolution::Handler => (&mut d.handler, &mut d.handler_given),
                _ => (&mut d.learned, &mut d.learned_given),
            };
            *total += w;
            for (g, c) in given.iter_mut().zip(o.context) {
                *g += w * c;
            }
        }
        for (routine, work) in by_routine {
            let yr = work * norm;
            let sums = self.routines.entry(routine).or_default();
            sums.y += yr;
            sums.yy += yr * yr;
            sums.yx += yr * x;
            sums.yz += yr * z;
            sums.batches += 1;
        }
        // The frame's share of it.
        let id = self.batches;
        for o in &kept {
            if o.cycle < self.frame_start {
                self.late += 1;
                continue;
            }
            let c = o.class_cycles();
            self.pending.push(Pending {
                cycle: o.cycle,
                batch: id,
                probe: o.own / batch_own,
                classes: ByClass::from_fn(|k| c.get(k) * norm),
                routine: o.routine,
            });
        }
        if self.pending.len() > MAX_PENDING {
            let excess = self.pending.len() - MAX_PENDING;
            self.pending.drain(..excess);
        }
    }

    /// A batch's weight: the inverse of its start's probability, which is
    /// proportional to the cycles of the step just before its first sample
    /// (see the module doc), up to `STALL_CYCLES`. That step is not
    /// sampled, so its cycles are the mean of those seen before the same
    /// code in earlier batches; the first time, the batch's mean own cycles
    /// a sample.
    fn weight(&self, batch: &[Sample], batch_own: f64) -> f64 {
        let before = match self.predecessors.get(&sample_key(&batch[0])) {
            Some(&(sum, n)) if n > 0 => sum / n as f64,
            _ => batch_own / (batch.len() - 1) as f64,
        };
        1.0 / before.max(1.0)
    }

    /// Learns the cycles of the step before each sample but the first.
    fn learn_predecessors(&mut self, batch: &[Sample]) {
        for w in batch.windows(2) {
            let cycles = w[1].cycle.saturating_sub(w[0].cycle).min(STALL_CYCLES);
            let entry = self.predecessors.entry(sample_key(&w[1])).or_default();
            entry.0 += cycles as f64;
            entry.1 += 1;
        }
    }

    /// Ends frame `frame` at CPU cycle `end_cycle` (where the next one
    /// starts): returns its estimate from the observations before
    /// `end_cycle` added so far.
    pub fn end_frame(&mut self, frame: u64, end_cycle: u64) -> FrameEstimate {
        let cycles = end_cycle.saturating_sub(self.frame_start);
        let split = self.pending.partition_point(|p| p.cycle < end_cycle);
        let (mine, rest): (Vec<Pending>, Vec<Pending>) = {
            let rest = self.pending.split_off(split);
            (std::mem::take(&mut self.pending), rest)
        };
        self.pending = rest;
        self.frame_start = self.frame_start.max(end_cycle);
        frame_estimate(frame, cycles, &mine)
    }

    /// The estimates so far, of the cycles from the start to `end_cycle`.
    pub fn estimates(&self, end_cycle: u64) -> Estimates {
        let total = end_cycle.saturating_sub(self.start_cycle);
        let n = self.batches;
        let (adjust, unresolved) = self.redecided();
        let unresolved = if self.x > 0.0 {
            unresolved / self.x
        } else {
            0.0
        };
        let mean_weight = if n > 0 { self.weights / n as f64 } else { 0.0 };
        let classes = ByClass::from_fn(|c| {
            let i = Class::ALL.iter().position(|&k| k == c).unwrap_or(0);
            let mut sums = self.classes[i];
            sums.y = (sums.y + adjust.get(c)).max(0.0);
            let mut share = sums.share(n, self.x, self.xx);
            match c {
                // Work whose context nothing told may be any handler's.
                Class::Busy => share.low = (share.low - unresolved).max(0.0),
                Class::Nmi => share.high = (share.high + unresolved).min(1.0),
                Class::Irq if self.entries[1] > 0 => {
                    share.high = (share.high + unresolved).min(1.0)
                }
                // No batch held a stall: one OAM DMA in a batch of the
                // mean weight is the size of what a batch would have shown.
                Class::Dma if sums.k == 0 && self.x > 0.0 => {
                    share.high = (GARWOOD[0].1 * OAM_DMA_CYCLES * mean_weight / self.x).min(1.0)
                }
                _ => {}
            }
            share
        });
        let work = RatioSums {
            y: self.z,
            yy: self.zz,
            yd: self.zx,
            k: n,
        }
        .share(n, self.x, self.xx);
        let mut routines: Vec<RoutineEstimate> = self
            .routines
            .iter()
            .map(|(&routine, s)| {
                let of_work = RatioSums {
                    y: s.y,
                    yy: s.yy,
                    yd: s.yz,
                    k: s.batches,
                }
                .share(n, self.z, self.zz);
                let of_cycles = RatioSums {
                    y: s.y,
                    yy: s.yy,
                    yd: s.yx,
                    k: s.batches,
                }
                .share(n, self.x, self.xx);
                RoutineEstimate {
                    routine,
                    share_of_work: of_work,
                    share_of_cycles: of_cycles,
                    cycles: of_cycles.of(total),
                    batches: s.batches,
                }
            })
            .collect();
        routines.sort_by(|a, b| {
            b.share_of_work
                .value
                .total_cmp(&a.share_of_work.value)
                .then(a.routine.cmp(&b.routine))
        });
        Estimates {
            unresolved,
            total_cycles: total,
            batches: n,
            observations: self.observations,
            class_cycles: ByClass::from_fn(|c| classes.get(c).of(total)),
            classes,
            work,
            routines,
            late_observations: self.late,
        }
    }

    /// What deciding the learned contexts again, from all that is learned
    /// now, changes in the busy, NMI and IRQ sums (see the module doc:
    /// batches that came before their code's context was learned are
    /// counted as it is known at the end). Only the point estimates take
    /// it: the variance keeps each batch as it was classified, which
    /// widens it by at most the change over √n.
    ///
    /// Also returns the work nothing told the context of (code with no
    /// record at all, taken for the main program's), divided as the sums
    /// are.
    fn redecided(&self) -> (ByClass<f64>, f64) {
        let nmi_share = self.nmi_share();
        let graph = self.call_graph();
        let mut change = [0.0; 3];
        let mut unresolved = 0.0;
        for (&key, d) in &self.deferred {
            let routine = (key & 1 << 31 == 0).then_some(key);
            let pc = key & !(1 << 31);
            match self.code_mix(routine, pc, nmi_share, false, &graph) {
                Some(mix) => {
                    for c in 0..3 {
                        change[c] += d.learned * mix[c] - d.learned_given[c];
                    }
                }
                None => unresolved += d.learned,
            }
            let mix = self
                .code_mix(routine, pc, nmi_share, true, &graph)
                .unwrap_or([0.0, nmi_share, 1.0 - nmi_share]);
            for c in 0..3 {
                change[c] += d.handler * mix[c] - d.handler_given[c];
            }
        }
        let change = ByClass {
            busy: change[MAIN],
            nmi: change[NMI],
            irq: change[IRQ],
            ..ByClass::default()
        };
        (change, unresolved)
    }

    /// The contexts `[main, NMI, IRQ]` a routine is taken to run in, as
    /// learned so far (see the module doc), if anything was learned: for
    /// a routine table that puts NMI and IRQ code under roots of their own.
    pub fn routine_context(&self, routine: Option<u32>) -> Option<[f64; 3]> {
        let graph = self.call_graph();
        let pc = routine.unwrap_or(0);
        self.code_mix(routine, pc, self.nmi_share(), false, &graph)
    }

    /// The final estimates, of the cycles from the start to `end_cycle`.
    pub fn finish(self, end_cycle: u64) -> Estimates {
        self.estimates(end_cycle)
    }

    // -----------------------------------------------------------------
    // Classification of one batch
    // -----------------------------------------------------------------

    /// The batch's observations (all samples but the last), classified.
    fn classify(&mut self, batch: &[Sample]) -> Vec<Observation> {
        let m = batch.len() - 1;
        let mut obs: Vec<Observation> = batch[..m]
            .iter()
            .zip(&batch[1..])
            .map(|(s, next)| {
                let cycles = next.cycle.saturating_sub(s.cycle);
                let own = cycles.min(OWN_CYCLES_MAX);
                Observation {
                    pc: s.pc,
                    cycle: s.cycle,
                    own: own as f64,
                    dma: (cycles - own) as f64,
                    idle: 0.0,
                    context: [1.0, 0.0, 0.0],
                    resolution: Resolution::Decided,
                    routine: (self.classifier.routine_of)(s.pc),
                }
            })
            .collect();
        self.classify_idle(batch, &mut obs);
        self.classify_context(batch, &mut obs);
        obs
    }

    /// Marks the observations in complete wait-loop iterations as idle
    /// (see the module doc).
    fn classify_idle(&mut self, batch: &[Sample], obs: &mut [Observation]) {
        let m = obs.len();
        // The iteration in progress: its loop and first sample.
        let mut iteration: Option<(WaitLoop, usize)> = None;
        for (i, s) in batch.iter().enumerate() {
            if s.flow == Flow::Interrupt {
                if let Some((l, _)) = iteration.take() {
                    self.iterations.entry(l.head).or_default().1 += 1;
                }
                continue;
            }
            if iteration.is_some_and(|(l, _)| !l.contains(s.pc)) {
                iteration = None;
            }
            if iteration.is_none() {
                if let Some(l) = self.classifier.wait_loops.loop_of(s.pc) {
                    if l.head == s.pc || i == 0 {
                        iteration = Some((l, i));
                    }
                }
            }
            let Some((l, start)) = iteration else {
                continue;
            };
            if s.next_pc == l.head {
                for o in &mut obs[start..(i + 1).min(m)] {
                    o.idle = 1.0;
                }
                self.iterations.entry(l.head).or_default().0 += 1;
                iteration = None;
            } else if !l.contains(s.next_pc) {
                self.iterations.entry(l.head).or_default().1 += 1;
                iteration = None;
            }
        }
        if let Some((l, start)) = iteration {
            let (closed, other) = self.iterations.get(&l.head).copied().unwrap_or((0, 0));
            let p = if closed + other == 0 {
                1.0
            } else {
                closed as f64 / (closed + other) as f64
            };
            for o in &mut obs[start.min(m)..m] {
                o.idle = p;
            }
        }
    }

    /// The share of handlers of unknown kind taken for the NMI's: the
    /// NMI's share of the interrupt entries seen (1 before any).
    fn nmi_share(&self) -> f64 {
        let [nmi, irq] = self.entries;
        if nmi + irq == 0 {
            1.0
        } else {
            nmi as f64 / (nmi + irq) as f64
        }
    }

    /// Gives each observation its context weights (see the module doc).
    fn classify_context(&mut self, batch: &[Sample], obs: &mut [Observation]) {
        let m = obs.len();
        let mut evidence = vec![Evidence::None];
        let mut stack = vec![Level::Unknown(0)];
        let mut labels: Vec<Level> = Vec::with_capacity(m);
        let current = |stack: &[Level]| -> Level {
            stack
                .iter()
                .rev()
                .find(|l| **l != Level::Brk)
                .copied()
                .unwrap_or(Level::Unknown(0))
        };
        for (i, s) in batch.iter().enumerate() {
            match s.flow {
                Flow::Interrupt => {
                    let nmi = (self.classifier.is_nmi)(s.pc);
                    self.entries[if nmi { 0 } else { 1 }] += 1;
                    if let Level::Unknown(seg) = current(&stack) {
                        evidence[seg] = match evidence[seg] {
                            Evidence::None | Evidence::Interrupted => Evidence::Interrupted,
                            Evidence::Handler | Evidence::Both => Evidence::Both,
                        };
                    }
                    stack.push(Level::Known(if nmi { NMI } else { IRQ }));
                    if i < m {
                        labels.push(current(&stack));
                    }
                }
                Flow::Break => {
                    if i < m {
                        labels.push(current(&stack));
                    }
                    stack.push(Level::Brk);
                }
                Flow::ReturnInterrupt => {
                    if i < m {
                        labels.push(current(&stack));
                    }
                    if stack.len() > 1 {
                        stack.pop();
                    } else {
                        if let Level::Unknown(seg) = stack[0] {
                            evidence[seg] = match evidence[seg] {
                                Evidence::None | Evidence::Handler => Evidence::Handler,
                                Evidence::Interrupted | Evidence::Both => Evidence::Both,
                            };
                        }
                        evidence.push(Evidence::None);
                        stack[0] = Level::Unknown(evidence.len() - 1);
                    }
                }
                _ => {
                    if i < m {
                        labels.push(current(&stack));
                    }
                }
            }
        }
        // Each segment's mix: its evidence, else what was learned.
        let nmi_share = self.nmi_share();
        let mut mixes: Vec<([f64; 3], Resolution)> = Vec::with_capacity(evidence.len());
        for (k, &ev) in evidence.iter().enumerate() {
            let handler = matches!(ev, Evidence::Handler | Evidence::Both);
            let mut pooled = [0.0; 3];
            let mut learned = false;
            for (o, label) in obs.iter().zip(&labels) {
                if *label != Level::Unknown(k) {
                    continue;
                }
                if let Some(mix) = self.code_mix(o.routine, o.pc, nmi_share, handler, &self.graph) {
                    learned = true;
                    for (p, m) in pooled.iter_mut().zip(mix) {
                        *p += o.own * m;
                    }
                }
            }
            let total: f64 = pooled.iter().sum();
            let mix = if learned && total > 0.0 {
                pooled.map(|p| p / total)
            } else if handler {
                [0.0, nmi_share, 1.0 - nmi_share]
            } else {
                [1.0, 0.0, 0.0]
            };
            // Teach the segment's code: a handler's as proven, an
            // interrupted one's as presumed main, another's as inferred
            // when its mix came from some record.
            for (o, label) in obs.iter().zip(&labels) {
                if *label != Level::Unknown(k) {
                    continue;
                }
                let record = self
                    .contexts
                    .entry(context_key(o.routine, o.pc))
                    .or_default();
                if handler {
                    record.proven[3] += o.own;
                } else if ev == Evidence::Interrupted {
                    record.presumed_main += o.own;
                } else if learned {
                    for (r, m) in record.inferred.iter_mut().zip(mix) {
                        *r += o.own * m;
                    }
                }
            }
            let resolution = if handler {
                Resolution::Handler
            } else {
                Resolution::Learned
            };
            mixes.push((mix, resolution));
        }
        // Apply, and learn from what the batch proved.
        for (o, label) in obs.iter_mut().zip(&labels) {
            let (mix, resolution) = match *label {
                Level::Known(c) => {
                    let mut mix = [0.0; 3];
                    mix[c] = 1.0;
                    (mix, Resolution::Decided)
                }
                Level::Unknown(k) => mixes[k],
                Level::Brk => ([1.0, 0.0, 0.0], Resolution::Learned),
            };
            o.context = mix;
            o.resolution = resolution;
            if resolution == Resolution::Decided {
                let record = self
                    .contexts
                    .entry(context_key(o.routine, o.pc))
                    .or_default();
                for (r, m) in record.proven.iter_mut().zip(mix) {
                    *r += o.own * m;
                }
            }
        }
    }

    /// The contexts the code at `pc` (in `routine`) runs in, as far as
    /// anything learned tells: the contexts its routine is called in
    /// (`graph`, see `call_graph`), else its record (see
    /// `ContextRecord::mix`); with `handler`, among the handlers only.
    fn code_mix(
        &self,
        routine: Option<u32>,
        pc: u32,
        nmi_share: f64,
        handler: bool,
        graph: &BTreeMap<Option<u32>, [f64; 3]>,
    ) -> Option<[f64; 3]> {
        if let Some(&mix) = routine.and_then(|r| graph.get(&Some(r))) {
            let mix = if handler { [0.0, mix[1], mix[2]] } else { mix };
            let total: f64 = mix.iter().sum();
            if total > 0.0 {
                return Some(mix.map(|m| m / total));
            }
        }
        self.contexts
            .get(&context_key(routine, pc))
            .and_then(|r| r.mix(nmi_share, handler))
    }

    /// Notes the batch's calls from one routine into another, which keep
    /// the context: a `JSR`, a `BRK`, a `JMP` to another routine's entry (a
    /// tail call) and an `RTS` landing on one (the "push address − 1,
    /// `RTS`" dispatch) — not an ordinary `RTS`, which goes back to
    /// whichever caller called, nor an `RTI`, nor a jump into another
    /// routine's middle (a handler that drops its interrupt frame and
    /// jumps into the main loop, as fff's NMI handler does, would make the
    /// main loop NMI code); and its interrupt entries, by routine.
    fn learn_calls(&mut self, batch: &[Sample]) {
        for s in batch {
            let callee = (self.classifier.routine_of)(s.next_pc);
            if s.flow == Flow::Interrupt {
                let nmi = (self.classifier.is_nmi)(s.pc);
                self.roots.entry(callee).or_default()[if nmi { 0 } else { 1 }] += 1;
                continue;
            }
            let call = match s.flow {
                Flow::Call | Flow::Break => true,
                Flow::Jump | Flow::Return => callee == Some(s.next_pc),
                _ => false,
            };
            if !call {
                continue;
            }
            let caller = (self.classifier.routine_of)(s.pc);
            if caller != callee {
                *self.calls.entry((caller, callee)).or_default() += 1;
            }
        }
    }

    /// The contexts each routine is called in, from the calls seen (see
    /// `learn_calls`): an interrupt handler's routine is in its
    /// interrupt's; a routine seen called is in the mix of the contexts of
    /// the routines it was called from, weighted by the calls seen (a routine called from both the main program and the
    /// NMI handler gets both); a caller never seen called (the main
    /// loop, the reset code, or a caller whose calls no batch held) in
    /// the contexts its record gives, else the main program's. Solved by
    /// iterating to a fixed point (call cycles included). This is what
    /// tells a game that runs its logic in a re-entered NMI handler: the
    /// next NMI interrupts that logic, so "interrupted" would say main.
    fn call_graph(&self) -> BTreeMap<Option<u32>, [f64; 3]> {
        let nmi_share = self.nmi_share();
        let mut mix: BTreeMap<Option<u32>, [f64; 3]> = BTreeMap::new();
        for (&r, &[nmi, irq]) in &self.roots {
            let n = (nmi + irq).max(1) as f64;
            mix.insert(r, [0.0, nmi as f64 / n, irq as f64 / n]);
        }
        let mut incoming: BTreeMap<Option<u32>, Vec<(Option<u32>, u64)>> = BTreeMap::new();
        for (&(caller, callee), &n) in &self.calls {
            if !self.roots.contains_key(&callee) {
                incoming.entry(callee).or_default().push((caller, n));
            }
        }
        let fallback = |r: Option<u32>| -> [f64; 3] {
            r.and_then(|r| self.contexts.get(&r))
                .and_then(|rec| rec.mix(nmi_share, false))
                .unwrap_or([1.0, 0.0, 0.0])
        };
        for _ in 0..100 {
            let mut change = 0.0f64;
            for (&callee, edges) in &incoming {
                let mut acc = [0.0; 3];
                let mut total = 0.0;
                for &(caller, n) in edges {
                    let m = mix
                        .get(&caller)
                        .copied()
                        .unwrap_or_else(|| fallback(caller));
                    for (a, x) in acc.iter_mut().zip(m) {
                        *a += n as f64 * x;
                    }
                    total += n as f64;
                }
                let new = acc.map(|a| a / total);
                if let Some(old) = mix.insert(callee, new) {
                    for (o, n) in old.iter().zip(new) {
                        change = change.max((o - n).abs());
                    }
                } else {
                    change = 1.0;
                }
            }
            if change < 1e-9 {
                break;
            }
        }
        mix
    }
}

/// A frame's estimate from its pending observations.
fn frame_estimate(frame: u64, cycles: u64, observations: &[Pending]) -> FrameEstimate {
    // Per batch part: x and y per class; per routine: work.
    let mut parts: Vec<(f64, ByClass<f64>)> = Vec::new();
    let probes: f64 = observations.iter().map(|p| p.probe).sum();
    let mut last_batch = None;
    let mut routines: Vec<(Option<u32>, f64)> = Vec::new();
    for p in observations {
        if last_batch != Some(p.batch) {
            parts.push((0.0, ByClass::default()));
            last_batch = Some(p.batch);
        }
        let (x, y) = parts.last_mut().expect("a part was pushed");
        for class in Class::ALL {
            *x += p.classes.get(class);
        }
        y.busy += p.classes.busy;
        y.idle += p.classes.idle;
        y.nmi += p.classes.nmi;
        y.irq += p.classes.irq;
        y.dma += p.classes.dma;
        let work = p.classes.busy + p.classes.nmi + p.classes.irq;
        match routines.iter_mut().find(|(r, _)| *r == p.routine) {
            Some(entry) => entry.1 += work,
            None => routines.push((p.routine, work)),
        }
    }
    let x: f64 = parts.iter().map(|(x, _)| x).sum();
    let classes = ByClass::from_fn(|class| {
        if x <= 0.0 {
            return Cycles::default();
        }
        let y: f64 = parts.iter().map(|(_, y)| y.get(class)).sum();
        wilson(y / x, probes).of(cycles)
    });
    let top_routine = routines
        .iter()
        .filter(|(_, w)| *w > 0.0)
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|&(r, w)| (r, if x > 0.0 { w / x * cycles as f64 } else { 0.0 }));
    FrameEstimate {
        frame,
        cycles,
        batches: parts.len() as u32,
        classes,
        top_routine,
    }
}

/// The Wilson score interval of a proportion `p` from `n` trials (batches,
/// possibly fractional at a frame's edges).
fn wilson(p: f64, n: f64) -> Share {
    let p = p.clamp(0.0, 1.0);
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n;
    let center = (p + z2 / (2.0 * n)) / denom;
    let half = Z95 / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Share {
        value: p,
        low: (center - half).max(0.0),
        high: (center + half).min(1.0),
    }
}

#[cfg(test)]
mod tests;
