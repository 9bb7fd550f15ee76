//! `frames.csv` and `routines.csv`: a header row, then one row per frame
//! or routine, fields quoted as RFC 4180 says (a field holding a comma, a
//! double quote or a line break is put in double quotes, its quotes
//! doubled) after names are made printable (`emu::input_file::printable`:
//! control characters escaped, at most [`MAX_FIELD_BYTES`] bytes), so a
//! label with a comma or a newline stays one field of one row. Numbers are
//! written by Rust's formatter with fixed decimals, so equal rows give
//! equal bytes. Empty fields mean "not known": the side (exact or
//! sampled) that has no row, the vblank of a frame that has none, a
//! routine with no complete call.
//!
//! Columns: the exact ones when `Columns::exact`, the sampled ones
//! (prefixed `sampled_`) after them when `Columns::sampled`.

use std::borrow::Cow;

use emu::code_addr;

use super::rows::{Estimate, FrameRow, RoutineRow};

/// The longest field written, in bytes (a name is at most
/// `symbols::MAX_LABEL_CHARS` characters; a source adds a file name).
pub const MAX_FIELD_BYTES: usize = 1024;

/// Which sides' columns a file has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Columns {
    pub exact: bool,
    pub sampled: bool,
}

/// `text` as one CSV field (see the module doc).
pub fn field(text: &str) -> Cow<'_, str> {
    let text = emu::input_file::printable(text, MAX_FIELD_BYTES);
    if text.contains([',', '"', '\n', '\r']) {
        Cow::Owned(format!("\"{}\"", text.replace('"', "\"\"")))
    } else {
        Cow::Owned(text)
    }
}

const FRAME_EXACT: &[&str] = &[
    "busy",
    "idle",
    "nmi",
    "irq",
    "oam_dma",
    "dmc_dma",
    "lag",
    "nmi_handler_cycles",
    "vblank_overrun",
    "vblank_cycles_left",
    "top_routine",
    "top_routine_cycles",
];

const FRAME_SAMPLED: &[&str] = &[
    "sampled_batches",
    "sampled_busy",
    "sampled_busy_low",
    "sampled_busy_high",
    "sampled_idle",
    "sampled_idle_low",
    "sampled_idle_high",
    "sampled_nmi",
    "sampled_nmi_low",
    "sampled_nmi_high",
    "sampled_irq",
    "sampled_irq_low",
    "sampled_irq_high",
    "sampled_dma",
    "sampled_dma_low",
    "sampled_dma_high",
    "sampled_top_routine",
    "sampled_top_routine_cycles",
];

/// `frames.csv`'s header row (no line end): `frame,cycles`, then the
/// exact columns (`busy,idle,nmi,irq,oam_dma,dmc_dma,lag,
/// nmi_handler_cycles,vblank_overrun,vblank_cycles_left,top_routine,
/// top_routine_cycles`), then the sampled ones. Without the exact side
/// `lag` (known from the stamps alone) stands alone after `cycles`.
pub fn frames_header(columns: Columns) -> String {
    let mut names = vec!["frame", "cycles"];
    if columns.exact {
        names.extend(FRAME_EXACT);
    } else {
        names.push("lag");
    }
    if columns.sampled {
        names.extend(FRAME_SAMPLED);
    }
    names.join(",")
}

fn push_estimate(out: &mut Vec<String>, e: Option<Estimate>) {
    match e {
        Some(e) => out.extend([
            format!("{:.1}", e.value),
            format!("{:.1}", e.low),
            format!("{:.1}", e.high),
        ]),
        None => out.extend(std::iter::repeat_n(String::new(), 3)),
    }
}

fn routine_name(entry: Option<u32>, name: &dyn Fn(u32) -> String) -> String {
    match entry {
        Some(e) => field(&name(e)).into_owned(),
        None => "(no routine)".to_owned(),
    }
}

/// One row of `frames.csv` (no line end); `name` names a routine entry.
pub fn frames_line(row: &FrameRow, columns: Columns, name: &dyn Fn(u32) -> String) -> String {
    let mut out = vec![row.frame.to_string(), row.cycles.to_string()];
    let lag = (row.lag as u8).to_string();
    if columns.exact {
        match &row.exact {
            Some(e) => {
                out.extend(
                    [e.busy, e.idle, e.nmi, e.irq, e.oam_dma, e.dmc_dma].map(|n| n.to_string()),
                );
                out.push(lag);
                out.push(e.nmi_handler_cycles.to_string());
                match e.vblank {
                    Some(v) => {
                        out.push((v.overrun as u8).to_string());
                        out.push(v.cycles_left.to_string());
                    }
                    None => out.extend([String::new(), String::new()]),
                }
                match e.top_routine {
                    Some((entry, cycles)) => {
                        out.push(routine_name(Some(entry), name));
                        out.push(cycles.to_string());
                    }
                    None => out.extend([String::new(), String::new()]),
                }
            }
            None => {
                out.extend(std::iter::repeat_n(String::new(), 6));
                out.push(lag);
                out.extend(std::iter::repeat_n(String::new(), 5));
            }
        }
    } else {
        out.push(lag);
    }
    if columns.sampled {
        match &row.sampled {
            Some(s) => {
                out.push(s.batches.to_string());
                for e in [s.busy, s.idle, s.nmi, s.irq, s.dma] {
                    push_estimate(&mut out, Some(e));
                }
                match s.top_routine {
                    Some((entry, cycles)) => {
                        out.push(routine_name(entry, name));
                        out.push(format!("{cycles:.1}"));
                    }
                    None => out.extend([String::new(), String::new()]),
                }
            }
            None => out.extend(std::iter::repeat_n(String::new(), FRAME_SAMPLED.len())),
        }
    }
    out.join(",")
}

