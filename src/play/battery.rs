//! Battery-backed PRG RAM persistence for the window: `<rom>.sav` next to the
//! ROM, loaded at start and written atomically (temporary file + rename) when
//! the window closes and once a minute while playing, so a crash or Ctrl-C
//! loses at most a minute. Headless runs never touch save files, so their
//! results depend only on the ROM and the inputs.

use std::path::{Path, PathBuf};

use emu::Nes;

pub struct BatterySave {
    path: PathBuf,
    last_written: Option<Vec<u8>>,
    warned: bool,
}

impl BatterySave {
    /// Loads `<rom>.sav` into the cartridge if the board has a battery.
    /// Returns `None` for boards without one.
    pub fn open(rom: &Path, nes: &mut Nes) -> Option<BatterySave> {
        nes.battery_ram()?;
        let path = rom.with_extension("sav");
        let mut last_written = None;
        // NES 2.0's largest battery-backed PRG RAM is 1 MiB (64 << 14).
        let limit = emu::input_file::SizeLimit {
            bytes: 1 << 20,
            what: "a battery save (NES 2.0's largest PRG-NVRAM, 1 MiB)",
        };
        if let Ok(bytes) = emu::input_file::read_limited(&path, limit) {
            match nes.load_battery_ram(&bytes) {
                Ok(()) => {
                    eprintln!(
                        "{}",
                        crate::notice::line(&format!("loaded battery save {}", path.display()))
                    );
                    last_written = Some(bytes);
                }
                Err(e) => eprintln!(
                    "{}",
                    crate::notice::line(&format!("warning: ignoring {}: {e}", path.display()))
                ),
            }
        }
        Some(BatterySave {
            path,
            last_written,
            warned: false,
        })
    }

    /// Writes the save if the RAM changed since the last write.
    pub fn write(&mut self, nes: &Nes) {
        let Some(ram) = nes.battery_ram() else {
            return;
        };
        if self.last_written.as_deref() == Some(ram) {
            return;
        }
        match crate::atomic::write(&self.path, ram) {
            Ok(()) => self.last_written = Some(ram.to_vec()),
            Err(e) if !self.warned => {
                eprintln!(
                    "{}",
                    crate::notice::line(&format!(
                        "warning: cannot write battery save {}: {e}",
                        self.path.display()
                    ))
                );
                self.warned = true;
            }
            Err(_) => {}
        }
    }
}
