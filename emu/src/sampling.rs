//! The emulator's half of count-and-time sampling (thesis section 4.1.1): when
//! a batch is requested, the engine records the next N retired instructions —
//! consecutive, with hardware interrupt entries as entries of their own — into
//! a preallocated buffer. Requests come from outside (a wall-clock timer
//! thread sets an atomic flag) or from the emulated clock (an interval of
//! mean X CPU cycles drawn from a seeded generator, or exactly X; runs are
//! deterministic either way). The `profiler`
//! crate owns the timer thread, the channel and the builder; this module only
//! captures, so the core stays free of threads.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// One retired instruction or interrupt entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retired {
    /// Code address (`crate::code_addr`) of the instruction (for
    /// interrupts: the handler's entry).
    pub pc: u32,
    /// The opcode, or `None` for a hardware interrupt entry.
    pub opcode: Option<u8>,
    /// The PC after it retired (for interrupts: the handler's entry).
    pub next_pc: u32,
    /// For a branch: its taken target, read from its operand whether or
    /// not it was taken (the hot-CFG builder learns block boundaries from
    /// it); else `next_pc`.
    pub target: u32,
    /// CPU cycle count when it started.
    pub cycle: u64,
}

/// What starts a batch: the one choice `profile --trigger`, the profiler's
/// settings and the sampler share.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Trigger {
    /// A timer thread (the profiler's) sets a flag every X ms of real time,
    /// as in the thesis; see [`SampleCapture::wall`].
    Wall,
    /// Every X ms of emulated time: deterministic; see
    /// [`SampleCapture::emulated`].
    Emulated,
}

impl Trigger {
    pub const ALL: [Trigger; 2] = [Trigger::Wall, Trigger::Emulated];

    /// The name on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            Trigger::Wall => "wall",
            Trigger::Emulated => "emulated",
        }
    }
}

impl std::fmt::Display for Trigger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Trigger {
    type Err = String;

    fn from_str(s: &str) -> Result<Trigger, String> {
        Trigger::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| format!("unknown trigger {s:?} (wall or emulated)"))
    }
}

/// How the emulated trigger spaces its batches.
///
/// A game's code repeats with the 60 Hz frame, so a strictly periodic
/// trigger sees the same few phases of the frame over and over and over- or
/// under-counts whole routines (measured on the bundled games: edges holding
/// 0.40 % of all transitions were seen at 0.13 % and at 0.73 %). The
/// thesis' wall-clock timer had natural jitter; ours has it by design.
///
/// Decision: uniform on [X/2, 3X/2], not exponential. Both have mean X and
/// both make the phase of a batch within the frame uniform in the long run
/// (successive phases are a random walk whose steps spread over X/√3, which
/// covers a 16.7 ms frame within a few dozen batches at X = 3 ms and at once
/// at X = 30 ms). The uniform interval is bounded: batches never come closer
/// than X/2, so the sampler's cost per second of emulated time has no bursts,
/// and never further than 3X/2, so a short run still gets its share.
/// An exponential interval's memorylessness would buy nothing the estimators
/// need.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Spacing {
    /// Each interval drawn uniformly from [X/2, 3X/2] (the default).
    #[default]
    Uniform,
    /// Exactly X between batches (plus the optional jitter): the thesis-era
    /// setting, kept for comparisons.
    Periodic,
}

impl Spacing {
    pub const ALL: [Spacing; 2] = [Spacing::Uniform, Spacing::Periodic];

    /// The name on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            Spacing::Uniform => "uniform",
            Spacing::Periodic => "periodic",
        }
    }
}

impl std::fmt::Display for Spacing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Spacing {
    type Err = String;

    fn from_str(s: &str) -> Result<Spacing, String> {
        Spacing::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| format!("unknown spacing {s:?} (uniform or periodic)"))
    }
}

