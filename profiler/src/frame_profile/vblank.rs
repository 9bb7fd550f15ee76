//! The vblank a frame begins with, and whether the NMI handler finished
//! inside it.
//!
//! A frame (DESIGN.md) ends when the PPU completes visible scanline 239,
//! so the next one starts at scanline 240, dot 0. The PPU sets the vblank
//! flag (and raises the NMI) at scanline 241, dot 1: 341 + 1 = 342 dots,
//! 114 CPU cycles (3 dots a cycle) after the frame's start. Rendering
//! starts again with the pre-render scanline 261, dot 0: 21 × 341 = 7 161
//! dots, 2 387 cycles after the start. So vblank is the frame's cycles
//! [114, 2387) — 2 273 cycles, as NESdev's "PPU frame timing" counts NTSC
//! vblank (20 scanlines × 341 / 3 = 2 273⅓). Both offsets are whole
//! cycles; what is not is the frame's start, which the CPU sees at its own
//! cycle boundary: the PPU's dot 0 falls up to 2 dots before it, and the
//! odd-frame skip at dot 339 of line 261 moves the phase by one dot every
//! other frame. The window is therefore exact to within one CPU cycle,
//! measured from the frame's start stamp (the cycle at which the engine
//! saw the frame end). NESdev: "PPU rendering", "NMI".
//!
//! The first frame after power-on starts at scanline 0, not 240, and has
//! no vblank at its start; nor does the first frame of a window that
//! starts mid-frame: theirs is unknown.

/// CPU cycles from a frame's start to the vblank flag (scanline 241, dot 1).
pub const VBLANK_START_CYCLES: u64 = 342 / 3;

/// CPU cycles from a frame's start to the pre-render scanline (261, dot 0).
pub const VBLANK_END_CYCLES: u64 = 21 * 341 / 3;

/// The vblank's length in CPU cycles (2 273).
pub const VBLANK_CYCLES: u64 = VBLANK_END_CYCLES - VBLANK_START_CYCLES;

/// How a frame's NMI handler used the vblank at the frame's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vblank {
    /// An NMI handler was still running when rendering started again.
    pub overrun: bool,
    /// Vblank cycles during which an NMI handler was running.
    pub cycles_used: u64,
    /// Vblank cycles after the NMI handler (the last one running in the
    /// vblank) returned: 0 on an overrun, all of them when none ran.
    pub cycles_left: u64,
}

/// Follows one frame's vblank as the NMI handler's running time comes in.
#[derive(Debug, Clone, Copy)]
pub struct VblankWatch {
    start: u64,
    end: u64,
    used: u64,
    /// The latest end of an NMI interval inside the vblank.
    last_end: Option<u64>,
    overrun: bool,
}

impl VblankWatch {
    /// The vblank of the frame that starts at CPU cycle `frame_start`.
    pub fn new(frame_start: u64) -> VblankWatch {
        VblankWatch {
            start: frame_start + VBLANK_START_CYCLES,
            end: frame_start + VBLANK_END_CYCLES,
            used: 0,
            last_end: None,
            overrun: false,
        }
    }

    /// An NMI handler was running over the cycles `[from, to)`.
    pub fn nmi_running(&mut self, from: u64, to: u64) {
        let (a, b) = (from.max(self.start), to.min(self.end));
        if a < b {
            self.used += b - a;
        }
        if from <= self.end && self.end < to {
            self.overrun = true;
        }
        if self.start < to && to <= self.end {
            self.last_end = Some(self.last_end.map_or(to, |e| e.max(to)));
        }
    }

    /// The frame ended at `frame_end`: `None` if its vblank had not ended
    /// by then (a frame cut short: never in a run).
    pub fn finish(self, frame_end: u64) -> Option<Vblank> {
        if frame_end <= self.end {
            return None;
        }
        let cycles_left = if self.overrun {
            0
        } else {
            self.end - self.last_end.unwrap_or(self.start).max(self.start)
        };
        Some(Vblank {
            overrun: self.overrun,
            cycles_used: self.used,
            cycles_left,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_is_2273_cycles_after_114() {
        assert_eq!(VBLANK_START_CYCLES, 114);
        assert_eq!(VBLANK_END_CYCLES, 2387);
        assert_eq!(VBLANK_CYCLES, 2273);
    }

    #[test]
    fn a_handler_that_returns_in_time_leaves_the_rest() {
        let mut w = VblankWatch::new(1000);
        // NMI entered 7 cycles into vblank, in pieces, returning at +1500.
        w.nmi_running(1000 + 121, 1000 + 800);
        w.nmi_running(1000 + 800, 1000 + 1500);
        let v = w.finish(30_000).unwrap();
        assert!(!v.overrun);
        assert_eq!(v.cycles_used, 1500 - 121);
        assert_eq!(v.cycles_left, 2387 - 1500);
    }

    #[test]
    fn a_handler_running_at_the_pre_render_line_overruns() {
        let mut w = VblankWatch::new(0);
        w.nmi_running(120, 2387);
        // Returning exactly when rendering starts is in time.
        let v = w.finish(29_781).unwrap();
        assert!(!v.overrun);
        assert_eq!(v.cycles_left, 0);
        let mut w = VblankWatch::new(0);
        w.nmi_running(120, 2000);
        w.nmi_running(2000, 2388);
        let v = w.finish(29_781).unwrap();
        assert!(v.overrun);
        assert_eq!((v.cycles_used, v.cycles_left), (2387 - 120, 0));
    }

    #[test]
    fn no_handler_leaves_all_and_a_short_frame_has_none() {
        let w = VblankWatch::new(500);
        let v = w.finish(40_000).unwrap();
        assert_eq!((v.overrun, v.cycles_used, v.cycles_left), (false, 0, 2273));
        // A handler before the vblank (the previous frame's) uses none.
        let mut w = VblankWatch::new(500);
        w.nmi_running(500, 600);
        assert_eq!(w.finish(40_000).unwrap().cycles_left, 2273);
        assert!(VblankWatch::new(0).finish(2387).is_none());
    }
}
