//! The sound device: a cpal output stream fed from the sample queue, with the
//! emulator's mono signal copied to every device channel.
//!
//! Opening fails (never panics) when there is no device, as on CI and this
//! build machine; [`open_or_warn`] turns that into a single warning line.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use cpal::{FromSample, SampleFormat, SizedSample};

use super::queue::{queue, QueueReader, QueueStats, QueueWriter};

/// Queue length at the default target fill (half the queue), in ms. Enough to
/// ride out a late frame on a busy desktop; short enough not to be heard as lag.
pub const DEFAULT_LATENCY_MS: u32 = 60;

pub struct AudioOutput {
    // Dropping the stream stops the device callback.
    _stream: cpal::Stream,
    writer: QueueWriter,
    sample_rate: u32,
    muted: Arc<AtomicBool>,
}

impl std::fmt::Debug for AudioOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AudioOutput")
            .field("sample_rate", &self.sample_rate)
            .field("fill", &self.fill_ratio())
            .finish()
    }
}

/// Opens the default device, or prints one warning line and returns `None`
/// (also `None`, silently, when `muted` was asked for).
pub fn open_or_warn(sample_rate: u32, muted: bool) -> Option<AudioOutput> {
    if muted {
        return None;
    }
    match AudioOutput::open(sample_rate) {
        Ok(out) => Some(out),
        Err(e) => {
            eprintln!("warning: no audio ({e}); continuing without sound");
            None
        }
    }
}

impl AudioOutput {
    /// Opens the default output device at `sample_rate` (or, if the device
    /// does not support it, at the device's default rate: see
    /// [`AudioOutput::sample_rate`]).
    pub fn open(sample_rate: u32) -> Result<AudioOutput, String> {
        Self::open_with_latency(sample_rate, DEFAULT_LATENCY_MS)
    }

    pub fn open_with_latency(sample_rate: u32, latency_ms: u32) -> Result<AudioOutput, String> {
        // alsa-lib writes a screenful to stderr when there is no card; keep
        // it in a buffer instead (this thread only: the device is opened
        // here, the stream's callback thread is unaffected).
        #[cfg(target_os = "linux")]
        let _alsa_messages = alsa::Output::local_error_handler().ok();
        let host = cpal::default_host();
        let device = host
            .default_output_device()
            .ok_or_else(|| "no audio output device".to_string())?;
        let default = device
            .default_output_config()
            .map_err(|e| format!("audio device has no usable output configuration: {e}"))?;
        let channels = default.channels().max(1);
        let rate_supported = device
            .supported_output_configs()
            .map(|mut ranges| {
                ranges.any(|r| {
                    r.channels() == channels
                        && r.sample_format() == default.sample_format()
                        && (r.min_sample_rate()..=r.max_sample_rate()).contains(&sample_rate)
                })
            })
            .unwrap_or(false);
        let rate = if rate_supported {
            sample_rate
        } else {
            default.sample_rate()
        };
        let config = cpal::StreamConfig {
            channels,
            sample_rate: rate,
            buffer_size: cpal::BufferSize::Default,
        };
        // The rate controller keeps the queue half full.
        let capacity = (rate as usize * latency_ms.max(10) as usize * 2) / 1000;
        let (writer, reader) = queue(capacity);
        let muted = Arc::new(AtomicBool::new(false));
        let stream = match default.sample_format() {
            SampleFormat::F32 => build::<f32>(&device, &config, reader, muted.clone()),
            SampleFormat::I16 => build::<i16>(&device, &config, reader, muted.clone()),
            SampleFormat::U16 => build::<u16>(&device, &config, reader, muted.clone()),
            SampleFormat::I32 => build::<i32>(&device, &config, reader, muted.clone()),
            other => Err(format!("unsupported device sample format {other}")),
        }?;
        stream
            .play()
            .map_err(|e| format!("cannot start audio stream: {e}"))?;
        Ok(AudioOutput {
            _stream: stream,
            writer,
            sample_rate: rate,
            muted,
        })
    }

    /// The rate the device plays at: pass it to [`emu::Nes::enable_audio`].
    pub fn sample_rate(&self) -> u32 {
        self.sample_rate
    }

    /// Queues samples for playback; returns how many fit.
    pub fn push(&mut self, samples: &[f32]) -> usize {
        self.writer.push(samples)
    }

    /// How full the queue is (0-1); feed it to [`super::RateControl::ratio`].
    pub fn fill_ratio(&self) -> f64 {
        self.writer.fill_ratio()
    }

    /// Silences the device while still consuming samples, so rate control
    /// keeps working.
    pub fn set_muted(&self, muted: bool) {
        self.muted.store(muted, Ordering::Relaxed);
    }

    pub fn stats(&self) -> &Arc<QueueStats> {
        self.writer.stats()
    }
}

fn build<T>(
    device: &cpal::Device,
    config: &cpal::StreamConfig,
    mut reader: QueueReader,
    muted: Arc<AtomicBool>,
) -> Result<cpal::Stream, String>
where
    T: SizedSample + FromSample<f32>,
{
    let channels = config.channels as usize;
    // Grown on the first callbacks only; a steady-state callback never
    // allocates.
    let mut mono: Vec<f32> = Vec::with_capacity(4096);
    device
        .build_output_stream::<T, _, _>(
            *config,
            move |data: &mut [T], _info| {
                let frames = data.len() / channels;
                if mono.len() < frames {
                    mono.resize(frames, 0.0);
                }
                reader.pop_into(&mut mono[..frames]);
                let silent = muted.load(Ordering::Relaxed);
                for (frame, &s) in data.chunks_mut(channels).zip(&mono[..frames]) {
                    let v = T::from_sample(if silent { 0.0 } else { s.clamp(-1.0, 1.0) });
                    frame.fill(v);
                }
            },
            |err| eprintln!("warning: audio stream error: {err}"),
            None,
        )
        .map_err(|e| format!("cannot open audio stream: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_device_is_an_error_or_a_working_stream_never_a_panic() {
        // On CI there is no sound card: opening must fail cleanly. On a
        // desktop it succeeds; either way nothing panics.
        match AudioOutput::open(48_000) {
            Ok(mut out) => {
                assert!(out.sample_rate() > 0);
                out.push(&[0.0; 64]);
            }
            Err(msg) => assert!(!msg.is_empty()),
        }
        assert!(open_or_warn(48_000, true).is_none());
        // Prints at most the one warning line (run with --nocapture to see it).
        let _ = open_or_warn(48_000, false);
    }
}
