//! The 2A03 APU (NESdev wiki "APU" and the pages of its units): two pulse
//! channels, triangle, noise, DMC, the frame counter with its IRQ, the $4015
//! status register, and audio output through the non-linear mixer.
//!
//! # Timing model
//! The bus calls [`Apu::tick`] once per CPU cycle, before the CPU's access of
//! that cycle. Everything the CPU can observe happens on its exact cycle: the
//! frame counter's steps and IRQ, length-counter clocks and the commit of
//! length/halt writes one cycle later, the DMC's output clocks, sample fetches
//! and IRQ. These are *events*: `tick` only increments the cycle and compares
//! it with the next event, so an idle cycle costs one compare.
//!
//! The pulse, triangle and noise timers are not visible to the CPU, so they run
//! lazily: [`Apu::catch_up`] brings them to "now" before anything changes their
//! state (register writes, frame-counter clocks) and before audio is read out.
//! With audio enabled it visits each timer clock that can change a channel's
//! output, in time order across channels, and hands every change of the mixed
//! level to the band-limited synthesiser (`synth.rs`, `blip.rs`); with audio
//! off it skips over them arithmetically. Audio never feeds back into
//! emulation, so enabling it cannot change what the CPU sees.
//!
//! # Left out
//! PAL timings; the later 2A03s' glitch that plays a 1-byte sample's byte
//! twice when its fetch ends on the output unit's clock (AccuracyCoin
//! "Implicit DMA Abort" accepts either; this is the RP2A03G's behaviour);
//! the noise shift
//! register does not advance while the channel is silent (unobservable); the
//! triangle holds its level at ultrasonic periods (see `triangle.rs`).

mod blip;
mod dmc;
mod envelope;
mod filter;
mod frame_counter;
mod length_counter;
pub mod mixer;
mod noise;
mod pulse;
mod sweep;
mod synth;
mod timer;
mod triangle;

pub use blip::{MAX_RATIO, MIN_RATIO};
pub use filter::FilterMode;

use crate::clock::CPU_HZ_NTSC;
use crate::dma::Dma;
use dmc::Dmc;
use frame_counter::{FrameClock, FrameCounter};
use noise::Noise;
use pulse::Pulse;
use synth::{Synth, FRAME_CLOCKS};
use triangle::Triangle;

/// "No event scheduled".
const NEVER: u64 = u64::MAX;

/// Power-on acts as a $00 write to $4017 whose effect lands on this CPU cycle,
/// the second of the CPU's reset sequence. blargg's `09.reset_timing` accepts
/// 0-2 here ("9 to 12 clocks before first instruction"); `4017_timing` then
/// reports a delay of 9 after a reset, the value the readme calls usual.
const POWER_ON_4017_EFFECT: u64 = 2;
/// The reset button rewrites $4017; its effect lands this many cycles after
/// the reset begins (the same point of the reset sequence as at power-on).
const RESET_4017_DELAY: u64 = 2;

/// After a $4015 write starts a sample, the first ("load") DMA is requested
/// this many cycles later, by the write cycle's parity: it halts the CPU on
/// the get cycle of the second following APU cycle (wiki "DMA"). The
/// enable lands then even if the buffer still holds the last sample's
/// byte: an output-unit clock that empties it in between asks for no DMA
/// until this moment (AccuracyCoin "Delta Modulation Channel" L).
const DMC_LOAD_DELAY_EVEN: u64 = 2;
const DMC_LOAD_DELAY_ODD: u64 = 3;

/// Cycles after a $4015 write (on cycle `now`) that the DMC's enable bit
/// takes effect.
fn dmc_enable_delay(now: u64) -> u64 {
    if now & 1 == 0 {
        DMC_LOAD_DELAY_EVEN
    } else {
        DMC_LOAD_DELAY_ODD
    }
}

