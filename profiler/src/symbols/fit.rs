//! Whether a symbol file can be the ROM's (issue 43: another game's file
//! was applied silently, and its names labelled the wrong code).
//!
//! Two levels:
//! - refused: a label in PRG ROM past the ROM's PRG ROM (a `.dbg` of a
//!   bigger build, a `.nl` of a bank the ROM does not have, a Mesen `P:`
//!   offset past the end). Such a file cannot map onto this ROM at all.
//! - a one-line warning: an ld65 debug file whose layout does not fit. Its
//!   segments say how much PRG ROM the output had (the segment that ends at
//!   $FFFF, the vectors, ends the PRG ROM) and how long the output file was;
//!   on a ROM of at most 32 KiB (nothing banked) the ROM's NMI and reset
//!   vectors should land on labels, as they do in every ld65 build (the
//!   assembler names every label). The output file's name differing from the
//!   ROM's is only a hint (ROMs get renamed): it is added to the warning,
//!   and alone makes a milder note. FCEUX name lists carry the ROM's file
//!   name too (`game.nes.0.nl`), checked the same way.

use super::dbg::Layout;
use super::location::{Label, Location, Region};

/// The ROM a symbol file is applied to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RomShape {
    /// The ROM's file name (`game.nes`).
    pub file_name: String,
    pub prg_len: usize,
    /// CHR ROM (0 with CHR RAM).
    pub chr_len: usize,
    /// Header, trainer, PRG and CHR ROM: the file's length.
    pub file_len: usize,
    /// The NMI, reset and IRQ vectors in the last six bytes of PRG ROM.
    pub vectors: [u16; 3],
}

impl RomShape {
    /// The shape of `prg_rom` and `chr_rom` loaded from file `file_name`.
    pub fn new(file_name: &str, prg_rom: &[u8], chr_rom_len: usize, trainer: bool) -> RomShape {
        let vector = |i: usize| {
            let at = prg_rom.len().saturating_sub(6) + 2 * i;
            match prg_rom.get(at..at + 2) {
                Some(b) => u16::from_le_bytes([b[0], b[1]]),
                None => 0,
            }
        };
        RomShape {
            file_name: file_name.to_owned(),
            prg_len: prg_rom.len(),
            chr_len: chr_rom_len,
            file_len: 16 + if trainer { 512 } else { 0 } + prg_rom.len() + chr_rom_len,
            vectors: [vector(0), vector(1), vector(2)],
        }
    }
}

/// What the check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fit {
    Fits,
    /// Worth a note: only the names differ.
    Note(String),
    /// Worth a warning: the layout does not fit.
    Warn(String),
    /// Cannot map: refused.
    Refuse(String),
}

/// Labels in PRG ROM past its end: the file cannot be this ROM's.
fn beyond(labels: &[Label], rom: &RomShape) -> Option<String> {
    let past: Vec<&Label> = labels
        .iter()
        .filter(|l| l.location.region == Region::PrgRom && l.location.addr as usize >= rom.prg_len)
        .collect();
    let first = past.iter().min_by_key(|l| l.location.addr)?;
    Some(format!(
        "{} of its labels are past the ROM's {} KiB of PRG ROM (`{}` at PRG offset ${:X}): \
         it is another game's or another build's, not {}'s",
        past.len(),
        rom.prg_len / 1024,
        first.name,
        first.location.addr,
        rom.file_name
    ))
}

/// `written for other.nes` when the file was made for a file of another
/// name (compared without case).
fn other_name<'a>(names: impl IntoIterator<Item = &'a str>, rom: &RomShape) -> Option<String> {
    let names: Vec<&str> = names.into_iter().collect();
    let same = names.iter().any(|n| n.eq_ignore_ascii_case(&rom.file_name));
    (!names.is_empty() && !same && !rom.file_name.is_empty())
        .then(|| format!("written for {}", names.join(", ")))
}

/// Checks an ld65 debug file.
pub(crate) fn dbg(labels: &[Label], layout: &Layout, rom: &RomShape) -> Fit {
    if let Some(why) = beyond(labels, rom) {
        return Fit::Refuse(why);
    }
    let mut misfits = Vec::new();
    let kib = |n: u64| format!("{} KiB", n as f64 / 1024.0);
    match (layout.vectors_end, layout.prg_end) {
        (Some(end), _) if end as usize != rom.prg_len => misfits.push(format!(
            "its PRG ROM ends at {} (the vectors' segment), the ROM has {}",
            kib(end as u64),
            kib(rom.prg_len as u64)
        )),
        (None, Some(end)) if end as usize > rom.prg_len => misfits.push(format!(
            "its code reaches {} of PRG ROM, the ROM has {}",
            kib(end as u64),
            kib(rom.prg_len as u64)
        )),
        _ => {}
    }
    if layout.file_end as usize > rom.file_len {
        misfits.push(format!(
            "it describes a {}-byte file, the ROM is {} bytes ({} of CHR ROM)",
            layout.file_end,
            rom.file_len,
            kib(rom.chr_len as u64)
        ));
    }
    // Unbanked: the vectors' targets are PRG offsets for certain.
    if misfits.is_empty() && rom.prg_len > 0 && rom.prg_len <= 0x8000 {
        let [nmi, reset, _] = rom.vectors;
        let labelled = |target: u16| {
            let at = Location::of_cpu(target, rom.prg_len);
            labels.iter().any(|l| l.location == at)
        };
        let any_prg = labels.iter().any(|l| l.location.region == Region::PrgRom);
        if any_prg && !labelled(nmi) && !labelled(reset) {
            misfits.push(format!(
                "the ROM's reset (${reset:04X}) and NMI (${nmi:04X}) vectors point at none of its labels"
            ));
        }
    }
    let hint = other_name(layout.outputs.iter().map(String::as_str), rom);
    match (misfits.is_empty(), hint) {
        (true, None) => Fit::Fits,
        (true, Some(hint)) => Fit::Note(hint),
        (false, hint) => {
            let mut why = misfits.join("; ");
            if let Some(hint) = hint {
                why.push_str(&format!(" ({hint})"));
            }
            Fit::Warn(why)
        }
    }
}

