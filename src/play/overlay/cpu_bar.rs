//! The overlay's per-frame CPU bar: where the last frame's cycles went
//! (busy, NMI, IRQ, DMA, idle) against the 29,780-cycle budget, and a lag
//! mark when the game read no controller in it. Exact: the engines' event
//! log is drained every frame into the frame-time accounting
//! (`profiler::frame_profile`), on the UI thread (a frame's events take
//! microseconds to account for).

use emu::frame_events::FlowEvent;
use emu::Nes;
use profiler::frame_profile::report::FRAME_BUDGET;
use profiler::frame_profile::routines;
use profiler::frame_profile::rows::FrameRow;
use profiler::frame_profile::{FrameProfile, Routines, Start};

use super::canvas::Canvas;
use super::text;

const BUSY: u32 = 0xe0_8a_2c;
const NMI: u32 = 0x3c_5a_c8;
const IRQ: u32 = 0x2a_a1_98;
const DMA: u32 = 0x77_77_77;
const IDLE: u32 = 0x2c_30_3c;
const LAG: u32 = 0xff_40_40;
const LABEL: u32 = 0xd8_dc_e4;

/// The accounting and its last frame.
pub struct CpuBar {
    profile: FrameProfile,
    events: Vec<FlowEvent>,
    last: Option<FrameRow>,
    /// Where the last frame accounted for ended.
    end: u64,
}

impl CpuBar {
    /// Starts the event log on `nes` and the accounting from now.
    pub fn attach(nes: &mut Nes) -> CpuBar {
        nes.record_events();
        let reset = routines::vector_target(nes, 0xFFFC);
        let routines = Routines::new(nes.cartridge().prg_rom.len(), reset);
        let start = if nes.frame_count() <= 1 {
            Start::PowerOn
        } else {
            Start::FrameStart
        };
        CpuBar {
            profile: FrameProfile::new(routines, nes.stamp(), start),
            events: Vec::new(),
            last: None,
            end: nes.cycles(),
        }
    }

    /// After each frame (again at the same place: nothing).
    pub fn after_frame(&mut self, nes: &mut Nes) {
        let end = nes.stamp();
        if end.cycle == self.end {
            return;
        }
        self.end = end.cycle;
        nes.drain_events(&mut self.events);
        let frame = nes.frame_count().saturating_sub(1);
        self.last = Some(self.profile.frame(frame, &self.events, end));
    }

    /// The bar in `(x, y, w)`, one text line high, with its label.
    pub fn draw(&self, canvas: &mut Canvas, x: i32, y: i32, w: i32, scale: i32, line: &mut String) {
        use std::fmt::Write as _;
        let Some(row) = &self.last else { return };
        let Some(e) = &row.exact else { return };
        line.clear();
        let work = e.work();
        let _ = write!(line, "CPU {:>3}%", work * 100 / FRAME_BUDGET);
        if row.lag {
            line.push_str(" LAG");
        }
        let label_w = 9 * text::CELL * scale;
        text::draw(canvas, x, y, scale, if row.lag { LAG } else { LABEL }, line);
        let bar_x = x + label_w;
        let bar_w = (w - label_w).max(8);
        let h = (text::CELL * scale - scale).max(2);
        let budget = FRAME_BUDGET.max(row.cycles) as f64;
        let mut at = bar_x;
        for (cycles, colour) in [
            (e.busy, BUSY),
            (e.nmi, NMI),
            (e.irq, IRQ),
            (e.oam_dma + e.dmc_dma, DMA),
            (e.idle, IDLE),
        ] {
            let px = (cycles as f64 / budget * bar_w as f64).round() as i32;
            canvas.fill_rect(at, y, px.min(bar_x + bar_w - at), h, colour);
            at += px;
        }
        // The budget's end.
        canvas.fill_rect(
            bar_x + bar_w - 1,
            y - scale,
            1.max(scale / 2),
            h + 2 * scale,
            LABEL,
        );
    }
}