pub struct Apu {
    /// CPU cycles since power-on (the bus's count).
    cycle: u64,
    /// Earliest cycle on which [`Apu::run_events`] has something to do.
    next_event: u64,
    /// Cached IRQ output level (see [`Apu::refresh_irq_line`]).
    irq_line: bool,
    pulse1: Pulse,
    pulse2: Pulse,
    triangle: Triangle,
    noise: Noise,
    dmc: Dmc,
    frame: FrameCounter,
    /// Cycle on which length-counter writes commit.
    commit_at: u64,
    /// Cycle on which the DMC's first sample fetch is requested.
    dmc_load_at: u64,
    /// Cycle on which a stopped DMC withdraws its pending fetch.
    dmc_stop_at: u64,
    /// A $4015 write turned the DMC off; `dmc_stop_at` is when that lands.
    dmc_stopping: bool,
    /// A fetch ended the sample just before the output unit's next clock
    /// empties the buffer: that clock asks for a DMA that is cut off (see
    /// [`Apu::dmc_sample_fetched`]).
    dmc_implicit_stop: bool,
    /// Cycle on which a $4015 read's clearing of the frame IRQ flag lands:
    /// at the next APU clock edge of one parity (AccuracyCoin "Frame Counter
    /// IRQ" 6 and 7: cleared at its "put" to "get" transition, not yet at the
    /// "get" to "put" one; the start of an odd cycle here, found as the
    /// other parity fails code 7).
    frame_irq_clear_at: u64,
    /// Audio synthesis, present while audio is enabled.
    synth: Option<Box<Synth>>,
    /// Cycle on which the current audio frame is closed.
    flush_at: u64,
}

impl Default for Apu {
    fn default() -> Self {
        Apu::new()
    }
}

impl std::fmt::Debug for Apu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Apu")
            .field("cycle", &self.cycle)
            .field("frame_irq", &self.frame.irq_flag)
            .field("dmc_irq", &self.dmc.irq_flag)
            .field("audio", &self.synth.is_some())
            .finish_non_exhaustive()
    }
}

impl Apu {
    /// The APU at power-on.
    pub fn new() -> Apu {
        let mut apu = Apu {
            cycle: 0,
            next_event: 0,
            irq_line: false,
            pulse1: Pulse::new(true),
            pulse2: Pulse::new(false),
            triangle: Triangle::new(),
            noise: Noise::new(),
            dmc: Dmc::new(),
            frame: FrameCounter::new(POWER_ON_4017_EFFECT),
            commit_at: NEVER,
            dmc_load_at: NEVER,
            dmc_stop_at: NEVER,
            dmc_stopping: false,
            dmc_implicit_stop: false,
            frame_irq_clear_at: NEVER,
            synth: None,
            flush_at: NEVER,
        };
        apu.schedule();
        apu
    }

    /// The reset button: $4015 is cleared (channels and DMC stop, DMC IRQ
    /// clears), the last $4017 mode is written again and the frame IRQ clears.
    /// The triangle is unaffected and the DMC's DAC keeps only its low bit.
    pub fn reset(&mut self) {
        self.reset_state();
        self.refresh_irq_line();
    }

    fn reset_state(&mut self) {
        let now = self.cycle;
        self.catch_up(now);
        self.pulse1.reset();
        self.pulse2.reset();
        self.noise.reset();
        self.triangle.reset();
        self.dmc.bytes_remaining = 0;
        self.dmc.irq_flag = false;
        self.dmc.irq_enabled = false;
        self.dmc.level &= 1;
        self.dmc_load_at = NEVER;
        self.dmc_stopping = false;
        self.dmc_implicit_stop = false;
        self.dmc_stop_at = now + 1;
        self.frame_irq_clear_at = NEVER;
        self.commit_at = NEVER;
        self.frame.reset(now + RESET_4017_DELAY);
        self.refresh();
        self.remix(now);
        self.schedule();
    }

    /// Whether the next `cycles` cycles pass without an event (so they can
    /// be counted in one step with [`Apu::skip_quiet_cycles`]).
    #[inline(always)]
    pub fn quiet_for(&self, cycles: u64) -> bool {
        self.cycle + cycles < self.next_event
    }

    /// How many cycles from now can pass with no APU event (the most
    /// `cycles` for which [`Apu::quiet_for`] holds).
    #[inline]
    pub fn quiet_cycles(&self) -> u64 {
        self.next_event.saturating_sub(self.cycle + 1)
    }

    /// Counts `cycles` eventless cycles (callers check [`Apu::quiet_for`]).
    #[inline(always)]
    pub fn skip_quiet_cycles(&mut self, cycles: u64) {
        self.cycle += cycles;
    }

    /// One CPU cycle. Returns whether events ran (and so the IRQ output may
    /// have changed).
    #[inline(always)]
    pub fn tick(&mut self, dma: &mut Dma) -> bool {
        self.cycle += 1;
        if self.cycle >= self.next_event {
            self.run_events(dma);
            return true;
        }
        false
    }

