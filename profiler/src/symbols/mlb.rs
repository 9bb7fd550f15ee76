//! The Mesen label file reader (`.mlb`), after Mesen's own reader and
//! writer: Mesen 1 `GUI.NET/Debugger/MesenLabelFile.cs`, Mesen 2
//! `UI/Debugger/Labels/CodeLabel.cs` (`ToString`, `FromString`,
//! `GetLegacyMemoryType`). One label per line:
//!
//! ```text
//! P:0123:reset:comment          Mesen 1: memory type letter, hex address
//! R:0300-030F:buffer            a range, end inclusive
//! NesPrgRom:0123:reset          Mesen 2: the memory type's name
//! NesInternalRam:0010:temp:a comment: with colons\nand a newline
//! ```
//!
//! The line splits on the first three colons (so comments may hold colons;
//! newlines in comments are written as `\n`, so a label is always one line).
//! Memory types: `P`/`NesPrgRom` (PRG-ROM offset), `R`/`NesInternalRam`,
//! `W`/`NesWorkRam` and `S`/`NesSaveRam` (offsets in PRG RAM, at $6000; both
//! are the same place here), `G` (Mesen 1's registers) and `NesMemory` (CPU
//! addresses). Lines of other memory types (CHR, nametables, other consoles)
//! and lines with an empty name (comments only) are skipped, as are blank
//! lines. Where Mesen would count a line as an import error (fewer than three
//! fields, a bad hex address, a range whose end is not after its start), the
//! reader stops with the line number, so a broken generated file is noticed.

use super::location::{bounded_name, quoted, Label, LineError, Location};

fn hex(text: &str, line: usize) -> Result<u32, LineError> {
    let bad = || LineError::new(line, format!("bad address {}", quoted(text)));
    if text.is_empty() || text.len() > 8 {
        return Err(bad());
    }
    u32::from_str_radix(text, 16).map_err(|_| bad())
}

enum Memory {
    PrgRom,
    InternalRam,
    PrgRam,
    Cpu,
}

fn memory(name: &str) -> Option<Memory> {
    Some(match name {
        "P" | "NesPrgRom" => Memory::PrgRom,
        "R" | "NesInternalRam" => Memory::InternalRam,
        "W" | "S" | "NesWorkRam" | "NesSaveRam" => Memory::PrgRam,
        "G" | "NesMemory" => Memory::Cpu,
        _ => return None,
    })
}

