//! Option types the subcommands share, as clap value parsers over the
//! library crates' own types, so that a choice has one definition: the
//! engine (`emu::nes::Engine`), the sampling trigger and its spacing
//! (`emu::sampling::{Trigger, Spacing}`), the hot-CFG builder
//! (`gfc::BuilderKind`) and the overlay's view
//! (`play::overlay::PanelView`). `--help` lists their values.

use clap::builder::{PossibleValuesParser, TypedValueParser};
use emu::nes::Engine;
use emu::sampling::{Spacing, Trigger};
use gfc::BuilderKind;

/// A parser accepting exactly the names of `all`.
fn choice<T>(all: &'static [T], name: fn(T) -> &'static str) -> impl TypedValueParser<Value = T>
where
    T: Copy + Send + Sync + 'static,
{
    PossibleValuesParser::new(all.iter().map(|&t| name(t))).map(move |s| {
        // The possible-values check ran first, so one of them matches.
        all.iter()
            .copied()
            .find(|&t| name(t) == s)
            .unwrap_or(all[0])
    })
}

/// `--engine interp|translate`.
pub fn engine() -> impl TypedValueParser<Value = Engine> {
    choice(&Engine::ALL, Engine::name)
}

/// `--trigger wall|emulated`.
pub fn trigger() -> impl TypedValueParser<Value = Trigger> {
    choice(&Trigger::ALL, Trigger::name)
}

/// `--spacing uniform|periodic`.
pub fn spacing() -> impl TypedValueParser<Value = Spacing> {
    choice(&Spacing::ALL, Spacing::name)
}

/// `--overlay-view graph|memory`.
pub fn overlay_view() -> impl TypedValueParser<Value = crate::play::overlay::PanelView> {
    use crate::play::overlay::PanelView;
    choice(&PanelView::ALL, PanelView::name)
}

/// `--builder gfc|trace`.
pub fn builder() -> impl TypedValueParser<Value = BuilderKind> {
    choice(&BuilderKind::ALL, BuilderKind::name)
}

/// A whole-number option in `min..=max`; anything else is refused at parse
/// time with one line naming the range (clap adds the option's name).
pub fn whole(min: u64, max: u64) -> impl TypedValueParser<Value = u64> {
    move |text: &str| -> Result<u64, String> {
        match text.trim().parse::<u64>() {
            Ok(v) if (min..=max).contains(&v) => Ok(v),
            _ => Err(format!("must be a whole number from {min} to {max}")),
        }
    }
}

/// A real-number option, finite and in `min..=max` (above `min` when
/// `min_excluded`): NaN, infinities and out-of-range values are refused, so
/// no later arithmetic on them can overflow or run forever.
pub fn real(min: f64, max: f64, min_excluded: bool) -> impl TypedValueParser<Value = f64> {
    move |text: &str| -> Result<f64, String> {
        let ok =
            |v: f64| v.is_finite() && v <= max && if min_excluded { v > min } else { v >= min };
        match text.trim().parse::<f64>() {
            Ok(v) if ok(v) => Ok(v),
            _ if min_excluded => Err(format!("must be a number above {min} and at most {max}")),
            _ => Err(format!("must be a number from {min} to {max}")),
        }
    }
}

/// `--frames`: 1 to 100 million frames (about 19 days of emulated time).
pub const MAX_FRAMES: u64 = 100_000_000;
/// `--frames N`.
pub fn frames() -> impl TypedValueParser<Value = u64> {
    whole(1, MAX_FRAMES)
}

/// `--minutes`: above 0, at most 27 000 (18.75 days; the frame count it
/// gives, at 60.0988 frames a second, stays within [`MAX_FRAMES`]).
pub const MAX_MINUTES: f64 = 27_000.0;
/// `--minutes M`.
pub fn minutes() -> impl TypedValueParser<Value = f64> {
    real(0.0, MAX_MINUTES, true)
}

/// `--interval-ms`: from 0.01 ms (about 18 CPU cycles) to one minute.
pub fn interval_ms() -> impl TypedValueParser<Value = f64> {
    real(0.01, 60_000.0, false)
}

/// `--jitter-ms`: from 0 to one minute.
pub fn jitter_ms() -> impl TypedValueParser<Value = f64> {
    real(0.0, 60_000.0, false)
}

