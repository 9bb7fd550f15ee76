//! The records of an ld65 debug file that its readers share: segments,
//! scopes, symbols, a line's `key=value` fields and numbers, qualified
//! names, and where a label's run address is in the ROM. `dbg.rs` reads
//! the labels with them and `procs.rs` the `.proc` scopes; both import
//! this module and neither the other's internals.

use std::borrow::Cow;

use crate::symbols::location::{quoted, LineError, Location, MAX_LABEL_CHARS};

/// Size of the iNES header before PRG ROM in a `.nes` file.
pub(super) const INES_HEADER: i64 = 16;

pub(super) struct Seg {
    pub(super) start: u32,
    pub(super) size: u32,
    pub(super) writable: bool,
    pub(super) output: Option<(String, u32)>,
}

// Names borrow the file's text (cut to `MAX_LABEL_CHARS` when longer, in
// which case they are copies): a file of a million symbols allocates
// nothing per symbol but its place in `syms`.
pub(super) struct Scope<'a> {
    pub(super) line: usize,
    pub(super) name: Cow<'a, str>,
    pub(super) parent: Option<u32>,
    /// The `sym` field as written: a `.proc`'s symbol (a `.scope` has
    /// none), parsed only when procs are asked for.
    pub(super) sym: Option<&'a str>,
    /// The `span` field as written (`6` or `16+0+17`), parsed only for
    /// `.proc` scopes when they are asked for.
    pub(super) spans: &'a str,
}

/// A symbol's `type`: the two kinds that can name a place, and the rest.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Label,
    Equate,
    Other,
}

pub(super) struct Sym<'a> {
    pub(super) line: usize,
    pub(super) name: Cow<'a, str>,
    pub(super) val: Option<u32>,
    pub(super) seg: Option<u32>,
    pub(super) scope: Option<u32>,
    pub(super) parent: Option<u32>,
    pub(super) kind: Kind,
    pub(super) absolute: bool,
}

/// Splits `key=value,key="a,b"` into pairs (quotes removed).
pub(super) fn fields(text: &str, line: usize) -> Result<Vec<(&str, &str)>, LineError> {
    let mut out = Vec::new();
    let mut rest = text.trim_end_matches(['\r', '\n']);
    while !rest.is_empty() {
        let (key, after) = rest
            .split_once('=')
            .ok_or_else(|| LineError::new(line, format!("field without '=': {}", quoted(rest))))?;
        let (value, next) = if let Some(string) = after.strip_prefix('"') {
            let close = string.find('"').ok_or_else(|| {
                LineError::new(line, format!("unterminated string in {}", quoted(key)))
            })?;
            let next = &string[close + 1..];
            (&string[..close], next.strip_prefix(',').unwrap_or(next))
        } else {
            match after.split_once(',') {
                Some((v, n)) => (v, n),
                None => (after, ""),
            }
        };
        out.push((key, value));
        rest = next;
    }
    Ok(out)
}

pub(super) fn number(value: &str, key: &str, line: usize) -> Result<u32, LineError> {
    let parsed = match value
        .strip_prefix("0x")
        .or_else(|| value.strip_prefix("0X"))
    {
        Some(hex) => u32::from_str_radix(hex, 16),
        None => value.parse(),
    };
    parsed.map_err(|_| LineError::new(line, format!("bad number in {key}: {}", quoted(value))))
}

/// A name being qualified: its last [`MAX_LABEL_CHARS`] characters, and
/// whether any went before them.
#[derive(Debug, Clone, Default)]
pub(super) struct Qualified {
    pub(super) text: String,
    pub(super) cut: bool,
}

impl Qualified {
    pub(super) fn push_prefix(&mut self, prefix: Option<&Qualified>) {
        if let Some(p) = prefix {
            self.cut |= p.cut;
            self.push(&p.text);
        }
    }

    /// Appends `part`, dropping characters from the front past the bound.
    pub(super) fn push(&mut self, part: &str) {
        self.text.push_str(part);
        let chars = self.text.chars().count();
        if chars > MAX_LABEL_CHARS {
            let (at, _) = self
                .text
                .char_indices()
                .nth(chars - MAX_LABEL_CHARS)
                .expect("more characters than the bound");
            self.text.drain(..at);
            self.cut = true;
        }
    }

    /// The name: whole, or `…` and its last characters.
    pub(super) fn finish(self) -> String {
        if !self.cut {
            return self.text;
        }
        let chars = self.text.chars().count();
        let skip = (chars + 1).saturating_sub(MAX_LABEL_CHARS);
        let at = self.text.char_indices().nth(skip).map_or(0, |(i, _)| i);
        format!("…{}", &self.text[at..])
    }
}

/// Where a label at run address `val` in `seg` is, and the end of its
/// segment in the same region; `None` for labels that name no place code can
/// be (CHR ROM, the header, a label outside its segment).
pub(super) fn place_in_segment(
    seg: &Seg,
    val: u32,
    prg_len: usize,
) -> Option<(Location, Option<u32>)> {
    let seg_end = seg.start.saturating_add(seg.size);
    match &seg.output {
        Some((oname, ooffs)) if seg.start >= 0x8000 => {
            if val < seg.start {
                return None;
            }
            let header = if oname.to_ascii_lowercase().ends_with(".nes") {
                INES_HEADER
            } else {
                0
            };
            let base = *ooffs as i64 - header;
            let offset = u32::try_from(base + (val - seg.start) as i64).ok()?;
            let end = (base + seg.size as i64).clamp(0, u32::MAX as i64) as u32;
            Some((Location::prg(offset), Some(end)))
        }
        Some(_) if !seg.writable => None,
        _ => {
            let location = Location::of_cpu(val as u16, prg_len);
            // The segment's end as a place, when it is in the same region
            // (a segment reaching past a mirror or region edge keeps none).
            let last = Location::of_cpu(seg_end.saturating_sub(1).min(0xFFFF) as u16, prg_len);
            let end =
                (seg.size > 0 && last.region == location.region && last.addr >= location.addr)
                    .then_some(last.addr + 1);
            Some((location, end))
        }
    }
}
