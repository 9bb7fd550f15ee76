//! `.proc` scopes of an ld65 debug file, as routines (`ProcScope`): the
//! scope records that carry a `sym` (a `.scope` has none), the spans they
//! cover, and the source line of their entry.
//!
//! ```text
//! file   id=0,name="p.s",size=330,mtime=0x6B08C0CD,mod=0
//! line   id=9,file=0,line=17,span=10
//! span   id=10,seg=0,start=16,size=2
//! span   id=14,seg=0,start=16,size=7
//! scope  id=3,name="sub_a",mod=0,type=scope,size=7,parent=0,sym=3,span=14
//! sym    id=3,name="sub_a",addrsize=absolute,size=7,scope=0,def=14,val=0x8010,seg=0,type=lab
//! ```
//!
//! - The entry is the place of the scope's symbol (`val` in its segment,
//!   placed as labels are: see `dbg.rs`); a scope whose symbol has no
//!   place the machine runs (no segment, CHR ROM) is no routine.
//! - What it covers: each span is `start` bytes into segment `seg`, `size`
//!   bytes long; a scope's `span` lists them (`16+0+17`).
//! - The entry's source line: among the `line` records one of whose spans
//!   starts at the entry, the C line (`type=1`) before the assembler's
//!   (`type=0` or none) before a macro body's (`type=2`), then the one of
//!   the shortest span (the instruction, not a block around it), then the
//!   first in the file. It is the entry's instruction, not the `.proc`
//!   line (which ld65 gives no span).
//!
//! Only asked for by the routine table, so a file's labels read as before
//! whatever its scopes hold. Bounds as the rest of the reader: numbers
//! checked (an error names the line), a scope naming a symbol or span the
//! file does not define is an error at the scope's line, a span in an
//! unknown segment one at the span's; names and file names cut as labels
//! are. Work is a few passes over the text; memory is the procs' spans and
//! one candidate line per proc, so linear in the file's size.

use std::collections::HashMap;

use super::records::{fields, number, place_in_segment, Qualified, Scope, Seg, Sym};
use crate::symbols::location::{bounded_name, LineError, Location};
use crate::symbols::proc_scope::ProcScope;

/// What the label pass of `dbg.rs` read, for this one.
pub(super) struct File<'f, 'a> {
    pub text: &'a str,
    pub prg_len: usize,
    pub segs: &'f HashMap<u32, Seg>,
    pub scopes: &'f HashMap<u32, Scope<'a>>,
    pub syms: &'f HashMap<u32, Sym<'a>>,
    pub prefixes: &'f HashMap<u32, Qualified>,
}

/// A proc whose spans are being looked up.
struct Pending {
    scope_line: usize,
    name: String,
    entry: Location,
    entry_cpu: u16,
    /// (segment id, offset in it) of the entry: spans starting there are
    /// the entry's instructions.
    entry_key: (u32, u32),
    spans: Vec<u32>,
}

/// A span record: (segment id, start in it, size, the record's line).
type Span = (u32, u32, u32, usize);

/// How a line record ranks as an entry's source (lower is better): its
/// type, its span's size, its id.
type Rank = (u8, u32, u32);

/// The records of `kind` in `text`: (1-based line, fields after the tab).
fn records<'a>(text: &'a str, kind: &'a str) -> impl Iterator<Item = (usize, &'a str)> + 'a {
    text.lines().enumerate().filter_map(move |(i, raw)| {
        let (k, rest) = raw.split_once('\t').unwrap_or((raw, ""));
        (k == kind).then_some((i + 1, rest))
    })
}

/// The ids of a `span` list (`16+0+17`).
fn id_list(list: &str, line: usize) -> Result<Vec<u32>, LineError> {
    if list.is_empty() {
        return Ok(Vec::new());
    }
    list.split('+').map(|v| number(v, "span", line)).collect()
}

