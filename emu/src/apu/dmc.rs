//! The delta modulation channel (NESdev wiki "APU DMC"): a memory reader that
//! fetches sample bytes through the 2A03's DMA unit into a one-byte buffer, an
//! output unit that shifts them out one bit per timer clock as ±2 steps of a
//! 7-bit DAC, a loop flag and an end-of-sample IRQ.
//!
//! This file is the channel state; when and how a fetch reaches the bus is in
//! `apu/mod.rs` (request timing) and `dma/cycles.rs` (the stolen CPU cycles).
//!
//! The DMA aborts (wiki "DMA" § DMC DMA; AccuracyCoin "Explicit/Implicit
//! DMA Abort") are timed in `apu/mod.rs`: a $4015 stop lands late and cuts
//! off a DMA that has not fetched, and a fetch that ends the sample just
//! before the buffer empties leaves a one-cycle DMA behind.

use super::timer::Timer;

/// Output-unit periods in CPU cycles (NTSC).
pub const RATES_NTSC: [u16; 16] = [
    428, 380, 340, 320, 286, 254, 226, 214, 190, 160, 142, 128, 106, 84, 72, 54,
];

#[derive(Debug, Clone)]
pub struct Dmc {
    pub irq_enabled: bool,
    pub looping: bool,
    pub timer: Timer,
    /// The 7-bit DAC level.
    pub level: u8,
    shift: u8,
    bits_remaining: u8,
    silence: bool,
    /// The sample buffer (None = empty).
    pub buffer: Option<u8>,
    sample_address: u16,
    sample_length: u16,
    pub address: u16,
    pub bytes_remaining: u16,
    pub irq_flag: bool,
}

impl Default for Dmc {
    fn default() -> Self {
        Dmc::new()
    }
}

impl Dmc {
    pub fn new() -> Dmc {
        Dmc {
            irq_enabled: false,
            looping: false,
            // The output unit is clocked on the APU clock; with the bus's
            // numbering (get cycles odd) its clocks land on odd CPU cycles, so
            // a "reload" fetch requested there halts the CPU on a put cycle
            // (wiki "DMA") and takes 4 cycles.
            timer: Timer::new(RATES_NTSC[0] as u64, RATES_NTSC[0] as u64 + 1),
            level: 0,
            shift: 0,
            bits_remaining: 8,
            silence: true,
            buffer: None,
            sample_address: 0xC000,
            sample_length: 1,
            address: 0xC000,
            bytes_remaining: 0,
            irq_flag: false,
        }
    }

    /// $4010-$4013 (`reg` 0-3).
    pub fn write(&mut self, reg: u16, value: u8) {
        match reg {
            0 => {
                self.irq_enabled = value & 0x80 != 0;
                if !self.irq_enabled {
                    self.irq_flag = false;
                }
                self.looping = value & 0x40 != 0;
                self.timer
                    .set_period(RATES_NTSC[(value & 0x0F) as usize] as u64);
            }
            1 => self.level = value & 0x7F,
            2 => self.sample_address = 0xC000 | (value as u16) << 6,
            _ => self.sample_length = (value as u16) << 4 | 1,
        }
    }

    /// Starts the sample from its first byte.
    pub fn restart(&mut self) {
        self.address = self.sample_address;
        self.bytes_remaining = self.sample_length;
    }

    /// Whether the output unit's next clock ends its cycle (and so moves
    /// the buffer into the shift register).
    #[inline]
    pub fn last_bit_playing(&self) -> bool {
        self.bits_remaining == 1
    }

    /// Whether the clock just run ended the output cycle and took a byte
    /// from the buffer.
    #[inline]
    pub fn buffer_just_emptied(&self) -> bool {
        self.bits_remaining == 8 && !self.silence
    }

    /// Whether the memory reader wants a byte.
    #[inline]
    pub fn wants_fetch(&self) -> bool {
        self.buffer.is_none() && self.bytes_remaining > 0
    }

    /// One output-unit clock (the timer expired). Returns whether the DAC level
    /// changed.
    pub fn clock(&mut self) -> bool {
        self.timer.expire();
        let before = self.level;
        if !self.silence {
            if self.shift & 1 != 0 {
                if self.level <= 125 {
                    self.level += 2;
                }
            } else if self.level >= 2 {
                self.level -= 2;
            }
        }
        self.shift >>= 1;
        self.bits_remaining -= 1;
        if self.bits_remaining == 0 {
            self.bits_remaining = 8;
            match self.buffer.take() {
                Some(byte) => {
                    self.silence = false;
                    self.shift = byte;
                }
                None => self.silence = true,
            }
        }
        self.level != before
    }

    /// The DMA delivered the byte at `self.address`. Returns whether it
    /// was the last byte of a sample that does not loop.
    pub fn fetched(&mut self, value: u8) -> bool {
        if self.bytes_remaining == 0 {
            // Stopped while the fetch was under way: the byte is dropped.
            return false;
        }
        self.buffer = Some(value);
        self.address = if self.address == 0xFFFF {
            0x8000
        } else {
            self.address + 1
        };
        self.bytes_remaining -= 1;
        if self.bytes_remaining == 0 {
            if self.looping {
                self.restart();
            } else {
                self.irq_flag |= self.irq_enabled;
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registers_decode_address_and_length() {
        let mut d = Dmc::new();
        d.write(2, 0xFF);
        d.write(3, 0xFF);
        d.restart();
        assert_eq!(d.address, 0xFFC0);
        assert_eq!(d.bytes_remaining, 0xFF1);
    }

    #[test]
    fn address_wraps_to_8000_and_irq_at_end() {
        let mut d = Dmc::new();
        d.write(0, 0x80);
        d.address = 0xFFFF;
        d.bytes_remaining = 1;
        d.fetched(0x55);
        assert_eq!(d.address, 0x8000);
        assert!(d.irq_flag);
    }

    #[test]
    fn output_unit_steps_by_two_and_clamps() {
        let mut d = Dmc::new();
        d.level = 126;
        d.buffer = Some(0xFF);
        for _ in 0..8 {
            d.clock(); // first cycle is silent; it loads the buffer at its end
        }
        d.clock();
        assert_eq!(d.level, 126, "127 would overflow the 7-bit DAC");
    }
}
