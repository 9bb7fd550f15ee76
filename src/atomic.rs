//! Writing output files atomically: each is filled under a temporary name
//! beside its destination, flushed to disk (fsync) and renamed over it, so
//! an interrupted or failed run leaves the old file or the new one, never
//! half of one, and no temporary behind.
//!
//! Destinations: a regular file or a new name is replaced; a symlink is
//! written *through* (its target is replaced and the link kept, as a text
//! editor does), so a link into another directory keeps working; a
//! directory, FIFO, device or socket is refused, because replacing it with a
//! regular file would silently break whatever it was for.
//!
//! Live temporaries are registered, so a second Ctrl-C (see
//! [`crate::signals`]), which exits at once, can still remove them.

use std::collections::HashSet;
use std::fs::File;
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};

use parking_lot::Mutex;

use crate::error::BadInput;

/// Temporaries not yet renamed or removed.
static LIVE: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);

/// Removes every live temporary, on the way to a forced exit: the registry
/// stays locked afterwards, so no other thread can create a temporary
/// between this and the exit (creating one takes the lock, see
/// [`Staged::create`]).
pub fn remove_all_temporaries() {
    let mut live = LIVE.lock();
    for path in live.take().into_iter().flatten() {
        let _ = std::fs::remove_file(path);
    }
    std::mem::forget(live);
}

/// The file a write to `path` replaces: `path` itself, or the target of the
/// symlink it is. An error if that is not a regular file or a new name.
pub fn destination(path: &Path) -> std::io::Result<PathBuf> {
    let refuse = |what: &str| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{what}: refusing to replace it with a regular file"),
        )
    };
    let target = match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(path.to_path_buf()),
        Err(e) => return Err(e),
        Ok(m) if m.file_type().is_symlink() => match std::fs::canonicalize(path) {
            Ok(target) => target,
            Err(_) => return Err(refuse("a dangling symlink")),
        },
        Ok(_) => path.to_path_buf(),
    };
    let m = std::fs::metadata(&target)?;
    if m.is_dir() {
        Err(refuse("a directory"))
    } else if !m.is_file() {
        Err(refuse("not a regular file (a FIFO, device or socket)"))
    } else {
        Ok(target)
    }
}

/// Checks, before a long run, that `path` can be written at its end: a
/// destination we accept (see the module comment) in an existing directory.
/// The error is a bad argument (exit 2) naming the path.
pub fn check(path: &Path) -> anyhow::Result<()> {
    let dest = destination(path).map_err(|e| say(path, e))?;
    let parent = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        let e = std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("no directory {}", parent.display()),
        );
        return Err(say(path, e));
    }
    // Our temporaries of this file from runs that were killed.
    if let Ok(entries) = std::fs::read_dir(parent) {
        let mut prefix = std::ffi::OsString::from(".");
        prefix.push(dest.file_name().unwrap_or_default());
        prefix.push(".");
        let prefix = prefix.to_string_lossy().into_owned();
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with(&prefix) {
                remove_if_stale(&entry.path());
            }
        }
    }
    // Creating the temporary now finds a directory that cannot be written
    // (read-only, a name too long) before the run, not after it.
    let tmp = temporary(&dest);
    create_new(&tmp).map_err(|e| say(path, e))?;
    let _ = std::fs::remove_file(&tmp);
    Ok(())
}

/// Creates the temporary `tmp` afresh: whatever has its name (a leftover
/// of a process that had our id, or a symlink planted there) is removed,
/// not opened, so a write never follows a link it did not choose.
fn create_new(tmp: &Path) -> std::io::Result<File> {
    match std::fs::remove_file(tmp) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(tmp)
}

/// Removes `path` if it is a temporary of ours (`.NAME.PID.tmp`) whose
/// process is gone: a run killed by SIGKILL or a power cut leaves it, and
/// nothing else ever would.
pub fn remove_if_stale(path: &Path) {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return;
    };
    let Some(rest) = name.strip_prefix('.').and_then(|n| n.strip_suffix(".tmp")) else {
        return;
    };
    let Some((_, pid)) = rest.rsplit_once('.') else {
        return;
    };
    let Ok(pid) = pid.parse::<u32>() else {
        return;
    };
    if pid != std::process::id() && !process_alive(pid) {
        let _ = std::fs::remove_file(path);
    }
}

/// Whether a process `pid` exists (signal 0 delivers nothing; EPERM means
/// it exists but is another user's).
fn process_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return true;
    }
    // SAFETY: kill(2) with signal 0 only checks that the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// The temporary name for `dest`: `.NAME.PID.tmp` beside it (hidden, and
/// distinct per process so two runs never share one).
fn temporary(dest: &Path) -> PathBuf {
    let mut name = std::ffi::OsString::from(".");
    name.push(dest.file_name().unwrap_or_default());
    name.push(format!(".{}.tmp", std::process::id()));
    dest.with_file_name(name)
}

/// An output file being written: [`Staged::commit`] makes it appear under
/// its final name; dropped uncommitted (an error, an interruption), its
/// temporary is removed and the destination is untouched.
pub struct Staged {
    /// The open file, until [`Staged::sync`].
    file: Option<std::io::BufWriter<File>>,
    tmp: PathBuf,
    dest: PathBuf,
    committed: bool,
}

