//! The sound device: a cpal output stream fed from the sample queue, with the
//! emulator's mono signal copied to every device channel (built with the
//! `audio` feature).
//!
//! Opening fails (never panics) when there is no device, as on CI and this
//! build machine; [`super::open_or_warn`] turns that into a single warning
//! line.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use cpal::{FromSample, SampleFormat, SizedSample};

use crate::audio::queue::{queue, QueueReader, QueueStats, QueueWriter};

use super::DEFAULT_LATENCY_MS;

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

    /// How full the queue is (0-1); feed it to [`crate::audio::RateControl::ratio`].
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
