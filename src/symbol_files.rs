//! `--symbols FILE` for the subcommands that name blocks (profile, play
//! --overlay, cfg record/build/dot): the files given, or, when none is, the
//! ones the assembler or debugger left next to the ROM
//! (`profiler::symbols::discover_paths`), so that a program built with
//! `ld65 --dbgfile` shows its labels with no flag at all. Given files that
//! cannot be read are bad input (exit 2); a discovered file that cannot be
//! is a warning, since the user did not ask for it. What was read, and the
//! warnings, are notices (`crate::notice`): printed when the command
//! succeeds, so a command failing after this prints only its error.

use std::path::{Path, PathBuf};

use clap::Args;
use profiler::symbols::{RomShape, Symbols};

use crate::error::BadInput;
use crate::notice;

/// The option, flattened into each subcommand's arguments.
#[derive(Debug, Clone, Default, Args)]
pub struct SymbolArgs {
    /// Label files naming code and data: ld65 debug info (.dbg, from
    /// `ld65 --dbgfile`), FCEUX name lists (.nl: `game.nes.0.nl` per
    /// 16 KiB bank, `game.nes.ram.nl`) or Mesen labels (.mlb). Repeatable.
    /// Without it, such files next to the ROM are read (`game.dbg`,
    /// `game.mlb`, `game.nes.*.nl`); `--symbols none` reads nothing.
    #[arg(long = "symbols", value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

impl SymbolArgs {
    /// Whether `--symbols none` turned symbols off.
    fn off(&self) -> bool {
        self.files.len() == 1 && self.files[0] == Path::new("none")
    }
}

/// PRG ROM size assumed when no ROM is at hand (`cfg build/dot` without
/// `--rom`): banked code addresses carry their PRG offset, so only a 16 KiB
/// program, whose $C000 mirrors $8000, would need the real size.
pub const UNBANKED_PRG: usize = 0x8000;

/// What the files are checked against: the ROM's file name, sizes and
/// vectors (`profiler::symbols::RomShape`).
pub fn rom_shape(rom: &Path, cart: &emu::Cartridge) -> RomShape {
    let chr_rom = if cart.chr_writable {
        0
    } else {
        cart.chr().len()
    };
    let name = rom
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    RomShape::new(&name, &cart.prg_rom, chr_rom, cart.header.trainer)
}

/// The symbols for the ROM at `rom`, loaded as `cart`: the files given,
/// else the ones found beside it, checked against it (a file that cannot
/// map onto it is refused, one that may be another game's leaves a line on
/// stderr). Without a ROM, the files given, unchecked, for an unbanked
/// program. Says on stderr what it read. `None` when there are no labels.
pub fn load(
    args: &SymbolArgs,
    rom: Option<(&Path, &emu::Cartridge)>,
) -> anyhow::Result<Option<Symbols>> {
    if args.off() {
        return Ok(None);
    }
    let empty = || match rom {
        Some((path, cart)) => Symbols::for_rom(rom_shape(path, cart)),
        None => Symbols::new(UNBANKED_PRG),
    };
    if args.files.is_empty() {
        let Some((path, _)) = rom else {
            return Ok(None);
        };
        return Ok(match empty().discover_beside(path) {
            Ok((mut symbols, read)) if !symbols.is_empty() => {
                tell(&mut symbols);
                say(&read, symbols.len());
                Some(symbols)
            }
            Ok(_) => None,
            Err(e) => {
                notice::later(&format!("warning: symbols not used: {e}"));
                None
            }
        });
    }
    let mut symbols = empty();
    for path in &args.files {
        symbols
            .load(path)
            .map_err(|e| BadInput(format!("--symbols: {e}")))?;
    }
    tell(&mut symbols);
    say(&args.files, symbols.len());
    Ok((!symbols.is_empty()).then_some(symbols))
}

/// The one-line warnings and notes of files that may be another game's.
fn tell(symbols: &mut Symbols) {
    for line in symbols.take_notices() {
        eprintln!("{line}");
    }
}

fn say(files: &[PathBuf], labels: usize) {
    let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    notice::later(&format!(
        "symbols: {labels} labels from {}",
        names.join(", ")
    ));
}

/// How blocks are named: `label+$off` with symbols, else the code address.
pub fn namer(symbols: Option<&Symbols>) -> impl Fn(u32) -> String + '_ {
    move |code| match symbols {
        Some(s) => s.describe(code),
        None => emu::code_addr::label(code),
    }
}

/// How a block is listed in a table: its code address, and its label when
/// one reaches it (`$8841 draw_scope@dot`, `03:A1F0 update+$12`).
pub fn block_namer(symbols: Option<&Symbols>) -> impl Fn(u32) -> String + '_ {
    move |code| {
        let address = emu::code_addr::label(code);
        match symbols.and_then(|s| s.lookup(code)) {
            Some(hit) if hit.offset == 0 => format!("{address} {}", hit.name),
            Some(hit) => format!("{address} {}+${:X}", hit.name, hit.offset),
            None => address,
        }
    }
}