/// How a capture learns that a batch is wanted.
#[derive(Debug, Clone)]
enum Request {
    /// An external flag, set by a timer thread every X ms of real time.
    Flag(Arc<AtomicBool>),
    /// Every `interval_cycles` CPU cycles of emulated time on average
    /// (spaced as `spacing` says), plus a jitter of up to `jitter_cycles`,
    /// all drawn from a seeded generator.
    Clock {
        interval_cycles: u64,
        spacing: Spacing,
        jitter_cycles: u64,
    },
}

/// A trigger this many cycles or more before the next instruction starts
/// fell into a stall (OAM DMA: 513 cycles), since no instruction or
/// interrupt entry takes more than 7. A batch started there would begin at
/// the instruction after the stall with a probability proportional to the
/// stall's length: the code after an OAM DMA, usually the rest of the NMI
/// handler, was sampled six times too often (full_game). The uniform
/// trigger drops such a request and draws the next interval, so batches
/// start only in time the CPU spends on instructions; the periodic trigger
/// is the sampler of earlier versions and keeps them.
pub const STALL_CYCLES: u64 = 8;

/// How often an idle wall trigger's flag is looked at, in CPU cycles: about
/// one scanline, so a request is seen within 64 µs of emulated time (under a
/// microsecond of real time at full speed), far below any timer's
/// resolution. DESIGN.md has the loop load the flag before every
/// instruction (or block); we compare one cycle count instead, the same
/// test for both triggers, which is what made the check per instruction
/// cheap enough on the interpreter (sampler cost +1.6 % → +0.6 % of host
/// instructions).
pub const WALL_POLL_CYCLES: u64 = 114;

/// Batches a buffer has room for before it grows (a frame holds about six
/// at the thesis' rate; buffers are taken every frame or every 10 ms, and
/// grow once if more accumulate).
const RESERVED_BATCHES: usize = 64;

/// Completed batches, stored back to back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Batches {
    records: Vec<Retired>,
    /// Where each batch ends in `records`.
    ends: Vec<usize>,
}

impl Batches {
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The heap memory the buffer holds (its capacity, not its length: a
    /// buffer goes round and keeps what it grew to).
    pub fn heap_bytes(&self) -> usize {
        self.records.capacity() * std::mem::size_of::<Retired>()
            + self.ends.capacity() * std::mem::size_of::<usize>()
    }

    /// Adds one batch after these.
    pub fn push(&mut self, batch: &[Retired]) {
        self.records.extend_from_slice(batch);
        self.ends.push(self.records.len());
    }

    /// Adds `other`'s batches after these.
    pub fn append(&mut self, other: &Batches) {
        let offset = self.records.len();
        self.records.extend_from_slice(&other.records);
        self.ends.extend(other.ends.iter().map(|end| end + offset));
    }

    /// The batches in the order they were recorded.
    pub fn iter(&self) -> impl Iterator<Item = &[Retired]> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(&self.ends)
            .map(|(start, &end)| &self.records[start..end])
    }
}

#[derive(Debug)]
pub struct SampleCapture {
    request: Request,
    /// The cycle from which the engine must ask [`SampleCapture::sample_next`]
    /// before each instruction: 0 while a batch is being collected, else the
    /// next trigger cycle (emulated) or the next look at the flag (wall).
    /// Keeping this one number is what makes the check per instruction a
    /// single comparison.
    due: u64,
    batch_len: usize,
    /// Completed batches not yet taken, back to back, then the batch being
    /// filled from `current_start` on. One buffer, reserved up front and
    /// reused: recording a batch allocates nothing.
    records: Vec<Retired>,
    /// Where each completed batch in `records` ends.
    ends: Vec<usize>,
    current_start: usize,
    /// Instructions recorded in the batch being filled (interrupt entries
    /// not counted).
    current_instructions: usize,
    collecting: bool,
    next_trigger_cycle: u64,
    rng_state: u64,
    /// Total instructions recorded in completed batches.
    pub sampled_instructions: u64,
    /// Completed batches.
    pub batches: u64,
}

