//! Frame pacing at the NES's 60.0988 Hz against an absolute schedule, so
//! sleep overshoot does not accumulate into drift.

use std::time::{Duration, Instant};

pub struct Pacer {
    period: Duration,
    next: Instant,
}

impl Pacer {
    pub fn new(hz: f64) -> Pacer {
        let period = Duration::from_secs_f64(1.0 / hz);
        Pacer {
            period,
            next: Instant::now() + period,
        }
    }

    /// Sleeps until the next frame is due; returns how far past due it
    /// already was (zero for a frame on time). If we fell more than a few
    /// frames behind (a stall, a debugger), the schedule restarts from now
    /// rather than racing to catch up.
    pub fn wait(&mut self) -> Duration {
        let now = Instant::now();
        let late = now.saturating_duration_since(self.next);
        if self.next > now {
            std::thread::sleep(self.next - now);
        } else if now - self.next > self.period * 4 {
            self.next = now;
        }
        self.next += self.period;
        late
    }

    /// Restarts the schedule (after a pause).
    pub fn reset(&mut self) {
        self.next = Instant::now() + self.period;
    }
}
