//! A run's output files, committed together. Each file is staged under a
//! temporary name in the output directory (see [`crate::atomic`]); only when
//! all are written and flushed to disk, and no termination signal has come,
//! are they renamed into place, one after another with nothing in between
//! that can fail halfway (signals only set a flag, see [`crate::signals`]).
//! So after a Ctrl-C, a SIGTERM, a full disk or any error the directory
//! holds the previous run's set untouched, or the new set whole.
//!
//! The directory keeps a list of the files its last run wrote
//! (`.nesprof-outputs`): a file of the previous set that the new run does
//! not write is removed at the commit, so the two runs' files never mix;
//! any other file in the directory is left alone.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::atomic::{self, Staged};
use crate::error::BadInput;

/// The list of the last committed set's file names, one per line.
const MANIFEST: &str = ".nesprof-outputs";

pub struct OutputSet {
    dir: PathBuf,
    files: Vec<(String, Staged)>,
}

impl OutputSet {
    /// A set of outputs in `dir` (created if missing; a path that exists and
    /// is not a directory is a bad argument).
    pub fn new(dir: &Path) -> anyhow::Result<OutputSet> {
        if dir.exists() && !dir.is_dir() {
            return Err(BadInput(format!("{}: not a directory", dir.display())).into());
        }
        std::fs::create_dir_all(dir)
            .map_err(|e| BadInput(format!("cannot create {}: {e}", dir.display())))?;
        Ok(OutputSet {
            dir: dir.to_path_buf(),
            files: Vec::new(),
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Starts the file `name` (a relative path: `cfg/x.ron` stages in the
    /// subdirectory, created now), for streaming into; hand it back with
    /// [`OutputSet::add`].
    pub fn stage(&self, name: &str) -> anyhow::Result<Staged> {
        let path = self.dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| atomic::say(&path, e))?;
        }
        Staged::create(&path).map_err(|e| atomic::say(&path, e))
    }

    /// Adds a finished file to the set.
    pub fn add(&mut self, name: &str, mut file: Staged) -> anyhow::Result<()> {
        file.sync()
            .map_err(|e| atomic::say(&self.dir.join(name), e))?;
        self.files.push((name.to_string(), file));
        Ok(())
    }

    /// Stages the whole file `name`.
    pub fn write(&mut self, name: &str, bytes: impl AsRef<[u8]>) -> anyhow::Result<()> {
        let mut file = self.stage(name)?;
        file.write_all(bytes.as_ref())
            .map_err(|e| atomic::say(&self.dir.join(name), e))?;
        self.add(name, file)
    }

    /// Puts the set in place, unless a termination signal came first (then
    /// nothing changes and the error is [`crate::signals::Interrupted`]).
    pub fn commit(self) -> anyhow::Result<()> {
        crate::signals::check()?;
        self.put_in_place()
    }

    /// Puts the set in place although a termination signal came: for runs
    /// that keep what they have when first stopped (`profile`, `sweep`; see
    /// [`crate::signals`]). A second signal before this exits without it.
    pub fn commit_interrupted(self) -> anyhow::Result<()> {
        self.put_in_place()
    }

    fn put_in_place(self) -> anyhow::Result<()> {
        let _held = crate::signals::Committing::start();
        let manifest = self.dir.join(MANIFEST);
        let previous = std::fs::read_to_string(&manifest).unwrap_or_default();
        let names: Vec<String> = self.files.iter().map(|(n, _)| n.clone()).collect();
        let mut list = String::new();
        for name in &names {
            list.push_str(name);
            list.push('\n');
        }
        // The list first: an I/O error after it leaves at worst a list naming
        // files that are still the old ones, never new files unlisted.
        atomic::write(&manifest, &list).map_err(|e| atomic::say(&manifest, e))?;
        for old in previous.lines() {
            // Only names a run of ours could have written: relative, no `..`.
            let ours = !old.starts_with('/') && !old.split('/').any(|c| c.is_empty() || c == "..");
            let stale = ours && !names.iter().any(|n| n == old);
            if stale {
                let _ = std::fs::remove_file(self.dir.join(old));
            }
        }
        for (name, file) in self.files {
            file.commit()
                .map_err(|e| atomic::say(&self.dir.join(&name), e))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("nesprof-outputs-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn listing(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_set_replaces_the_previous_set_and_nothing_else() {
        let dir = scratch("replace");
        let mut first = OutputSet::new(&dir).unwrap();
        first.write("a.txt", "1").unwrap();
        first.write("b.txt", "1").unwrap();
        first.commit().unwrap();
        std::fs::write(dir.join("mine.txt"), "user's").unwrap();
        let mut second = OutputSet::new(&dir).unwrap();
        second.write("a.txt", "2").unwrap();
        second.commit().unwrap();
        assert_eq!(listing(&dir), [".nesprof-outputs", "a.txt", "mine.txt"]);
        assert_eq!(std::fs::read_to_string(dir.join("a.txt")).unwrap(), "2");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_abandoned_set_changes_nothing() {
        let dir = scratch("abandon");
        let mut first = OutputSet::new(&dir).unwrap();
        first.write("a.txt", "1").unwrap();
        first.commit().unwrap();
        let mut second = OutputSet::new(&dir).unwrap();
        second.write("a.txt", "2").unwrap();
        let mut streaming = second.stage("b.bin").unwrap();
        streaming.write_all(b"partial").unwrap();
        drop(streaming);
        drop(second);
        assert_eq!(listing(&dir), [".nesprof-outputs", "a.txt"]);
        assert_eq!(std::fs::read_to_string(dir.join("a.txt")).unwrap(), "1");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
