//! WAV output for `nesprof run --wav`: 16-bit mono PCM, streamed to disk
//! frame by frame ([`WavStream`]) so that a run's memory does not grow with
//! its length (issue 42: the whole run's samples in a vector took 4 bytes
//! per sample, 690 MB an emulated hour), and written atomically (see
//! `crate::atomic`), so an interrupted run or a full disk never leaves a
//! truncated WAV under the requested name.
//!
//! The file is the canonical 44-byte RIFF header (a `fmt ` chunk holding a
//! PCMWAVEFORMAT, as hound writes for 16-bit mono) and the samples; the two
//! sizes in the header are unknown until the end, written as 0 first and
//! patched in by [`WavStream::finish`] (the bytes are hound's, which a test
//! checks). RIFF sizes are 32-bit: a WAV holds at most [`MAX_SAMPLES`]
//! samples, 12 h 25 min at 48 kHz; [`check_frames`] refuses a longer run
//! before it starts.

use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::atomic::Staged;
use crate::error::BadInput;

/// Bytes before the samples: "RIFF", its size, "WAVE", the 16-byte `fmt `
/// chunk with its 8-byte chunk header, the `data` chunk header.
const HEADER_BYTES: u64 = 44;
/// Where the RIFF chunk's size and the `data` chunk's size are.
const RIFF_SIZE_AT: u64 = 4;
const DATA_SIZE_AT: u64 = 40;

/// The most samples a WAV can hold: the RIFF chunk's size (the file's
/// bytes after its first 8) is a 32-bit field.
pub const MAX_SAMPLES: u64 = (u32::MAX as u64 - (HEADER_BYTES - 8)) / 2;

/// CPU cycles in the longest NTSC frame (341 × 262 dots / 3, rounded up;
/// the odd frame's skipped dot only shortens it): with
/// [`emu::clock::CPU_HZ_NTSC`], an upper bound on a run's audio.
const MAX_CYCLES_PER_FRAME: f64 = 29_781.0;

/// Converts a sample (about -1..1) to 16-bit PCM, clipping.
pub fn to_i16(sample: f32) -> i16 {
    (sample * 32767.0).round().clamp(-32768.0, 32767.0) as i16
}

/// The 44-byte header of a 16-bit mono WAV at `sample_rate` Hz holding
/// `samples` samples.
fn header(sample_rate: u32, samples: u32) -> [u8; HEADER_BYTES as usize] {
    let data_bytes = samples * 2;
    let mut h = [0u8; HEADER_BYTES as usize];
    let fields: [&[u8]; 13] = [
        b"RIFF",
        &(data_bytes + (HEADER_BYTES - 8) as u32).to_le_bytes(),
        b"WAVE",
        b"fmt ",
        &16u32.to_le_bytes(),             // the fmt chunk's size
        &1u16.to_le_bytes(),              // WAVE_FORMAT_PCM
        &1u16.to_le_bytes(),              // channels
        &sample_rate.to_le_bytes(),       // frames per second
        &(sample_rate * 2).to_le_bytes(), // bytes per second
        &2u16.to_le_bytes(),              // bytes per frame (block align)
        &16u16.to_le_bytes(),             // bits per sample
        b"data",
        &data_bytes.to_le_bytes(),
    ];
    let mut at = 0;
    for f in fields {
        h[at..at + f.len()].copy_from_slice(f);
        at += f.len();
    }
    h
}

/// Refuses, before the run, a `--wav` of more frames than a WAV can hold
/// (see the module doc): a bad argument naming the file and the limit,
/// rather than an error hours into the run.
pub fn check_frames(path: &Path, sample_rate: u32, frames: u64) -> anyhow::Result<()> {
    let per_frame = MAX_CYCLES_PER_FRAME * sample_rate as f64 / emu::clock::CPU_HZ_NTSC;
    // One frame more than asked: the audio resampler's own latency.
    let most = ((frames + 1) as f64 * per_frame).ceil();
    if most > MAX_SAMPLES as f64 {
        let limit = (MAX_SAMPLES as f64 / per_frame).floor() as u64 - 1;
        return Err(BadInput(format!(
            "{}: a WAV holds at most {limit} frames of {sample_rate} Hz audio (4 GiB); \
             asked for {frames}",
            path.display()
        ))
        .into());
    }
    Ok(())
}

