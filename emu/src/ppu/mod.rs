//! The 2C02 PPU (NTSC), dot by dot (NESdev wiki "PPU rendering", "PPU frame
//! timing", "PPU sprite evaluation", "PPU scrolling"). 341 dots × 262
//! scanlines; line 261 is the pre-render line; odd frames skip one dot when
//! rendering is enabled.
//!
//! Performance shape: the background uses the real fetch/shift pipeline (so
//! mid-scanline scroll and mask writes land on the right pixel); sprites for
//! the next line are fetched at their real dots (257-320, so mappers see the
//! pattern addresses when hardware puts them on the bus) and drawn into a
//! 256-entry line buffer that the pixel mux reads. Sprite evaluation is exact
//! but lazy: it runs in one go at dot 256 unless the CPU touches the PPU while
//! it is in progress, in which case it is caught up to the current dot first.
//! Rendering switched off and on again mid-frame leaves the shifters and
//! sprite counters out of step with those buffers: `stale.rs` models them
//! dot by dot from such a switch until a clean line.
//!
//! Known omissions: OAM decay, the OAMADDR corruption at the start of
//! rendering, the OAMADDR increment when rendering is switched off during
//! evaluation, and the exact internal values `$2004` returns mid-evaluation.

mod a12;
mod address_write;
mod background;
mod data_read;
mod line;
mod oam_bus;
mod oam_corruption;
mod oam_scan;
mod open_bus;
pub mod palette;
mod pending_bus;
mod pixel_colors;
mod registers;
mod render;
mod scroll;
mod sprite_eval;
mod sprites;
mod stale;
mod stale_state;
#[cfg(test)]
mod test_support;
mod tile_row;

use crate::cartridge::Cartridge;
use open_bus::OpenBus;
use sprite_eval::SpriteEval;

const _: () = assert!(stale_state::LINE_PIXELS == WIDTH);

/// Tiles in `bg_line`: 2 prefetched + 32 fetched during the line.
const LINE_TILES: usize = 34;

pub const WIDTH: usize = 256;
pub const HEIGHT: usize = 240;
pub const DOTS_PER_SCANLINE: u16 = 341;
pub const SCANLINES_PER_FRAME: u16 = 262;
pub const PRE_RENDER_LINE: u16 = 261;
pub const VBLANK_LINE: u16 = 241;

const MASK_GREYSCALE: u8 = 0x01;
const MASK_BG_LEFT: u8 = 0x02;
const MASK_SPRITES_LEFT: u8 = 0x04;
const MASK_BG: u8 = 0x08;
const MASK_SPRITES: u8 = 0x10;
const MASK_RENDERING: u8 = MASK_BG | MASK_SPRITES;

const CTRL_INCREMENT_32: u8 = 0x04;
const CTRL_SPRITE_TABLE: u8 = 0x08;
const CTRL_BG_TABLE: u8 = 0x10;
const CTRL_SPRITE_16: u8 = 0x20;
const CTRL_NMI: u8 = 0x80;

/// For each dot of a rendering line, the next dot with work: fetches on odd
/// dots and coarse-X increments on multiples of 8 (dots 1-256, 321-336),
/// the sprite slots' fetch dots (257-320), and dots 256 and 337-340.
struct EventTable([u16; 341]);

const RENDER_EVENTS: EventTable = {
    const fn is_event(d: u16) -> bool {
        match d {
            1..=256 | 321..=336 => d & 1 == 1 || d & 7 == 0,
            257..=320 => (d - 257) & 1 == 0,
            337..=340 => true,
            _ => false,
        }
    }
    let mut table = [340u16; 341];
    let mut d = 0;
    while d < 340 {
        let mut next = d + 1;
        while !is_event(next) {
            next += 1;
        }
        table[d as usize] = next;
        d += 1;
    }
    EventTable(table)
};

pub struct Ppu {
    /// Current scanline (0-261) and dot (0-340).
    pub scanline: u16,
    pub dot: u16,
    /// Frames completed since power-on (incremented after scanline 239).
    pub frame: u64,
    /// Total dots since power-on.
    pub dots: u64,
    odd_frame: bool,
    /// Decided at dot 338 of the pre-render line: skip its dot 340.
    skip_dot: bool,
    /// Next dot of the current line that needs the slow path.
    next_event: u16,