impl SampleCapture {
    /// Batches of `batch_len` instructions whenever a timer thread sets
    /// `flag` (the [`Trigger::Wall`] trigger), watched from `start_cycle` on.
    pub fn wall(flag: Arc<AtomicBool>, batch_len: usize, start_cycle: u64) -> SampleCapture {
        Self::new(Request::Flag(flag), 0, batch_len, start_cycle)
    }

    /// Batches of `batch_len` instructions every `interval_cycles` CPU
    /// cycles of emulated time on average, spaced as `spacing` says, each
    /// delayed by a further 0..=`jitter_cycles`, drawn from a generator
    /// seeded with `seed` (the [`Trigger::Emulated`] trigger). Intervals run
    /// from the end of the previous batch; the first starts at `start_cycle`.
    pub fn emulated(
        interval_cycles: u64,
        spacing: Spacing,
        jitter_cycles: u64,
        seed: u64,
        batch_len: usize,
        start_cycle: u64,
    ) -> SampleCapture {
        let request = Request::Clock {
            interval_cycles,
            spacing,
            jitter_cycles,
        };
        Self::new(
            request,
            seed ^ 0x9E37_79B9_7F4A_7C15,
            batch_len,
            start_cycle,
        )
    }

    fn new(request: Request, rng_state: u64, batch_len: usize, start_cycle: u64) -> SampleCapture {
        let batch_len = batch_len.max(1);
        let mut capture = SampleCapture {
            rng_state,
            request,
            due: 0,
            batch_len,
            records: Vec::with_capacity(batch_len * 2 * RESERVED_BATCHES),
            ends: Vec::with_capacity(RESERVED_BATCHES),
            current_start: 0,
            current_instructions: 0,
            collecting: false,
            next_trigger_cycle: 0,
            sampled_instructions: 0,
            batches: 0,
        };
        capture.schedule_from(start_cycle);
        capture
    }

