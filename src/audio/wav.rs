//! WAV output for `nesprof run --wav`: 16-bit mono PCM, written atomically
//! (see `crate::atomic`), so an interrupted run or a full disk never leaves
//! a truncated WAV under the requested name.

use std::path::Path;

use anyhow::Context;

/// Converts a sample (about -1..1) to 16-bit PCM, clipping.
pub fn to_i16(sample: f32) -> i16 {
    (sample * 32767.0).round().clamp(-32768.0, 32767.0) as i16
}

/// Writes `samples` as a 16-bit mono WAV at `sample_rate` Hz.
pub fn write_wav(path: &Path, sample_rate: u32, samples: &[f32]) -> anyhow::Result<()> {
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut file = crate::atomic::Staged::create(path).map_err(|e| crate::atomic::say(path, e))?;
    let result = (|| -> anyhow::Result<()> {
        let mut writer = hound::WavWriter::new(&mut file, spec)?;
        {
            let mut w = writer.get_i16_writer(samples.len() as u32);
            for &s in samples {
                w.write_sample(to_i16(s));
            }
            w.flush()?;
        }
        writer.finalize()?;
        Ok(())
    })();
    result.with_context(|| format!("{}: cannot write WAV", path.display()))?;
    file.commit().map_err(|e| crate::atomic::say(path, e))
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

    #[test]
    fn bad_path_is_an_error_not_a_panic() {
        let err = write_wav(Path::new("/nonexistent-dir/x.wav"), 48_000, &[0.0]).unwrap_err();
        assert!(format!("{err:#}").contains("/nonexistent-dir/x.wav"));
    }
}