/// Reads `text`, handing each label to `add` in the file's order.
pub(crate) fn read(
    text: &str,
    prg_len: usize,
    add: &mut dyn FnMut(Label),
) -> Result<(), LineError> {
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let row = raw.trim_end_matches('\r');
        if row.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = row.splitn(4, ':').collect();
        if fields.len() < 3 {
            return Err(LineError::new(
                line,
                "expected TYPE:ADDRESS:label[:comment]",
            ));
        }
        let Some(memory) = memory(fields[0].trim()) else {
            continue;
        };
        let (start, end) = match fields[1].split_once('-') {
            Some((a, b)) => {
                let (a, b) = (hex(a.trim(), line)?, hex(b.trim(), line)?);
                if b <= a {
                    return Err(LineError::new(
                        line,
                        format!("range end {b:X} is not after its start {a:X}"),
                    ));
                }
                (a, Some(b))
            }
            None => (hex(fields[1].trim(), line)?, None),
        };
        let name = fields[2].trim();
        if name.is_empty() {
            continue;
        }
        let location = match memory {
            Memory::PrgRom => Location::prg(start),
            Memory::InternalRam => Location::ram(start),
            Memory::PrgRam => Location::wram(start),
            Memory::Cpu if start <= 0xFFFF => Location::of_cpu(start as u16, prg_len),
            Memory::Cpu => {
                return Err(LineError::new(
                    line,
                    format!("CPU address {start:X} past FFFF"),
                ))
            }
        };
        // Inclusive end in the file; exclusive here, in the same region (a
        // CPU-space range that crosses into another region keeps none).
        let end = end.and_then(|e| match memory {
            Memory::Cpu => {
                let last = Location::of_cpu(e.min(0xFFFF) as u16, prg_len);
                (last.region == location.region && last.addr >= location.addr)
                    .then_some(last.addr + 1)
            }
            Memory::InternalRam => Some(location.addr.saturating_add(e - start).saturating_add(1)),
            _ => Some(e.saturating_add(1)),
        });
        add(Label {
            location,
            name: bounded_name(name).into_owned(),
            end,
            local: false,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbols::MAX_LABEL_CHARS;

    fn parse(text: &str, prg_len: usize) -> Result<Vec<Label>, LineError> {
        let mut labels = Vec::new();
        read(text, prg_len, &mut |l| labels.push(l))?;
        Ok(labels)
    }

    #[test]
    fn mesen1_lines() {
        let text = "P:0000:reset:power-on entry\n\
P:4010:far_code\n\
R:0300-030F:buffer:16 bytes: scratch\n\
R:0810:mirror_of_10\n\
W:0000:save_slot\n\
S:0100:checksum\n\
G:2000:PPUCTRL\n\
P:0020::only a comment\n";
        let labels = parse(text, 0x20000).unwrap();
        let got: Vec<(&str, Location, Option<u32>)> = labels
            .iter()
            .map(|l| (l.name.as_str(), l.location, l.end))
            .collect();
        assert_eq!(
            got,
            vec![
                ("reset", Location::prg(0), None),
                ("far_code", Location::prg(0x4010), None),
                ("buffer", Location::ram(0x300), Some(0x310)),
                ("mirror_of_10", Location::ram(0x10), None),
                ("save_slot", Location::wram(0), None),
                ("checksum", Location::wram(0x100), None),
                ("PPUCTRL", Location::cpu(0x2000), None),
            ]
        );
    }

    #[test]
    fn mesen2_lines_and_comments() {
        let text = "NesPrgRom:7FFA:vectors:NMI, reset, IRQ\n\
NesPrgRom:0123-0130:table:a comment: with colons\\nand an escaped newline\n\
NesInternalRam:0010:temp\n\
NesWorkRam:0000:wram_start\n\
NesSaveRam:0004:battery\n\
NesMemory:4016:JOY1\n\
NesMemory:8000:fixed_entry\n\
NesChrRom:0000:tile0\n\
SnesPrgRom:0000:not_ours\n";
        let labels = parse(text, 0x8000).unwrap();
        let got: Vec<(&str, Location, Option<u32>)> = labels
            .iter()
            .map(|l| (l.name.as_str(), l.location, l.end))
            .collect();
        assert_eq!(
            got,
            vec![
                ("vectors", Location::prg(0x7FFA), None),
                ("table", Location::prg(0x123), Some(0x131)),
                ("temp", Location::ram(0x10), None),
                ("wram_start", Location::wram(0), None),
                ("battery", Location::wram(4), None),
                ("JOY1", Location::cpu(0x4016), None),
                // A CPU address in ROM on a 32 KiB board is a PRG offset.
                ("fixed_entry", Location::prg(0), None),
            ]
        );
    }

    #[test]
    fn bad_lines_name_their_line() {
        let e = parse("P:0000:ok\nP:00G0:bad\n", 0x8000).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.problem.contains("address"), "{e:?}");
        assert_eq!(parse("\nP:0000\n", 0x8000).unwrap_err().line, 2);
        let e = parse("R:0310-0300:backwards\n", 0x8000).unwrap_err();
        assert!(e.problem.contains("range"), "{e:?}");
        assert_eq!(parse("G:12345:x\n", 0x8000).unwrap_err().line, 1);
    }

    #[test]
    fn long_names_are_cut_and_ranges_saturate() {
        let text = format!(
            "P:0000:{}\nR:0000-FFFFFFFF:all\nW:0-FFFFFFFF:wram\n",
            "q".repeat(70_000)
        );
        let l = parse(&text, 0x8000).unwrap();
        assert_eq!(l[0].name.chars().count(), MAX_LABEL_CHARS);
        assert!(l[0].name.starts_with("qqq") && l[0].name.ends_with('…'));
        assert_eq!(l[1].end, Some(u32::MAX));
        assert_eq!(l[2].end, Some(u32::MAX));
    }
}
