//! Verdicts for blargg's `dmc_tests` (buffer_retained, latency, status,
//! status_irq). They draw nothing and print nothing: each sets the DMC's
//! output level with $4011, plays a 17-byte sample of $55 at rate 0
//! ($4010 = $00 or $80, $4012 = $81, $4013 = $01) in a way that exercises
//! one corner of the DMC, and ends with a square-wave beep. What they test
//! is heard, so we listen: the verdict is read from the DMC's output level,
//! stepped one instruction at a time, and checked against the DMC as the
//! NESdev wiki's "APU DMC" page documents it. Nothing here is measured from
//! our own output; every number follows from that page and the ROM's code.
//!
//! The documented facts the checks rest on:
//! - The output unit's timer runs all the time (period 428 CPU cycles at
//!   rate 0, NTSC) and is never reset by $4010-$4015 writes, so every level
//!   change that the timer makes falls on one 428-cycle grid, across the
//!   whole run.
//! - Each timer clock applies one bit of the shift register (+2 for 1, -2
//!   for 0; $55 alternates them); after the 8th bit a new output cycle
//!   starts, taking the sample buffer's byte (or going silent if it is
//!   empty), and the emptied buffer asks for the next byte at once.
//! - Clearing $4015 bit 4 sets the bytes remaining to 0 but keeps the byte
//!   already in the buffer: it still plays.
//! - $4015 bit 4 reads 0, and the IRQ (when enabled) rises, when the last
//!   byte is *fetched*, which is when the byte before it starts to play.
//!
//! What each ROM should give, from those facts and its code:
//! - `buffer_retained` enables the DMC and disables it 6 cycles later: the
//!   first byte was fetched in between, so exactly 8 timer changes.
//! - `status` polls $4015 until bit 4 clears, then writes level 0: the 17th
//!   byte is fetched as the 16th starts, so 15 × 8 = 120 timer changes come
//!   before the write and the last two bytes' 16 after it.
//! - `status_irq`: the same, with the level-0 write in the DMC IRQ handler.
//! - `latency` enables the DMC four times, each for ~3950 cycles: how many
//!   bytes each burst plays (2 or 3) depends on how soon after the enable
//!   the next output cycle begins (see [`latency`]).

use std::path::Path;

use emu::nes::Engine;
use emu::Nes;

/// DMC timer period at rate 0 (NTSC), in CPU cycles.
const PERIOD: u64 = 428;
/// How far after the timer clock the change can be seen: the longest
/// instruction (7 cycles) plus a DMA stall (4).
const SLACK: u64 = 12;
/// Longer than any of the four ROMs needs to reach its final beep (~150 000
/// cycles).
const RUN_CYCLES: u64 = 600_000;

/// Which of the four ROMs `rom` is, if it is one.
fn which(rom: &Path) -> Option<&'static str> {
    let parent = rom.parent()?.file_name()?.to_str()?;
    if parent != "dmc_tests" {
        return None;
    }
    let name = rom.file_stem()?.to_str()?;
    ["buffer_retained", "latency", "status", "status_irq"]
        .into_iter()
        .find(|n| *n == name)
}

/// One change of the DMC's output level.
#[derive(Debug, Clone, Copy)]
struct Change {
    /// CPU cycle at the end of the instruction that saw it.
    cycle: u64,
    level: u8,
    /// Made by a `STA $4011` rather than by the timer.
    written: bool,
}

/// Runs `nes` from power-on on the interpreter, one instruction at a time,
/// and lists the DMC level changes.
fn trace(nes: &mut Nes) -> Vec<Change> {
    nes.set_engine(Engine::Interpreter);
    let mut changes = Vec::new();
    let mut level = nes.apu().dmc_level();
    while nes.cycles() < RUN_CYCLES && nes.jammed().is_none() {
        let pc = nes.pc();
        let writes_dac = [
            nes.peek(pc),
            nes.peek(pc.wrapping_add(1)),
            nes.peek(pc.wrapping_add(2)),
        ] == [0x8D, 0x11, 0x40];
        nes.step();
        let now = nes.apu().dmc_level();
        if now != level {
            changes.push(Change {
                cycle: nes.cycles(),
                level: now,
                written: writes_dac && now == nes.cpu_state().a & 0x7F,
            });
            level = now;
        }
    }
    changes
}