    ctrl: u8,
    mask: u8,
    vblank: bool,
    sprite0_hit: bool,
    sprite_overflow: bool,
    /// A $2002 read one dot before VBL prevents the flag this frame.
    suppress_vblank: bool,

    pub oam: [u8; 256],
    oam_addr: u8,
    secondary_oam: [u8; 32],
    eval: SpriteEval,
    /// The OAM row (0-31) a pending OAM corruption will overwrite with row 0
    /// (0: nothing to do, as copying row 0 onto itself changes nothing). See
    /// [`Ppu::seed_oam_corruption`].
    oam_corrupt_row: u8,
    /// Sprite pixels of the line being drawn: 0 = transparent, else
    /// bits 0-1 pixel, 2-3 palette, bit 5 behind background, bit 7 sprite 0.
    line_sprites: [u8; WIDTH],
    /// Sprites found for the next line (and whether sprite 0 is among them).
    next_sprite_count: u8,
    next_has_sprite0: bool,
    /// Same, latched at dot 257 for the fetches of dots 257-320.
    fetch_sprite_count: u8,
    fetch_has_sprite0: bool,
    /// The pixels of `line_sprites` that may be non-zero: `from..to`
    /// (empty when the line has no sprite pixel), so the output and the
    /// clearing visit only those.
    sprite_span: (u16, u16),
    sprite_lo_latch: u8,
    /// The pattern bytes the pre-render line's fetches drew for line 0, by
    /// slot (bit `slot` of `line0_slots` set when drawn): redrawn shifted
    /// when the odd-frame skip shortens the pre-render line.
    line0_patterns: [(u8, u8); 8],
    line0_slots: u8,

    // Loopy's registers.
    v: u16,
    t: u16,
    fine_x: u8,
    w: bool,

    // Background pipeline.
    nt_latch: u8,
    at_latch: u8,
    pattern_lo_latch: u8,
    /// Where `pattern_lo_latch` was fetched from: the code/data log marks
    /// both planes of a tile row at the high fetch, one check per tile.
    pattern_lo_addr: u16,
    /// Background pixels of the line in fetch order (see `background.rs`).
    bg_line: [u8; LINE_TILES * 8],
    /// Next pixel of the current line to output.
    rendered_x: u16,

    read_buffer: u8,
    /// A $2007 read's pending buffer refill: (dot it lands, byte).
    buffer_refill: Option<(u64, u8)>,
    /// A second $2006 write's new v on its way to the bus while rendering:
    /// (dot it lands, value) (see `address_write.rs`).
    pending_v: Option<(u64, u16)>,
    /// A `$2007` read's state machine reading on a fetch's address dot:
    /// (dot of that fetch, the low address byte the latch kept) (see
    /// `data_read.rs`).
    pending_latch: Option<(u64, u8)>,
    open_bus: OpenBus,
    pub palette: [u8; 32],

