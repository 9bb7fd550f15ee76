//! Lockstep differential testing of the two engines: one machine on the
//! interpreter, one on the translator, same ROM and inputs, compared after
//! every translator step (a block, or with single-stepping one instruction):
//! registers, cycle counter, bus-access count, and frame hashes every frame.
//! The first divergence is reported with the instruction that produced it.

use emu::movie::Replay;
use emu::nes::Engine;
use emu::{Cartridge, Nes};

/// Everything compared between the machines.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Snapshot {
    regs: emu::CpuState,
    cycles: u64,
    accesses: u64,
    retired: u64,
}

fn snapshot(nes: &Nes) -> Snapshot {
    Snapshot {
        regs: nes.cpu_state(),
        cycles: nes.cycles(),
        accesses: nes.accesses(),
        retired: nes.retired(),
    }
}

/// A machine pair; `inputs` supplies controller 1 per frame (0-based).
pub struct Lockstep {
    pub interp: Nes,
    pub translated: Nes,
}

impl Lockstep {
    pub fn new(rom: &[u8], single_step: bool) -> Result<Lockstep, String> {
        let cart = |_| Cartridge::from_bytes(rom).map_err(|e| e.to_string());
        let mut interp = Nes::new(cart(0)?);
        interp.set_engine(Engine::Interpreter);
        let mut translated = Nes::new(cart(1)?);
        translated.set_engine(Engine::Translator);
        translated.set_single_step_blocks(single_step);
        Ok(Lockstep { interp, translated })
    }

    /// Both machines powered on as FCEUX does for `replay`'s movie.
    pub fn from_replay(replay: &Replay, single_step: bool) -> Result<Lockstep, String> {
        let mut interp = replay.power_on().map_err(|e| e.to_string())?;
        interp.set_engine(Engine::Interpreter);
        let mut translated = replay.power_on().map_err(|e| e.to_string())?;
        translated.set_engine(Engine::Translator);
        translated.set_single_step_blocks(single_step);
        Ok(Lockstep { interp, translated })
    }

    /// Runs `frames` frames in lockstep; `buttons(frame)` gives controller 1.
    /// Returns the number of comparisons made, or a description of the first
    /// divergence.
    pub fn run(&mut self, frames: u64, mut buttons: impl FnMut(u64) -> u8) -> Result<u64, String> {
        let mut comparisons = 0;
        for frame in 0..frames {
            let pad = buttons(frame);
            self.interp.set_buttons(0, pad);
            self.translated.set_buttons(0, pad);
            comparisons += self.frame(frame)?;
        }
        Ok(comparisons)
    }

    /// Replays the movie on both machines up to the end of frame `frames`
    /// (counted as `nesprof run --movie` counts them), in lockstep.
    pub fn run_replay(&mut self, replay: &Replay, frames: u64) -> Result<u64, String> {
        let mut comparisons = 0;
        while self.translated.frame_count() < frames {
            let frame = self.translated.frame_count();
            for nes in [&mut self.interp, &mut self.translated] {
                replay.apply(nes, frames).map_err(|e| e.to_string())?;
            }
            // Resets and power cycles happen between frames: compare after them.
            let (a, b) = (snapshot(&self.interp), snapshot(&self.translated));
            if a != b || self.interp.frame_count() != self.translated.frame_count() {
                return Err(format!(
                    "frame {frame}: engines differ after the movie's commands:\n  interpreter {a:?}\n  translator  {b:?}"
                ));
            }
            if self.translated.frame_count() >= frames {
                break;
            }
            comparisons += self.frame(self.translated.frame_count())?;
        }
        Ok(comparisons)
    }

    /// One frame in lockstep; returns the comparisons made.
    fn frame(&mut self, frame: u64) -> Result<u64, String> {
        let mut comparisons = 0;
        self.translated.begin_frame();
        self.interp.begin_frame();
        while !self.translated.frame_done() {
            let before = snapshot(&self.translated);
            let pc = self.translated.pc();
            self.translated.run_some();
            let target = self.translated.retired();
            while self.interp.retired() < target {
                self.interp.step();
            }
            let (a, b) = (snapshot(&self.interp), snapshot(&self.translated));
            comparisons += 1;
            if a != b {
                return Err(format!(
                    "frame {frame}: engines diverged in the run starting at ${pc:04X} ({}) \
                     after instruction #{}:\n  interpreter {a:?}\n  translator  {b:?}\n  before      {before:?}",
                    emu::disasm::plain(pc, &[self.interp.peek(pc), self.interp.peek(pc.wrapping_add(1)), self.interp.peek(pc.wrapping_add(2))]),
                    b.retired
                ));
            }
        }
        if !self.interp.frame_done() {
            return Err(format!(
                "frame {frame}: the interpreter did not end the frame with the translator"
            ));
        }
        self.interp.sync();
        self.translated.sync();
        // Compared directly: hashing both frames cost 15 % of a fuzzing run.
        if self.interp.frame() != self.translated.frame()
            || self.interp.ram() != self.translated.ram()
        {
            return Err(format!("frame {frame}: frame or RAM differs"));
        }
        Ok(comparisons)
    }
}
