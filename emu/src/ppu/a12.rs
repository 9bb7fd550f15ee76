//! PPU address line A12 as mappers see it: the MMC3 counts its rises (and
//! SNROM's RAM enable follows its level). Here: reporting its changes to a
//! watching mapper, and predicting, from the fetch pattern, when the next
//! rises that the MMC3's filter counts will come, so the bus can run the PPU
//! lazily until an IRQ could rise instead of catching it up every cycle.

use super::{
    Ppu, CTRL_BG_TABLE, CTRL_SPRITE_16, CTRL_SPRITE_TABLE, DOTS_PER_SCANLINE, PRE_RENDER_LINE,
};
use crate::cartridge::Cartridge;

impl Ppu {
    /// Tells a mapper watching the PPU bus (the caller checked that one
    /// does) that `addr` is on it. The watching mappers look at A12 only
    /// (the MMC3 counts its rises, timing the low spans between; SNROM's
    /// RAM enable follows its level), and a report repeating the level the
    /// mapper was last told changes nothing in either, so only changes are
    /// passed on: most fetches of a line repeat it. The mapper and this
    /// field start alike (A12 low at power-on) and change only together.
    #[inline(always)]
    pub(super) fn report_bus(&mut self, addr: u16, cart: &mut Cartridge) {
        let a12 = addr & 0x1000 != 0;
        if a12 != self.reported_a12 {
            self.reported_a12 = a12;
            cart.ppu_bus(addr, self.dots);
        }
    }

    /// A lower bound on the dots until the `n`-th next A12 rise that the
    /// MMC3 counts (`None`: the fetch pattern gives no such bound). With
    /// rendering on and 8×8 sprites from one pattern table and the
    /// background from the other, the counted rises are at fixed dots of
    /// the frame: A12 is low from the last fetch of the other table until
    /// the first of this one, longer than the filter's 10 dots, and the
    /// other rises of a line come after lows of 4-9 dots, which it ignores.
    /// Sprites at $1000: dot 261 (the first sprite pattern fetch) of lines
    /// 0-239 and the pre-render line. Background at $1000: dot 325 (the
    /// first pattern fetch for the next line's tiles) of the same lines,
    /// and dot 5 of the pre-render line, the first fetch after vertical
    /// blank. Changing $2000 or $2001 is a register write, after which the
    /// bus asks again. Each frame boundary crossed counts one dot less (the
    /// odd-frame skip), so this never overshoots.
    pub fn dots_until_a12_rises(&self, n: u32) -> Option<u32> {
        if n == u32::MAX {
            return Some(u32::MAX);
        }
        if !self.rendering_enabled() || self.ctrl & CTRL_SPRITE_16 != 0 || n == 0 {
            return None;
        }
        let line_dots = DOTS_PER_SCANLINE as u64;
        // The frame's counted rises in order, as dots from the frame start.
        let (count, rise): (u64, fn(u64) -> u64) = match (
            self.ctrl & CTRL_BG_TABLE != 0,
            self.ctrl & CTRL_SPRITE_TABLE != 0,
        ) {
            (false, true) => (241, sprite_rise),
            (true, false) => (242, background_rise),
            _ => return None,
        };
        let frame_dots = line_dots * (PRE_RENDER_LINE as u64 + 1);
        let here = self.scanline as u64 * line_dots + self.dot as u64;
        // The first rise after here (binary search over the frame's list).
        let (mut lo, mut hi) = (0u64, count);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if rise(mid) <= here {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let target = lo + (n as u64 - 1);
        let frames = target / count;
        let at = frames * frame_dots + rise(target % count);
        let dots = (at - here).saturating_sub(frames);
        Some(dots.min(u32::MAX as u64) as u32)
    }
}

/// Sprites at $1000: the `i`-th counted rise of a frame (lines 0-239, then
/// the pre-render line), as dots from the frame start.
fn sprite_rise(i: u64) -> u64 {
    let line = if i < 240 { i } else { PRE_RENDER_LINE as u64 };
    line * DOTS_PER_SCANLINE as u64 + 261
}

/// Background at $1000: lines 0-239 at dot 325, then the pre-render line
/// at dots 5 and 325.
fn background_rise(i: u64) -> u64 {
    let line_dots = DOTS_PER_SCANLINE as u64;
    match i {
        0..=239 => i * line_dots + 325,
        240 => PRE_RENDER_LINE as u64 * line_dots + 5,
        _ => PRE_RENDER_LINE as u64 * line_dots + 325,
    }
}

#[cfg(test)]
mod tests {
    use super::super::Ppu;
    use crate::cartridge::Cartridge;

