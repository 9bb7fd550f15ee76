//! The emulator's half of count-and-time sampling (thesis section 4.1.1): when
//! a batch is requested, the engine records the next N retired instructions —
//! consecutive, with hardware interrupt entries as entries of their own — into
//! a preallocated buffer. Requests come from outside (a wall-clock timer
//! thread sets an atomic flag) or from the emulated clock (every X CPU cycles,
//! optionally with seeded jitter, so runs are deterministic). The `profiler`
//! crate owns the timer thread, the channel and the builder; this module only
//! captures, so the core stays free of threads.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// One retired instruction or interrupt entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retired {
    /// Address of the instruction (for interrupts: the handler's entry).
    pub pc: u16,
    /// The opcode, or `None` for a hardware interrupt entry.
    pub opcode: Option<u8>,
    /// The PC after it retired (for interrupts: the handler's entry).
    pub next_pc: u16,
    /// CPU cycle count when it started.
    pub cycle: u64,
}

/// What starts a batch.
#[derive(Debug, Clone)]
pub enum Trigger {
    /// An external flag, set by a timer thread every X ms of real time.
    Wall(Arc<AtomicBool>),
    /// Every `interval_cycles` CPU cycles of emulated time, plus a jitter of up
    /// to `jitter_cycles` drawn from a seeded generator.
    Emulated {
        interval_cycles: u64,
        jitter_cycles: u64,
        seed: u64,
    },
}

/// How often an idle wall trigger's flag is looked at, in CPU cycles: about
/// one scanline, so a request is seen within 64 µs of emulated time (under a
/// microsecond of real time at full speed), far below any timer's
/// resolution. DESIGN.md has the loop load the flag before every
/// instruction (or block); we compare one cycle count instead, the same
/// test for both triggers, which is what made the check per instruction
/// cheap enough on the interpreter (sampler cost +1.6 % → +0.6 % of host
/// instructions).
pub const WALL_POLL_CYCLES: u64 = 114;