const ROUTINE_EXACT: &[&str] = &[
    "calls",
    "exclusive_cycles",
    "exclusive_pct_of_busy",
    "inclusive_cycles",
    "inclusive_pct",
    "avg_cycles_per_call",
    "min_cycles_per_call",
    "max_cycles_per_call",
    "frames",
    "median_cycles_per_frame",
    "p99_cycles_per_frame",
    "max_cycles_per_frame",
];

const ROUTINE_SAMPLED: &[&str] = &[
    "sampled_pct_of_busy",
    "sampled_pct_low",
    "sampled_pct_high",
    "sampled_cycles",
    "sampled_cycles_low",
    "sampled_cycles_high",
    "sampled_batches",
];

/// `routines.csv`'s header row (no line end): `routine,entry,source`,
/// then the exact columns (`calls,exclusive_cycles,
/// exclusive_pct_of_busy,inclusive_cycles,inclusive_pct,
/// avg_cycles_per_call,min_cycles_per_call,max_cycles_per_call,frames,
/// median_cycles_per_frame,p99_cycles_per_frame,max_cycles_per_frame`),
/// then the sampled ones. Percentages are of all the work (busy + NMI +
/// IRQ cycles), with two decimals.
pub fn routines_header(columns: Columns) -> String {
    let mut names = vec!["routine", "entry", "source"];
    if columns.exact {
        names.extend(ROUTINE_EXACT);
    }
    if columns.sampled {
        names.extend(ROUTINE_SAMPLED);
    }
    names.join(",")
}