/// A 16-bit mono WAV being written as the samples come (see the module
/// doc): [`WavStream::finish`] completes it under its final name; dropped
/// unfinished (an error, an interruption), nothing is left.
pub struct WavStream {
    file: Staged,
    path: PathBuf,
    sample_rate: u32,
    samples: u64,
    /// The PCM bytes of one write, reused.
    bytes: Vec<u8>,
}

impl WavStream {
    /// Starts the WAV that will replace `path`.
    pub fn create(path: &Path, sample_rate: u32) -> anyhow::Result<WavStream> {
        let mut file = Staged::create(path).map_err(|e| crate::atomic::say(path, e))?;
        file.write_all(&header(sample_rate, 0))
            .map_err(|e| crate::atomic::say(path, e))?;
        Ok(WavStream {
            file,
            path: path.to_path_buf(),
            sample_rate,
            samples: 0,
            bytes: Vec::new(),
        })
    }

    /// Appends `samples` (about -1..1, clipped).
    pub fn write(&mut self, samples: &[f32]) -> anyhow::Result<()> {
        let total = self.samples + samples.len() as u64;
        anyhow::ensure!(
            total <= MAX_SAMPLES,
            "{}: cannot write WAV: more than {MAX_SAMPLES} samples (4 GiB)",
            self.path.display()
        );
        self.bytes.clear();
        self.bytes
            .extend(samples.iter().flat_map(|&s| to_i16(s).to_le_bytes()));
        self.file
            .write_all(&self.bytes)
            .with_context(|| format!("{}: cannot write WAV", self.path.display()))?;
        self.samples = total;
        Ok(())
    }

    /// Samples written so far.
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// Writes the sizes into the header and puts the file in place.
    pub fn finish(mut self) -> anyhow::Result<()> {
        let path = self.path.clone();
        let full = header(self.sample_rate, self.samples as u32);
        let patch = |file: &mut Staged| -> std::io::Result<()> {
            for at in [RIFF_SIZE_AT, DATA_SIZE_AT] {
                file.seek(SeekFrom::Start(at))?;
                file.write_all(&full[at as usize..at as usize + 4])?;
            }
            file.seek(SeekFrom::End(0))?;
            Ok(())
        };
        patch(&mut self.file).with_context(|| format!("{}: cannot write WAV", path.display()))?;
        self.file.commit().map_err(|e| crate::atomic::say(&path, e))
    }
}

/// Writes `samples` as a 16-bit mono WAV at `sample_rate` Hz.
pub fn write_wav(path: &Path, sample_rate: u32, samples: &[f32]) -> anyhow::Result<()> {
    let mut wav = WavStream::create(path, sample_rate)?;
    wav.write(samples)?;
    wav.finish()
}