    /// Recomputes the cached IRQ level. Every entry point that can change the
    /// frame-counter or DMC IRQ flags ends with this, so the CPU's per-cycle
    /// poll reads one bool instead of two flags in two units.
    fn refresh_irq_line(&mut self) {
        self.irq_line = self.frame.irq_output() || self.dmc.irq_flag;
    }

    /// Level of the APU's IRQ output (frame counter or DMC).
    #[inline(always)]
    pub fn irq(&self) -> bool {
        self.irq_line
    }

    fn schedule(&mut self) {
        self.next_event = self
            .frame
            .next_event()
            .min(self.commit_at)
            .min(self.dmc.timer.next)
            .min(self.dmc_load_at)
            .min(self.dmc_stop_at)
            .min(self.frame_irq_clear_at)
            .min(self.flush_at);
    }

    #[inline(never)]
    fn run_events(&mut self, dma: &mut Dma) {
        self.run_events_inner(dma);
        self.refresh_irq_line();
    }

    fn run_events_inner(&mut self, dma: &mut Dma) {
        let now = self.cycle;
        // Before the frame counter's clocks: a flag it sets on this very
        // cycle stays set (AccuracyCoin "Frame Counter IRQ" E).
        if now >= self.frame_irq_clear_at {
            self.frame_irq_clear_at = NEVER;
            self.frame.irq_flag = false;
        }
        if now >= self.frame.next_event() {
            match self.frame.run(now) {
                FrameClock::None => {}
                FrameClock::Quarter => self.clock_frame(now, false),
                FrameClock::Half => self.clock_frame(now, true),
            }
        }
        if now >= self.commit_at {
            // Writes of the previous cycle land after this cycle's clocks.
            self.commit_at = NEVER;
            self.catch_up(now);
            self.pulse1.length.commit();
            self.pulse2.length.commit();
            self.triangle.length.commit();
            self.noise.length.commit();
            self.refresh();
            self.remix(now);
        }
        if now >= self.dmc.timer.next {
            if self.synth.is_some() {
                self.catch_up(now);
            }
            if self.dmc.clock() {
                self.remix(now);
            }
            // A "reload" fetch: the output unit just emptied the buffer. Not
            // while a $4015 write's load DMA is on its way: that one comes
            // after its full delay even if the timer clocks first
            // (AccuracyCoin "Delta Modulation Channel" L-N).
            let implicit_stop = std::mem::take(&mut self.dmc_implicit_stop);
            if self.dmc.wants_fetch() && !dma.dmc_request && self.dmc_load_at == NEVER {
                dma.request_dmc(self.dmc.address);
                if self.dmc_stopping {
                    // Asked for while the DMC is being switched off: the
                    // stop lands now and cuts the DMA off on the next
                    // cycle, so it gets its halt cycle only, or none if
                    // that cycle is a write (a one-cycle DMA; AccuracyCoin
                    // "Explicit DMA Abort").
                    self.dmc_stopping = false;
                    self.dmc.bytes_remaining = 0;
                    self.dmc_stop_at = now + 1;
                }
            } else if implicit_stop
                && self.dmc.buffer_just_emptied()
                && self.dmc.bytes_remaining == 0
                && !dma.dmc_request
            {
                // The fetch that ended the sample came too late for this
                // clock to see it ended: the emptied buffer asks for a
                // fetch all the same, which the end then cuts off like a
                // stop (AccuracyCoin "Implicit DMA Abort").
                dma.request_dmc(self.dmc.address);
                self.dmc_stopping = false;
                self.dmc_stop_at = now + 1;
            }
        }
        if now >= self.dmc_load_at {
            self.dmc_load_at = NEVER;
            if self.dmc.wants_fetch() && !dma.dmc_request {
                dma.request_dmc(self.dmc.address);
            }
        }
        if now >= self.dmc_stop_at {
            self.dmc_stop_at = NEVER;
            if self.dmc_stopping {
                // The disable lands: no more fetches; a DMA already under
                // way is cut off a cycle later if it has not fetched.
                self.dmc_stopping = false;
                self.dmc.bytes_remaining = 0;
                self.dmc_stop_at = now + 1;
            } else if self.dmc.bytes_remaining == 0 {
                dma.cancel_dmc();
            }
        }
        if now >= self.flush_at {
            self.end_audio_frame(now);
        }
        self.schedule();
    }