/// Checks a FCEUX name list (`rom_name` from its file name, `game.nes` of
/// `game.nes.0.nl`) or a Mesen label file (no name).
pub(crate) fn other(labels: &[Label], rom_name: Option<&str>, rom: &RomShape) -> Fit {
    if let Some(why) = beyond(labels, rom) {
        return Fit::Refuse(why);
    }
    match other_name(rom_name, rom) {
        Some(hint) => Fit::Note(hint),
        None => Fit::Fits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rom() -> RomShape {
        let mut prg = vec![0u8; 0x8000];
        // NMI $8010, reset $8000, IRQ $8020.
        prg[0x7FFA..].copy_from_slice(&[0x10, 0x80, 0x00, 0x80, 0x20, 0x80]);
        RomShape::new("game.nes", &prg, 0x2000, false)
    }

    fn label(offset: u32, name: &str) -> Label {
        Label {
            location: Location::prg(offset),
            name: name.into(),
            end: None,
            local: false,
        }
    }

    fn layout(outputs: &[&str], prg_end: u32, file_end: u32) -> Layout {
        Layout {
            outputs: outputs.iter().map(|s| s.to_string()).collect(),
            prg_end: Some(prg_end),
            vectors_end: Some(prg_end),
            file_end,
        }
    }

    #[test]
    fn a_rom_shape_reads_its_vectors() {
        let r = rom();
        assert_eq!((r.prg_len, r.chr_len, r.file_len), (0x8000, 0x2000, 0xA010));
        assert_eq!(r.vectors, [0x8010, 0x8000, 0x8020]);
    }

    #[test]
    fn the_own_debug_file_fits() {
        let labels = [label(0, "reset"), label(0x10, "nmi")];
        let own = layout(&["game.nes"], 0x8000, 0xA010);
        assert_eq!(dbg(&labels, &own, &rom()), Fit::Fits);
        // Renamed: a note.
        let renamed = layout(&["game-v1.nes"], 0x8000, 0xA010);
        assert_eq!(
            dbg(&labels, &renamed, &rom()),
            Fit::Note("written for game-v1.nes".into())
        );
    }

    #[test]
    fn another_games_debug_file_is_warned_of_or_refused() {
        let labels = [label(0x40, "main"), label(0x90, "nmi")];
        // Same size, vectors on no label.
        let same_size = layout(&["other.nes"], 0x8000, 0xA010);
        let Fit::Warn(why) = dbg(&labels, &same_size, &rom()) else {
            panic!()
        };
        assert!(
            why.contains("reset ($8000)") && why.ends_with("(written for other.nes)"),
            "{why}"
        );
        // A 16 KiB build.
        let small = layout(&["game.nes"], 0x4000, 0x6010);
        let Fit::Warn(why) = dbg(&[label(0, "reset")], &small, &rom()) else {
            panic!()
        };
        assert_eq!(
            why,
            "its PRG ROM ends at 16 KiB (the vectors' segment), the ROM has 32 KiB"
        );
        // A 128 KiB build: labels past the end.
        let big = [
            label(0, "reset"),
            label(0x1C000, "far"),
            label(0x1FFF0, "vec"),
        ];
        let Fit::Refuse(why) = dbg(&big, &layout(&["x.nes"], 0x20000, 0x22010), &rom()) else {
            panic!()
        };
        assert!(
            why.starts_with("2 of its labels are past the ROM's 32 KiB"),
            "{why}"
        );
        assert!(why.contains("`far` at PRG offset $1C000"), "{why}");
    }

    #[test]
    fn name_lists_and_mesen_files() {
        assert_eq!(other(&[label(0, "a")], Some("game.nes"), &rom()), Fit::Fits);
        assert_eq!(other(&[label(0, "a")], Some("GAME.NES"), &rom()), Fit::Fits);
        assert_eq!(
            other(&[label(0, "a")], Some("zelda.nes"), &rom()),
            Fit::Note("written for zelda.nes".into())
        );
        assert!(matches!(
            other(&[label(0x8000, "b")], None, &rom()),
            Fit::Refuse(_)
        ));
    }
}
