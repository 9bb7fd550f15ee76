//! The FCEUX name list reader (`.nl`), after FCEUX's help page ".nl files
//! format" (fceux.com/web/help/NLFilesFormat.html) and its debugger source
//! (`generateNLFilenameForAddress`, `getBank`).
//!
//! FCEUX keeps one file per 16 KiB PRG-ROM bank, `<rom file name>.<X>.nl`
//! with X the bank in hex (`game.nes.0.nl`, `game.nes.1F.nl`), and one for
//! addresses below $8000, `<rom file name>.ram.nl`. The bank is the PRG-ROM
//! offset of the byte mapped at the address divided by 16 KiB, so on NROM-256
//! $8000-$BFFF is bank 0 and $C000-$FFFF bank 1, and on NROM-128 both
//! windows are bank 0. Lines:
//!
//! ```text
//! $C000#NewName1#Comment1
//! $C002##Comment2
//! $C008/10#NewName4#
//! \MultilineComment-Part2
//! ```
//!
//! An address (`$` and hex), optionally `/size` (hex) marking an array,
//! then `#name#comment`. Lines not starting with `$` (comment continuations,
//! blank lines) are ignored, as FCEUX does; a `$` line that does not parse is
//! an error naming the line, since a generated file that FCEUX would quietly
//! half-read is better fixed. Lines without a name (comments only) add
//! nothing.
//!
//! A label in bank X at CPU address A is at PRG offset `X * 16 KiB + (A &
//! $3FFF)`. That is exact for boards switching 16 or 32 KiB; with 8 KiB
//! banks (MMC3) it assumes the page sits in its usual half of the bank (an
//! even page at $8000/$C000, an odd one at $A000/$E000), since FCEUX's file
//! records only the bank. When the file name does not give the bank, the
//! addresses are taken as CPU addresses (PRG ROM on boards of at most 32 KiB).

use std::path::Path;

use super::location::{bounded_name, quoted, Label, LineError, Location};

/// Bytes per bank in FCEUX's name list file names (its default page size).
const BANK: u32 = 0x4000;

/// What a name list file's name says about its addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NlFile {
    /// `<rom>.<X>.nl`: PRG-ROM bank X.
    Bank(u32),
    /// `<rom>.ram.nl`: addresses below $8000.
    Ram,
    /// Anything else: CPU addresses.
    Unknown,
}

pub(crate) fn file_kind(path: &Path) -> NlFile {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return NlFile::Unknown;
    };
    let lower = name.to_ascii_lowercase();
    let Some(base) = lower.strip_suffix(".nl") else {
        return NlFile::Unknown;
    };
    match base.rsplit_once('.') {
        Some((rom, "ram")) if !rom.is_empty() => NlFile::Ram,
        Some((rom, bank)) if !rom.is_empty() && !bank.is_empty() && bank.len() <= 4 => {
            u32::from_str_radix(bank, 16).map_or(NlFile::Unknown, NlFile::Bank)
        }
        _ => NlFile::Unknown,
    }
}

/// The ROM file name a name list was written for: `game.nes` of
/// `game.nes.0.nl` and `game.nes.ram.nl`; `None` for other names.
pub(crate) fn rom_name(path: &Path) -> Option<&str> {
    if file_kind(path) == NlFile::Unknown {
        return None;
    }
    let name = path.file_name()?.to_str()?;
    let base = &name[..name.len() - 3];
    base.rsplit_once('.').map(|(rom, _)| rom)
}

fn hex(text: &str, what: &str, line: usize) -> Result<u32, LineError> {
    if text.is_empty() || text.len() > 8 {
        return Err(LineError::new(line, format!("bad {what} {}", quoted(text))));
    }
    u32::from_str_radix(text, 16)
        .map_err(|_| LineError::new(line, format!("bad {what} {}", quoted(text))))
}