pub(super) fn read(file: &File, add: &mut dyn FnMut(ProcScope)) -> Result<(), LineError> {
    let mut ids: Vec<u32> = file
        .scopes
        .iter()
        .filter(|(_, s)| s.sym.is_some())
        .map(|(&id, _)| id)
        .collect();
    if ids.is_empty() {
        return Ok(());
    }
    ids.sort_by_key(|id| file.scopes[id].line);

    let mut pending = Vec::new();
    for id in ids {
        let scope = &file.scopes[&id];
        let line = scope.line;
        let sym_id = number(scope.sym.unwrap_or(""), "sym", line)?;
        let sym = file.syms.get(&sym_id).ok_or_else(|| {
            LineError::new(
                line,
                format!("scope id={id} names sym id={sym_id}, which the file does not define"),
            )
        })?;
        let (Some(val), Some(seg_id)) = (sym.val, sym.seg) else {
            continue;
        };
        let Some(seg) = file.segs.get(&seg_id) else {
            continue;
        };
        if val > 0xFFFF || val < seg.start {
            continue;
        }
        let Some((entry, _)) = place_in_segment(seg, val, file.prg_len) else {
            continue;
        };
        let mut name = Qualified::default();
        name.push_prefix(scope.parent.and_then(|p| file.prefixes.get(&p)));
        name.push(&scope.name);
        pending.push(Pending {
            scope_line: line,
            name: name.finish(),
            entry,
            entry_cpu: val as u16,
            entry_key: (seg_id, val - seg.start),
            spans: id_list(scope.spans, line)?,
        });
    }

    // The spans the procs name, and those that start at an entry.
    let mut needed: HashMap<u32, Option<Span>> = pending
        .iter()
        .flat_map(|p| p.spans.iter().map(|&s| (s, None)))
        .collect();
    let mut entries: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
    for (i, p) in pending.iter().enumerate() {
        entries.entry(p.entry_key).or_default().push(i);
    }
    let mut at_entry: HashMap<u32, ((u32, u32), u32)> = HashMap::new();
    for (line, rest) in records(file.text, "span") {
        let (mut id, mut seg, mut start, mut size) = (None, None, None, None);
        for (k, v) in fields(rest, line)? {
            match k {
                "id" => id = Some(number(v, k, line)?),
                "seg" => seg = Some(number(v, k, line)?),
                "start" => start = Some(number(v, k, line)?),
                "size" => size = Some(number(v, k, line)?),
                _ => {}
            }
        }
        let (Some(id), Some(seg), Some(start)) = (id, seg, start) else {
            return Err(LineError::new(line, "span without id, seg or start"));
        };
        let size = size.unwrap_or(0);
        if let Some(slot) = needed.get_mut(&id) {
            if slot.is_some() {
                return Err(LineError::new(line, format!("span id={id} defined twice")));
            }
            if !file.segs.contains_key(&seg) {
                return Err(LineError::new(line, format!("span in unknown seg={seg}")));
            }
            *slot = Some((seg, start, size, line));
        }
        if entries.contains_key(&(seg, start)) {
            at_entry.insert(id, ((seg, start), size));
        }
    }

    // The entries' source lines.
    let mut best: Vec<Option<(Rank, u32, u32)>> = vec![None; pending.len()];
    let mut files: HashMap<u32, &str> = HashMap::new();
    if !at_entry.is_empty() {
        for (line, rest) in records(file.text, "file") {
            let (mut id, mut name) = (None, None);
            for (k, v) in fields(rest, line)? {
                match k {
                    "id" => id = Some(number(v, k, line)?),
                    "name" => name = Some(v),
                    _ => {}
                }
            }
            if let (Some(id), Some(name)) = (id, name) {
                files.insert(id, name);
            }
        }
        for (line, rest) in records(file.text, "line") {
            let (mut id, mut file_id, mut number_, mut kind, mut spans) = (0, None, None, 0, "");
            for (k, v) in fields(rest, line)? {
                match k {
                    "id" => id = number(v, k, line)?,
                    "file" => file_id = Some(number(v, k, line)?),
                    "line" => number_ = Some(number(v, k, line)?),
                    "type" => kind = number(v, k, line)?,
                    "span" => spans = v,
                    _ => {}
                }
            }
            let (Some(file_id), Some(number_)) = (file_id, number_) else {
                continue;
            };
            // C lines first, then the assembler's, then macro bodies.
            let type_rank = match kind {
                1 => 0,
                0 => 1,
                2 => 2,
                _ => 3,
            };
            for span in id_list(spans, line)? {
                let Some(&(key, size)) = at_entry.get(&span) else {
                    continue;
                };
                let rank = (type_rank, size, id);
                for &i in &entries[&key] {
                    if best[i].is_none_or(|(r, _, _)| rank < r) {
                        best[i] = Some((rank, file_id, number_));
                    }
                }
            }
        }
    }

    for (p, source) in pending.into_iter().zip(best) {
        let mut ranges = Vec::with_capacity(p.spans.len());
        for span in &p.spans {
            let Some(Some((seg_id, start, size, _))) = needed.get(span).copied() else {
                return Err(LineError::new(
                    p.scope_line,
                    format!("scope names span id={span}, which the file does not define"),
                ));
            };
            let seg = &file.segs[&seg_id];
            let address = seg.start.saturating_add(start);
            if size == 0 || address > 0xFFFF {
                continue;
            }
            if let Some((at, _)) = place_in_segment(seg, address, file.prg_len) {
                ranges.push((at, at.addr.saturating_add(size)));
            }
        }
        let source = source.and_then(|(_, file_id, line)| {
            files
                .get(&file_id)
                .map(|name| format!("{}:{line}", bounded_name(name)))
        });
        add(ProcScope {
            name: p.name,
            entry: p.entry,
            entry_cpu: p.entry_cpu,
            ranges,
            source,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::read_with_procs;
    use super::*;
    use crate::symbols::location::Label;

    /// ld65 2.19's file for nested procs, a proc with a table in another
    /// segment, and procs whose entries are macro invocations:
    ///
    /// ```text
    ///  1 .macro twice op          11   .endproc
    ///  2   op                     12   .segment "RODATA"
    ///  3   op                     13   table: .byte 1,2
    ///  4 .endmacro                14   .segment "CODE"
    ///  5 .segment "CODE"          15   rts
    ///  6 .proc outer              16 .endproc
    ///  7   nop                    17 .proc macro_first
    ///  8   .proc inner            18   twice inx
    ///  9     twice nop            19   rts
    /// 10     rts                  20 .endproc
    /// ```
    const NESTED: &str = "version\tmajor=2,minor=0\n\
file\tid=0,name=\"q.s\",size=234,mtime=0x6B08C3A6,mod=0\n\
line\tid=0,file=0,line=19,span=12\n\
line\tid=1,file=0,line=11\n\
line\tid=2,file=0,line=9,span=3\n\
line\tid=4,file=0,line=18,span=11\n\
line\tid=6,file=0,line=7,span=0\n\
line\tid=9,file=0,line=13,span=6\n\
line\tid=10,file=0,line=2,type=2,count=1,span=9+1\n\
line\tid=11,file=0,line=10,span=4\n\
line\tid=12,file=0,line=3,type=2,count=1,span=10+2\n\
line\tid=13,file=0,line=15,span=7\n\
seg\tid=0,name=\"CODE\",start=0x008000,size=0x0008,addrsize=absolute,type=ro,oname=\"q.nes\",ooffs=16\n\
seg\tid=1,name=\"RODATA\",start=0x008008,size=0x0002,addrsize=absolute,type=ro,oname=\"q.nes\",ooffs=24\n\
span\tid=0,seg=0,start=0,size=1\n\
span\tid=1,seg=0,start=1,size=1\n\
span\tid=2,seg=0,start=2,size=1\n\
span\tid=3,seg=0,start=1,size=2\n\
span\tid=4,seg=0,start=3,size=1\n\
span\tid=5,seg=0,start=1,size=3\n\
span\tid=6,seg=1,start=0,size=2,type=0\n\
span\tid=7,seg=0,start=4,size=1\n\
span\tid=8,seg=0,start=0,size=5\n\
span\tid=9,seg=0,start=5,size=1\n\
span\tid=10,seg=0,start=6,size=1\n\
span\tid=11,seg=0,start=5,size=2\n\
span\tid=12,seg=0,start=7,size=1\n\
span\tid=13,seg=0,start=5,size=3\n\
span\tid=14,seg=0,start=0,size=8\n\
scope\tid=0,name=\"\",mod=0,size=8,span=6+14\n\
scope\tid=1,name=\"outer\",mod=0,type=scope,size=5,parent=0,sym=3,span=6+8\n\
scope\tid=2,name=\"inner\",mod=0,type=scope,size=3,parent=1,sym=2,span=5\n\
scope\tid=3,name=\"macro_first\",mod=0,type=scope,size=3,parent=0,sym=0,span=13\n\
scope\tid=4,name=\"plain\",mod=0,type=scope,size=3,parent=0,span=13\n\
sym\tid=0,name=\"macro_first\",addrsize=absolute,size=3,scope=0,def=5,val=0x8005,seg=0,type=lab\n\
sym\tid=1,name=\"table\",addrsize=absolute,size=2,scope=1,def=9,val=0x8008,seg=1,type=lab\n\
sym\tid=2,name=\"inner\",addrsize=absolute,size=3,scope=1,def=8,val=0x8001,seg=0,type=lab\n\
sym\tid=3,name=\"outer\",addrsize=absolute,size=5,scope=0,def=14,val=0x8000,seg=0,type=lab\n";

    fn procs(text: &str, prg_len: usize) -> Result<(Vec<Label>, Vec<ProcScope>), LineError> {
        let (mut labels, mut procs) = (Vec::new(), Vec::new());
        read_with_procs(
            text,
            prg_len,
            &mut |l| labels.push(l),
            Some(&mut |p| procs.push(p)),
        )?;
        Ok((labels, procs))
    }

    #[test]
    fn procs_have_entries_extents_and_source_lines() {
        let (labels, procs) = procs(NESTED, 0x8000).unwrap();
        let names: Vec<&str> = procs.iter().map(|p| p.name.as_str()).collect();
        // `.scope`s (no sym) are not routines.
        assert_eq!(names, ["outer", "outer::inner", "macro_first"]);
        let [outer, inner, first] = &procs[..] else {
            unreachable!()
        };
        assert_eq!((outer.entry, outer.entry_cpu), (Location::prg(0), 0x8000));
        // The table in RODATA is the proc's too.
        assert_eq!(
            outer.ranges,
            vec![(Location::prg(8), 10), (Location::prg(0), 5)]
        );
        assert_eq!(outer.source.as_deref(), Some("q.s:7"));
        assert_eq!((inner.entry, inner.entry_cpu), (Location::prg(1), 0x8001));
        assert_eq!(inner.ranges, vec![(Location::prg(1), 4)]);
        // The invocation's line, not the macro body's (`twice nop`).
        assert_eq!(inner.source.as_deref(), Some("q.s:9"));
        assert_eq!(first.source.as_deref(), Some("q.s:18"));
        assert!(outer.covers(Location::prg(4)) && !outer.covers(Location::prg(5)));
        // Labels read as without procs.
        let mut plain = Vec::new();
        super::super::read(NESTED, 0x8000, &mut |l| plain.push(l)).unwrap();
        assert_eq!(labels, plain);
    }

    #[test]
    fn files_without_line_info_or_procs() {
        let no_lines: String = NESTED
            .lines()
            .filter(|l| !l.starts_with("line") && !l.starts_with("file"))
            .map(|l| format!("{l}\n"))
            .collect();
        let (_, procs) = procs(&no_lines, 0x8000).unwrap();
        assert_eq!(procs.len(), 3);
        assert!(procs.iter().all(|p| p.source.is_none()));
        // A file whose scopes are all `.scope`s (the roms-test programs').
        let (_, procs) = procs_of_committed("snake");
        assert!(procs.is_empty());
    }

    fn procs_of_committed(program: &str) -> (Vec<Label>, Vec<ProcScope>) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../roms-test");
        let text = std::fs::read_to_string(dir.join(format!("{program}.dbg"))).unwrap();
        procs(&text, 0x8000).unwrap()
    }

    #[test]
    fn banked_procs_keep_their_run_address() {
        let text = "version\tmajor=2,minor=0\n\
seg\tid=0,name=\"BANK2\",start=0x008000,size=0x4000,addrsize=absolute,type=ro,oname=\"game.nes\",ooffs=32784\n\
span\tid=0,seg=0,start=0x123,size=0x20\n\
scope\tid=1,name=\"level_load\",type=scope,parent=0,sym=0,span=0\n\
sym\tid=0,name=\"level_load\",addrsize=absolute,scope=0,val=0x8123,seg=0,type=lab\n";
        let (_, procs) = procs(text, 0x20000).unwrap();
        assert_eq!(procs[0].entry, Location::prg(0x8123));
        assert_eq!(procs[0].entry_cpu, 0x8123);
        assert_eq!(procs[0].ranges, vec![(Location::prg(0x8123), 0x8143)]);
    }

    /// Broken references and numbers are errors at the line that has them;
    /// a file with procs is read whole or not at all.
    #[test]
    fn bad_scope_records_say_where() {
        let head = "version\tmajor=2,minor=0\n\
seg\tid=0,name=\"CODE\",start=0x008000,size=0x0100,addrsize=absolute,type=ro,oname=\"p.nes\",ooffs=16\n\
sym\tid=0,name=\"f\",addrsize=absolute,scope=0,val=0x8000,seg=0,type=lab\n";
        let case = |tail: &str| procs(&format!("{head}{tail}"), 0x8000).unwrap_err();
        let e = case(
            "scope\tid=1,name=\"f\",type=scope,sym=9,span=0\nspan\tid=0,seg=0,start=0,size=1\n",
        );
        assert_eq!(e.line, 4, "{e:?}");
        assert!(e.problem.contains("sym id=9"), "{e:?}");
        let e = case("scope\tid=1,name=\"f\",type=scope,sym=0,span=7\n");
        assert_eq!(e.line, 4, "{e:?}");
        assert!(e.problem.contains("span id=7"), "{e:?}");
        let e = case("scope\tid=1,name=\"f\",type=scope,sym=0,span=0+x\n");
        assert_eq!(e.line, 4, "{e:?}");
        let e = case(
            "scope\tid=1,name=\"f\",type=scope,sym=0,span=0\nspan\tid=0,seg=5,start=0,size=1\n",
        );
        assert_eq!(e.line, 5, "{e:?}");
        assert!(e.problem.contains("seg=5"), "{e:?}");
        let e = case("scope\tid=1,name=\"f\",type=scope,sym=0,span=0\nspan\tid=0,seg=0,start=0,size=1\nspan\tid=0,seg=0,start=1,size=1\n");
        assert_eq!(e.line, 6, "{e:?}");
        let e = case("scope\tid=1,name=\"f\",type=scope,sym=0,span=0\nspan\tid=0,seg=0,start=0,size=1\nline\tid=0,file=0,line=zz,span=0\n");
        assert_eq!(e.line, 6, "{e:?}");
        // The same broken scope in a file read for its labels only is no
        // error (labels read as before procs were read).
        let text = format!("{head}scope\tid=1,name=\"f\",type=scope,sym=9,span=7\n");
        super::super::read(&text, 0x8000, &mut |_| {}).unwrap();
    }

    /// Long and odd names and file names are bounded and printable.
    #[test]
    fn names_and_sources_are_bounded() {
        let long = "p".repeat(10_000);
        let text = format!(
            "version\tmajor=2,minor=0\n\
file\tid=0,name=\"{long}\x1b.s\",size=1,mtime=0,mod=0\n\
line\tid=0,file=0,line=3,span=0\n\
seg\tid=0,name=\"CODE\",start=0x008000,size=0x0100,addrsize=absolute,type=ro,oname=\"p.nes\",ooffs=16\n\
span\tid=0,seg=0,start=0,size=1\n\
scope\tid=1,name=\"{long}\",type=scope,sym=0,span=0\n\
sym\tid=0,name=\"x\",addrsize=absolute,scope=0,val=0x8000,seg=0,type=lab\n"
        );
        let (_, procs) = procs(&text, 0x8000).unwrap();
        let name = &procs[0].name;
        assert!(
            name.chars().count() <= crate::symbols::MAX_LABEL_CHARS,
            "{name}"
        );
        let source = procs[0].source.as_deref().unwrap();
        assert!(source.ends_with(":3"), "{source}");
        assert!(source.chars().count() <= crate::symbols::MAX_LABEL_CHARS + 2);
        assert!(!source.contains('\x1b'));
    }

    /// Procs nested 20 000 deep, each with spans and a line: read in
    /// linear time, every name bounded and ending with its own part.
    #[test]
    fn many_deep_procs_read_in_linear_time() {
        let n = 20_000;
        let mut text = String::from(
            "version\tmajor=2,minor=0\n\
file\tid=0,name=\"big.s\",size=1,mtime=0,mod=0\n\
seg\tid=0,name=\"CODE\",start=0x008000,size=0x8000,addrsize=absolute,type=ro,oname=\"p.nes\",ooffs=16\n",
        );
        for i in 0..n {
            let parent = if i == 0 {
                String::new()
            } else {
                format!(",parent={}", i - 1)
            };
            let at = i % 0x4000;
            text += &format!("line\tid={i},file=0,line={},span={}\n", i + 1, 2 * i);
            text += &format!("span\tid={},seg=0,start={at},size=1\n", 2 * i);
            text += &format!("span\tid={},seg=0,start={at},size=2\n", 2 * i + 1);
            text += &format!(
                "scope\tid={i},name=\"proc{i}\",type=scope{parent},sym={i},span={}\n",
                2 * i + 1
            );
            text += &format!(
                "sym\tid={i},name=\"proc{i}\",addrsize=absolute,scope={i},val=0x{:x},seg=0,type=lab\n",
                0x8000 + at
            );
        }
        let start = std::time::Instant::now();
        let (_, procs) = procs(&text, 0x8000).unwrap();
        assert!(start.elapsed() < std::time::Duration::from_secs(2));
        assert_eq!(procs.len(), n);
        for (i, p) in procs.iter().enumerate() {
            assert!(p.name.chars().count() <= crate::symbols::MAX_LABEL_CHARS);
            assert!(p.name.ends_with(&format!("proc{i}")), "{}", p.name);
            assert!(p.source.is_some());
        }
        assert_eq!(procs[5].source.as_deref(), Some("big.s:6"));
    }
}