    /// A quarter-frame (and with `half`, half-frame) clock.
    fn clock_frame(&mut self, now: u64, half: bool) {
        self.catch_up(now);
        self.pulse1.envelope.clock();
        self.pulse2.envelope.clock();
        self.noise.envelope.clock();
        self.triangle.clock_linear();
        if half {
            self.pulse1.length.clock();
            self.pulse2.length.clock();
            self.triangle.length.clock();
            self.noise.length.clock();
            self.pulse1.clock_sweep();
            self.pulse2.clock_sweep();
        }
        self.refresh();
        self.remix(now);
    }

    fn refresh(&mut self) {
        self.pulse1.refresh();
        self.pulse2.refresh();
        self.triangle.refresh();
        self.noise.refresh();
    }

    #[inline(always)]
    fn dacs(&self) -> [u8; 5] {
        [
            self.pulse1.output(),
            self.pulse2.output(),
            self.triangle.output(),
            self.noise.output(),
            self.dmc.level,
        ]
    }

    /// Tells the synthesiser the current mix (after a state change at `now`).
    fn remix(&mut self, now: u64) {
        let dacs = self.dacs();
        if let Some(synth) = self.synth.as_deref_mut() {
            synth.update(now, dacs);
        }
    }

    /// Brings the pulse, triangle and noise timers up to cycle `until`.
    fn catch_up(&mut self, until: u64) {
        if self.synth.is_some() {
            self.synthesize_until(until);
        }
        self.pulse1.skip_to(until);
        self.pulse2.skip_to(until);
        self.triangle.skip_to(until);
        self.noise.skip_to(until);
    }

