//! The ld65 debug file reader (`ld65 --dbgfile`, format version 2.x as
//! documented in the cc65 manual, "dbginfo"): one record per line, a kind,
//! a tab (a space below), then comma-separated `key=value` fields, strings in double quotes:
//!
//! ```text
//! seg id=0,name="CODE",start=0x008000,size=0x0061,addrsize=absolute,type=ro,oname="x.nes",ooffs=16
//! scope id=1,name="main",mod=0,type=scope,size=5,parent=0,sym=5,span=3
//! sym id=4,name="loop",addrsize=absolute,scope=1,def=6,ref=3,val=0x8002,seg=0,type=lab
//! sym id=3,name="@x",addrsize=absolute,size=1,parent=4,def=8,val=0x8004,seg=0,type=lab
//! ```
//!
//! Only `version`, `seg`, `scope` and `sym` records matter here; the others
//! (files, lines, spans, types) are skipped, as are kinds a later version may
//! add. What becomes of a symbol:
//! - a label (`type=lab`) in a segment written to the output at a run address
//!   in $8000-$FFFF is PRG ROM at `ooffs + (val - start) - 16` (the iNES
//!   header; no header is assumed when the output file's name does not end in
//!   `.nes`), reaching to the end of its segment;
//! - a label in a segment that runs below $8000 (RAM, PRG RAM, and code that
//!   reset copies out of ROM to run in RAM, like roms-test's RAMCODE at
//!   $0600) is named by its run address, reaching to its segment's end;
//!   read-only segments below $8000 that are written out are CHR ROM or the
//!   header, and their labels are skipped;
//! - a label with no segment (`foo := $6000`) is named by its CPU address;
//! - an equate (`type=equ`) is kept only when it is an absolute address in
//!   $2000-$5FFF (`PPUCTRL = $2000`: a register, for memory views); other
//!   equates are constants, not places;
//! - imports (`type=imp`) repeat a symbol defined elsewhere and are skipped.
//!
//! Names: symbols inside named scopes (`.proc`, `.scope`) are qualified as in
//! ca65 source (`main::loop`); cheap locals are shown under the label that
//! owns them (`snake_step@done`), since `@done` alone occurs a dozen times.

use std::collections::HashMap;

use super::location::{Label, LineError, Location};

/// Size of the iNES header before PRG ROM in a `.nes` file.
const INES_HEADER: i64 = 16;

struct Seg {
    start: u32,
    size: u32,
    writable: bool,
    output: Option<(String, u32)>,
}

struct Scope {
    name: String,
    parent: Option<u32>,
}

struct Sym {
    line: usize,
    name: String,
    val: Option<u32>,
    seg: Option<u32>,
    scope: Option<u32>,
    parent: Option<u32>,
    kind: String,
    absolute: bool,
}