    /// splitmix64: a tiny seeded generator, enough for jitter.
    fn next_random(&mut self) -> u64 {
        self.rng_state = self.rng_state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng_state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn schedule_from(&mut self, cycle: u64) {
        match self.request {
            Request::Clock {
                interval_cycles,
                spacing,
                jitter_cycles,
            } => {
                let interval = interval_cycles.max(1);
                let interval = match spacing {
                    Spacing::Periodic => interval,
                    // Uniform on [X/2, X/2 + X]: mean X (to the cycle, as
                    // X/2 rounds down by at most half a cycle).
                    Spacing::Uniform => {
                        interval / 2 + self.next_random() % interval.saturating_add(1)
                    }
                };
                let jitter = if jitter_cycles > 0 {
                    self.next_random() % jitter_cycles.saturating_add(1)
                } else {
                    0
                };
                self.next_trigger_cycle =
                    cycle.saturating_add(interval.max(1)).saturating_add(jitter);
                self.due = self.next_trigger_cycle;
            }
            Request::Flag(_) => self.due = cycle + WALL_POLL_CYCLES,
        }
    }

    /// Whether the instruction (or interrupt entry) starting at `cycle` is
    /// to be recorded; starts a batch when one is due. The common case is
    /// one comparison (with [`SampleCapture::due_cycle`], which is all the
    /// interpreter's step makes before it knows it has to ask).
    #[inline(always)]
    pub fn sample_next(&mut self, cycle: u64) -> bool {
        cycle >= self.due && self.begin(cycle)
    }

    /// The slow half of [`SampleCapture::sample_next`].
    #[inline(never)]
    fn begin(&mut self, cycle: u64) -> bool {
        if self.collecting {
            return true;
        }
        let requested = match &self.request {
            Request::Clock { spacing, .. } => {
                cycle >= self.next_trigger_cycle
                    && (*spacing == Spacing::Periodic
                        || cycle - self.next_trigger_cycle < STALL_CYCLES)
            }
            // The request is consumed when the batch starts.
            Request::Flag(flag) => flag.swap(false, Ordering::Relaxed),
        };
        if requested {
            self.collecting = true;
            self.due = 0;
        } else {
            self.schedule_from(cycle);
        }
        requested
    }

    /// The cycle from which [`SampleCapture::sample_next`] has to be asked
    /// (0 while collecting).
    #[inline(always)]
    pub fn due_cycle(&self) -> u64 {
        self.due
    }

    /// The first cycle at which a batch can start by itself (`u64::MAX` for
    /// an idle wall trigger, whose request may come at any time), so the
    /// translator's idle-loop skipping stops short of it.
    pub fn next_due_cycle(&self) -> u64 {
        match (&self.request, self.collecting) {
            (_, true) => 0,
            (Request::Clock { .. }, false) => self.next_trigger_cycle,
            (Request::Flag(_), false) => u64::MAX,
        }
    }

    /// Records a retired instruction or interrupt entry (call only when
    /// [`SampleCapture::sample_next`] said so before the step).
    pub fn record(&mut self, retired: Retired) {
        debug_assert!(self.collecting, "record without sample_next");
        self.records.push(retired);
        if retired.opcode.is_some() {
            self.current_instructions += 1;
            if self.current_instructions == self.batch_len {
                self.finish_batch();
            }
        }
    }

    /// [`SampleCapture::record`] for an instruction, inlined where the
    /// interpreter records (the cold path after a sampled step): one call
    /// less per sample.
    #[inline(always)]
    pub fn record_instruction(
        &mut self,
        pc: u32,
        opcode: u8,
        next_pc: u32,
        target: u32,
        cycle: u64,
    ) {
        debug_assert!(self.collecting, "record without sample_next");
        self.records.push(Retired {
            pc,
            opcode: Some(opcode),
            next_pc,
            target,
            cycle,
        });
        self.current_instructions += 1;
        if self.current_instructions == self.batch_len {
            self.finish_batch();
        }
    }

    /// Lets `run` push the next consecutive instructions of the batch being
    /// filled straight onto its records, at most the given number (what
    /// the batch still needs), then counts them and completes the batch if
    /// it is full. For the translator's recording loop: the checks
    /// [`SampleCapture::record_instruction`] makes per instruction are made
    /// once per run of ops.
    #[inline(always)]
    pub(crate) fn record_with(&mut self, run: impl FnOnce(&mut Vec<Retired>, usize)) {
        debug_assert!(self.collecting, "record without sample_next");
        let before = self.records.len();
        let limit = self.remaining();
        run(&mut self.records, limit);
        let n = self.records.len() - before;
        debug_assert!(n <= limit, "recorded past the batch's end");
        self.current_instructions += n;
        if self.current_instructions == self.batch_len {
            self.finish_batch();
        }
    }

    /// Records `run` (consecutive instructions, their cycles counted from
    /// `base`), or as much of its start as the batch being filled still
    /// needs; returns how many. For runs known beforehand (the translator's
    /// skipped idle-loop iterations, from the records of a few): a copy,
    /// without the per-instruction checks of
    /// [`SampleCapture::record_instruction`].
    #[inline]
    pub fn record_run(&mut self, run: &[Retired], base: u64) -> usize {
        debug_assert!(self.collecting, "record without sample_next");
        let n = run.len().min(self.remaining());
        // A block copy, then the cycles: fewer host instructions than
        // building each record in one pass (novathesquirrel's idle-loop
        // batches, 1200 frames: 3.5M → 2.9M with the search around it).
        let at = self.records.len();
        self.records.extend_from_slice(&run[..n]);
        for r in &mut self.records[at..] {
            r.cycle += base;
        }
        self.current_instructions += n;
        if self.current_instructions == self.batch_len {
            self.finish_batch();
        }
        n
    }

    #[inline(never)]
    fn finish_batch(&mut self) {
        let last_cycle = self.records.last().map_or(0, |r| r.cycle);
        self.current_start = self.records.len();
        self.ends.push(self.current_start);
        self.sampled_instructions += self.current_instructions as u64;
        self.batches += 1;
        self.current_instructions = 0;
        self.collecting = false;
        self.schedule_from(last_cycle);
    }

    /// Whether a batch is being filled (the next instruction is sampled).
    #[inline]
    pub fn collecting(&self) -> bool {
        self.collecting
    }

    /// The records of the batch being filled.
    pub fn current(&self) -> &[Retired] {
        &self.records[self.current_start..]
    }

    /// Instructions still missing from the batch being filled.
    pub fn remaining(&self) -> usize {
        self.batch_len - self.current_instructions
    }

    /// Takes the batches completed since the last call (the batch being
    /// filled stays).
    pub fn take_batches(&mut self) -> Batches {
        let mut taken = Batches::default();
        self.take_batches_into(&mut taken);
        taken
    }

    /// [`SampleCapture::take_batches`] into a buffer handed back by the
    /// consumer (its old contents dropped). The buffers trade places: the
    /// completed batches leave in the capture's own buffer, and the one
    /// handed back, given the batch being filled, records from now on. So
    /// in a steady state nothing is allocated or copied but that partial
    /// batch: a buffer allocated here and freed by the feeder thread made
    /// glibc's allocator cost the emulation about as much as the sampling
    /// itself, and copying the batches out took ~0.2 % of the emulation
    /// thread's time (perf, lunarlimit).
    pub fn take_batches_into(&mut self, into: &mut Batches) {
        into.records.clear();
        into.ends.clear();
        into.records
            .extend_from_slice(&self.records[self.current_start..]);
        std::mem::swap(&mut self.records, &mut into.records);
        std::mem::swap(&mut self.ends, &mut into.ends);
        into.records.truncate(self.current_start);
        self.current_start = 0;
        // Only while the buffers going round are new.
        self.records
            .reserve(self.batch_len * 2 * RESERVED_BATCHES - self.records.len());
        self.ends.reserve(RESERVED_BATCHES);
    }

    /// Whether completed batches are waiting to be taken.
    pub fn has_batches(&self) -> bool {
        !self.ends.is_empty()
    }

    pub fn batch_len(&self) -> usize {
        self.batch_len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instr(pc: u16, cycle: u64) -> Retired {
        Retired {
            pc: pc as u32,
            opcode: Some(0xEA),
            next_pc: pc as u32 + 1,
            target: pc as u32 + 1,
            cycle,
        }
    }

    #[test]
    fn emulated_trigger_takes_consecutive_batches() {
        let mut cap = SampleCapture::emulated(100, Spacing::Periodic, 0, 1, 3, 0);
        let mut cycle = 0;
        for pc in 0..200u16 {
            if cap.sample_next(cycle) {
                cap.record(instr(pc, cycle));
            }
            cycle += 2;
        }
        let taken = cap.take_batches();
        let batches: Vec<&[Retired]> = taken.iter().collect();
        // Triggers at cycle 100 and then 100 cycles after each batch ends.
        assert_eq!(batches.len(), 3);
        assert_eq!(
            batches[0].iter().map(|r| r.pc).collect::<Vec<_>>(),
            vec![50, 51, 52]
        );
        assert_eq!(batches[1][0].pc, 52 + 50);
        assert_eq!(cap.sampled_instructions, 9);
    }

    #[test]
    fn interrupt_entries_do_not_count_towards_n() {
        let flag = Arc::new(AtomicBool::new(true));
        let mut cap = SampleCapture::wall(flag.clone(), 2, 0);
        assert!(
            !cap.sample_next(WALL_POLL_CYCLES - 1),
            "the flag is looked at once per poll period"
        );
        assert!(cap.sample_next(WALL_POLL_CYCLES));
        cap.record(instr(1, 0));
        assert!(!flag.load(Ordering::Relaxed), "the request is consumed");
        cap.record(Retired {
            pc: 0x9000,
            opcode: None,
            next_pc: 0x9000,
            target: 0x9000,
            cycle: 2,
        });
        assert!(cap.sample_next(WALL_POLL_CYCLES + 4));
        cap.record(instr(0x9000, 9));
        let taken = cap.take_batches();
        let batches: Vec<&[Retired]> = taken.iter().collect();
        assert_eq!(batches.len(), 1);
        assert_eq!(batches[0].len(), 3);
        assert!(!cap.sample_next(WALL_POLL_CYCLES + 20));
    }

    #[test]
    fn a_run_is_recorded_up_to_the_batch_end_with_its_cycles_shifted() {
        let mut cap = SampleCapture::emulated(100, Spacing::Periodic, 0, 0, 4, 0);
        assert!(cap.sample_next(100));
        cap.record(instr(1, 100));
        let run: Vec<Retired> = (0..6).map(|i| instr(10 + i, 3 * i as u64)).collect();
        assert_eq!(
            cap.record_run(&run, 1000),
            3,
            "only what the batch still needs"
        );
        assert!(!cap.collecting(), "the batch is complete");
        let taken = cap.take_batches();
        let batch = taken.iter().next().expect("one batch");
        assert_eq!(
            batch.iter().map(|r| (r.pc, r.cycle)).collect::<Vec<_>>(),
            vec![(1, 100), (10, 1000), (11, 1003), (12, 1006)]
        );
        // The next batch is due 100 cycles after the last one's last start.
        assert!(!cap.sample_next(1105));
        assert!(cap.sample_next(1106));
    }

    /// A capture whose batches of `batch_len` follow one another at once.
    fn back_to_back(batch_len: usize) -> SampleCapture {
        SampleCapture::emulated(1, Spacing::Periodic, 0, 0, batch_len, 0)
    }

    /// Records the instruction at `pc`, starting at cycle `pc * 10 + 1`.
    fn record_at(cap: &mut SampleCapture, pc: u16) {
        let cycle = u64::from(pc) * 10 + 1;
        assert!(cap.sample_next(cycle));
        cap.record(instr(pc, cycle));
    }

    /// Taking the completed batches leaves the one being filled intact.
    #[test]
    fn taking_keeps_the_batch_being_filled() {
        let mut cap = back_to_back(4);
        for pc in 0..6u16 {
            record_at(&mut cap, pc);
        }
        let first = cap.take_batches();
        assert_eq!(first.len(), 1);
        assert_eq!(cap.current().len(), 2, "the second batch has begun");
        for pc in 6..8u16 {
            record_at(&mut cap, pc);
        }
        let second = cap.take_batches();
        let pcs: Vec<u32> = second.iter().flatten().map(|r| r.pc).collect();
        assert_eq!(pcs, vec![4, 5, 6, 7]);
        assert!(cap.take_batches().is_empty());
    }

    /// A buffer handed back is refilled with only the new batches, and
    /// appending keeps each batch whole.
    #[test]
    fn taking_into_a_used_buffer_replaces_its_batches() {
        let mut cap = back_to_back(2);
        for pc in 0..5u16 {
            record_at(&mut cap, pc);
        }
        let mut buffer = Batches::default();
        cap.take_batches_into(&mut buffer);
        assert_eq!(buffer.len(), 2);
        let mut all = buffer.clone();
        for pc in 5..7u16 {
            record_at(&mut cap, pc);
        }
        assert!(cap.has_batches());
        cap.take_batches_into(&mut buffer);
        assert!(!cap.has_batches());
        let pcs: Vec<Vec<u32>> = buffer
            .iter()
            .map(|b| b.iter().map(|r| r.pc).collect())
            .collect();
        assert_eq!(pcs, vec![vec![4, 5]], "the old batches are gone");
        all.append(&buffer);
        let pcs: Vec<Vec<u32>> = all
            .iter()
            .map(|b| b.iter().map(|r| r.pc).collect())
            .collect();
        assert_eq!(pcs, vec![vec![0, 1], vec![2, 3], vec![4, 5]]);
        assert_eq!(cap.current().len(), 1, "pc 6 begins the next batch");
    }

    #[test]
    fn jitter_is_deterministic() {
        let run = || {
            let mut cap = SampleCapture::emulated(50, Spacing::Periodic, 20, 7, 1, 0);
            let mut starts = Vec::new();
            for cycle in 0..2000 {
                if cap.sample_next(cycle) {
                    starts.push(cycle);
                    cap.record(instr(0, cycle));
                }
            }
            starts
        };
        assert_eq!(run(), run());
        assert!(run().windows(2).all(|w| (50..=70).contains(&(w[1] - w[0]))));
    }

    /// Batch start cycles of a one-instruction-per-cycle run under a
    /// uniform trigger of mean `x`.
    fn uniform_starts(x: u64, seed: u64, cycles: u64) -> Vec<u64> {
        let mut cap = SampleCapture::emulated(x, Spacing::Uniform, 0, seed, 1, 0);
        let mut starts = Vec::new();
        for cycle in 0..cycles {
            if cap.sample_next(cycle) {
                starts.push(cycle);
                cap.record(instr(0, cycle));
            }
        }
        starts
    }

    #[test]
    fn uniform_spacing_has_mean_x_within_half_x() {
        let starts = uniform_starts(1000, 5, 2_000_000);
        let gaps: Vec<u64> = starts.windows(2).map(|w| w[1] - w[0]).collect();
        // Intervals run from the batch's last record (one cycle here).
        assert!(gaps.iter().all(|g| (500..=1500).contains(g)), "{gaps:?}");
        let mean = gaps.iter().sum::<u64>() as f64 / gaps.len() as f64;
        assert!((mean - 1000.0).abs() < 15.0, "mean gap {mean}");
        // Spread over the whole range, not a few values.
        assert!(gaps.iter().any(|&g| g < 600) && gaps.iter().any(|&g| g > 1400));
    }

    #[test]
    fn uniform_spacing_is_deterministic_by_seed() {
        assert_eq!(
            uniform_starts(300, 9, 100_000),
            uniform_starts(300, 9, 100_000)
        );
        assert_ne!(
            uniform_starts(300, 9, 100_000),
            uniform_starts(300, 10, 100_000)
        );
    }

    #[test]
    fn uniform_spacing_does_not_phase_lock() {
        // A "frame" of 997 cycles sampled at a mean interval of exactly
        // four frames: periodic batches would all land on one phase; uniform
        // ones spread over the frame.
        let starts = uniform_starts(3988, 1, 4_000_000);
        let mut quarters = [0u32; 4];
        for s in &starts {
            quarters[((s % 997) * 4 / 997) as usize] += 1;
        }
        let n = starts.len() as f64;
        for q in quarters {
            assert!((q as f64 / n - 0.25).abs() < 0.05, "{quarters:?}");
        }
    }

    #[test]
    fn a_uniform_trigger_falling_into_a_stall_is_dropped() {
        let mut cap = SampleCapture::emulated(1000, Spacing::Uniform, 0, 3, 1, 0);
        let due = cap.due_cycle();
        // The next instruction starts 513 cycles after the trigger (a DMA
        // stall): no batch, and a new trigger is drawn after it.
        assert!(!cap.sample_next(due + 513));
        assert!(cap.due_cycle() >= due + 513 + 500);
        // One starting within an instruction's length of it begins a batch.
        let due = cap.due_cycle();
        assert!(cap.sample_next(due + 7));
        // The periodic trigger keeps the old behaviour.
        let mut cap = SampleCapture::emulated(1000, Spacing::Periodic, 0, 3, 1, 0);
        let due = cap.due_cycle();
        assert!(cap.sample_next(due + 513));
    }
}
