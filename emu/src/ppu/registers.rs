//! The CPU-facing registers $2000-$2007 (NESdev wiki "PPU registers",
//! "PPU scrolling" for the v/t/x/w updates).

use super::Ppu;
use crate::cartridge::Cartridge;

impl Ppu {
    pub fn read_register(&mut self, addr: u16, cart: &mut Cartridge) -> u8 {
        match addr & 7 {
            2 => {
                let value = (self.vblank as u8) << 7
                    | (self.sprite0_hit as u8) << 6
                    | (self.sprite_overflow as u8) << 5
                    | (self.io_latch & 0x1F);
                self.vblank = false;
                self.w = false;
                self.io_latch = value;
                value
            }
            4 => {
                let value = self.oam[self.oam_addr as usize];
                self.io_latch = value;
                value
            }
            7 => {
                let addr = self.v & 0x3FFF;
                let value = if addr >= 0x3F00 {
                    // Palette reads are immediate; the buffer gets the
                    // nametable byte "underneath" the palette.
                    self.read_buffer = cart.ppu_read(addr & 0x2FFF);
                    (self.palette_read(addr) & 0x3F) | (self.io_latch & 0xC0)
                } else {
                    let buffered = self.read_buffer;
                    self.read_buffer = cart.ppu_read(addr);
                    buffered
                };
                self.increment_v();
                self.io_latch = value;
                value
            }
            _ => self.io_latch,
        }
    }

    pub fn write_register(&mut self, addr: u16, value: u8, cart: &mut Cartridge) {
        self.io_latch = value;
        match addr & 7 {
            0 => {
                self.ctrl = value;
                self.t = (self.t & !0x0C00) | ((value as u16 & 3) << 10);
            }
            1 => self.mask = value,
            3 => self.oam_addr = value,
            4 => {
                self.oam[self.oam_addr as usize] = value;
                self.oam_addr = self.oam_addr.wrapping_add(1);
            }
            5 => {
                if !self.w {
                    self.t = (self.t & !0x001F) | (value as u16 >> 3);
                    self.fine_x = value & 7;
                } else {
                    self.t = (self.t & !0x73E0)
                        | ((value as u16 & 0x07) << 12)
                        | ((value as u16 & 0xF8) << 2);
                }
                self.w = !self.w;
            }
            6 => {
                if !self.w {
                    self.t = (self.t & 0x00FF) | ((value as u16 & 0x3F) << 8);
                } else {
                    self.t = (self.t & 0xFF00) | value as u16;
                    self.v = self.t;
                }
                self.w = !self.w;
            }
            7 => {
                let addr = self.v & 0x3FFF;
                if addr >= 0x3F00 {
                    self.palette_write(addr, value);
                } else {
                    cart.ppu_write(addr, value);
                }
                self.increment_v();
            }
            _ => {}
        }
    }

    fn increment_v(&mut self) {
        let step = if self.ctrl & 0x04 != 0 { 32 } else { 1 };
        self.v = self.v.wrapping_add(step) & 0x7FFF;
    }

    /// $3F10/$3F14/$3F18/$3F1C mirror $3F00/$3F04/$3F08/$3F0C.
    fn palette_index(addr: u16) -> usize {
        let i = addr as usize & 0x1F;
        if i & 0x13 == 0x10 {
            i & 0x0F
        } else {
            i
        }
    }

    pub fn palette_read(&self, addr: u16) -> u8 {
        let value = self.palette[Self::palette_index(addr)];
        if self.mask & 0x01 != 0 {
            value & 0x30
        } else {
            value
        }
    }

    fn palette_write(&mut self, addr: u16, value: u8) {
        self.palette[Self::palette_index(addr)] = value & 0x3F;
    }

    /// Reads PPU memory without side effects (screen-text decoding, debuggers).
    pub fn peek_vram(&self, addr: u16, cart: &Cartridge) -> u8 {
        let addr = addr & 0x3FFF;
        if addr >= 0x3F00 {
            self.palette[Self::palette_index(addr)]
        } else {
            cart.ppu_read(addr)
        }
    }

    /// Which nametable ($2000 + 0x400·n) the PPU control register selects.
    pub fn base_nametable(&self) -> u16 {
        0x2000 + 0x400 * (self.ctrl as u16 & 3)
    }
}