    /// An MMC3 board (mapper 4), whose mapper watches the PPU bus.
    fn mmc3() -> Cartridge {
        let mut image = vec![b'N', b'E', b'S', 0x1A, 2, 1, 0x40, 0];
        image.resize(16 + 0x8000 + 0x2000, 0);
        Cartridge::from_bytes(&image).expect("valid MMC3 image")
    }

    /// The prediction against the dots at which A12 really goes from low
    /// (for at least the MMC3 filter's 10 dots) to high, found by ticking
    /// the PPU dot by dot with both table layouts, from several starting
    /// points, over two frames.
    /// A PPU rendering with `ctrl` on an MMC3 board, after `dots` dots.
    fn after(ctrl: u8, dots: u64) -> (Ppu, Cartridge) {
        let mut cart = mmc3();
        assert!(cart.watches_ppu());
        let mut ppu = Ppu::new();
        ppu.write_register(0x2000, ctrl, &mut cart);
        ppu.write_register(0x2001, 0x18, &mut cart);
        for _ in 0..dots {
            ppu.tick(&mut cart);
        }
        (ppu, cart)
    }

    /// The MMC3's IRQ, line by line over three frames with sprites on some
    /// lines, the same whether the PPU runs dot by dot (every A12 change
    /// reported) or whole lines at a time (the unused sprite slots between
    /// the first and the last not reported: `sprite_fetches_watched`).
    #[test]
    fn whole_lines_leave_the_mmc3_irq_as_dot_by_dot_does() {
        let irq_by_line = |whole_lines: bool| {
            let mut cart = mmc3();
            let mut ppu = Ppu::new();
            for (i, byte) in ppu.oam.iter_mut().enumerate() {
                // Sprites 0-2 on lines 40-47, 100-107, 160-167; the rest off.
                *byte = match (i / 4, i % 4) {
                    (s @ 0..=2, 0) => 39 + 60 * s as u8,
                    (_, 0) => 0xF0,
                    _ => 0,
                };
            }
            ppu.write_register(0x2000, 0x08, &mut cart);
            ppu.write_register(0x2001, 0x18, &mut cart);
            cart.cpu_write(0xC000, 25, 0);
            cart.cpu_write(0xC001, 0, 0);
            cart.cpu_write(0xE001, 0, 0);
            let mut levels = Vec::new();
            for _ in 0..3 * 262 {
                if whole_lines {
                    ppu.run_dots(341, &mut cart);
                } else {
                    for _ in 0..341 {
                        ppu.tick(&mut cart);
                    }
                }
                levels.push(cart.irq());
                if cart.irq() {
                    // Acknowledge, and let it count again.
                    cart.cpu_write(0xE000, 0, 0);
                    cart.cpu_write(0xE001, 0, 0);
                }
            }
            levels
        };
        let reference = irq_by_line(false);
        assert!(reference.iter().filter(|&&l| l).count() >= 9);
        assert_eq!(irq_by_line(true), reference);
    }

    #[test]
    fn predicted_rises_are_never_later_than_the_real_ones() {
        for ctrl in [0x08u8, 0x10] {
            // Where the counted rises are: tick dot by dot and watch the
            // level reported to the mapper change, as the MMC3 filter does.
            let (mut probe, mut cart) = after(ctrl, 0);
            let mut rises = Vec::new();
            let mut low_since = 0u64;
            for _ in 0..(3 * 262 * 341) {
                let high = probe.reported_a12;
                probe.tick(&mut cart);
                if probe.reported_a12 && !high && probe.dots - low_since >= 10 {
                    rises.push(probe.dots);
                }
                if !probe.reported_a12 && high {
                    low_since = probe.dots;
                }
            }
            assert!(rises.len() > 600, "ctrl {ctrl:02x}: {} rises", rises.len());
            for step in [1u64, 97, 341, 5000, 29_000, 89_000] {
                let (ppu, _) = after(ctrl, step);
                for n in [1u32, 2, 8, 100, 240, 241, 300] {
                    let predicted = ppu.dots_until_a12_rises(n).expect("standard layout");
                    let real = rises.iter().filter(|&&d| d > ppu.dots).nth(n as usize - 1);
                    if let Some(&real) = real {
                        let real = real - ppu.dots;
                        assert!(
                            predicted as u64 <= real && real - predicted as u64 <= 3,
                            "ctrl {ctrl:02x}, after {step} dots, rise {n}: predicted {predicted}, real {real}"
                        );
                    }
                }
            }
        }
    }
}