/// `--batch`: 1 to 10 000 instructions (the sampler reserves room for 64
/// batches of twice this many records, so this bounds it to tens of MB).
pub fn batch() -> impl TypedValueParser<Value = usize> {
    whole(1, 10_000).map(|v| v as usize)
}

/// `--jobs`: 1 to 256 worker threads.
pub fn jobs() -> impl TypedValueParser<Value = usize> {
    whole(1, 256).map(|v| v as usize)
}

/// `--memory-lifetime N`: 1 to 10^12 instructions (`profile` and `play`
/// take the same range).
pub fn memory_lifetime() -> clap::builder::RangedU64ValueParser<u64> {
    clap::value_parser!(u64).range(1..=1_000_000_000_000)
}

/// `--memory-bursts ON/PERIOD[/WARMUP]`: record ON consecutive frames of
/// every PERIOD (1 <= ON <= PERIOD <= 100000), following the last writers
/// in the WARMUP frames before each burst (WARMUP <= PERIOD - ON; without
/// it, in every frame between bursts).
pub fn bursts() -> impl TypedValueParser<Value = (u32, u32, Option<u32>)> {
    parse_bursts
}

/// `--truth-bursts ON/PERIOD`: record the truth in ON consecutive frames
/// of every PERIOD (as [`bursts`], without a warm-up).
pub fn truth_bursts() -> impl TypedValueParser<Value = (u32, u32)> {
    |text: &str| -> Result<(u32, u32), String> {
        match parse_bursts(text) {
            Ok((on, period, None)) => Ok((on, period)),
            _ => Err("must be ON/PERIOD in frames, 1 <= ON <= PERIOD <= 100000 (e.g. 1/30)".into()),
        }
    }
}

/// The text of [`bursts`], parsed.
pub fn parse_bursts(text: &str) -> Result<(u32, u32, Option<u32>), String> {
    {
        const MAX: u32 = 100_000;
        let bad = || {
            format!(
                "must be ON/PERIOD or ON/PERIOD/WARMUP in frames, 1 <= ON <= PERIOD <= {MAX}, \
                 WARMUP <= PERIOD - ON (e.g. 1/30 or 3/90/10)"
            )
        };
        let parts = text
            .trim()
            .split('/')
            .map(|p| p.trim().parse::<u32>().map_err(|_| bad()))
            .collect::<Result<Vec<u32>, String>>()?;
        let (on, period, warmup) = match parts[..] {
            [on, period] => (on, period, None),
            [on, period, warmup] => (on, period, Some(warmup)),
            _ => return Err(bad()),
        };
        if on == 0 || on > period || period > MAX || warmup.is_some_and(|w| w > period - on) {
            return Err(bad());
        }
        Ok((on, period, warmup))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser, Debug)]
    struct Args {
        #[arg(long, value_parser = frames())]
        frames: Option<u64>,
        #[arg(long, value_parser = minutes())]
        minutes: Option<f64>,
        #[arg(long, value_parser = jitter_ms())]
        jitter_ms: Option<f64>,
    }

    fn parse(args: &[&str]) -> Result<Args, clap::Error> {
        Args::try_parse_from(std::iter::once("t").chain(args.iter().copied()))
    }

    #[test]
    fn numbers_in_range_are_accepted() {
        let a = parse(&["--frames", "60", "--minutes", "0.5", "--jitter-ms", "0"]).unwrap();
        assert_eq!(
            (a.frames, a.minutes, a.jitter_ms),
            (Some(60), Some(0.5), Some(0.0))
        );
    }

    #[test]
    fn bad_numbers_are_refused_naming_the_range() {
        for args in [
            ["--frames", "0"],
            ["--frames", "18446744073709551616"],
            ["--frames", "1.5"],
            ["--minutes", "inf"],
            ["--minutes", "nan"],
            ["--minutes", "0"],
            ["--minutes", "1e308"],
            ["--jitter-ms", "inf"],
            ["--jitter-ms", "60001"],
        ] {
            let e = parse(&args).expect_err(&format!("{args:?} accepted"));
            let text = e.to_string();
            assert!(text.contains(args[0]), "{args:?}: {text}");
            assert!(text.contains("must be a"), "{args:?}: {text}");
        }
    }
}