/// Batches the capture has room for before its buffer grows (a frame holds
/// about six at the thesis' rate).
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
    trigger: Trigger,
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
    /// Instructions recorded in `current` (interrupt entries not counted).
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
    pub fn new(trigger: Trigger, batch_len: usize, start_cycle: u64) -> SampleCapture {
        let batch_len = batch_len.max(1);
        let mut capture = SampleCapture {
            rng_state: match &trigger {
                Trigger::Emulated { seed, .. } => *seed ^ 0x9E37_79B9_7F4A_7C15,
                Trigger::Wall(_) => 0,
            },
            trigger,
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
        match self.trigger {
            Trigger::Emulated {
                interval_cycles,
                jitter_cycles,
                ..
            } => {
                let jitter = if jitter_cycles > 0 {
                    self.next_random() % (jitter_cycles + 1)
                } else {
                    0
                };
                self.next_trigger_cycle = cycle + interval_cycles.max(1) + jitter;
                self.due = self.next_trigger_cycle;
            }
            Trigger::Wall(_) => self.due = cycle + WALL_POLL_CYCLES,
        }
    }

    /// Whether the instruction (or interrupt entry) starting at `cycle` is
    /// to be recorded; starts a batch when one is due. Called before every
    /// instruction, so the common case is one comparison.
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
        let requested = match &self.trigger {
            Trigger::Emulated { .. } => cycle >= self.next_trigger_cycle,
            // The request is consumed when the batch starts.
            Trigger::Wall(flag) => flag.swap(false, Ordering::Relaxed),
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
        match (&self.trigger, self.collecting) {
            (_, true) => 0,
            (Trigger::Emulated { .. }, false) => self.next_trigger_cycle,
            (Trigger::Wall(_), false) => u64::MAX,
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

    /// Records `iterations` more copies of the last `len` records (all
    /// instructions), each copy `period` cycles after the one before: the
    /// iterations of an idle loop the translator counts without running
    /// them, which repeat exactly (see
    /// [`crate::translate::block::Block::is_idle_loop`]). They must fit in
    /// the batch.
    pub fn record_repeats(&mut self, len: usize, period: u64, iterations: u64) {
        let added = len * iterations as usize;
        debug_assert!(self.collecting && added <= self.remaining());
        let first = self.records.len() - len;
        for k in 1..=iterations {
            for i in first..first + len {
                let r = self.records[i];
                debug_assert!(r.opcode.is_some());
                self.records.push(Retired {
                    cycle: r.cycle + k * period,
                    ..r
                });
            }
        }
        self.current_instructions += added;
        if self.current_instructions == self.batch_len {
            self.finish_batch();
        }
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

    /// Takes the batches completed since the last call (one allocation for
    /// all of them; the batch being filled stays).
    pub fn take_batches(&mut self) -> Batches {
        let taken = Batches {
            records: self.records[..self.current_start].to_vec(),
            ends: std::mem::take(&mut self.ends),
        };
        self.records.drain(..self.current_start);
        self.current_start = 0;
        self.ends.reserve(RESERVED_BATCHES);
        taken
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
            pc,
            opcode: Some(0xEA),
            next_pc: pc + 1,
            cycle,
        }
    }

    #[test]
    fn emulated_trigger_takes_consecutive_batches() {
        let mut cap = SampleCapture::new(
            Trigger::Emulated {
                interval_cycles: 100,
                jitter_cycles: 0,
                seed: 1,
            },
            3,
            0,
        );
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
        let mut cap = SampleCapture::new(Trigger::Wall(flag.clone()), 2, 0);
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

    /// Taking the completed batches leaves the one being filled intact.
    #[test]
    fn taking_keeps_the_batch_being_filled() {
        let trigger = Trigger::Emulated {
            interval_cycles: 1,
            jitter_cycles: 0,
            seed: 0,
        };
        let mut cap = SampleCapture::new(trigger, 4, 0);
        for pc in 0..6u16 {
            assert!(cap.sample_next(u64::from(pc) * 10 + 1));
            cap.record(instr(pc, u64::from(pc) * 10 + 1));
        }
        let first = cap.take_batches();
        assert_eq!(first.len(), 1);
        assert_eq!(cap.current().len(), 2, "the second batch has begun");
        for pc in 6..8u16 {
            assert!(cap.sample_next(u64::from(pc) * 10 + 1));
            cap.record(instr(pc, u64::from(pc) * 10 + 1));
        }
        let second = cap.take_batches();
        let pcs: Vec<u16> = second.iter().flatten().map(|r| r.pc).collect();
        assert_eq!(pcs, vec![4, 5, 6, 7]);
        assert!(cap.take_batches().is_empty());
    }

    /// An idle loop's skipped iterations recorded in bulk equal the records
    /// of running them one by one.
    #[test]
    fn repeats_equal_recording_each_iteration() {
        let trigger = Trigger::Emulated {
            interval_cycles: 10,
            jitter_cycles: 0,
            seed: 0,
        };
        let (mut one_by_one, mut bulk) = (
            SampleCapture::new(trigger.clone(), 7, 0),
            SampleCapture::new(trigger, 7, 0),
        );
        // A 2-instruction loop of 5 cycles per iteration, from cycle 10.
        let loop_instr = |i: u64| instr(0x8000 + (i % 2) as u16, 10 + (i / 2) * 5 + (i % 2) * 3);
        for i in 0..7 {
            assert!(one_by_one.sample_next(loop_instr(i).cycle));
            one_by_one.record(loop_instr(i));
        }
        for i in 0..2 {
            assert!(bulk.sample_next(loop_instr(i).cycle));
            bulk.record(loop_instr(i));
        }
        bulk.record_repeats(2, 5, 2);
        assert_eq!(bulk.remaining(), 1);
        bulk.record(loop_instr(6));
        assert_eq!(one_by_one.take_batches(), bulk.take_batches());
        assert!(!bulk.collecting());
        assert_eq!(bulk.due_cycle(), loop_instr(6).cycle + 10);
    }

    #[test]
    fn jitter_is_deterministic() {
        let run = || {
            let mut cap = SampleCapture::new(
                Trigger::Emulated {
                    interval_cycles: 50,
                    jitter_cycles: 20,
                    seed: 7,
                },
                1,
                0,
            );
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
}