/// Whether the timer's changes all lie on one `PERIOD` grid and each moves
/// the level by 2.
fn on_one_grid(changes: &[Change]) -> Result<(), String> {
    let mut previous_level = 0u8;
    let mut first: Option<u64> = None;
    for c in changes {
        if !c.written {
            if previous_level.abs_diff(c.level) != 2 {
                return Err(format!(
                    "the timer moved the level {previous_level} -> {} at cycle {} (steps are 2)",
                    c.level, c.cycle
                ));
            }
            // The grid's phase is known to within SLACK from the first
            // change; each later one must sit within SLACK of it.
            let phase = *first.get_or_insert(c.cycle);
            let offset = (c.cycle - phase) % PERIOD;
            if offset > SLACK && offset < PERIOD - SLACK {
                return Err(format!(
                    "a timer change at cycle {} is {offset} cycles off the 428-cycle grid \
                     (the DMC timer is never reset)",
                    c.cycle
                ));
            }
        }
        previous_level = c.level;
    }
    Ok(())
}

/// Cycles from a `STA $4011` that ends at cycle `c` to the end of the
/// `STA $4015` after it (`LDA #imm`, 2, then the store's 4).
const TO_4015_WRITE: u64 = 6;
/// One output cycle (8 timer clocks) at rate 0.
const OUTPUT_CYCLE: u64 = 8 * PERIOD;

/// `latency` runs four bursts, each opened by writing level $24 and then
/// enabling the DMC, and closed by writing level $20 and then disabling it.
/// The first byte starts at the output unit's next cycle boundary `b0`
/// after the enable, which depends on the free-running timer's phase (the
/// latency the ROM makes audible): it is heard one timer clock later, so
/// `b0` lies within one output cycle of the enable. Every boundary before
/// the disable empties the buffer and fetches one more byte, and the byte
/// in the buffer at the disable is kept and played: a burst plays
/// 2 + #{k ≥ 1 : b0 + k·3424 < disable} bytes. Returns those counts.
fn latency(changes: &[Change]) -> Result<Vec<usize>, String> {
    let starts: Vec<usize> = (0..changes.len())
        .filter(|&i| changes[i].written && changes[i].level == 0x24)
        .collect();
    if starts.len() != 4 {
        return Err(format!("expected 4 bursts, heard {}", starts.len()));
    }
    let mut played = Vec::new();
    for (n, &start) in starts.iter().enumerate() {
        let end = starts.get(n + 1).copied().unwrap_or(changes.len());
        let burst = &changes[start..end];
        let enable = burst[0].cycle + TO_4015_WRITE;
        let timer: Vec<u64> = burst
            .iter()
            .filter(|c| !c.written)
            .map(|c| c.cycle)
            .collect();
        let Some(close) = burst.iter().find(|c| c.written && c.level == 0x20) else {
            return Err(format!("burst {}: no level-$20 write", n + 1));
        };
        let disable = close.cycle + TO_4015_WRITE;
        let Some(&first) = timer.first() else {
            return Err(format!("burst {}: nothing played", n + 1));
        };
        let latency = first - enable;
        if latency + SLACK < PERIOD || latency > OUTPUT_CYCLE + PERIOD + SLACK {
            return Err(format!(
                "burst {}: first step {latency} cycles after the enable (the next output \
                 cycle starts within 3424 and is heard 428 later)",
                n + 1
            ));
        }
        let b0 = first - PERIOD;
        let boundaries = |slack: i64| {
            (1..8u64)
                .filter(|k| ((b0 + k * OUTPUT_CYCLE) as i64 + slack) < disable as i64)
                .count()
        };
        // A boundary within the slack of the disable could fall either side.
        let (least, most) = (
            2 + boundaries(SLACK as i64),
            2 + boundaries(-(SLACK as i64)),
        );
        let bytes = timer.len() / 8;
        if !timer.len().is_multiple_of(8) || bytes < least || bytes > most {
            return Err(format!(
                "burst {}: {} steps; expected {} bytes (8 steps each)",
                n + 1,
                timer.len(),
                if least == most {
                    least.to_string()
                } else {
                    format!("{least}-{most}")
                }
            ));
        }
        played.push(bytes);
    }
    Ok(played)
}

