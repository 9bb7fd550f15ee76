//! The input bot behind `nesprof movie gen`: deterministic (a seeded
//! xoshiro256++ from `rand`, plus the emulated picture, which is itself
//! determined by the inputs so far), so a seed always gives the same movie.
//!
//! It plays like an impatient child: held combinations of a d-pad direction
//! and A/B for a few frames to a second and a half, with short releases so
//! games that want a fresh press see one. Start is tapped twice, about a
//! fifth of a second apart, shortly after power-on and then every
//! `start_every` frames: the first tap gets through a title screen or a
//! game-over screen, and in games where Start pauses, the second tap
//! unpauses. When the picture stops changing (a static or blinking screen:
//! a title, a text box, a pause) it taps Start, then A, then Start, then B,
//! until something moves. Select is never pressed (it switches modes in
//! menus, e.g. two-player split screen).

use std::collections::VecDeque;

use emu::controller::buttons;
use emu::Nes;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

#[derive(Debug, Clone, Copy)]
pub struct BotSettings {
    pub seed: u64,
    /// Frames between scheduled Start double taps (0 = none).
    pub start_every: u64,
}

/// Frames of the last picture hashes kept to judge that the screen is idle.
const IDLE_WINDOW: usize = 90;
/// At most this many distinct pictures in the window counts as idle (a
/// blinking "PRESS START" alternates two).
const IDLE_DISTINCT: usize = 2;
/// Frames after power-on before the first input (the game boots).
const BOOT_FRAMES: u64 = 90;
const TAP_FRAMES: u64 = 4;
const DOUBLE_TAP_GAP: u64 = 12;

pub struct Bot {
    settings: BotSettings,
    rng: Xoshiro256PlusPlus,
    held: u8,
    hold_left: u32,
    /// Frames (and button) of pending taps, earliest first.
    taps: VecDeque<(u64, u8)>,
    next_scheduled_start: u64,
    recent: VecDeque<u64>,
    idle_taps: usize,
    quiet_until: u64,
}

impl Bot {
    pub fn new(settings: BotSettings) -> Bot {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(settings.seed);
        let first = BOOT_FRAMES + rng.random_range(0..60);
        Bot {
            settings,
            rng,
            held: 0,
            hold_left: 0,
            taps: VecDeque::new(),
            next_scheduled_start: first,
            recent: VecDeque::with_capacity(IDLE_WINDOW + 1),
            idle_taps: 0,
            quiet_until: 0,
        }
    }

    fn schedule_double_start(&mut self, at: u64) {
        let gap = DOUBLE_TAP_GAP + self.rng.random_range(0..8);
        self.taps.push_back((at, buttons::START));
        self.taps.push_back((at + gap, buttons::START));
    }

    /// The buttons to hold during the frame about to run.
    pub fn next_buttons(&mut self, nes: &Nes) -> u8 {
        let frame = nes.frame_count();
        self.recent.push_back(nes.frame_hash());
        if self.recent.len() > IDLE_WINDOW {
            self.recent.pop_front();
        }
        if frame < BOOT_FRAMES {
            return 0;
        }
        if frame >= self.next_scheduled_start && self.taps.is_empty() {
            self.schedule_double_start(frame);
            self.next_scheduled_start = if self.settings.start_every == 0 {
                u64::MAX
            } else {
                let jitter = self.settings.start_every / 4;
                frame + self.settings.start_every - jitter / 2 + self.rng.random_range(0..=jitter)
            };
        }
        if self.taps.is_empty() && frame >= self.quiet_until && self.idle() {
            let button =
                [buttons::START, buttons::A, buttons::START, buttons::B][self.idle_taps % 4];
            self.idle_taps += 1;
            self.taps.push_back((frame, button));
            // Give the game a moment to react before judging again.
            self.quiet_until = frame + IDLE_WINDOW as u64 / 2;
        } else if !self.idle() {
            self.idle_taps = 0;
        }
        if let Some(&(at, button)) = self.taps.front() {
            if frame >= at + TAP_FRAMES {
                self.taps.pop_front();
            } else if frame >= at {
                // Nothing else held, so the game sees a clean press.
                return button;
            } else if frame + 2 >= at {
                return 0;
            }
        }
        if self.hold_left == 0 {
            self.choose_hold();
        }
        self.hold_left -= 1;
        self.held
    }

    fn idle(&self) -> bool {
        if self.recent.len() < IDLE_WINDOW {
            return false;
        }
        let mut distinct: Vec<u64> = Vec::with_capacity(IDLE_DISTINCT + 1);
        for &h in &self.recent {
            if !distinct.contains(&h) {
                distinct.push(h);
                if distinct.len() > IDLE_DISTINCT {
                    return false;
                }
            }
        }
        true
    }

    fn choose_hold(&mut self) {
        let rng = &mut self.rng;
        // A short release between holds, so the next press is a new press.
        if self.held != 0 && rng.random_bool(0.3) {
            self.held = 0;
            self.hold_left = rng.random_range(1..=6);
            return;
        }
        const DIRECTIONS: [u8; 4] = [buttons::UP, buttons::DOWN, buttons::LEFT, buttons::RIGHT];
        let roll = rng.random_range(0..100);
        let mut held = if roll < 20 {
            0
        } else if roll < 90 {
            DIRECTIONS[rng.random_range(0..4)]
        } else {
            let vertical = [buttons::UP, buttons::DOWN][rng.random_range(0..2)];
            let horizontal = [buttons::LEFT, buttons::RIGHT][rng.random_range(0..2)];
            vertical | horizontal
        };
        if rng.random_bool(0.35) {
            held |= buttons::A;
        }
        if rng.random_bool(0.35) {
            held |= buttons::B;
        }
        self.held = held;
        let band = rng.random_range(0..100);
        self.hold_left = if band < 40 {
            rng.random_range(4..12)
        } else if band < 75 {
            rng.random_range(12..30)
        } else {
            rng.random_range(30..90)
        };
    }
}
