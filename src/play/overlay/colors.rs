//! The panel's colours: a dark background, an inferno-like heat ramp for
//! counts (log-scaled by the caller), a cool ramp for recency, and colour
//! mixing. Translucency is precomputed by mixing a colour with the known
//! background, so drawing stays opaque stores.

/// Panel background.
/// What the colours of the strip, edges and nodes show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Colouring {
    /// Counts, log-scaled on the heat ramp.
    Count,
    /// How recently the count grew (ten-second horizon).
    Recency,
}

pub const BG: u32 = 0x10_12_18;
/// The empty part of the address strip (slightly lighter than the panel, so
/// the strip's extent shows).
pub const STRIP_EMPTY: u32 = 0x1c_1f_28;
/// Bins below the recurrentThreshold (counted, not hot).
pub const COLD_BIN: u32 = 0x4a_55_6e;
/// Text.
pub const TEXT: u32 = 0xd8_dc_e4;
/// Secondary text (labels, hints).
pub const TEXT_DIM: u32 = 0x80_88_98;
/// Separators and axes.
pub const RULE: u32 = 0x33_38_46;
/// The current-PC marker.
pub const PC: u32 = 0x40_ff_70;
/// Highlight of edges that just appeared.
pub const NEW_EDGE: u32 = 0x7f_ff_ff;
/// Memory view: a dependence whose writer and reader ran in different
/// interrupt contexts (NMI or IRQ against main code).
pub const CROSSES: u32 = 0xff_a8_40;
/// The recurrentThreshold tick.
pub const THRESHOLD: u32 = 0xff_ff_ff;

/// Stops of the count ramp, low to high: deep purple, red, orange, yellow,
/// near white. Dark low end so that many weak edges recede behind few hot ones.
const HEAT_STOPS: [u32; 5] = [0x3b_0f_70, 0x8c_29_81, 0xde_49_68, 0xfe_9f_6d, 0xfc_fd_bf];
/// Stops of the recency ramp, old to new: dim slate, blue, cyan, white.
const RECENT_STOPS: [u32; 4] = [0x2a_33_4a, 0x2e_5c_b8, 0x3f_c8_e8, 0xf0_ff_ff];

/// Linear mix: `t` = 0 gives `a`, 255 gives `b`.
pub fn mix(a: u32, b: u32, t: u32) -> u32 {
    let t = t.min(255);
    let ch = |shift: u32| {
        let (x, y) = ((a >> shift) & 0xff, (b >> shift) & 0xff);
        ((x * (255 - t) + y * t + 127) / 255) << shift
    };
    ch(16) | ch(8) | ch(0)
}

fn ramp(stops: &[u32]) -> [u32; 256] {
    let mut lut = [0u32; 256];
    let segments = (stops.len() - 1) as u32;
    for (i, slot) in lut.iter_mut().enumerate() {
        // Position along the ramp in 1/255ths of a segment.
        let pos = i as u32 * segments;
        let seg = (pos / 255).min(segments - 1);
        let t = pos - seg * 255;
        *slot = mix(stops[seg as usize], stops[seg as usize + 1], t);
    }
    lut
}

/// Precomputed ramps, built once per overlay.
pub struct Ramps {
    pub heat: [u32; 256],
    pub recent: [u32; 256],
}

impl Default for Ramps {
    fn default() -> Self {
        Ramps {
            heat: ramp(&HEAT_STOPS),
            recent: ramp(&RECENT_STOPS),
        }
    }
}

/// `value` on a log scale between `min` and `max`, as 0..=255: the drawn
/// edges are the hottest ones, so their own range, not 1..max, spreads them
/// over the whole ramp.
pub fn log_between(value: u64, min: u64, max: u64) -> u32 {
    let lo = min.max(1) as f32;
    let hi = max as f32;
    if hi <= lo {
        return 255;
    }
    let v = ((value as f32).max(lo) / lo).ln() / (hi / lo).ln();
    (v.clamp(0.0, 1.0) * 255.0) as u32
}

/// Age in frames mapped to the recency ramp index: 255 for "this frame",
/// falling to 0 at `horizon` frames.
pub fn recency_level(age_frames: u64, horizon: u64) -> u32 {
    if age_frames >= horizon {
        return 0;
    }
    // Square root: recent activity spreads over more of the ramp.
    let x = 1.0 - (age_frames as f32 / horizon as f32).sqrt();
    (x * 255.0) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ramps_span_their_stops() {
        let r = Ramps::default();
        assert_eq!(r.heat[0], HEAT_STOPS[0]);
        assert_eq!(r.heat[255], HEAT_STOPS[4]);
        assert_eq!(r.recent[255], RECENT_STOPS[3]);
        assert_eq!(mix(0x000000, 0xffffff, 255), 0xffffff);
        assert_eq!(mix(0x000000, 0xffffff, 0), 0);
        assert_eq!(log_between(10, 10, 1000), 0);
        assert_eq!(log_between(1000, 10, 1000), 255);
        assert_eq!(log_between(100, 10, 1000), 127);
        assert_eq!(log_between(7, 7, 7), 255);
        assert_eq!(recency_level(0, 600), 255);
        assert_eq!(recency_level(600, 600), 0);
    }
}
