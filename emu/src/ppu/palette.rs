//! Palette RAM addressing and the RGB colours of the 64 palette indices.
//!
//! The RGB table is generated the way a TV sees the 2C02's composite signal
//! (NESdev wiki "NTSC video"): each index is a square wave between two of the
//! PPU's output voltages, high for 6 of the 12 colour-subcarrier phases
//! starting at the hue's phase; a TV decodes it to YUV over one subcarrier
//! cycle, then to RGB. Colour emphasis attenuates the signal during the
//! phases of the emphasised colours.

/// Palette RAM at power-on is indeterminate on hardware; these are the values
/// blargg read from his NES (the ones his `power_up_palette` test checks).
pub const POWER_ON_PALETTE: [u8; 32] = [
    0x09, 0x01, 0x00, 0x01, 0x00, 0x02, 0x02, 0x0D, 0x08, 0x10, 0x08, 0x24, 0x00, 0x00, 0x04, 0x2C,
    0x09, 0x01, 0x34, 0x03, 0x00, 0x04, 0x00, 0x14, 0x08, 0x3A, 0x00, 0x02, 0x00, 0x20, 0x2C, 0x08,
];

/// $3F10/$3F14/$3F18/$3F1C mirror $3F00/$3F04/$3F08/$3F0C.
#[inline(always)]
pub fn mirror_index(addr: u16) -> usize {
    let i = addr as usize & 0x1F;
    if i & 0x13 == 0x10 {
        i & 0x0F
    } else {
        i
    }
}

/// Composite output levels of the 2C02 for luma rows 0-3, low and high halves
/// of the wave (volts above sync; NESdev wiki "NTSC video").
const SIGNAL_LOW: [f64; 4] = [0.350, 0.518, 0.962, 1.550];
const SIGNAL_HIGH: [f64; 4] = [1.090, 1.500, 1.960, 1.960];
const BLACK: f64 = 0.518;
const WHITE: f64 = 1.960;
/// Emphasis attenuates the signal to about 74.6 %.
const EMPHASIS_ATTENUATION: f64 = 0.746;

fn in_color_phase(hue: u8, phase: u8) -> bool {
    (hue + phase) % 12 < 6
}

fn signal(index: u8, emphasis: u8, phase: u8) -> f64 {
    let hue = index & 0x0F;
    if hue >= 0x0E {
        // $xE/$xF output the black level.
        return BLACK;
    }
    let level = (index >> 4) as usize & 3;
    let (low, high) = (SIGNAL_LOW[level], SIGNAL_HIGH[level]);
    let mut v = match hue {
        0x00 => high,
        0x0D => low,
        _ if in_color_phase(hue, phase) => high,
        _ => low,
    };
    let attenuate = (emphasis & 1 != 0 && in_color_phase(0x0C, phase))
        || (emphasis & 2 != 0 && in_color_phase(0x04, phase))
        || (emphasis & 4 != 0 && in_color_phase(0x08, phase));
    if attenuate {
        v *= EMPHASIS_ATTENUATION;
    }
    v
}

/// The sRGB colour of palette index `index` (0-63) under emphasis bits
/// `emphasis` ($2001 bits 5-7 as 0-7).
///
/// The decoder averages the 12 subcarrier phases for luma (Y) and takes the
/// fundamental (2/N of the DFT) for chroma. Its reference phase puts hue 8 —
/// the colour burst's phase — on the -U axis, as a TV locks to the burst.
pub fn rgb(index: u8, emphasis: u8) -> [u8; 3] {
    let (mut y, mut u, mut v) = (0.0, 0.0, 0.0);
    for phase in 0..12u8 {
        let level = (signal(index & 0x3F, emphasis & 7, phase) - BLACK) / (WHITE - BLACK);
        let angle = std::f64::consts::PI * (0.5 - 2.0 * phase as f64) / 12.0;
        y += level;
        u += level * angle.cos();
        v += level * angle.sin();
    }
    y /= 12.0;
    u /= 6.0;
    v /= 6.0;
    let to_byte = |c: f64| {
        // Broadcast video is gamma-encoded already, so the decoded values map
        // straight to sRGB.
        (c.clamp(0.0, 1.0) * 255.0).round() as u8
    };
    [
        to_byte(y + 1.139883 * v),
        to_byte(y - 0.394642 * u - 0.580622 * v),
        to_byte(y + 2.032062 * u),
    ]
}

/// All 512 colours (8 emphasis settings × 64 indices) as 0x00RRGGBB, the
/// layout window buffers use.
pub fn rgb_table() -> Vec<u32> {
    let mut table = Vec::with_capacity(512);
    for emphasis in 0..8u8 {
        for index in 0..64u8 {
            let [r, g, b] = rgb(index, emphasis);
            table.push((r as u32) << 16 | (g as u32) << 8 | b as u32);
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirrors() {
        assert_eq!(mirror_index(0x3F10), 0);
        assert_eq!(mirror_index(0x3F14), 4);
        assert_eq!(mirror_index(0x3F11), 0x11);
        assert_eq!(mirror_index(0x3F2C), 0x0C);
    }

    #[test]
    fn familiar_colours() {
        let [r, g, b] = rgb(0x16, 0);
        assert!(r > 150 && g < 80 && b < 80, "$16 is red: {r},{g},{b}");
        let [r, g, b] = rgb(0x1A, 0);
        assert!(g > r && g > b, "$1A is green: {r},{g},{b}");
        let [r, g, b] = rgb(0x12, 0);
        assert!(b > r && b > g, "$12 is blue: {r},{g},{b}");
        assert_eq!(rgb(0x0F, 0), [0, 0, 0]);
        let [r, g, b] = rgb(0x30, 0);
        assert!(r > 240 && g > 240 && b > 240, "$30 is white");
    }
}