    /// Visits, in time order, every timer clock of the four tone channels up
    /// to `until` that can change their output, handing each change of the
    /// mix to the synthesiser. The soonest channel runs in a tight loop until
    /// another channel's next clock: clocks of different channels on the same
    /// cycle may be taken in either order, since steps at one timestamp add up
    /// to the same signal.
    fn synthesize_until(&mut self, until: u64) {
        let Some(synth) = self.synth.as_deref_mut() else {
            return;
        };
        let (p1, p2) = (&mut self.pulse1, &mut self.pulse2);
        let (tri, noise) = (&mut self.triangle, &mut self.noise);
        let mut dacs = [
            p1.output(),
            p2.output(),
            tri.output(),
            noise.output(),
            self.dmc.level,
        ];
        loop {
            let next = [
                p1.next_change(),
                p2.next_change(),
                tri.next_change(),
                noise.next_change(),
            ];
            let (soonest, &at) = next
                .iter()
                .enumerate()
                .min_by_key(|&(_, t)| *t)
                .unwrap_or((0, &u64::MAX));
            if at > until {
                return;
            }
            // Run the soonest channel up to (not including) the next clock of
            // any other channel.
            let others = next
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != soonest)
                .map(|(_, &t)| t)
                .min()
                .unwrap_or(u64::MAX);
            let bound = others.min(until.saturating_add(1)).max(at + 1);
            macro_rules! run {
                ($ch:expr, $slot:expr) => {{
                    let ch = $ch;
                    while ch.next_change() < bound {
                        let t = ch.next_change();
                        ch.clock();
                        let out = ch.output();
                        if out != dacs[$slot] {
                            dacs[$slot] = out;
                            synth.update(t, dacs);
                        }
                    }
                }};
            }
            match soonest {
                0 => run!(&mut *p1, 0),
                1 => run!(&mut *p2, 1),
                2 => run!(&mut *tri, 2),
                _ => run!(&mut *noise, 3),
            }
        }
    }

    /// A CPU write to $4000-$4013, $4015 or $4017 (on the current cycle).
    pub fn write_register(&mut self, addr: u16, value: u8, cycle: u64) {
        self.write_register_inner(addr, value, cycle);
        self.refresh_irq_line();
    }

    fn write_register_inner(&mut self, addr: u16, value: u8, _cycle: u64) {
        let now = self.cycle;
        match addr {
            0x4000..=0x400F => {
                self.catch_up(now);
                let reg = addr & 3;
                match addr {
                    0x4000..=0x4003 => self.pulse1.write(reg, value),
                    0x4004..=0x4007 => self.pulse2.write(reg, value),
                    0x4008..=0x400B => self.triangle.write(reg, value),
                    _ => self.noise.write(reg, value),
                }
                if reg == 0 || reg == 3 {
                    // Halt flag or length load: committed next cycle.
                    self.commit_at = now + 1;
                }
                self.refresh();
                self.remix(now);
            }
            0x4010..=0x4013 => {
                if addr == 0x4011 && self.synth.is_some() {
                    self.catch_up(now);
                }
                self.dmc.write(addr & 3, value);
                if addr == 0x4011 {
                    self.remix(now);
                }
            }
            0x4015 => self.write_status(value, now),
            0x4017 => self.frame.write(value, now),
            _ => {}
        }
        self.schedule();
    }

    fn write_status(&mut self, value: u8, now: u64) {
        self.catch_up(now);
        self.pulse1.length.set_enabled(value & 0x01 != 0);
        self.pulse2.length.set_enabled(value & 0x02 != 0);
        self.triangle.length.set_enabled(value & 0x04 != 0);
        self.noise.length.set_enabled(value & 0x08 != 0);
        self.dmc.irq_flag = false;
        if value & 0x10 == 0 {
            // The DMC is switched off as late as a load DMA would start:
            // until then a DMA may still begin and one under way carries
            // on; one that has not fetched a cycle after that is cut off
            // (AccuracyCoin "Explicit DMA Abort"). $4015's bit 4 reads 0
            // at once.
            self.dmc_load_at = NEVER;
            self.dmc_stopping = true;
            self.dmc_stop_at = now + dmc_enable_delay(now);
        } else {
            if self.dmc_stopping {
                // Enabled again before the stop landed: it never does.
                self.dmc_stopping = false;
                self.dmc_stop_at = NEVER;
            }
            if self.dmc.bytes_remaining == 0 {
                // Restarted: no fetch before the enable lands, whether or
                // not the buffer is empty yet (see `DMC_LOAD_DELAY_EVEN`).
                self.dmc.restart();
                self.dmc_load_at = now + dmc_enable_delay(now);
            }
        }
        self.refresh();
        self.remix(now);
    }

    /// $4015 read: length counters active (bits 0-3), DMC bytes remaining
    /// (bit 4), frame IRQ (bit 6), DMC IRQ (bit 7); bit 5 is open bus. Reading
    /// clears the frame IRQ flag (not the DMC's).
    pub fn read_status(&mut self, open_bus: u8) -> u8 {
        let value = self.read_status_inner(open_bus);
        self.refresh_irq_line();
        value
    }

    fn read_status_inner(&mut self, open_bus: u8) -> u8 {
        let value = (self.pulse1.length.active() as u8)
            | (self.pulse2.length.active() as u8) << 1
            | (self.triangle.length.active() as u8) << 2
            | (self.noise.length.active() as u8) << 3
            | ((self.dmc.bytes_remaining > 0 && !self.dmc_stopping) as u8) << 4
            | (open_bus & 0x20)
            | (self.frame.irq_flag as u8) << 6
            | (self.dmc.irq_flag as u8) << 7;
        if self.frame.irq_flag {
            let now = self.cycle;
            self.frame_irq_clear_at = if now & 1 == 0 { now + 1 } else { now + 2 };
            self.schedule();
        }
        value
    }

    /// The DMA unit delivered the DMC's sample byte.
    pub fn dmc_sample_fetched(&mut self, value: u8) {
        self.dmc_sample_fetched_inner(value);
        self.refresh_irq_line();
    }

    fn dmc_sample_fetched_inner(&mut self, value: u8) {
        let ended = self.dmc.fetched(value);
        // A fetch that ends a non-looping sample on the last APU cycle
        // before the output unit empties the buffer (its last bit's clock
        // 1 or 2 cycles away: with clocks on get cycles, the one 2 cycles
        // after this get) is an "implicit stop": that clock still asks for
        // a DMA, cut off a cycle later.
        if ended && self.dmc.last_bit_playing() && self.dmc.timer.next - self.cycle <= 2 {
            self.dmc_implicit_stop = true;
        }
    }

    /// The DMC's DAC level (0-127), for tests and debuggers.
    pub fn dmc_level(&self) -> u8 {
        self.dmc.level
    }

    /// The five DAC inputs now (pulse 1, pulse 2, triangle, noise: 0-15;
    /// DMC: 0-127), for tests and debuggers. With audio off the triangle
    /// reports its level as of the last time audio was on.
    pub fn dac_levels(&mut self) -> [u8; 5] {
        self.catch_up(self.cycle);
        self.dacs()
    }

    // ---- audio -------------------------------------------------------------

    /// Starts producing audio at `sample_rate` Hz with the given output filter.
    pub fn enable_audio(&mut self, sample_rate: u32, filter: FilterMode) {
        let now = self.cycle;
        self.catch_up(now);
        let mut synth = Box::new(Synth::new(CPU_HZ_NTSC, sample_rate, filter, now));
        synth.prime(self.dacs());
        self.synth = Some(synth);
        self.flush_at = now + FRAME_CLOCKS;
        self.schedule();
    }

    /// Stops producing audio (pending samples are discarded).
    pub fn disable_audio(&mut self) {
        self.synth = None;
        self.flush_at = NEVER;
        self.schedule();
    }

    pub fn audio_enabled(&self) -> bool {
        self.synth.is_some()
    }

    /// Scales the output sample rate by `ratio` (clamped to
    /// [`MIN_RATIO`]..[`MAX_RATIO`]) from the next audio frame on: the
    /// front-end's dynamic rate control.
    pub fn set_audio_rate_ratio(&mut self, ratio: f64) {
        if let Some(synth) = self.synth.as_deref_mut() {
            synth.set_ratio(ratio);
        }
    }

    /// Silences channels in the mix (bits: [`mixer::PULSE1`] ... [`mixer::DMC`]).
    /// Emulation is unaffected.
    pub fn set_channel_mask(&mut self, mask: u8) {
        let now = self.cycle;
        self.catch_up(now);
        let dacs = self.dacs();
        if let Some(synth) = self.synth.as_deref_mut() {
            // Re-based without a step, like enabling audio.
            synth.set_mask(mask);
            synth.prime(dacs);
        }
    }

    fn end_audio_frame(&mut self, now: u64) {
        self.catch_up(now);
        if let Some(synth) = self.synth.as_deref_mut() {
            synth.end_frame(now);
            self.flush_at = now + FRAME_CLOCKS;
        }
    }

    /// Appends every sample produced up to the current cycle to `out`.
    pub fn take_samples(&mut self, out: &mut Vec<f32>) {
        if self.synth.is_none() {
            return;
        }
        let now = self.cycle;
        self.end_audio_frame(now);
        if let Some(synth) = self.synth.as_deref_mut() {
            synth.take(out);
        }
        self.schedule();
    }

    /// Samples dropped because the front-end did not take them in time.
    pub fn dropped_samples(&self) -> u64 {
        self.synth.as_ref().map_or(0, |s| s.dropped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(apu: &mut Apu, dma: &mut Dma, cycles: u64) {
        for _ in 0..cycles {
            apu.tick(dma);
        }
    }

    /// A $4015 write that starts a sample asks for its load DMA after the
    /// write's delay; an output-unit clock in between (which empties the
    /// buffer) does not fetch earlier (AccuracyCoin "Delta Modulation
    /// Channel" L-N).
    #[test]
    fn timer_clock_does_not_overtake_the_load_dma() {
        let (mut apu, mut dma) = (Apu::new(), Dma::default());
        apu.write_register(0x4010, 0x0F, 0); // fastest rate, 54 cycles a bit
        apu.write_register(0x4013, 0x00, 0); // 1-byte sample
        for lead in 0..3u64 {
            // Find a moment `lead` cycles before the DMC timer's next clock.
            while apu.dmc.timer.next != apu.cycle + lead + 1 {
                apu.tick(&mut dma);
            }
            assert!(apu.dmc.buffer.is_none() && apu.dmc.bytes_remaining == 0);
            let write = apu.cycle;
            apu.write_register(0x4015, 0x10, write);
            let load = apu.dmc_load_at;
            assert!(
                load > write + 1,
                "lead {lead}: load DMA at {load}, write at {write}"
            );
            while apu.cycle < load {
                apu.tick(&mut dma);
                assert!(
                    apu.cycle >= load || !dma.dmc_request,
                    "lead {lead}: DMA requested at {} before the load at {load}",
                    apu.cycle
                );
            }
            assert!(dma.dmc_request, "lead {lead}: the load DMA is requested");
            // Deliver the byte and let the sample end before the next round.
            dma = Dma::default();
            apu.dmc_sample_fetched(0);
            apu.write_register(0x4015, 0x00, apu.cycle);
            run(&mut apu, &mut dma, 2000);
            dma = Dma::default();
        }
    }

    /// A $4015 write that restarts a sample while the buffer still holds
    /// the last one's byte: the output-unit clock that empties the buffer
    /// 1 or 2 cycles later asks for no DMA; the DMA comes when the enable
    /// lands, after the write's delay (AccuracyCoin "Delta Modulation
    /// Channel" L: 3 cycles instead of 4).
    #[test]
    fn enabling_with_a_full_buffer_waits_for_the_enable() {
        for lead in 1..3u64 {
            let (mut apu, mut dma) = (Apu::new(), Dma::default());
            apu.write_register(0x4010, 0x0F, 0); // fastest rate, no loop
            apu.write_register(0x4013, 0x00, 0); // 1-byte sample

            // A sample that has ended, its byte still in the buffer, the
            // clock that takes it `lead` cycles away.
            apu.dmc.buffer = Some(0x55);
            while !(apu.dmc.last_bit_playing() && apu.dmc.timer.next == apu.cycle + lead) {
                apu.tick(&mut dma);
            }
            assert_eq!(apu.dmc.bytes_remaining, 0);
            let write = apu.cycle;
            apu.write_register(0x4015, 0x10, write);
            let lands = write + dmc_enable_delay(write);
            while apu.cycle < lands {
                assert!(
                    !dma.dmc_request,
                    "lead {lead}: DMA asked for at {}",
                    apu.cycle
                );
                apu.tick(&mut dma);
            }
            assert!(
                apu.dmc.buffer.is_none(),
                "lead {lead}: the clock took the byte"
            );
            assert!(
                dma.dmc_request,
                "lead {lead}: the DMA comes when the enable lands"
            );
        }
    }

    /// A fetch that ends a 1-byte sample (not looping) 1 or 2 cycles before
    /// the output unit's clock empties the buffer: that clock asks for a
    /// DMA all the same, cut off on the next cycle (its halt cycle only,
    /// AccuracyCoin "Implicit DMA Abort"). Earlier, or with the sample
    /// looping, no such cut.
    #[test]
    fn a_fetch_ending_the_sample_just_before_the_clock_leaves_a_one_cycle_dma() {
        // Whether the DMA unit is asked for a fetch on each of the 4
        // cycles after a fetch `lead` cycles before the clock.
        let requests = |lead: u64, looping: bool| {
            let (mut apu, mut dma) = (Apu::new(), Dma::default());
            apu.write_register(0x4010, if looping { 0x4F } else { 0x0F }, 0);
            apu.write_register(0x4013, 0x00, 0);
            while !(apu.dmc.last_bit_playing() && apu.dmc.timer.next == apu.cycle + lead) {
                apu.tick(&mut dma);
            }
            apu.dmc.restart();
            apu.dmc_sample_fetched(0x55);
            (0..4)
                .map(|_| {
                    apu.tick(&mut dma);
                    dma.dmc_request
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(requests(1, false), [true, false, false, false]);
        assert_eq!(requests(2, false), [false, true, false, false]);
        assert_eq!(requests(3, false), [false; 4]);
        assert_eq!(requests(4, false), [false; 4]);
        assert_eq!(
            requests(2, true),
            [false, true, true, true],
            "a looping sample's reload DMA"
        );
    }

    /// Clearing $4015 bit 4 reads back at once, but the DMC stops as late
    /// as a load DMA would start, and a DMA asked for before is cut off
    /// only a cycle after that (AccuracyCoin "Explicit DMA Abort").
    #[test]
    fn disabling_the_dmc_lands_late() {
        for parity in 0..2u64 {
            let (mut apu, mut dma) = (Apu::new(), Dma::default());
            apu.write_register(0x4010, 0x0F, 0);
            apu.write_register(0x4015, 0x10, apu.cycle);
            while !dma.dmc_request {
                apu.tick(&mut dma);
            }
            while apu.cycle % 2 != parity {
                apu.tick(&mut dma);
            }
            let write = apu.cycle;
            apu.write_register(0x4015, 0x00, write);
            assert_eq!(apu.read_status(0) & 0x10, 0, "bit 4 reads 0 at once");
            let lands = write + dmc_enable_delay(write);
            while apu.cycle < lands + 1 {
                assert!(
                    dma.dmc_request,
                    "cut off at {} before {}",
                    apu.cycle,
                    lands + 1
                );
                apu.tick(&mut dma);
            }
            assert!(!dma.dmc_request, "cut off a cycle after the stop lands");
            assert_eq!(apu.dmc.bytes_remaining, 0);
        }
    }

    #[test]
    fn frame_irq_in_four_step_mode_only() {
        let (mut apu, mut dma) = (Apu::new(), Dma::default());
        run(&mut apu, &mut dma, 30000);
        assert!(apu.irq());
        assert_ne!(apu.read_status(0) & 0x40, 0);
        assert!(apu.irq(), "the clear lands at the next APU clock edge");
        run(&mut apu, &mut dma, 2);
        assert!(!apu.irq(), "reading $4015 clears the frame IRQ");
        apu.write_register(0x4017, 0x80, 0);
        run(&mut apu, &mut dma, 80000);
        assert!(!apu.irq());
    }

    /// With frame IRQs inhibited the flag still rises on the sequence's
    /// cycles 29828 and 29829 (a $4015 read would see it), falls on 29830,
    /// and the IRQ line never rises (AccuracyCoin "Frame Counter IRQ" I-M).
    #[test]
    fn inhibited_frame_flag_rises_for_two_cycles_without_irq() {
        let (mut apu, mut dma) = (Apu::new(), Dma::default());
        apu.write_register(0x4017, 0x40, 0); // 4-step, inhibit; lands on cycle 3
        let mut raised = Vec::new();
        for _ in 0..40_000 {
            apu.tick(&mut dma);
            assert!(
                !apu.irq(),
                "cycle {}: inhibited, yet the IRQ line rose",
                apu.cycle
            );
            if apu.frame.irq_flag {
                raised.push(apu.cycle);
            }
        }
        assert_eq!(raised, vec![3 + 29828, 3 + 29829]);
    }

    #[test]
    fn length_counter_runs_down_in_status() {
        let (mut apu, mut dma) = (Apu::new(), Dma::default());
        apu.write_register(0x4015, 0x01, 0);
        apu.write_register(0x4000, 0x10, 0); // constant volume, not halted
        apu.write_register(0x4003, 0x18, 0); // length index 3 = 2
        run(&mut apu, &mut dma, 2);
        assert_eq!(apu.read_status(0) & 1, 1);
        run(&mut apu, &mut dma, 30000); // two half-frame clocks
        assert_eq!(apu.read_status(0) & 1, 0);
    }

    #[test]
    fn dmc_requests_a_fetch_and_raises_irq_at_the_end() {
        let (mut apu, mut dma) = (Apu::new(), Dma::default());
        apu.write_register(0x4010, 0x8F, 0);
        apu.write_register(0x4013, 0x00, 0); // 1 byte
        apu.write_register(0x4015, 0x10, 0);
        run(&mut apu, &mut dma, 4);
        assert!(dma.dmc_request);
        assert_eq!(dma.dmc_address, 0xC000);
        dma.dmc_fetched();
        apu.dmc_sample_fetched(0xAA);
        assert!(apu.irq());
        assert_eq!(apu.read_status(0) & 0x90, 0x80);
    }

    #[test]
    fn audio_does_not_change_what_the_cpu_sees() {
        let script = |apu: &mut Apu, dma: &mut Dma| {
            let mut seen = Vec::new();
            apu.write_register(0x4015, 0x0F, 0);
            apu.write_register(0x4000, 0x1F, 0);
            apu.write_register(0x4002, 0x80, 0);
            apu.write_register(0x4003, 0x08, 0);
            apu.write_register(0x400C, 0x1F, 0);
            apu.write_register(0x400F, 0x08, 0);
            for _ in 0..200 {
                run(apu, dma, 997);
                seen.push(apu.read_status(0));
            }
            seen
        };
        let (mut a, mut da) = (Apu::new(), Dma::default());
        let (mut b, mut db) = (Apu::new(), Dma::default());
        b.enable_audio(48000, FilterMode::Nes);
        assert_eq!(script(&mut a, &mut da), script(&mut b, &mut db));
        let mut samples = Vec::new();
        b.take_samples(&mut samples);
        let expected = 200.0 * 997.0 / CPU_HZ_NTSC * 48000.0;
        assert!(
            (samples.len() as f64 - expected).abs() < 20.0,
            "{}",
            samples.len()
        );
        assert!(samples.iter().any(|s| s.abs() > 0.01));
    }
}