/// Splits `key=value,key="a,b"` into pairs (quotes removed).
fn fields(text: &str, line: usize) -> Result<Vec<(&str, &str)>, LineError> {
    let mut out = Vec::new();
    let mut rest = text.trim_end_matches(['\r', '\n']);
    while !rest.is_empty() {
        let (key, after) = rest
            .split_once('=')
            .ok_or_else(|| LineError::new(line, format!("field without '=': {rest:?}")))?;
        let (value, next) = if let Some(quoted) = after.strip_prefix('"') {
            let close = quoted
                .find('"')
                .ok_or_else(|| LineError::new(line, format!("unterminated string in {key}")))?;
            let next = &quoted[close + 1..];
            (&quoted[..close], next.strip_prefix(',').unwrap_or(next))
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

fn number(value: &str, key: &str, line: usize) -> Result<u32, LineError> {
    let parsed = match value
        .strip_prefix("0x")
        .or_else(|| value.strip_prefix("0X"))
    {
        Some(hex) => u32::from_str_radix(hex, 16),
        None => value.parse(),
    };
    parsed.map_err(|_| LineError::new(line, format!("bad number in {key}: {value:?}")))
}

/// What a debug file says about the file ld65 wrote, for checking that it
/// is the ROM it is applied to (`fit.rs`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Layout {
    /// The output files' names (`oname`, without directories), distinct.
    pub outputs: Vec<String>,
    /// End of the PRG ROM its $8000-$FFFF segments fill (header excluded).
    pub prg_end: Option<u32>,
    /// The same for the segments that end at $FFFF (the vectors): a ROM
    /// built from this file has exactly this much PRG ROM.
    pub vectors_end: Option<u32>,
    /// End of the last byte written to the output (header included).
    pub file_end: u32,
}

impl Layout {
    fn of(segs: &HashMap<u32, Seg>) -> Layout {
        let mut layout = Layout::default();
        let mut segs: Vec<&Seg> = segs.values().collect();
        segs.sort_by_key(|s| s.start);
        for seg in segs {
            let Some((oname, ooffs)) = &seg.output else {
                continue;
            };
            let name = oname.rsplit(['/', '\\']).next().unwrap_or(oname).to_owned();
            if !layout.outputs.contains(&name) {
                layout.outputs.push(name);
            }
            let end = ooffs + seg.size;
            layout.file_end = layout.file_end.max(end);
            if seg.start >= 0x8000 && seg.size > 0 {
                let header = if oname.to_ascii_lowercase().ends_with(".nes") {
                    INES_HEADER as u32
                } else {
                    0
                };
                let prg_end = end.saturating_sub(header);
                layout.prg_end = layout.prg_end.max(Some(prg_end));
                if seg.start + seg.size == 0x10000 {
                    layout.vectors_end = layout.vectors_end.max(Some(prg_end));
                }
            }
        }
        layout
    }
}

#[cfg(test)]
fn parse(text: &str, prg_len: usize) -> Result<Vec<Label>, LineError> {
    parse_with_layout(text, prg_len).map(|(labels, _)| labels)
}

/// The labels, and what the file says of the output it describes.
pub(crate) fn parse_with_layout(
    text: &str,
    prg_len: usize,
) -> Result<(Vec<Label>, Layout), LineError> {
    let mut version_seen = false;
    let mut segs: HashMap<u32, Seg> = HashMap::new();
    let mut scopes: HashMap<u32, Scope> = HashMap::new();
    let mut syms: HashMap<u32, Sym> = HashMap::new();
    let mut order: Vec<u32> = Vec::new();

    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let (kind, rest) = raw.split_once('\t').unwrap_or((raw, ""));
        if !version_seen {
            if kind != "version" {
                return Err(LineError::new(
                    line,
                    "not an ld65 debug file (it starts with a `version` line)",
                ));
            }
            let major = fields(rest, line)?
                .into_iter()
                .find(|(k, _)| *k == "major")
                .map(|(k, v)| number(v, k, line))
                .transpose()?;
            if major != Some(2) {
                return Err(LineError::new(
                    line,
                    "ld65 debug file of an unknown version (this reader knows 2.x)",
                ));
            }
            version_seen = true;
            continue;
        }
        if !matches!(kind, "seg" | "scope" | "sym") {
            continue;
        }
        let mut id = None;
        let mut name = String::new();
        let (mut start, mut size, mut val, mut seg, mut scope, mut parent) =
            (None, None, None, None, None, None);
        let (mut oname, mut ooffs) = (None, None);
        let mut type_ = String::new();
        let mut addrsize = "";
        for (k, v) in fields(rest, line)? {
            match k {
                "id" => id = Some(number(v, k, line)?),
                "name" => name = v.to_owned(),
                "start" => start = Some(number(v, k, line)?),
                "size" => size = Some(number(v, k, line)?),
                "val" => val = Some(number(v, k, line)?),
                "seg" => seg = Some(number(v, k, line)?),
                "scope" => scope = Some(number(v, k, line)?),
                "parent" => parent = Some(number(v, k, line)?),
                "oname" => oname = Some(v.to_owned()),
                "ooffs" => ooffs = Some(number(v, k, line)?),
                "type" => type_ = v.to_owned(),
                "addrsize" => addrsize = v,
                _ => {}
            }
        }
        let id = id.ok_or_else(|| LineError::new(line, format!("{kind} without id")))?;
        match kind {
            "seg" => {
                let start = start.ok_or_else(|| LineError::new(line, "seg without start"))?;
                segs.insert(
                    id,
                    Seg {
                        start,
                        size: size.unwrap_or(0),
                        writable: type_ == "rw",
                        output: oname.zip(ooffs),
                    },
                );
            }
            "scope" => {
                scopes.insert(id, Scope { name, parent });
            }
            _ => {
                if syms.contains_key(&id) {
                    return Err(LineError::new(line, format!("sym id={id} defined twice")));
                }
                order.push(id);
                syms.insert(
                    id,
                    Sym {
                        line,
                        name,
                        val,
                        seg,
                        scope,
                        parent,
                        kind: type_,
                        absolute: addrsize == "absolute",
                    },
                );
            }
        }
    }
    if !version_seen {
        return Err(LineError::new(1, "empty file, not an ld65 debug file"));
    }

    // Qualified names: a scope's chain of named parents, joined by `::`.
    let scope_prefix = |mut id: Option<u32>| -> String {
        let mut parts = Vec::new();
        // A scope's parent has a smaller nesting depth; the bound guards
        // against a malformed file whose parents form a loop.
        for _ in 0..64 {
            let Some(s) = id.and_then(|i| scopes.get(&i)) else {
                break;
            };
            if !s.name.is_empty() {
                parts.push(s.name.as_str());
            }
            id = s.parent;
        }
        parts.reverse();
        parts.iter().map(|p| format!("{p}::")).collect()
    };
    let qualified = |sym: &Sym| -> String {
        match sym.parent {
            Some(p) => {
                let owner = syms
                    .get(&p)
                    .map(|o| format!("{}{}", scope_prefix(o.scope), o.name))
                    .unwrap_or_default();
                format!("{owner}{}", sym.name)
            }
            None => format!("{}{}", scope_prefix(sym.scope), sym.name),
        }
    };

    let mut labels = Vec::new();
    for id in order {
        let sym = &syms[&id];
        let Some(val) = sym.val else { continue };
        if val > 0xFFFF {
            continue;
        }
        let (location, end) = match sym.kind.as_str() {
            "lab" => match sym.seg {
                None => (Location::of_cpu(val as u16, prg_len), None),
                Some(seg_id) => {
                    let seg = segs.get(&seg_id).ok_or_else(|| {
                        LineError::new(sym.line, format!("label in unknown seg={seg_id}"))
                    })?;
                    match place_in_segment(seg, val, prg_len) {
                        Some(placed) => placed,
                        None => continue,
                    }
                }
            },
            "equ" if sym.absolute && (0x2000..=0x5FFF).contains(&val) => {
                (Location::of_cpu(val as u16, prg_len), None)
            }
            _ => continue,
        };
        labels.push(Label {
            location,
            name: qualified(sym),
            end,
            local: sym.parent.is_some(),
        });
    }
    Ok((labels, Layout::of(&segs)))
}

/// Where a label at run address `val` in `seg` is, and the end of its
/// segment in the same region; `None` for labels that name no place code can
/// be (CHR ROM, the header, a label outside its segment).
fn place_in_segment(seg: &Seg, val: u32, prg_len: usize) -> Option<(Location, Option<u32>)> {
    let seg_end = seg.start + seg.size;
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
            let offset = base + (val - seg.start) as i64;
            let end = base + seg.size as i64;
            (offset >= 0).then(|| (Location::prg(offset as u32), Some(end.max(0) as u32)))
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

#[cfg(test)]
mod tests {
    use super::super::{Region, Symbols};
    use super::*;

    /// Records in the shape ld65 2.19 writes (taken from a real build of a
    /// small program, fields as they appear; values chosen for the test).
    const SMALL: &str = "version\tmajor=2,minor=0\n\
info\tcsym=0,file=1,lib=0,line=9,mod=1,scope=2,seg=6,span=5,sym=6,type=0\n\
file\tid=0,name=\"p.s\",size=126,mtime=0x00000000,mod=0\n\
mod\tid=0,name=\"p.o\",file=0\n\
seg\tid=0,name=\"CODE\",start=0x008000,size=0x0100,addrsize=absolute,type=ro,oname=\"p.nes\",ooffs=16\n\
seg\tid=1,name=\"BSS\",start=0x000300,size=0x0002,addrsize=absolute,type=rw\n\
seg\tid=2,name=\"RAMCODE\",start=0x000600,size=0x0028,addrsize=absolute,type=rw,oname=\"p.nes\",ooffs=272\n\
seg\tid=3,name=\"CHARS\",start=0x000000,size=0x2000,addrsize=absolute,type=ro,oname=\"p.nes\",ooffs=32784\n\
seg\tid=4,name=\"BANK1\",start=0x00C000,size=0x4000,addrsize=absolute,type=ro,oname=\"p.nes\",ooffs=16400\n\
scope\tid=0,name=\"\",mod=0,size=5,span=4+3\n\
scope\tid=1,name=\"main\",mod=0,type=scope,size=5,parent=0,sym=5,span=3\n\
sym\tid=0,name=\"var\",addrsize=absolute,size=2,scope=0,def=0,val=0x300,seg=1,type=lab\n\
sym\tid=1,name=\"foo\",addrsize=absolute,scope=0,def=1,val=0x6000,type=lab\n\
sym\tid=2,name=\"PPUCTRL\",addrsize=absolute,scope=0,def=5,val=0x2000,type=equ\n\
sym\tid=3,name=\"@x\",addrsize=absolute,size=1,parent=4,def=8,val=0x8004,seg=0,type=lab\n\
sym\tid=4,name=\"loop\",addrsize=absolute,scope=1,def=6,ref=3,val=0x8002,seg=0,type=lab\n\
sym\tid=5,name=\"main\",addrsize=absolute,size=5,scope=0,def=2,val=0x8000,seg=0,type=lab\n\
sym\tid=6,name=\"BTN_A\",addrsize=zeropage,scope=0,def=2,val=0x80,type=equ\n\
sym\tid=7,name=\"occ_set\",addrsize=absolute,scope=0,def=2,val=0x600,seg=2,type=lab\n\
sym\tid=8,name=\"tiles\",addrsize=absolute,scope=0,def=2,val=0x10,seg=3,type=lab\n\
sym\tid=9,name=\"__RAMCODE_RUN__\",addrsize=absolute,scope=0,def=575,ref=137,type=imp\n\
sym\tid=10,name=\"far_away\",addrsize=absolute,scope=0,def=2,val=0xC010,seg=4,type=lab\n\
line\tid=0,file=0,line=3,span=0\n";

    fn find<'a>(labels: &'a [Label], name: &str) -> &'a Label {
        labels
            .iter()
            .find(|l| l.name == name)
            .unwrap_or_else(|| panic!("no label {name} in {labels:?}"))
    }

    #[test]
    fn places_labels_by_segment() {
        let labels = parse(SMALL, 0x8000).unwrap();
        // ROM: ooffs 16 minus the 16-byte header, plus val - start.
        let main = find(&labels, "main");
        assert_eq!(main.location, Location::prg(0));
        assert_eq!(main.end, Some(0x100));
        assert_eq!(find(&labels, "main::loop").location, Location::prg(2));
        let local = find(&labels, "main::loop@x");
        assert_eq!(local.location, Location::prg(4));
        assert!(local.local);
        assert_eq!(find(&labels, "far_away").location, Location::prg(0x4010));
        // RAM by run address, also for code loaded from ROM.
        assert_eq!(find(&labels, "var").location, Location::ram(0x300));
        assert_eq!(find(&labels, "var").end, Some(0x302));
        assert_eq!(find(&labels, "occ_set").location, Location::ram(0x600));
        assert_eq!(find(&labels, "foo").location, Location::wram(0));
        // Register equates kept, constants and imports and CHR labels not.
        assert_eq!(find(&labels, "PPUCTRL").location, Location::cpu(0x2000));
        for gone in ["BTN_A", "__RAMCODE_RUN__", "tiles"] {
            assert!(labels.iter().all(|l| l.name != gone), "{gone} kept");
        }
    }

    #[test]
    fn the_layout_says_what_file_was_written() {
        let (_, layout) = parse_with_layout(SMALL, 0x8000).unwrap();
        assert_eq!(layout.outputs, ["p.nes"]);
        // CODE ends at $100 of PRG ROM, BANK1 ($C000-$FFFF) at 32 KiB.
        assert_eq!(layout.prg_end, Some(0x8000));
        assert_eq!(layout.vectors_end, Some(0x8000));
        // CHARS: 8 KiB after the header and the PRG ROM.
        assert_eq!(layout.file_end, 16 + 0x8000 + 0x2000);
    }

    #[test]
    fn banked_rom_offsets_follow_ooffs() {
        // A 128 KiB UxROM-style layout: bank 2 at $8000, written at file
        // offset 16 + 2 * 16 KiB.
        let text = "version\tmajor=2,minor=0\n\
seg\tid=0,name=\"BANK2\",start=0x008000,size=0x4000,addrsize=absolute,type=ro,oname=\"game.nes\",ooffs=32784\n\
sym\tid=0,name=\"level_load\",addrsize=absolute,scope=0,def=1,val=0x8123,seg=0,type=lab\n";
        let labels = parse(text, 0x20000).unwrap();
        assert_eq!(labels[0].location, Location::prg(0x8123));
        let mut s = Symbols::new(0x20000);
        s.add(labels[0].clone());
        // The code address of $8123 with PRG offset 0x8123 mapped there.
        let code = ((0x8000u32 + 0x10000 - 0x8000) << 3) | 0x8123;
        assert_eq!(emu::code_addr::prg_offset(code), Some(0x8123));
        assert_eq!(s.name_at(code), Some("level_load"));
        assert_eq!(s.describe(code + 2), "level_load+$2");
        assert_eq!(s.location(code).region, Region::PrgRom);
    }

    #[test]
    fn bad_files_say_where() {
        let e = parse("hello\n", 0x8000).unwrap_err();
        assert_eq!(e.line, 1);
        let e = parse("version\tmajor=3,minor=0\n", 0x8000).unwrap_err();
        assert!(e.problem.contains("version"), "{e:?}");
        let text = "version\tmajor=2,minor=0\nsym\tid=0,name=\"a\",val=0xZZ,type=lab\n";
        let e = parse(text, 0x8000).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.problem.contains("val"), "{e:?}");
        let text = "version\tmajor=2,minor=0\nsym\tid=0,name=\"a\",val=0x8000,seg=7,type=lab\n";
        assert_eq!(parse(text, 0x8000).unwrap_err().line, 2);
        let text = "version\tmajor=2,minor=0\nseg\tid=0,name=\"CODE,start=0x8000\n";
        assert_eq!(parse(text, 0x8000).unwrap_err().line, 2);
    }
}
