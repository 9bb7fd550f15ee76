//! The byte on the OAM data bus during a rendered line's sprite evaluation,
//! dot by dot: what a `$2004` read returns there (AccuracyCoin "$2004
//! Stress Test", which reads it on every dot of a line and compares with a
//! console's).
//!
//! Evaluation reads primary OAM on odd dots and writes what it read to
//! secondary OAM on even dots; once writes are off (8 sprites found, or
//! all 64 looked at) the even dots read secondary OAM instead, at the
//! address the last write left. The bus holds the byte of the dot's
//! access. The evaluation itself runs lazily elsewhere (`sprites.rs`,
//! whole lines at once where nothing can see the dots); a `$2004` read in
//! dots 65-256 is rare, so it replays the line's evaluation from its first
//! dot here, one access at a time, the way the NESdev wiki's "PPU sprite
//! evaluation" gives the steps (with this PPU's choices for a misaligned
//! OAMADDR, as `sprites.rs` makes them).

/// Where the replayed evaluation is between two reads.
#[derive(Clone, Copy)]
enum Step {
    /// Step 1: a sprite's Y (written to secondary OAM whatever it is).
    Y,
    /// Step 1a: byte `k` (1-3) of an in-range sprite.
    Copy(usize),
    /// Step 3: 8 found, looking for a ninth with the buggy byte index.
    Overflow,
    /// Step 3a: the ninth found; byte `k` (1-3) after its Y is read.
    OverflowRest(usize),
    /// Step 4: reads go on, writes fail, to the end of the evaluation.
    Done,
}

/// The OAM data bus on `dot` (65-256) of the evaluation of `line` for
/// sprites `height` lines tall, started at OAM byte `start` (OAMADDR),
/// with `oam` as primary OAM and secondary OAM cleared on dots 1-64.
pub(super) fn evaluation_bus(oam: &[u8; 256], start: u8, line: u16, height: u16, dot: u16) -> u8 {
    // Bits 2-4 of a sprite's attribute byte do not exist.
    let read = |addr: usize| {
        let value = oam[addr & 0xFF];
        if addr & 3 == 2 {
            value & 0xE3
        } else {
            value
        }
    };
    let in_range = |y: u8| line.wrapping_sub(y as u16) < height;
    let mut secondary = [0xFFu8; 32];
    // Five bits: past the eighth sprite it is back at 0.
    let mut secondary_addr = 0usize;
    let (mut n, mut m) = ((start >> 2) as usize, (start & 3) as usize);
    let mut found = 0;
    let mut step = Step::Y;
    let mut bus = 0xFF;
    for d in (super::sprite_eval::FIRST_EVAL_DOT..=dot).step_by(2) {
        // The read, on odd dot `d`.
        let (address, writes) = match step {
            Step::Y => (n * 4 + m, true),
            Step::Copy(k) => (n * 4 + m + k, true),
            Step::Overflow => (n * 4 + m, false),
            Step::OverflowRest(k) => (n * 4 + m + k, false),
            // Step 4 reads each sprite's Y.
            Step::Done => (n * 4, false),
        };
        let value = read(address);
        if d == dot {
            return value;
        }
        // The write (or read of secondary OAM) on even dot `d + 1`.
        bus = if writes {
            secondary[secondary_addr] = value;
            value
        } else {
            secondary[secondary_addr]
        };
        step = match step {
            Step::Y if in_range(value) => {
                secondary_addr = (secondary_addr + 1) & 31;
                Step::Copy(1)
            }
            Step::Y => {
                // Out of range: the slot is not taken, the next sprite is
                // read from its start.
                n += 1;
                m = 0;
                if n == 64 {
                    Step::Done
                } else {
                    Step::Y
                }
            }
            Step::Copy(k) => {
                secondary_addr = (secondary_addr + 1) & 31;
                if k < 3 {
                    Step::Copy(k + 1)
                } else {
                    found += 1;
                    n += 1;
                    if n == 64 {
                        Step::Done
                    } else if found == 8 {
                        Step::Overflow
                    } else {
                        Step::Y
                    }
                }
            }
            Step::Overflow if in_range(value) => Step::OverflowRest(1),
            Step::Overflow => {
                n += 1;
                m = (m + 1) & 3;
                if n == 64 {
                    Step::Done
                } else {
                    Step::Overflow
                }
            }
            Step::OverflowRest(k) if k < 3 => Step::OverflowRest(k + 1),
            Step::OverflowRest(_) => {
                // The three bytes after the ninth sprite's Y, m carrying
                // into n; then n moves on if m ended at 3.
                let last = n * 4 + m + 3;
                n = last >> 2;
                if last & 3 == 3 {
                    n += 1;
                }
                m = 0;
                Step::Done
            }
            Step::Done => {
                n += 1;
                Step::Done
            }
        };
        n &= 63;
        if d + 1 == dot {
            return bus;
        }
    }
    bus
}

#[cfg(test)]
mod tests {
    use super::evaluation_bus;

    /// OAM as AccuracyCoin's "$2004 Stress Test" lays it out (attribute
    /// bytes stored without bits 2-4, as OAM keeps them), its line $80.
    fn stored(bytes: impl Fn(usize) -> u8) -> [u8; 256] {
        std::array::from_fn(|i| {
            if i & 3 == 2 {
                bytes(i) & 0xE3
            } else {
                bytes(i)
            }
        })
    }

    fn bus(oam: &[u8; 256], dots: std::ops::RangeInclusive<u16>) -> Vec<u8> {
        dots.map(|d| evaluation_bus(oam, 0, 0x80, 8, d)).collect()
    }

    /// $FF down to $00: two sprites in range; every Y is copied to the
    /// free slot, so after all 64 the even dots read sprite 63's Y back.
    #[test]
    fn fewer_than_eight_in_range() {
        let oam = stored(|i| 0xFF - i as u8);
        assert_eq!(bus(&oam, 65..=70), [0xFF, 0xFF, 0xFB, 0xFB, 0xF7, 0xF7]);
        assert_eq!(
            bus(&oam, 129..=136),
            [0x7F, 0x7F, 0x7E, 0x7E, 0x61, 0x61, 0x7C, 0x7C]
        );
        assert_eq!(
            bus(&oam, 203..=210),
            [0x03, 0x03, 0xFF, 0x03, 0xFB, 0x03, 0xF7, 0x03]
        );
    }

    /// Eight sprites in range, then the overflow search with its buggy
    /// byte index: x0, x5, xA, xF, until $9F's $7F is in range; its next
    /// three bytes, then each sprite's Y from the one after.
    #[test]
    fn the_overflow_search() {
        const FIRST: [u8; 32] = [
            0x80, 0x00, 0x00, 0xFF, 0x7F, 0x01, 0x20, 0xEE, 0x7E, 0x02, 0x40, 0xDD, 0x7D, 0x03,
            0x60, 0xCC, 0x7C, 0x04, 0x80, 0xBB, 0x7B, 0x05, 0xA0, 0xAA, 0x7A, 0x06, 0xC0, 0x99,
            0x79, 0x07, 0xE0, 0x88,
        ];
        let oam = stored(|i| if i < 32 { FIRST[i] } else { i as u8 - 32 });
        assert_eq!(
            bus(&oam, 177..=204),
            [
                0x60, 0x80, 0x65, 0x80, 0x62, 0x80, 0x6F, 0x80, 0x70, 0x80, 0x75, 0x80, 0x62, 0x80,
                0x7F, 0x80, 0x80, 0x80, 0x81, 0x80, 0x82, 0x80, 0x80, 0x80, 0x84, 0x80, 0x88, 0x80
            ]
        );
    }
}
