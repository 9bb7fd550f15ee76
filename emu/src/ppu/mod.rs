//! The 2C02 PPU (NTSC), dot by dot (NESdev wiki "PPU", "PPU registers",
//! "PPU frame timing"). 341 dots × 262 scanlines; scanline 261 is the
//! pre-render line; the odd-frame dot skip applies when rendering is enabled.
//!
//! This is the timing skeleton the CPU test ROMs need: registers, VRAM access,
//! the VBL flag and NMI output. The background/sprite pipelines are not here yet.

mod registers;

use crate::cartridge::Cartridge;

pub const WIDTH: usize = 256;
pub const HEIGHT: usize = 240;
pub const DOTS_PER_SCANLINE: u16 = 341;
pub const SCANLINES_PER_FRAME: u16 = 262;
pub const PRE_RENDER_LINE: u16 = 261;
pub const VBLANK_LINE: u16 = 241;

pub struct Ppu {
    /// Current scanline (0-261) and dot (0-340).
    pub scanline: u16,
    pub dot: u16,
    /// Frames completed since power-on (incremented after scanline 239).
    pub frame: u64,
    /// Total dots since power-on.
    pub dots: u64,
    odd_frame: bool,
    // Registers.
    ctrl: u8,
    mask: u8,
    vblank: bool,
    sprite0_hit: bool,
    sprite_overflow: bool,
    pub oam: [u8; 256],
    oam_addr: u8,
    /// Loopy's v, t, fine x and write toggle.
    v: u16,
    t: u16,
    fine_x: u8,
    w: bool,
    read_buffer: u8,
    /// The PPU's own data-bus latch, returned by write-only registers.
    io_latch: u8,
    pub palette: [u8; 32],
    /// Palette indices (0-63) of the frame being drawn, row-major.
    pub frame_buffer: Vec<u8>,
    /// Set when scanline 239 completes; cleared by the frame loop.
    pub frame_complete: bool,
}

impl Default for Ppu {
    fn default() -> Self {
        Ppu::new()
    }
}

impl Ppu {
    pub fn new() -> Ppu {
        Ppu {
            scanline: 0,
            dot: 0,
            frame: 0,
            dots: 0,
            odd_frame: false,
            ctrl: 0,
            mask: 0,
            vblank: false,
            sprite0_hit: false,
            sprite_overflow: false,
            oam: [0; 256],
            oam_addr: 0,
            v: 0,
            t: 0,
            fine_x: 0,
            w: false,
            read_buffer: 0,
            io_latch: 0,
            palette: [0; 32],
            frame_buffer: vec![0; WIDTH * HEIGHT],
            frame_complete: false,
        }
    }

    /// Reset button: the PPU's registers clear, VRAM and OAM keep their contents.
    pub fn reset(&mut self) {
        self.ctrl = 0;
        self.mask = 0;
        self.w = false;
        self.t = 0;
        self.fine_x = 0;
        self.read_buffer = 0;
        self.odd_frame = false;
    }

    #[inline(always)]
    fn rendering_enabled(&self) -> bool {
        self.mask & 0x18 != 0
    }

    /// /NMI is asserted while the VBL flag and the NMI enable bit are both set.
    #[inline(always)]
    pub fn nmi_output(&self) -> bool {
        self.vblank && self.ctrl & 0x80 != 0
    }

    /// Advances one dot.
    #[inline(always)]
    pub fn tick(&mut self, _cart: &mut Cartridge) {
        self.dots += 1;
        self.dot += 1;
        if self.dot == DOTS_PER_SCANLINE {
            self.dot = 0;
            self.end_of_scanline();
        }
        if self.dot == 1 {
            if self.scanline == VBLANK_LINE {
                self.vblank = true;
            } else if self.scanline == PRE_RENDER_LINE {
                self.vblank = false;
                self.sprite0_hit = false;
                self.sprite_overflow = false;
            }
        } else if self.dot == 339
            && self.scanline == PRE_RENDER_LINE
            && self.odd_frame
            && self.rendering_enabled()
        {
            // Odd frames skip the last dot of the pre-render line.
            self.dot = 340;
        }
    }

    #[cold]
    fn end_of_scanline(&mut self) {
        self.scanline += 1;
        if self.scanline == 240 {
            self.frame += 1;
            self.frame_complete = true;
        } else if self.scanline == SCANLINES_PER_FRAME {
            self.scanline = 0;
            self.odd_frame = !self.odd_frame;
        }
    }
}