/// Reads `text`, handing each label to `add` in the file's order.
pub(crate) fn read(
    text: &str,
    file: NlFile,
    prg_len: usize,
    add: &mut dyn FnMut(Label),
) -> Result<(), LineError> {
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let Some(body) = raw.trim_end_matches('\r').strip_prefix('$') else {
            continue;
        };
        let mut parts = body.splitn(3, '#');
        let addr_part = parts.next().unwrap_or_default();
        let name = parts
            .next()
            .ok_or_else(|| LineError::new(line, "expected $ADDRESS#name#comment"))?
            .trim();
        let (addr_text, size_text) = match addr_part.split_once('/') {
            Some((a, s)) => (a, Some(s)),
            None => (addr_part, None),
        };
        let addr = hex(addr_text.trim(), "address", line)?;
        if addr > 0xFFFF {
            return Err(LineError::new(
                line,
                format!("address ${addr:X} is past $FFFF"),
            ));
        }
        let size = size_text
            .map(|s| hex(s.trim(), "array size", line))
            .transpose()?;
        if size == Some(0) {
            return Err(LineError::new(line, "array size 0"));
        }
        if name.is_empty() {
            continue;
        }
        let location = match file {
            NlFile::Bank(bank) if addr >= 0x8000 => {
                Location::prg(bank * BANK + (addr & (BANK - 1)))
            }
            _ => Location::of_cpu(addr as u16, prg_len),
        };
        add(Label {
            location,
            name: bounded_name(name).into_owned(),
            end: size.map(|s| location.addr.saturating_add(s)),
            local: false,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbols::MAX_LABEL_CHARS;

    fn parse(text: &str, file: NlFile, prg_len: usize) -> Result<Vec<Label>, LineError> {
        let mut labels = Vec::new();
        read(text, file, prg_len, &mut |l| labels.push(l))?;
        Ok(labels)
    }

    #[test]
    fn file_names_give_the_bank() {
        assert_eq!(file_kind(Path::new("dir/game.nes.0.nl")), NlFile::Bank(0));
        assert_eq!(file_kind(Path::new("game.nes.1F.nl")), NlFile::Bank(0x1F));
        assert_eq!(
            file_kind(Path::new("NES Test Cart (PD).nes.ram.nl")),
            NlFile::Ram
        );
        assert_eq!(file_kind(Path::new("labels.nl")), NlFile::Unknown);
        assert_eq!(file_kind(Path::new("game.nes.labels.nl")), NlFile::Unknown);
        assert_eq!(rom_name(Path::new("dir/Game.nes.1F.nl")), Some("Game.nes"));
        assert_eq!(rom_name(Path::new("a.b.nes.ram.nl")), Some("a.b.nes"));
        assert_eq!(rom_name(Path::new("labels.nl")), None);
    }

    /// The example of FCEUX's help page, as bank 1 of a 128 KiB ROM.
    const HELP_EXAMPLE: &str = "$C000#NewName1#Comment1\n\
$C002##Comment2\n\
$C004#NewName2#\n\
$C006#NewName3#MultilineComment-Part1\n\
\\MultilineComment-Part2\n\
\\MultilineComment-Part3\n\
$C008/10#NewName4#\n";

    #[test]
    fn reads_the_documented_example() {
        let labels = parse(HELP_EXAMPLE, NlFile::Bank(1), 0x20000).unwrap();
        let names: Vec<(&str, Location)> = labels
            .iter()
            .map(|l| (l.name.as_str(), l.location))
            .collect();
        assert_eq!(
            names,
            vec![
                ("NewName1", Location::prg(0x4000)),
                ("NewName2", Location::prg(0x4004)),
                ("NewName3", Location::prg(0x4006)),
                ("NewName4", Location::prg(0x4008)),
            ]
        );
        // `/10` is hex: a 16-byte array.
        assert_eq!(labels[3].end, Some(0x4018));
        assert_eq!(labels[0].end, None);
    }

    #[test]
    fn nrom_banks_and_ram_file() {
        // NROM-256: $C000 is in bank 1; NROM-128: in bank 0 (the mirror).
        let l = parse("$C010#handler#\n", NlFile::Bank(1), 0x8000).unwrap();
        assert_eq!(l[0].location, Location::prg(0x4010));
        let l = parse("$C010#handler#\n", NlFile::Bank(0), 0x4000).unwrap();
        assert_eq!(l[0].location, Location::prg(0x0010));
        let ram = "$0000#temp#\n$0300/20#buffer#scratch\n$6000#save#\n$2000#PPUCTRL#\n";
        let l = parse(ram, NlFile::Ram, 0x8000).unwrap();
        let locs: Vec<Location> = l.iter().map(|l| l.location).collect();
        assert_eq!(
            locs,
            vec![
                Location::ram(0),
                Location::ram(0x300),
                Location::wram(0),
                Location::cpu(0x2000)
            ]
        );
        assert_eq!(l[1].end, Some(0x320));
        // Bank unknown: CPU addresses, PRG ROM on small boards only.
        let l = parse("$C010#handler#\n", NlFile::Unknown, 0x8000).unwrap();
        assert_eq!(l[0].location, Location::prg(0x4010));
        let l = parse("$C010#handler#\n", NlFile::Unknown, 0x20000).unwrap();
        assert_eq!(l[0].location, Location::cpu(0xC010));
    }

    #[test]
    fn bad_lines_name_their_line() {
        let e = parse("$C000#ok#\n$C0G0#bad#\n", NlFile::Bank(0), 0x8000).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.problem.contains("address"), "{e:?}");
        assert_eq!(
            parse("\n\n$C000\n", NlFile::Bank(0), 0x8000)
                .unwrap_err()
                .line,
            3
        );
        assert_eq!(
            parse("$C000/x#a#\n", NlFile::Bank(0), 0x8000)
                .unwrap_err()
                .line,
            1
        );
        assert_eq!(
            parse("$12345#a#\n", NlFile::Ram, 0x8000).unwrap_err().line,
            1
        );
        // Not starting with `$`: ignored, as FCEUX does.
        assert!(parse("; notes\nC000#x#\n", NlFile::Bank(0), 0x8000)
            .unwrap()
            .is_empty());
    }

    #[test]
    fn long_names_are_cut_and_sizes_saturate() {
        let text = format!(
            "$C000/FFFFFFFF#{}#\n$C001#esc\x1b[2J#\n",
            "z".repeat(70_000)
        );
        let l = parse(&text, NlFile::Bank(0xFFFF), 0x20000).unwrap();
        assert_eq!(l[0].name.chars().count(), MAX_LABEL_CHARS);
        assert_eq!(l[0].end, Some(u32::MAX));
        assert_eq!(l[1].name, "esc\\x1b[2J");
    }
}