    /// Palette indices (0-63) of the frame being drawn, row-major.
    pub frame_buffer: Vec<u8>,
    /// Colour-emphasis bits ($2001 bits 5-7) in effect on each row.
    pub emphasis: [u8; HEIGHT],
    /// Set when scanline 239 completes; cleared by the frame loop.
    pub frame_complete: bool,
    /// The exact shifter model is ticking: rendering is on (or a switch is
    /// under way) after it was switched off earlier, so every dot of the
    /// rendering lines runs through `stale.rs` until a clean line.
    exact_ticking: bool,
    /// The exact model's state (boxed: most programs never use it).
    stale: Box<stale_state::Stale>,
    /// PPU A12 as last reported to a mapper watching the bus (see
    /// [`Ppu::report_bus`]).
    reported_a12: bool,
    /// Where in the frame (`scanline * 341 + dot`) the sprite 0 hit and
    /// the overflow, once set, reach $2002: the console's dots for them
    /// (see [`Ppu::visible_sprite_flags`]), later than the dots on which
    /// this PPU finds them. Kept apart from the flags, so the lazy paths
    /// (pixels drawn up to the current dot, evaluation caught up to it) set
    /// the flags when they find them and a read compares its dot.
    sprite0_hit_from: u32,
    sprite_overflow_from: u32,
    /// The pixel values' colours under the current palette (`render.rs`).
    colors: pixel_colors::PixelColors,
    /// The last whole line's tile row, for the next lines (`tile_row.rs`).
    tile_row: Box<tile_row::TileRow>,
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
            skip_dot: false,
            next_event: 0,
            ctrl: 0,
            mask: 0,
            vblank: false,
            sprite0_hit: false,
            sprite_overflow: false,
            suppress_vblank: false,
            oam: [0; 256],
            oam_addr: 0,
            secondary_oam: [0xFF; 32],
            eval: SpriteEval::default(),
            oam_corrupt_row: 0,
            line_sprites: [0; WIDTH],
            next_sprite_count: 0,
            next_has_sprite0: false,
            fetch_sprite_count: 0,
            fetch_has_sprite0: false,
            sprite_span: (0, 0),
            sprite_lo_latch: 0,
            line0_patterns: [(0, 0); 8],
            line0_slots: 0,
            v: 0,
            t: 0,
            fine_x: 0,
            w: false,
            nt_latch: 0,
            at_latch: 0,
            pattern_lo_latch: 0,
            pattern_lo_addr: 0,
            bg_line: [0; LINE_TILES * 8],
            rendered_x: 0,
            read_buffer: 0,
            buffer_refill: None,
            pending_v: None,
            pending_latch: None,
            open_bus: OpenBus::default(),
            palette: palette::POWER_ON_PALETTE,
            frame_buffer: vec![0; WIDTH * HEIGHT],
            emphasis: [0; HEIGHT],
            frame_complete: false,
            exact_ticking: false,
            stale: Box::default(),
            reported_a12: false,
            sprite0_hit_from: 0,
            sprite_overflow_from: 0,
            colors: pixel_colors::PixelColors::new(&palette::POWER_ON_PALETTE, 0x3F),
            tile_row: Box::default(),
        }
    }

    /// Reset button: $2000/$2001 clear, the write toggle and read buffer reset;
    /// VRAM, OAM and palette keep their contents.
    pub fn reset(&mut self) {
        self.ctrl = 0;
        self.mask = 0;
        self.w = false;
        self.t = 0;
        self.fine_x = 0;
        self.read_buffer = 0;
        self.buffer_refill = None;
        self.pending_v = None;
        self.pending_latch = None;
        self.odd_frame = false;
        self.next_event = 0;
    }

    #[inline(always)]
    fn rendering_enabled(&self) -> bool {
        self.mask & MASK_RENDERING != 0
    }

    /// Whether the PPU is fetching (rendering on, visible or pre-render line).
    #[inline(always)]
    fn rendering_active(&self) -> bool {
        self.rendering_enabled() && (self.scanline < 240 || self.scanline == PRE_RENDER_LINE)
    }

    /// /NMI is asserted while the VBL flag and the NMI enable bit are both set.
    #[inline(always)]
    pub fn nmi_output(&self) -> bool {
        self.vblank && self.ctrl & CTRL_NMI != 0
    }

    /// Advances one dot. Most dots do nothing but count; `next_event` is the
    /// next dot at which something can happen on this line.
    #[inline(always)]
    pub fn tick(&mut self, cart: &mut Cartridge) {
        self.dots += 1;
        self.dot += 1;
        if self.dot >= self.next_event {
            self.tick_event(cart);
        }
    }

    /// Runs `dots` dots. Used for catch-up: whole lines and line ends
    /// inside the run are done line at a time (see `line.rs`), whole tiles
    /// tile at a time, the rest dot by dot.
    pub fn run_dots(&mut self, mut dots: u32, cart: &mut Cartridge) {
        // A pending change to a fetch's address comes only from a register
        // access, between catch-ups: first its dots, one by one.
        if self.bus_change_pending() {
            dots -= self.run_pending(dots, cart);
        }
        while dots > 0 {
            // The rest of the line at once (all of it from dot 0) only with
            // no code/data log attached: the whole-line paths log nothing,
            // a logged run takes the tile and dot paths, which do
            // (`access_log.rs`). From a tile boundary up to dot 248, so
            // that the line's remaining fetches are whole tiles.
            let dot = self.dot;
            if dot & 7 == 0
                && dot <= 248
                && dots >= (DOTS_PER_SCANLINE - dot) as u32
                && cart.access_log.is_none()
                && !self.exact_ticking
            {
                // Two separate tests: `run_line` inlined under the first,
                // where no mapper watches, is smaller and faster (its
                // fetches' "does the mapper watch" tests fold away).
                if !cart.watches_ppu() {
                    if dot == 0 {
                        dots -= self.run_line(cart);
                        continue;
                    }
                    if self.rendering_active() {
                        dots -= self.run_line_rest(cart);
                        continue;
                    }
                } else if self.rendering_active() {
                    dots -= self.run_line_watched(cart);
                    continue;
                }
            }
            if dots >= 8 {
                let ran = self.run_tiles(dots, cart);
                if ran > 0 {
                    dots -= ran;
                    continue;
                }
            }
            if (256..320).contains(&dot)
                && self.rendering_active()
                && !self.exact_ticking
                && !cart.watches_ppu()
                && cart.access_log.is_none()
            {
                dots -= self.run_sprite_fetches(dots, cart);
                continue;
            }
            // The dots before the next event only count (see `tick`): in
            // one step. Off the rendered lines (VBL, rendering off) that is
            // most of them.
            let quiet = self.next_event.saturating_sub(self.dot + 1) as u32;
            if quiet > 0 {
                let n = quiet.min(dots);
                self.dots += n as u64;
                self.dot += n as u16;
                dots -= n;
                continue;
            }
            self.tick(cart);
            dots -= 1;
        }
    }

    /// A lower bound on the dots until the PPU's outputs can change by
    /// themselves: the frame end (line 240 starts), VBL set (241, 1) or VBL
    /// clear (261, 1). Callers that run the PPU lazily must catch it up by
    /// then. It assumes the odd-frame skip happens, so it never overshoots.
    /// The VBL flag as of the last dot run: with the PPU behind by fewer
    /// dots than [`Ppu::dots_until_output_change`] said at the last catch-
    /// up, it is also the flag now (it changes only at output changes).
    pub fn vblank_flag(&self) -> bool {
        self.vblank
    }

    pub fn dots_until_output_change(&self) -> u32 {
        let here = self.scanline as u32 * 341 + self.dot as u32;
        let frame = 262 * 341;
        [240 * 341, 241 * 341 + 1, 261 * 341 + 1]
            .iter()
            .map(|&target| {
                let mut distance = (target + frame - here) % frame;
                if distance == 0 {
                    distance = frame;
                }
                // Crossing the end of the pre-render line may skip a dot.
                if here + distance > frame {
                    distance -= 1;
                }
                distance
            })
            .min()
            .unwrap_or(1)
            .max(1)
    }

    /// Dot 1 of the pre-render line: VBL, sprite 0 hit and overflow clear.
    #[inline(always)]
    pub(super) fn clear_status_flags(&mut self) {
        self.vblank = false;
        self.sprite0_hit = false;
        self.sprite_overflow = false;
    }

    /// The overflow flag, found by the evaluation's read of OAM on dot
    /// `read_dot`: it reaches $2002 on dot `read_dot + 2` (see
    /// [`Ppu::visible_sprite_flags`]). A flag already set keeps its dot.
    #[cold]
    pub(super) fn set_sprite_overflow(&mut self, read_dot: u16) {
        if !self.sprite_overflow {
            self.sprite_overflow = true;
            self.sprite_overflow_from = frame_position(self.scanline, read_dot + 2);
        }
    }

    /// Bits 6 and 5 of $2002 (sprite 0 hit, overflow) as they are after
    /// the current dot, the PPU being caught up to it.
    ///
    /// The dots on which the flags change as $2002 sees them (a read takes
    /// these bits a dot after VBL, `Bus::status_sprite_bits_late`: the
    /// console takes VBL when M2 rises and these when it falls, ~1.9 dots
    /// later):
    ///
    /// - all three clear on dot 1 of the pre-render line, with VBL (NESdev
    ///   wiki "PPU registers");
    /// - the hit of pixel x comes on dot x + 2 (wiki "PPU rendering": sprite
    ///   0 hit acts as if the image starts on dot 2, where the shifters first
    ///   shift); this PPU draws pixel x on dot x + 1;
    /// - the overflow comes on the second dot after the OAM read that finds
    ///   the ninth sprite in range.
    ///
    /// AccuracyCoin's "$2002 flag timing", timed on the console, measures
    /// the last two against the clear, one read per frame, each a dot later
    /// than the last: the first read to see the overflow of a read on dot
    /// 129 comes 130 dots after the first read to see the clear, on every
    /// CPU/PPU clock alignment, so its dot is 131 as the clear's is 1; the
    /// first to see the hit of x = 128 comes 129 dots after it on alignments
    /// 2 and 3 and 130 on 0 and 1. Dot x + 2 gives the first answer.
    pub(super) fn visible_sprite_flags(&self) -> u8 {
        let here = frame_position(self.scanline, self.dot);
        let hit = self.sprite0_hit && here >= self.sprite0_hit_from;
        let overflow = self.sprite_overflow && here >= self.sprite_overflow_from;
        (hit as u8) << 6 | (overflow as u8) << 5
    }

    /// Forces the next dot through the slow path (after a register write
    /// that may change what the PPU does, e.g. enabling rendering).
    #[inline(always)]
    pub(super) fn reschedule(&mut self) {
        self.next_event = self.dot + 1;
    }

    #[inline(never)]
    fn tick_event(&mut self, cart: &mut Cartridge) {
        if self.dot >= 340 {
            self.maybe_end_scanline();
        }
        if self.scanline < 240 {
            self.visible_dot(cart);
        } else if self.scanline == VBLANK_LINE {
            if self.dot == 1 {
                if !self.suppress_vblank {
                    self.vblank = true;
                }
                self.suppress_vblank = false;
            }
        } else if self.scanline == PRE_RENDER_LINE {
            self.pre_render_dot(cart);
        }
        self.next_event = self.compute_next_event();
    }

    /// The next dot of this line at which `tick_event` has work (or must
    /// check the line end).
    fn compute_next_event(&self) -> u16 {
        let dot = self.dot;
        let line = self.scanline;
        if self.exact_ticking && (line < 240 || line == PRE_RENDER_LINE) {
            return dot + 1;
        }
        if (line < 240 || line == PRE_RENDER_LINE) && self.rendering_enabled() {
            if line == PRE_RENDER_LINE && (279..304).contains(&dot) {
                return dot + 1;
            }
            RENDER_EVENTS.0[dot as usize]
        } else if line < 240 {
            if dot < 256 {
                256
            } else {
                340
            }
        } else if (line == VBLANK_LINE || line == PRE_RENDER_LINE) && dot < 1 {
            1
        } else {
            340
        }
    }

    /// Handles dots 340 and 341: the line wrap, and the odd-frame skip that
    /// goes from dot 339 of the pre-render line straight to (0, 0).
    #[cold]
    fn maybe_end_scanline(&mut self) {
        let skip = self.dot == 340 && self.skip_dot;
        if skip {
            self.shift_line0_sprites();
        }
        if self.dot == DOTS_PER_SCANLINE || skip {
            self.skip_dot = false;
            self.dot = 0;
            self.rendered_x = 0;
            self.scanline += 1;
            if self.scanline == 240 {
                self.frame += 1;
                self.frame_complete = true;
            } else if self.scanline == SCANLINES_PER_FRAME {
                self.scanline = 0;
                self.odd_frame = !self.odd_frame;
            } else if self.scanline == PRE_RENDER_LINE
                && self.oam_corrupt_row != 0
                && self.rendering_enabled()
            {
                // Rendering was switched back on outside the rendering
                // lines: the pending corruption lands on the first dot of
                // the pre-render line.
                self.corrupt_oam_row();
            }
            if self.exact_ticking {
                self.stale_line_end();
            }
        }
    }

    #[inline(always)]
    fn visible_dot(&mut self, cart: &mut Cartridge) {
        let dot = self.dot;
        if self.exact_ticking {
            self.stale_visible_dot(cart);
            return;
        }
        if dot == 256 {
            self.flush_pixels();
        }
        if !self.rendering_enabled() {
            return;
        }
        self.visible_fetch_dot(dot, cart);
    }

    /// [`Ppu::visible_dot`] with the exact model ticking (see `stale.rs`).
    #[cold]
    #[inline(never)]
    fn stale_visible_dot(&mut self, cart: &mut Cartridge) {
        self.stale_pixel_dot();
        if self.dot == 256 {
            self.flush_pixels();
        }
        if self.rendering_enabled() {
            self.visible_fetch_dot(self.dot, cart);
        }
        self.stale_late_dot();
    }

    /// The fetch and evaluation work of a visible line's dot, rendering on.
    #[inline(always)]
    fn visible_fetch_dot(&mut self, dot: u16, cart: &mut Cartridge) {
        match dot {
            1..=256 => {
                if dot & 1 == 1 || dot & 7 == 0 {
                    self.background_fetch(dot, (dot >> 3) as usize + 2, cart);
                }
                if dot == 1 {
                    self.clear_secondary_oam();
                } else if dot == 256 {
                    self.finish_sprite_evaluation();
                    self.increment_y();
                }
            }
            257..=320 => self.sprite_fetch_dot(dot, cart),
            321..=336 => self.background_fetch(dot, ((dot - 321) >> 3) as usize, cart),
            337 | 339 => self.dummy_nametable_fetch(cart),
            _ => {}
        }
    }

    #[inline(always)]
    fn pre_render_dot(&mut self, cart: &mut Cartridge) {
        let dot = self.dot;
        if dot == 338 {
            // The skip is decided on entering dot 338, one dot before the
            // fetch it shortens: a $2001 write that lands any later is too
            // late to cause or cancel it. Calibrated with blargg's
            // hardware-verified 10-even_odd_timing (337 skips too soon, 339
            // too late).
            self.skip_dot = self.odd_frame && self.rendering_enabled();
        }
        if dot == 1 {
            self.clear_status_flags();
        }
        let exact = self.exact_ticking;
        if exact {
            self.stale_pixel_dot();
        }
        if self.rendering_enabled() {
            self.pre_render_fetch_dot(dot, cart);
        }
        if exact {
            self.stale_late_dot();
        }
    }

    /// The fetch work of a pre-render line's dot, rendering on.
    #[inline(always)]
    fn pre_render_fetch_dot(&mut self, dot: u16, cart: &mut Cartridge) {
        match dot {
            1..=256 => {
                if dot & 1 == 1 || dot & 7 == 0 {
                    self.background_fetch(dot, (dot >> 3) as usize + 2, cart);
                }
                if dot == 256 {
                    // No evaluation on the pre-render line: its fetches use
                    // what secondary OAM still holds (see `sprite_fetch_dot`).
                    self.increment_y();
                }
            }
            257..=320 => {
                self.sprite_fetch_dot(dot, cart);
                if (280..=304).contains(&dot) {
                    self.copy_vertical();
                }
            }
            321..=336 => self.background_fetch(dot, ((dot - 321) >> 3) as usize, cart),
            337 | 339 => self.dummy_nametable_fetch(cart),
            _ => {}
        }
    }
}

/// Where a sprite 0 hit at pixel `x` of `scanline` reaches $2002: dot
/// x + 2, a dot after this PPU draws the pixel (see
/// [`Ppu::visible_sprite_flags`]).
#[inline(always)]
fn sprite0_hit_visible_from(scanline: u16, x: u16) -> u32 {
    frame_position(scanline, x + 2)
}

/// A dot's position in the frame, for ordering events of one frame.
#[inline(always)]
fn frame_position(scanline: u16, dot: u16) -> u32 {
    scanline as u32 * DOTS_PER_SCANLINE as u32 + dot as u32
}
