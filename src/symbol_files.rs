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
use profiler::symbols::Symbols;

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

/// The symbols for a ROM of `prg_len` bytes of PRG ROM at `rom` (if known):
/// the files given, else the ones found beside it. Says on stderr what it
/// read. `None` when there are no labels.
pub fn load(
    args: &SymbolArgs,
    rom: Option<&Path>,
    prg_len: usize,
) -> anyhow::Result<Option<Symbols>> {
    if args.off() {
        return Ok(None);
    }
    if args.files.is_empty() {
        let Some(rom) = rom else {
            return Ok(None);
        };
        return Ok(match Symbols::discover(rom, prg_len) {
            Ok((symbols, read)) if !symbols.is_empty() => {
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
    let mut symbols = Symbols::new(prg_len);
    for path in &args.files {
        symbols
            .load(path)
            .map_err(|e| BadInput(format!("--symbols: {e}")))?;
    }
    say(&args.files, symbols.len());
    Ok((!symbols.is_empty()).then_some(symbols))
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