/// Reads a 16-bit mono WAV back as (sample rate, samples in -1..1).
pub fn read_wav(path: &Path) -> anyhow::Result<(u32, Vec<f32>)> {
    let mut reader = hound::WavReader::open(path)
        .with_context(|| format!("{}: cannot read WAV", path.display()))?;
    let spec = reader.spec();
    anyhow::ensure!(
        spec.channels == 1 && spec.bits_per_sample == 16,
        "{}: expected 16-bit mono, found {} channels of {} bits",
        path.display(),
        spec.channels,
        spec.bits_per_sample
    );
    let samples = reader
        .samples::<i16>()
        .map(|s| s.map(|v| v as f32 / 32768.0))
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("{}: corrupt WAV data", path.display()))?;
    Ok((spec.sample_rate, samples))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_clips() {
        let dir = std::env::temp_dir().join(format!("nesprof-wav-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.wav");
        write_wav(&path, 48_000, &[0.0, 0.5, -0.5, 2.0]).unwrap();
        let (rate, back) = read_wav(&path).unwrap();
        assert_eq!(rate, 48_000);
        assert_eq!(back.len(), 4);
        assert!((back[1] - 0.5).abs() < 1e-4);
        assert!((back[3] - 32767.0 / 32768.0).abs() < 1e-6);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("nesprof-wav-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// What hound (the reader's library, an independent writer) makes of
    /// `samples`.
    fn hound_bytes(sample_rate: u32, samples: &[f32]) -> Vec<u8> {
        let spec = hound::WavSpec {
            channels: 1,
            sample_rate,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let mut out = std::io::Cursor::new(Vec::new());
        let mut w = hound::WavWriter::new(&mut out, spec).unwrap();
        for &s in samples {
            w.write_sample(to_i16(s)).unwrap();
        }
        w.finalize().unwrap();
        out.into_inner()
    }

    /// Streamed in pieces of any size (none included), the file is byte for
    /// byte the one hound writes from all the samples at once (as `run
    /// --wav` wrote it before it streamed).
    #[test]
    fn streamed_pieces_give_hounds_bytes() {
        let dir = scratch("stream");
        let samples: Vec<f32> = (0..5000)
            .map(|i| ((i as f32) * 0.013).sin() * if i % 97 == 0 { 3.0 } else { 0.9 })
            .collect();
        for (rate, pieces) in [(48_000, vec![0, 1, 799, 0, 4200]), (44_100, vec![5000])] {
            let path = dir.join(format!("{rate}.wav"));
            let mut wav = WavStream::create(&path, rate).unwrap();
            let mut at = 0;
            for n in pieces {
                wav.write(&samples[at..at + n]).unwrap();
                at += n;
            }
            assert_eq!(wav.samples(), 5000);
            wav.finish().unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), hound_bytes(rate, &samples));
        }
        let empty = dir.join("empty.wav");
        WavStream::create(&empty, 48_000).unwrap().finish().unwrap();
        assert_eq!(std::fs::read(&empty).unwrap(), hound_bytes(48_000, &[]));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Until it is finished the WAV exists only under its temporary name;
    /// dropped unfinished (an error or a signal stopped the run), the old
    /// file stays and no temporary is left.
    #[test]
    fn an_unfinished_stream_leaves_the_old_file() {
        let dir = scratch("unfinished");
        let path = dir.join("out.wav");
        std::fs::write(&path, "old").unwrap();
        let mut wav = WavStream::create(&path, 48_000).unwrap();
        wav.write(&[0.5; 1000]).unwrap();
        drop(wav);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A run the header's 32-bit sizes cannot describe is refused before it
    /// starts; the longest accepted stays under the limit by the largest
    /// audio a frame makes (checked against the emulator's own output).
    #[test]
    fn runs_longer_than_a_wav_holds_are_refused_first() {
        let path = Path::new("long.wav");
        let err = check_frames(path, 48_000, 3_000_000).unwrap_err();
        assert!(err.downcast_ref::<BadInput>().is_some());
        let message = err.to_string();
        assert!(
            message.starts_with("long.wav: a WAV holds at most "),
            "{message}"
        );
        let limit: u64 = message["long.wav: a WAV holds at most ".len()..]
            .split(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .expect("the limit in frames");
        // 12 h 25 min of frames, give or take one.
        assert!((2_688_000..2_689_000).contains(&limit), "{limit}");
        check_frames(path, 48_000, limit).unwrap();
        assert!(check_frames(path, 48_000, limit + 1).is_err());
        // The bound holds for what the emulator makes: 120 frames of a
        // bundled workload, from power-on, at 48 kHz.
        let rom = Path::new(env!("CARGO_MANIFEST_DIR")).join("roms-test/tracker.nes");
        let mut nes = emu::Nes::load(&rom).unwrap();
        nes.enable_audio(48_000);
        let mut audio = Vec::new();
        let frames = 120;
        while nes.frame_count() < frames {
            nes.run_frame();
            nes.take_audio(&mut audio);
        }
        let per_frame = MAX_CYCLES_PER_FRAME * 48_000.0 / emu::clock::CPU_HZ_NTSC;
        assert!(audio.len() as f64 <= (frames + 1) as f64 * per_frame);
        assert!(audio.len() as f64 >= (frames - 1) as f64 * per_frame * 0.99);
    }

    #[test]
    fn bad_path_is_an_error_not_a_panic() {
        let err = write_wav(Path::new("/nonexistent-dir/x.wav"), 48_000, &[0.0]).unwrap_err();
        assert!(format!("{err:#}").contains("/nonexistent-dir/x.wav"));
    }
}
