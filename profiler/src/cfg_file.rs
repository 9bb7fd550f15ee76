//! Recorded CFGs on disk: RON with a format version, the ROM it came from,
//! and the disassembly of every instruction in it (captured when recorded,
//! because banked or self-modifying code cannot be disassembled later).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gfc::Cfg;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Version of [`CfgFile`]'s shape; bumped on incompatible changes.
pub const CFG_FILE_VERSION: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CfgFile {
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
    #[error("{path}: CFG record version {found}, this nesprof reads version {CFG_FILE_VERSION}")]
    Version { path: PathBuf, found: u32 },
}

impl CfgFile {
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

    pub fn read(path: &Path) -> Result<CfgFile, CfgFileError> {
        let text = std::fs::read_to_string(path).map_err(|source| CfgFileError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text, path)
    }

    pub fn parse(text: &str, path: &Path) -> Result<CfgFile, CfgFileError> {
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
            if v.version != CFG_FILE_VERSION {
                return Err(CfgFileError::Version {
                    path: path.to_path_buf(),
                    found: v.version,
                });
            }
        }
        options.from_str(text).map_err(parse_err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> CfgFile {
        let mut cfg = Cfg::new();
        cfg.insert_block(gfc::Block::new(0x8000, 2));
        cfg.add_edge(0x8000, 0x8000, 3);
        CfgFile {
            version: CFG_FILE_VERSION,
            kind: "truth".into(),
            rom_name: "x.nes".into(),
            rom_hash: "0123456789abcdef".into(),
            frames: 60,
            cfg,
            disasm: BTreeMap::from([(0x8000, "JMP $8000".to_string())]),
        }
    }

    #[test]
    fn round_trips_and_checks_its_version() {
        let path = Path::new("x.ron");
        let text = sample().to_ron();
        let back = CfgFile::parse(&text, path).unwrap();
        assert_eq!(back.cfg, sample().cfg);
        assert_eq!(back.to_ron(), text);
        let future = text.replacen(&format!("version: {CFG_FILE_VERSION}"), "version: 7", 1);
        let err = CfgFile::parse(&future, path).unwrap_err().to_string();
        assert!(err.contains("version 7"), "{err}");
        let err = CfgFile::parse("(version: 1, kind: 3)", path).unwrap_err();
        assert!(matches!(err, CfgFileError::Parse { .. }), "{err}");
    }
}
