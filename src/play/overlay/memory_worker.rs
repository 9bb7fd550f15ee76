//! The memory view's refreshes (`memory.rs`), off the emulation thread.
//!
//! A refresh analyses the whole memory profile and builds the exact CFG to
//! name its blocks: 1 ms on tracker, 10–15 ms on fff, most of a 16.7 ms
//! frame. So, as the live metrics do (`truth.rs`; both on
//! `background.rs`), about once a second the emulation thread copies what
//! the analysis reads — the flow counts (their call stacks and the CFG) and
//! the memory profile — and only if the worker is idle; the worker makes
//! the [`Picture`].
//!
//! Both are copied into the buffers of the previous copies, which the
//! worker hands back (`FlowCounts::copy_from`, `MemoryProfile::copy_from`):
//! a fresh clone of the profile each time, its pages faulted in anew, cost
//! fff's emulation thread 2.4–3.8 ms instead of 0.4 ms.

use std::sync::Arc;

use emu::flow_counts::FlowCounts;
use emu::memory_profile::MemoryProfile;
use emu::Nes;
use profiler::symbols::Symbols;

use super::background::Background;
use super::memory::{self, Picture};
use super::panel::Layout;

/// The copies the worker reads: flow counts (call stacks and CFG) and the
/// memory profile.
type Input = (Box<FlowCounts>, Box<MemoryProfile>);

pub struct MemoryWorker {
    worker: Background<Input, Picture>,
}

impl MemoryWorker {
    /// A worker making pictures for the panel `layout`, naming code and
    /// data by `symbols`.
    pub fn spawn(layout: Layout, symbols: Option<Arc<Symbols>>) -> MemoryWorker {
        let worker = Background::spawn("nesprof-overlay-memory", move |input: &Input, frame| {
            let (counts, memory) = input;
            memory::picture(&layout, symbols.as_deref(), memory, counts, frame)
        });
        MemoryWorker { worker }
    }

    /// Whether a new refresh would be taken now.
    pub fn idle(&self) -> bool {
        self.worker.idle()
    }

    /// Hands the worker copies of `nes`'s flow counts and memory profile
    /// (call only when [`idle`]); false if it records none (the session
    /// ended).
    ///
    /// [`idle`]: MemoryWorker::idle
    pub fn submit(&mut self, nes: &mut Nes, frame: u64) -> bool {
        let (counts_buffer, memory_buffer) = self.worker.take_spare().unzip();
        let memory = {
            let Some(profile) = nes.memory_profile() else {
                return false;
            };
            match memory_buffer {
                Some(mut buffer) => {
                    buffer.copy_from(&profile);
                    buffer
                }
                None => Box::new(profile.clone()),
            }
        };
        let Some(counts) = nes.flow_counts() else {
            return false;
        };
        let counts = match counts_buffer {
            Some(mut buffer) => {
                buffer.copy_from(counts);
                buffer
            }
            None => Box::new(counts.clone()),
        };
        self.worker.submit((counts, memory), frame)
    }

    /// The newest picture of the current profile, if any.
    pub fn latest(&mut self) -> Option<&Picture> {
        self.worker.latest()
    }

    /// Sets the picture directly (the headless path makes it in place);
    /// one still being made is dropped.
    pub fn set(&mut self, picture: Picture) {
        self.worker.set(picture);
    }

    /// Forgets the picture: the profile started over.
    pub fn reset(&mut self) {
        self.worker.reset();
    }
}
