//! The CPU-facing registers $2000-$2007 (NESdev wiki "PPU registers", "PPU
//! scrolling" for v/t/x/w, "PPU frame timing" for the VBL read race).

use super::{palette, Ppu, CTRL_INCREMENT_32, MASK_RENDERING, PRE_RENDER_LINE, VBLANK_LINE};
use crate::cartridge::Cartridge;

/// Dots until a $2007 read's buffer refill has landed (so a read on the very
/// next CPU cycle, 3 dots later, still finds the old value).
const BUFFER_REFILL_DOTS: u64 = 4;

impl Ppu {
    /// Brings lazily computed state up to the current dot before the CPU
    /// observes or changes it.
    #[inline(always)]
    fn sync_for_cpu(&mut self) {
        if self.scanline < 240 {
            self.flush_pixels();
            if (65..=256).contains(&self.dot) {
                self.catch_up_evaluation();
            }
        }
    }

    /// [`Ppu::sync_for_cpu`] for an access to `$2005`-`$2007`, which
    /// neither shows nor changes anything sprite evaluation uses (OAM,
    /// OAMADDR, the sprite size, rendering on or off, the overflow flag):
    /// the pixels so far are drawn, the evaluation stays lazy. Catching it
    /// up step by step on every mid-line scroll write was a tenth of the
    /// PPU's cost in a raster-effect game (fff, issue 46).
    #[inline(always)]
    fn sync_pixels_for_cpu(&mut self) {
        if self.scanline < 240 {
            self.flush_pixels();
        }
    }

    /// The sync an access to register `addr` needs.
    #[inline(always)]
    fn sync_for_register(&mut self, addr: u16) {
        self.land_pending_v();
        if addr & 7 >= 5 {
            self.sync_pixels_for_cpu();
        } else {
            self.sync_for_cpu();
        }
    }

    /// Bits 6 and 5 of $2002 (sprite 0 hit, sprite overflow) as they are
    /// now: a $2002 read latches VBL when M2 rises but takes these when it
    /// falls, later in the cycle (AccuracyCoin "$2002 flag timing").
    pub fn sprite_status_bits(&mut self) -> u8 {
        self.sync_for_cpu();
        self.visible_sprite_flags()
    }

    pub fn read_register(&mut self, addr: u16, cart: &mut Cartridge) -> u8 {
        self.sync_for_register(addr);
        let now = self.dots;
        match addr & 7 {
            2 => {
                // Reading one dot before VBL is set reads it clear and keeps
                // it from being set this frame.
                if self.scanline == VBLANK_LINE && self.dot == 0 {
                    self.suppress_vblank = true;
                }
                let status = (self.vblank as u8) << 7 | self.visible_sprite_flags();
                self.open_bus.refresh(status, 0xE0, now);
                self.vblank = false;
                self.w = false;
                self.open_bus.read(now)
            }
            4 => {
                let value = self.oam_data_read();
                self.open_bus.refresh(value, 0xFF, now);
                value
            }
            7 => {
                // The buffer refill of the previous read lands a few dots
                // after that read; a read arriving sooner (on the next CPU
                // cycle) still sees the old buffer, and its own refill
                // replaces the pending one (blargg's double_2007_read).
                if let Some((ready, byte)) = self.buffer_refill {
                    if now >= ready {
                        self.read_buffer = byte;
                    }
                }
                let addr = self.v & 0x3FFF;
                let value = if addr >= 0x3F00 {
                    // Palette reads are immediate; the buffer gets the
                    // nametable byte "underneath" the palette.
                    let byte = self.refill_byte(super::data_read::REFILL_FETCH_DOTS, cart);
                    self.buffer_refill = Some((
                        now + BUFFER_REFILL_DOTS,
                        byte.unwrap_or_else(|| cart.ppu_read(addr & 0x2FFF)),
                    ));
                    let color = self.palette_read(addr);
                    self.open_bus.refresh(color, 0x3F, now);
                    self.open_bus.read(now)
                } else {
                    let buffered = self.read_buffer;
                    // While rendering, the fetch under the refill's dot
                    // (`data_read.rs`).
                    let byte = self.refill_byte(super::data_read::REFILL_FETCH_DOTS, cart);
                    self.buffer_refill = Some((
                        now + BUFFER_REFILL_DOTS,
                        byte.unwrap_or_else(|| cart.ppu_read(addr)),
                    ));
                    // CHR read by the CPU (the code/data log, `access_log.rs`).
                    cart.log_chr(addr, 0, crate::access_log::CHR_READ);
                    self.open_bus.refresh(buffered, 0xFF, now);
                    buffered
                };
                self.vram_access_done(cart);
                value
            }
            _ => self.open_bus.read(now),
        }
    }

    /// A `$2004` write outside rendering: the byte at OAMADDR, which
    /// moves on. Bits 2-4 of a sprite's attribute byte do not exist: they
    /// read back as 0 and evaluation never sees them (AccuracyCoin "$2004
    /// Stress Test": a Y check on an attribute byte in the overflow
    /// search).
    #[inline(always)]
    fn store_oam_byte(&mut self, value: u8) {
        let addr = self.oam_addr as usize;
        self.oam[addr] = if addr & 3 == 2 { value & 0xE3 } else { value };
        self.oam_addr = self.oam_addr.wrapping_add(1);
    }

