//! The vertical address axis shared by the address strip and the graph:
//! $8000 at the top, $FFFF at the bottom, so a block sits beside the strip
//! rows of its address. CPU RAM ($0000–$07FF, mirrors folded) and cartridge
//! RAM ($6000–$7FFF) get a band above the ROM only when sampled code runs
//! there; otherwise the whole height is PRG ROM.

/// One contiguous address range and the rows it occupies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment {
    pub lo: u32,
    pub hi: u32,
    /// First row and one past the last, relative to the axis top.
    pub y0: f32,
    pub y1: f32,
    pub label: &'static str,
}

pub const RAM: (u32, u32) = (0x0000, 0x0800);
pub const WRAM: (u32, u32) = (0x6000, 0x8000);
pub const ROM: (u32, u32) = (0x8000, 0x10000);

/// Rows between two segments.
const SEPARATOR: f32 = 5.0;

#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    pub segments: Vec<Segment>,
    pub height: f32,
}

/// Which optional bands an axis has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bands {
    pub ram: bool,
    pub wram: bool,
}

impl Bands {
    /// Notes an address that holds sampled code.
    pub fn note(&mut self, addr: u32) {
        if addr < 0x2000 {
            self.ram = true;
        } else if (WRAM.0..WRAM.1).contains(&addr) {
            self.wram = true;
        }
    }
}

impl Axis {
    /// An axis `height` rows tall with the given optional bands; each takes an
    /// eighth of the height (at least 16 rows), the ROM the rest.
    pub fn new(height: f32, bands: Bands) -> Axis {
        let mut ranges: Vec<((u32, u32), &'static str)> = Vec::with_capacity(3);
        if bands.ram {
            ranges.push((RAM, "RAM"));
        }
        if bands.wram {
            ranges.push((WRAM, "WRAM"));
        }
        let band = (height / 8.0).max(16.0);
        let optional = ranges.len() as f32;
        let rom_rows = (height - optional * (band + SEPARATOR)).max(1.0);
        ranges.push((ROM, ""));
        let mut y = 0.0;
        let segments = ranges
            .into_iter()
            .map(|((lo, hi), label)| {
                let rows = if lo == ROM.0 { rom_rows } else { band };
                let s = Segment {
                    lo,
                    hi,
                    y0: y,
                    y1: y + rows,
                    label,
                };
                y += rows + SEPARATOR;
                s
            })
            .collect();
        Axis { segments, height }
    }

    /// The row of `addr` (fractional). RAM mirrors fold onto $0000–$07FF;
    /// a banked code address (`emu::code_addr`) sits at its CPU address, so
    /// banks switched into one window share its rows; addresses in no band
    /// (I/O, expansion) clamp to the nearest band edge.
    pub fn y_of(&self, addr: f64) -> f32 {
        let addr = if addr < 0x2000 as f64 {
            addr % 0x800 as f64
        } else if addr >= 0x10000 as f64 {
            addr % 0x10000 as f64
        } else {
            addr
        };
        let mut best = self.segments[0].y0;
        for s in &self.segments {
            if addr < s.lo as f64 {
                return best;
            }
            if addr < s.hi as f64 {
                let t = (addr - s.lo as f64) / (s.hi - s.lo) as f64;
                return s.y0 + t as f32 * (s.y1 - s.y0);
            }
            best = s.y1 - 1.0;
        }
        best
    }

    /// Rows per byte in the ROM band.
    pub fn rom_rows_per_byte(&self) -> f32 {
        let rom = self
            .segments
            .last()
            .expect("the ROM band is always present");
        (rom.y1 - rom.y0) / (rom.hi - rom.lo) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rom_only_and_with_ram() {
        let a = Axis::new(512.0, Bands::default());
        assert_eq!(a.y_of(0x8000 as f64), 0.0);
        assert_eq!(a.y_of(0xC000 as f64), 256.0);
        assert_eq!(a.y_of(0x4016 as f64), 0.0);
        let b = Axis::new(
            512.0,
            Bands {
                ram: true,
                wram: false,
            },
        );
        assert_eq!(b.y_of(0x0000 as f64), 0.0);
        assert_eq!(b.y_of(0x0900 as f64), b.y_of(0x0100 as f64));
        assert!(b.y_of(0x8000 as f64) > 64.0);
        assert!(b.y_of(0xFFFF as f64) < 512.0);
        // A banked code address sits at its CPU address.
        assert_eq!(b.y_of(0x3C_C123 as f64), b.y_of(0xC123 as f64));
        assert!(b.y_of(0x7FF as f64) < b.y_of(0x8000 as f64));
    }
}
