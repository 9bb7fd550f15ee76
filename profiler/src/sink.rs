//! Where a session's sample batches go besides the builder, as they come:
//! a [`BatchSink`] (the sample-stream file `profile` writes while it runs,
//! so a run of any length holds no batch longer than it takes to write it)
//! and a [`SampleTally`] (sampled instructions per code address, folded as
//! they pass, for the report's "share of sampled instructions": bounded by
//! the code's size, not the run's length).

use std::any::Any;
use std::collections::HashMap;
use std::io::Write;

use gfc::Sample;

use crate::stream::StreamWriter;

/// Takes every batch of a run, in order, on the feeder's thread. `Any`, so
/// the caller can take its own sink back at the end (`Box<dyn Any>::downcast`).
pub trait BatchSink: Any + Send {
    fn batch(&mut self, samples: &[Sample]) -> std::io::Result<()>;

    /// After each group of batches the feeder received at once (a sink
    /// that passes batches on to another thread sends them then, not one
    /// by one).
    fn end_of_group(&mut self) {}
}

impl<W: Write + Send + 'static> BatchSink for StreamWriter<W> {
    fn batch(&mut self, samples: &[Sample]) -> std::io::Result<()> {
        StreamWriter::batch(self, samples)
    }
}

/// Sampled instructions per code address (interrupt entries, which are not
/// instructions, left out).
#[derive(Debug, Clone, Default)]
pub struct SampleTally {
    per_pc: HashMap<u32, u64>,
    instructions: u64,
    batches: u64,
}

impl SampleTally {
    pub fn add(&mut self, samples: &[Sample]) {
        self.batches += 1;
        for s in samples.iter().filter(|s| s.len != 0) {
            *self.per_pc.entry(s.pc).or_insert(0) += 1;
            self.instructions += 1;
        }
    }

    /// Samples that fell on the instruction at `pc`.
    pub fn at(&self, pc: u32) -> u64 {
        self.per_pc.get(&pc).copied().unwrap_or(0)
    }

    /// Every sampled instruction.
    pub fn instructions(&self) -> u64 {
        self.instructions
    }

    /// Batches tallied.
    pub fn batches(&self) -> u64 {
        self.batches
    }

    /// (code address, samples), in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.per_pc.iter().map(|(&pc, &n)| (pc, n))
    }

    /// The tally of `batches`.
    pub fn of(batches: &[Vec<Sample>]) -> SampleTally {
        let mut t = SampleTally::default();
        for b in batches {
            t.add(b);
        }
        t
    }
}