/// The verdict and a one-line account of what was heard.
pub fn verdict(rom: &Path, nes: &mut Nes) -> Option<(bool, String)> {
    let name = which(rom)?;
    let changes = trace(nes);
    let timer: Vec<&Change> = changes.iter().filter(|c| !c.written).collect();
    let writes: Vec<&Change> = changes.iter().filter(|c| c.written).collect();
    let heard = format!(
        "{} timer steps of the DMC level, {} $4011 writes",
        timer.len(),
        writes.len()
    );
    if let Err(e) = on_one_grid(&changes) {
        return Some((false, format!("{heard}: {e}")));
    }
    let check = |ok: bool, expected: &str| {
        if ok {
            (true, format!("{heard}, as documented: {expected}"))
        } else {
            (false, format!("{heard}; expected {expected}"))
        }
    };
    Some(match name {
        "buffer_retained" => check(
            timer.len() == 8,
            "8 steps (the byte fetched before the disable still plays)",
        ),
        "latency" => match latency(&changes) {
            Ok(bytes) => (
                true,
                format!("{heard}, as documented: bytes played per enable {bytes:?}"),
            ),
            Err(e) => (false, format!("{heard}: {e}")),
        },
        _ => {
            // status, status_irq: the level-0 write splits the sample.
            let zero = changes.iter().find(|c| c.written && c.level == 0);
            let before = zero.map_or(timer.len(), |z| {
                timer.iter().filter(|c| c.cycle < z.cycle).count()
            });
            check(
                zero.is_some() && before == 120 && timer.len() == 136,
                "120 steps before the level-0 write (bit 4 of $4015 / the IRQ at the 17th \
                 byte's fetch) and 136 in all (17 bytes)",
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(cycle: u64, level: u8) -> Change {
        Change {
            cycle,
            level,
            written: true,
        }
    }

    /// `bytes` bytes of $55 from level `from`, the first step at `first`.
    fn play(first: u64, from: u8, bytes: usize) -> Vec<Change> {
        (0..bytes as u64 * 8)
            .map(|i| Change {
                cycle: first + i * PERIOD,
                level: if i % 2 == 0 { from + 2 } else { from },
                written: false,
            })
            .collect()
    }

    #[test]
    fn timer_steps_off_the_grid_fail() {
        let mut changes = vec![write(10, 0x20)];
        changes.extend(play(1000, 0x20, 1));
        assert!(on_one_grid(&changes).is_ok());
        changes.push(write(5000, 0x20));
        changes.extend(play(5000 + 200, 0x20, 1));
        assert!(on_one_grid(&changes)
            .unwrap_err()
            .contains("off the 428-cycle grid"));
    }

    /// A burst whose first output cycle begins soon after the enable has a
    /// second boundary before the disable, so it must play 3 bytes.
    #[test]
    fn latency_counts_the_bytes_the_phase_allows() {
        let burst = |enable_write: u64, first: u64, bytes: usize| {
            let mut b = vec![write(enable_write, 0x24)];
            b.extend(play(first, 0x24, bytes));
            b.push(write(enable_write + 3970, 0x20));
            b.sort_by_key(|c| c.cycle);
            b
        };
        let late = |start: u64| burst(start, start + 6 + 3000 + PERIOD, 2);
        let mut changes = Vec::new();
        for k in 0..3 {
            changes.extend(late(k * 12_000));
        }
        // Early: the first boundary 200 cycles after the enable.
        changes.extend(burst(36_000, 36_000 + 6 + 200 + PERIOD, 3));
        assert_eq!(latency(&changes).unwrap(), vec![2, 2, 2, 3]);
        let mut short = changes.clone();
        let cut = short.len() - 2;
        short.drain(cut - 8..cut);
        assert!(latency(&short).unwrap_err().contains("expected 3 bytes"));
    }
}
