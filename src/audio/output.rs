//! The sound device, when this build has one.
//!
//! With the `audio` cargo feature, [`AudioOutput`] is a cpal output stream
//! (`cpal_stream.rs`). Without it (the default, so that nesprof builds on a
//! machine with no ALSA development files) there is no device type to open:
//! [`AudioOutput`] is an empty enum, opening it is an error that says how to
//! get sound, and `play` runs muted.
//!
//! Either way opening never panics: no device, no sound library or no
//! feature become one warning line from [`open_or_warn`].

#[cfg(feature = "audio")]
mod cpal_stream;
#[cfg(feature = "audio")]
pub use cpal_stream::AudioOutput;

/// Queue length at the default target fill (half the queue), in ms. Enough to
/// ride out a late frame on a busy desktop; short enough not to be heard as lag.
pub const DEFAULT_LATENCY_MS: u32 = 60;

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

/// A build without sound output: no value of this type exists.
#[cfg(not(feature = "audio"))]
#[derive(Debug)]
pub enum AudioOutput {}

#[cfg(not(feature = "audio"))]
impl AudioOutput {
    /// Always an error: this build was made without the `audio` feature.
    pub fn open(_sample_rate: u32) -> Result<AudioOutput, String> {
        Err(
            "this build has no sound output; rebuild with `cargo build --release \
             --features audio`, which needs the ALSA development files \
             (apt-get install libasound2-dev)"
                .to_string(),
        )
    }

    pub fn sample_rate(&self) -> u32 {
        match *self {}
    }

    pub fn push(&mut self, _samples: &[f32]) -> usize {
        match *self {}
    }

    pub fn fill_ratio(&self) -> f64 {
        match *self {}
    }

    pub fn set_muted(&self, _muted: bool) {
        match *self {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_device_is_an_error_or_a_working_stream_never_a_panic() {
        // On CI there is no sound card (and by default no audio feature):
        // opening must fail cleanly. On a desktop built with the feature it
        // succeeds; either way nothing panics.
        match AudioOutput::open(48_000) {
            Ok(mut out) => {
                assert!(out.sample_rate() > 0);
                out.push(&[0.0; 64]);
            }
            Err(msg) => {
                assert!(!msg.is_empty());
                assert!(!msg.contains('\n'), "one line: {msg}");
            }
        }
        assert!(open_or_warn(48_000, true).is_none());
        // Prints at most the one warning line (run with --nocapture to see it).
        let _ = open_or_warn(48_000, false);
    }
}
