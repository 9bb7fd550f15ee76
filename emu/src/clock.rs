//! The NTSC console's clocks (NESdev wiki "Cycle reference chart"). Every
//! chip's notion of time derives from the CPU cycle count the bus keeps; these
//! constants turn it into seconds and frames.

/// CPU clock of an NTSC NES: the 21.477272 MHz master clock divided by 12.
pub const CPU_HZ_NTSC: f64 = 21_477_272.0 / 12.0;
/// Frames per second of an NTSC NES (the average over odd and even frames).
pub const FRAME_HZ_NTSC: f64 = 60.0988;

/// Frames in `minutes` of NTSC time, rounded.
pub fn minutes_to_frames(minutes: f64) -> u64 {
    (minutes * 60.0 * FRAME_HZ_NTSC).round() as u64
}
