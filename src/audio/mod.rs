//! Host-side audio: getting the emulator's samples to a sound device or a
//! file. The emulator thread produces samples (mono f32, about -1..1) with
//! [`emu::Nes::take_audio`]; the device pulls them from its own thread.
//!
//! * [`queue`]: the lock-free single-producer/single-consumer sample queue
//!   between the two threads.
//! * [`rate_control`]: dynamic rate control. The emulator is paced by the
//!   display (or by nothing, headless), the device by its own crystal; the
//!   emulator's resampling ratio is nudged in proportion to how far the queue's
//!   fill is from its target, so the queue neither runs dry nor grows.
//! * [`output`]: the sound device, a cpal output stream when built with the
//!   `audio` feature. Without a device (as on CI), or without the feature, opening
//!   fails with a message; [`output::open_or_warn`] turns that into one warning
//!   line and no audio.
//! * [`wav`]: 16-bit mono PCM WAV files for `nesprof run --wav`.
//!
//! Typical use in a frame loop (the window):
//!
//! ```no_run
//! # let mut nes: emu::Nes = unimplemented!();
//! use nesprof::audio::{output, RateControl};
//! let mut device = output::open_or_warn(48_000, false);
//! let rate_ctl = RateControl::default();
//! if let Some(out) = &device {
//!     nes.enable_audio(out.sample_rate());
//! }
//! let mut samples = Vec::new();
//! loop {
//!     nes.run_frame();
//!     samples.clear();
//!     nes.take_audio(&mut samples);
//!     if let Some(out) = &mut device {
//!         out.push(&samples);
//!         nes.set_audio_rate_ratio(rate_ctl.ratio(out.fill_ratio()));
//!     }
//! }
//! ```

pub mod output;
pub mod queue;
pub mod rate_control;
pub mod wav;

pub use output::AudioOutput;
pub use rate_control::RateControl;

/// The sample rate used when nothing else is asked for.
pub const DEFAULT_SAMPLE_RATE: u32 = 48_000;
