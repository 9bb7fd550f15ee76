//! Writing a whole output file atomically: into a temporary file beside it,
//! then renamed over it, so an interrupted run leaves the old file or the
//! new one, never half of one. (The PNG and WAV writers stream into their
//! own temporary files and rename them the same way.)

use std::path::{Path, PathBuf};

/// The temporary file `write` fills before the rename: `NAME.EXT.tmp`.
fn temporary(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}

/// Writes `bytes` to `path` atomically.
pub fn write(path: &Path, bytes: impl AsRef<[u8]>) -> std::io::Result<()> {
    let tmp = temporary(path);
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

/// [`write`], its error naming the file.
pub fn write_or_say(path: &Path, bytes: impl AsRef<[u8]>) -> anyhow::Result<()> {
    write(path, bytes).map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_file_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("nesprof-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.txt");
        std::fs::write(&path, "old").unwrap();
        write(&path, "new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert!(!temporary(&path).exists());
        assert_eq!(temporary(&path).file_name().unwrap(), "out.txt.tmp");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