/// One row of `routines.csv` (no line end).
pub fn routines_line(row: &RoutineRow, columns: Columns) -> String {
    let mut out = vec![
        field(&row.name).into_owned(),
        row.entry.map(code_addr::label).unwrap_or_default(),
        row.source
            .as_deref()
            .map(field)
            .unwrap_or_default()
            .into_owned(),
    ];
    if columns.exact {
        match &row.exact {
            Some(e) => {
                out.extend([
                    e.calls.to_string(),
                    e.exclusive_cycles.to_string(),
                    format!("{:.2}", e.exclusive_pct_of_busy),
                    e.inclusive_cycles.to_string(),
                    format!("{:.2}", e.inclusive_pct),
                ]);
                match e.per_call {
                    Some(c) => out.extend([
                        format!("{:.1}", c.avg),
                        c.min.to_string(),
                        c.max.to_string(),
                    ]),
                    None => out.extend(std::iter::repeat_n(String::new(), 3)),
                }
                out.push(e.frames.to_string());
                match e.per_frame {
                    Some(f) => out.extend([f.median, f.p99, f.max].map(|n| n.to_string())),
                    None => out.extend(std::iter::repeat_n(String::new(), 3)),
                }
            }
            None => out.extend(std::iter::repeat_n(String::new(), ROUTINE_EXACT.len())),
        }
    }
    if columns.sampled {
        match &row.sampled {
            Some(s) => {
                out.extend([
                    format!("{:.2}", s.pct_of_busy.value),
                    format!("{:.2}", s.pct_of_busy.low),
                    format!("{:.2}", s.pct_of_busy.high),
                ]);
                push_estimate(&mut out, Some(s.cycles));
                out.push(s.batches.to_string());
            }
            None => out.extend(std::iter::repeat_n(String::new(), ROUTINE_SAMPLED.len())),
        }
    }
    out.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame_profile::rows::{
        ExactFrame, ExactRoutine, PerCall, PerFrame, SampledFrame, SampledRoutine,
    };
    use crate::frame_profile::vblank::Vblank;

    const BOTH: Columns = Columns {
        exact: true,
        sampled: true,
    };

    #[test]
    fn fields_are_quoted_as_rfc_4180_says() {
        assert_eq!(field("main_loop"), "main_loop");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        // Control characters are escaped first, so a name stays one line.
        assert_eq!(field("two\nlines"), "two\\nlines");
        assert_eq!(field("esc\x1b[2J,x"), "\"esc\\x1b[2J,x\"");
        assert!(field(&"x".repeat(5000)).len() <= MAX_FIELD_BYTES);
    }

    #[test]
    fn frame_rows_with_both_sides_and_with_one() {
        let header = frames_header(BOTH);
        let columns = header.split(',').count();
        assert!(header.starts_with("frame,cycles,busy,"));
        assert!(header.ends_with(",sampled_top_routine,sampled_top_routine_cycles"));
        let name = |e: u32| {
            if e == 0x8100 {
                "a,\"b\"".to_string()
            } else {
                code_addr::label(e)
            }
        };
        let estimate = |v: f64| Estimate {
            value: v,
            low: v - 10.0,
            high: v + 10.0,
        };
        let row = FrameRow {
            frame: 7,
            cycles: 29_781,
            lag: true,
            exact: Some(ExactFrame {
                busy: 20_000,
                idle: 7_000,
                nmi: 2_000,
                irq: 0,
                oam_dma: 513,
                dmc_dma: 268,
                nmi_handler_cycles: 2_600,
                vblank: Some(Vblank {
                    overrun: true,
                    cycles_used: 2273,
                    cycles_left: 0,
                }),
                top_routine: Some((0x8100, 9_000)),
            }),
            sampled: Some(SampledFrame {
                batches: 5,
                busy: estimate(19_500.0),
                idle: estimate(7_200.25),
                nmi: estimate(2_100.0),
                irq: estimate(0.0),
                dma: estimate(781.0),
                top_routine: Some((None, 8_000.0)),
            }),
        };
        let line = frames_line(&row, BOTH, &name);
        assert_eq!(
            line,
            "7,29781,20000,7000,2000,0,513,268,1,2600,1,0,\"a,\"\"b\"\"\",9000,\
5,19500.0,19490.0,19510.0,7200.2,7190.2,7210.2,2100.0,2090.0,2110.0,\
0.0,-10.0,10.0,781.0,771.0,791.0,(no routine),8000.0"
        );
        // Sampled only: lag stands after the cycles; no exact part.
        let sampled_only = Columns {
            exact: false,
            sampled: true,
        };
        let bare = FrameRow {
            exact: None,
            ..row.clone()
        };
        assert!(frames_header(sampled_only).starts_with("frame,cycles,lag,sampled_batches,"));
        assert!(frames_line(&bare, sampled_only, &name).starts_with("7,29781,1,5,"));
        // A row missing a side has empty fields, as many as the header.
        let line = frames_line(&bare, BOTH, &name);
        assert_eq!(line.split(',').count(), columns);
        assert!(line.starts_with("7,29781,,,,,,,1,,,,,,5,"));
        let exact_only = FrameRow {
            sampled: None,
            ..row
        };
        let line = frames_line(&exact_only, BOTH, &name);
        // (The quoted name holds a comma.)
        assert_eq!(line.split(',').count(), columns + 1);
        assert!(line.ends_with(",9000,,,,,,,,,,,,,,,,,,"));
    }

    #[test]
    fn routine_rows_with_both_sides_and_with_one() {
        let header = routines_header(BOTH);
        assert_eq!(
            header,
            "routine,entry,source,calls,exclusive_cycles,exclusive_pct_of_busy,\
inclusive_cycles,inclusive_pct,avg_cycles_per_call,min_cycles_per_call,\
max_cycles_per_call,frames,median_cycles_per_frame,p99_cycles_per_frame,\
max_cycles_per_frame,sampled_pct_of_busy,sampled_pct_low,sampled_pct_high,\
sampled_cycles,sampled_cycles_low,sampled_cycles_high,sampled_batches"
        );
        let row = RoutineRow {
            entry: Some(((0x8000u32 + 0x10000 - 0x8000) << 3) | 0x8123),
            name: "level,load".into(),
            source: Some("src/level \"1\".s:40".into()),
            exact: Some(ExactRoutine {
                calls: 3,
                exclusive_cycles: 1200,
                exclusive_pct_of_busy: 12.345,
                inclusive_cycles: 2400,
                inclusive_pct: 24.69,
                per_call: Some(PerCall {
                    calls: 3,
                    avg: 800.0 / 3.0,
                    min: 100,
                    max: 500,
                }),
                frames: 2,
                per_frame: Some(PerFrame {
                    median: 1208,
                    p99: 1208,
                    max: 1210,
                }),
            }),
            sampled: Some(SampledRoutine {
                pct_of_busy: Estimate {
                    value: 11.5,
                    low: 10.25,
                    high: 12.75,
                },
                cycles: Estimate {
                    value: 1150.0,
                    low: 1025.0,
                    high: 1275.0,
                },
                batches: 40,
            }),
        };
        assert_eq!(
            routines_line(&row, BOTH),
            "\"level,load\",02:8123,\"src/level \"\"1\"\".s:40\",3,1200,12.35,2400,24.69,\
266.7,100,500,2,1208,1208,1210,11.50,10.25,12.75,1150.0,1025.0,1275.0,40"
        );
        let outside = RoutineRow {
            entry: None,
            name: "(no routine)".into(),
            source: None,
            exact: None,
            sampled: row.sampled,
        };
        assert_eq!(
            routines_line(&outside, BOTH),
            "(no routine),,,,,,,,,,,,,,,11.50,10.25,12.75,1150.0,1025.0,1275.0,40"
        );
    }
}
