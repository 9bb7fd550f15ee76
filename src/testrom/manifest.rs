//! The third-party ROM manifest (`MANIFEST.tsv` in the ROM directory): which
//! result protocol each test ROM speaks.

use std::path::{Path, PathBuf};

use super::Protocol;

#[derive(Debug, Clone)]
pub struct ManifestEntry {
    /// Path relative to the ROM directory, e.g. `cpu/nestest/nestest.nes`.
    pub path: String,
    pub suite: String,
    pub protocol: Protocol,
}

/// The ROM directory: `$NESPROF_ROMS`, else the first `shared/roms` found
/// beside the current directory or the source tree or one of their ancestors
/// (the workplace keeps it at `../shared/roms` relative to a checkout).
pub fn roms_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("NESPROF_ROMS") {
        return PathBuf::from(dir);
    }
    let starts = [
        std::env::current_dir().unwrap_or_default(),
        PathBuf::from(env!("CARGO_MANIFEST_DIR")),
    ];
    for start in &starts {
        for dir in start.ancestors() {
            let candidate = dir.join("shared").join("roms");
            if candidate.join("MANIFEST.tsv").is_file() {
                return candidate;
            }
        }
    }
    PathBuf::from("../shared/roms")
}

#[derive(Debug, Clone, Default)]
pub struct Manifest {
    pub root: PathBuf,
    pub entries: Vec<ManifestEntry>,
}

impl Manifest {
    /// Loads `MANIFEST.tsv` from `root`, and those of the directories one
    /// and two levels below it. A missing manifest gives an empty one.
    pub fn load(root: &Path) -> Result<Manifest, String> {
        let mut manifest = Manifest {
            root: root.to_path_buf(),
            entries: Manifest::load_one(root)?,
        };
        manifest.add_nested()?;
        Ok(manifest)
    }

    /// The entries of `root/MANIFEST.tsv` alone (none if there is none).
    fn load_one(root: &Path) -> Result<Vec<ManifestEntry>, String> {
        let file = root.join("MANIFEST.tsv");
        // A manifest of thousands of ROMs is tens of KiB.
        let limit = emu::input_file::SizeLimit {
            bytes: 16 << 20,
            what: "a test-ROM manifest (16 MiB: far above any list of ROMs)",
        };
        let text = match emu::input_file::read_limited_text(&file, limit) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(format!("{}: {e}", file.display())),
        };
        let mut lines = text.lines().enumerate();
        let header: Vec<&str> = match lines.next() {
            Some((_, h)) => h.split('\t').collect(),
            None => return Err(format!("{}: empty manifest", file.display())),
        };
        let column = |name: &str| {
            header
                .iter()
                .position(|h| *h == name)
                .ok_or_else(|| format!("{}: no `{name}` column", file.display()))
        };
        let (path_col, suite_col, proto_col) = (
            column("path")?,
            column("suite")?,
            column("result_protocol")?,
        );
        let mut entries = Vec::new();
        for (index, line) in lines {
            if line.trim().is_empty() {
                continue;
            }
            let fields: Vec<&str> = line.split('\t').collect();
            let field = |col: usize| {
                fields.get(col).copied().ok_or_else(|| {
                    format!(
                        "{}:{}: missing column {}",
                        file.display(),
                        index + 1,
                        col + 1
                    )
                })
            };
            let protocol: Protocol = field(proto_col)?
                .parse()
                .map_err(|e| format!("{}:{}: {e}", file.display(), index + 1))?;
            entries.push(ManifestEntry {
                path: field(path_col)?.to_string(),
                suite: field(suite_col)?.to_string(),
                protocol,
            });
        }
        Ok(entries)
    }

    /// Adds the entries of the manifests one and two directories down
    /// (`accuracy/AccuracyCoin/MANIFEST.tsv`: a suite with a protocol of
    /// its own keeps its row beside it), their paths made relative to the
    /// root; a ROM listed twice keeps its first row.
    fn add_nested(&mut self) -> Result<(), String> {
        let mut dirs = Vec::new();
        for depth in 1..=2 {
            let parents: Vec<PathBuf> = if depth == 1 {
                vec![self.root.clone()]
            } else {
                dirs.clone()
            };
            for parent in parents {
                let Ok(read) = std::fs::read_dir(&parent) else {
                    continue;
                };
                let mut found: Vec<PathBuf> = read
                    .filter_map(Result::ok)
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                    .map(|e| e.path())
                    .collect();
                found.sort();
                if depth == 1 {
                    dirs.extend(found.iter().cloned());
                }
                for dir in found
                    .into_iter()
                    .filter(|d| d.join("MANIFEST.tsv").is_file())
                {
                    let nested = Manifest::load_one(&dir)?;
                    let prefix = dir
                        .strip_prefix(&self.root)
                        .map(|p| p.to_string_lossy().replace('\\', "/"))
                        .unwrap_or_default();
                    for mut e in nested {
                        e.path = format!("{prefix}/{}", e.path);
                        if !self.entries.iter().any(|x| x.path == e.path) {
                            self.entries.push(e);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Finds the entry for a ROM path given on the command line, matching by
    /// the path's tail (so `cpu/nestest/nestest.nes`, an absolute path, or
    /// `../shared/roms/cpu/...` all work).
    pub fn find(&self, rom: &Path) -> Option<&ManifestEntry> {
        let canonical = rom.canonicalize().ok();
        let root = self.root.canonicalize().ok();
        if let (Some(rom), Some(root)) = (&canonical, &root) {
            if let Ok(rel) = rom.strip_prefix(root) {
                let rel = rel.to_string_lossy().replace('\\', "/");
                if let Some(e) = self.entries.iter().find(|e| e.path == rel) {
                    return Some(e);
                }
            }
        }
        let given = rom.to_string_lossy().replace('\\', "/");
        self.entries
            .iter()
            .filter(|e| given.ends_with(&e.path))
            .max_by_key(|e| e.path.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_manifests_join_with_their_paths() {
        let root = std::env::temp_dir().join(format!("nesprof-manifest-{}", std::process::id()));
        let nested = root.join("accuracy").join("Suite");
        std::fs::create_dir_all(&nested).unwrap();
        let header = "path\tsuite\tresult_protocol\n";
        std::fs::write(
            root.join("MANIFEST.tsv"),
            format!("{header}a.nes\ttop\tblargg-6000\n"),
        )
        .unwrap();
        std::fs::write(
            nested.join("MANIFEST.tsv"),
            format!("{header}s.nes\tsuite\taccuracycoin\n"),
        )
        .unwrap();
        let m = Manifest::load(&root).unwrap();
        let _ = std::fs::remove_dir_all(&root);
        let paths: Vec<(&str, Protocol)> = m
            .entries
            .iter()
            .map(|e| (e.path.as_str(), e.protocol))
            .collect();
        assert_eq!(
            paths,
            [
                ("a.nes", Protocol::Blargg6000),
                ("accuracy/Suite/s.nes", Protocol::AccuracyCoin)
            ]
        );
    }
}