    /// How many dots from the last one run `$2004` writes store their
    /// bytes as [`Ppu::store_oam_byte`] does and nothing the PPU does
    /// reads OAM or OAMADDR: all of them with rendering off, else those
    /// left before the pre-render line from the post-render or vblank
    /// lines, none on a rendering line.
    pub fn oam_writes_plain_for(&self) -> u32 {
        if !self.rendering_enabled() {
            u32::MAX
        } else if (240..PRE_RENDER_LINE).contains(&self.scanline) {
            (PRE_RENDER_LINE - self.scanline) as u32 * 341 - self.dot as u32
        } else {
            0
        }
    }

    /// An OAM DMA's `$2004` writes of `bytes` while no PPU dot in their
    /// span reads OAM or OAMADDR ([`Ppu::oam_writes_plain_for`]), made
    /// together: the bytes land as they would one write at a time. The
    /// open-bus latch each write refreshes is left to the DMA's last
    /// write, which the caller makes one at a time.
    pub fn oam_dma_writes(&mut self, bytes: &[u8]) {
        for &value in bytes {
            self.store_oam_byte(value);
        }
    }

    pub fn write_register(&mut self, addr: u16, value: u8, cart: &mut Cartridge) {
        self.sync_for_register(addr);
        self.reschedule();
        self.open_bus.refresh(value, 0xFF, self.dots);
        match addr & 7 {
            0 => {
                self.ctrl = value;
                self.t = (self.t & !0x0C00) | ((value as u16 & 3) << 10);
            }
            1 => {
                let was_on = self.rendering_enabled();
                if self.rendering_active() && value & MASK_RENDERING == 0 {
                    self.seed_oam_corruption();
                }
                self.mask = value;
                if self.oam_corrupt_row != 0 && self.rendering_active() {
                    self.corrupt_oam_row();
                }
                if was_on != self.rendering_enabled() {
                    self.rendering_switched(!was_on);
                }
            }
            3 => self.oam_addr = value,
            4 => {
                if self.rendering_active() {
                    // Writes during rendering do not reach OAM; the address
                    // takes a glitchy increment of its high six bits and
                    // loses its low two (AccuracyCoin "Address $2004
                    // behavior" A, measured on a 2C02G).
                    self.oam_addr = self.oam_addr.wrapping_add(4) & 0xFC;
                } else {
                    self.store_oam_byte(value);
                }
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
                    self.address_written(cart.watches_ppu());
                    if cart.watches_ppu() {
                        // The new v (t), landed or not, as before the
                        // landing was delayed (`address_write.rs`).
                        self.report_bus(self.t & 0x3FFF, cart);
                    }
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
                self.vram_access_done(cart);
            }
            _ => {}
        }
    }

    /// After a $2007 access v advances by 1 or 32 — or, while rendering, takes
    /// the coarse X and Y increments at once.
    fn vram_access_done(&mut self, cart: &mut Cartridge) {
        if self.rendering_enabled() && (self.scanline < 240 || self.scanline == PRE_RENDER_LINE) {
            self.increment_coarse_x();
            self.increment_y();
        } else {
            let step = if self.ctrl & CTRL_INCREMENT_32 != 0 {
                32
            } else {
                1
            };
            self.v = self.v.wrapping_add(step) & 0x7FFF;
        }
        if cart.watches_ppu() {
            self.report_bus(self.v & 0x3FFF, cart);
        }
    }

    pub fn palette_read(&self, addr: u16) -> u8 {
        let value = self.palette[palette::mirror_index(addr)];
        if self.mask & super::MASK_GREYSCALE != 0 {
            value & 0x30
        } else {
            value
        }
    }

    fn palette_write(&mut self, addr: u16, value: u8) {
        self.palette[palette::mirror_index(addr)] = value & 0x3F;
    }

    /// Reads PPU memory without side effects (screen-text decoding, debuggers).
    pub fn peek_vram(&self, addr: u16, cart: &Cartridge) -> u8 {
        let addr = addr & 0x3FFF;
        if addr >= 0x3F00 {
            self.palette[palette::mirror_index(addr)]
        } else {
            cart.ppu_read(addr)
        }
    }

    /// Which nametable ($2000 + $400·n) the PPU control register selects.
    pub fn base_nametable(&self) -> u16 {
        0x2000 + 0x400 * (self.ctrl as u16 & 3)
    }

    /// Which pattern table ($0000 or $1000) the control register gives the
    /// background.
    pub fn background_pattern_base(&self) -> u16 {
        if self.ctrl & 0x10 != 0 {
            0x1000
        } else {
            0
        }
    }

    /// The colour-emphasis bits of $2001 (bits 5-7 as 0-7).
    pub fn emphasis_bits(&self) -> u8 {
        self.mask >> 5
    }
}