impl Staged {
    /// Starts writing the file that will replace `path`.
    pub fn create(path: &Path) -> std::io::Result<Staged> {
        Staged::begin(destination(path)?)
    }

    fn begin(dest: PathBuf) -> std::io::Result<Staged> {
        let tmp = temporary(&dest);
        // Created and registered under the lock: a forced exit in between
        // would otherwise leave it behind.
        let mut live = LIVE.lock();
        let file = create_new(&tmp)?;
        live.get_or_insert_with(HashSet::new).insert(tmp.clone());
        drop(live);
        Ok(Staged {
            file: Some(std::io::BufWriter::new(file)),
            tmp,
            dest,
            committed: false,
        })
    }

    /// Starts writing the file that will replace `path` itself: a symlink
    /// there is replaced by the new file, not written through (for the
    /// files of an output set, which must stay inside their directory).
    pub fn create_in_place(path: &Path) -> std::io::Result<Staged> {
        if let Ok(m) = std::fs::symlink_metadata(path) {
            let kind = m.file_type();
            if kind.is_dir() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "a directory: refusing to replace it with a regular file",
                ));
            }
            if !kind.is_file() && !kind.is_symlink() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "not a regular file (a FIFO, device or socket): refusing to replace it",
                ));
            }
        }
        Staged::begin(path.to_path_buf())
    }

    /// The final name (a symlink's target when the path given was one).
    pub fn destination(&self) -> &Path {
        &self.dest
    }

    /// The file being written.
    fn writer(&mut self) -> std::io::Result<&mut std::io::BufWriter<File>> {
        self.file
            .as_mut()
            .ok_or_else(|| std::io::Error::other("write after sync"))
    }

    /// Flushes the data to disk (fsync) and closes the file; a full disk
    /// shows here at the latest.
    pub fn sync(&mut self) -> std::io::Result<()> {
        if let Some(file) = self.file.take() {
            let file = file.into_inner().map_err(|e| e.into_error())?;
            file.sync_all()?;
        }
        Ok(())
    }

    /// [`Staged::sync`], then renames the file into place.
    pub fn commit(mut self) -> std::io::Result<()> {
        self.sync()?;
        std::fs::rename(&self.tmp, &self.dest)?;
        self.committed = true;
        unregister(&self.tmp);
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.committed {
            self.file.take();
            let _ = std::fs::remove_file(&self.tmp);
            unregister(&self.tmp);
        }
    }
}

fn unregister(tmp: &Path) {
    if let Some(live) = LIVE.lock().as_mut() {
        live.remove(tmp);
    }
}

impl Write for Staged {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer()?.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.writer()?.flush()
    }
}

impl Seek for Staged {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        self.writer()?.seek(pos)
    }
}

/// Writes `bytes` to `path` atomically.
pub fn write(path: &Path, bytes: impl AsRef<[u8]>) -> std::io::Result<()> {
    let mut staged = Staged::create(path)?;
    staged.write_all(bytes.as_ref())?;
    staged.commit()
}

/// [`write`], its error naming the file; a destination we refuse (see the
/// module comment) or cannot create is a bad argument (exit 2).
pub fn write_or_say(path: &Path, bytes: impl AsRef<[u8]>) -> anyhow::Result<()> {
    write(path, bytes).map_err(|e| say(path, e))
}

/// The error for a failed write of `path`: exit 2 when the path itself is
/// unusable (refused, missing directory, no permission), else exit 1 (a full
/// disk, an I/O error).
pub fn say(path: &Path, e: std::io::Error) -> anyhow::Error {
    use std::io::ErrorKind::*;
    let text = format!(
        "cannot write {}: {e}",
        crate::error::printable(&path.display().to_string())
    );
    match e.kind() {
        InvalidInput | NotFound | PermissionDenied | NotADirectory | IsADirectory
        | ReadOnlyFilesystem | InvalidFilename => BadInput(text).into(),
        _ => anyhow::anyhow!(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("nesprof-atomic-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn replaces_the_file_and_leaves_no_temporary() {
        let dir = scratch("replace");
        let path = dir.join("out.txt");
        std::fs::write(&path, "old").unwrap();
        write(&path, "new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(entries(&dir), ["out.txt"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_uncommitted_file_leaves_the_old_one() {
        let dir = scratch("uncommitted");
        let path = dir.join("out.txt");
        std::fs::write(&path, "old").unwrap();
        let mut staged = Staged::create(&path).unwrap();
        staged.write_all(b"half").unwrap();
        drop(staged);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(entries(&dir), ["out.txt"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn symlinks_are_written_through_and_special_files_refused() {
        let dir = scratch("links");
        let target = dir.join("target.txt");
        std::fs::write(&target, "old").unwrap();
        let link = dir.join("link.txt");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write(&link, "new").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        let e = write(&dir, "x").unwrap_err();
        assert!(e.to_string().contains("a directory"), "{e}");
        let e = write(Path::new("/dev/null"), "x").unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        std::os::unix::fs::symlink(dir.join("nowhere"), dir.join("dangling")).unwrap();
        let e = write(&dir.join("dangling"), "x").unwrap_err();
        assert!(e.to_string().contains("dangling"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
