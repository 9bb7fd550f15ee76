//! Recorded CFGs on disk: RON with a format version, the ROM it came from,
//! and the disassembly of every instruction in it (captured when recorded,
//! because banked or self-modifying code cannot be disassembled later).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gfc::Cfg;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Version of [`CfgRecord`]'s shape; bumped on incompatible changes.
pub const RECORD_VERSION: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CfgRecord {
    pub version: u32,
    /// What the graph is: `truth`, `h90` or `sampled`.
    pub kind: String,
    pub rom_name: String,
    /// FNV-1a 64 of the ROM file, hex.
    pub rom_hash: String,
    pub frames: u64,
    pub cfg: Cfg,
    /// Instruction text per address.
    pub disasm: BTreeMap<u32, String>,
}

#[derive(Debug, Error)]
pub enum CfgFileError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not a CFG record: {problem}")]
    Parse { path: PathBuf, problem: String },
    #[error("{path}: CFG record version {found}, this nesprof reads version {RECORD_VERSION}")]
    Version { path: PathBuf, found: u32 },
}

impl CfgRecord {
    pub fn to_ron(&self) -> String {
        ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default())
            .expect("CFG records serialize")
    }

    /// Writes atomically (temporary file, then rename).
    pub fn write(&self, path: &Path) -> Result<(), CfgFileError> {
        let io = |source| CfgFileError::Io {
            path: path.to_path_buf(),
            source,
        };
        let tmp = path.with_extension("ron.tmp");
        std::fs::write(&tmp, self.to_ron()).map_err(io)?;
        std::fs::rename(&tmp, path).map_err(io)
    }

    pub fn read(path: &Path) -> Result<CfgRecord, CfgFileError> {
        let text = std::fs::read_to_string(path).map_err(|source| CfgFileError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text, path)
    }

    pub fn parse(text: &str, path: &Path) -> Result<CfgRecord, CfgFileError> {
        // Check the version before the full shape, so an old or future file
        // gets a version error rather than a confusing field error.
        #[derive(Deserialize)]
        struct VersionOnly {
            version: u32,
        }
        let parse_err = |e: ron::error::SpannedError| CfgFileError::Parse {
            path: path.to_path_buf(),
            problem: e.to_string(),
        };
        let options = ron::Options::default();
        if let Ok(v) = options.from_str::<VersionOnly>(text) {
            if v.version != RECORD_VERSION {
                return Err(CfgFileError::Version {
                    path: path.to_path_buf(),
                    found: v.version,
                });
            }
        }
        options.from_str(text).map_err(parse_err)
    }
}
