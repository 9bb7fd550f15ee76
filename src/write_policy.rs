//! What a run may write, decided in one place before the run starts.
//!
//! Every command that writes files lists what it reads (the ROM, the movie,
//! symbol files, sample streams, CFG records, shard files) and what it
//! writes (a named file such as `--cdl` or `--screenshot`, or a directory of
//! outputs such as `profile --out`), and [`WritePolicy::check`] refuses the
//! run — exit 2, one line, nothing touched — when
//!
//! - an output file is an input (also through a symlink or a hard link):
//!   `movie gen R.nes --out R.nes` would replace the ROM;
//! - two outputs are one file (`--screenshot x --wav x`): one would be lost;
//! - an output directory holds an input (`cfg build D/samples.bin --truth
//!   D/truth.ron --out D`): a set committed there may replace or remove it;
//! - a named output file lies inside an output directory: the directory's
//!   files are managed as a set (see [`crate::output_set`]), and a file the
//!   user named must not be one of them or be confused with them.
//!
//! Paths are compared as the files they reach: made absolute, symlinks
//! resolved for the part that exists, `..` resolved lexically for the rest;
//! files that exist are also compared by device and inode. What an output
//! directory itself may hold (another command's results, files nesprof did
//! not write, another run in progress) is [`crate::output_set`]'s check,
//! made when the set is opened.

use std::path::{Component, Path, PathBuf};

use crate::error::BadInput;

/// One path of the plan: the option that named it, as given, and as it
/// resolves.
#[derive(Debug, Clone)]
struct Entry {
    flag: String,
    given: PathBuf,
    resolved: PathBuf,
    /// Device and inode, when the file exists.
    id: Option<(u64, u64)>,
}

impl Entry {
    fn new(flag: &str, path: &Path) -> Entry {
        let resolved = resolve(path);
        Entry {
            flag: flag.to_string(),
            given: path.to_path_buf(),
            resolved: resolved.clone(),
            id: file_id(&resolved),
        }
    }

    fn same_file(&self, other: &Entry) -> bool {
        self.resolved == other.resolved || (self.id.is_some() && self.id == other.id)
    }

    /// How a message names it: `--cdl out/x.cdl`, or `the ROM x.nes`.
    fn describe(&self) -> String {
        let path = crate::error::printable(&self.given.display().to_string());
        if self.flag.starts_with('-') {
            format!("{} {path}", self.flag)
        } else {
            format!("the {} {path}", self.flag)
        }
    }
}

/// The files a run reads and writes (see the module comment).
#[derive(Debug, Default, Clone)]
pub struct WritePolicy {
    inputs: Vec<Entry>,
    files: Vec<Entry>,
    dirs: Vec<Entry>,
}

impl WritePolicy {
    pub fn new() -> WritePolicy {
        WritePolicy::default()
    }

    /// A file the run reads, named by `flag` (`--movie`, or a word such as
    /// `ROM` for a positional argument).
    pub fn input(&mut self, flag: &str, path: &Path) -> &mut Self {
        self.inputs.push(Entry::new(flag, path));
        self
    }

    /// An optional input.
    pub fn maybe_input(&mut self, flag: &str, path: Option<&PathBuf>) -> &mut Self {
        if let Some(p) = path {
            self.input(flag, p);
        }
        self
    }

    /// Every path of `paths` as an input.
    pub fn inputs<'a>(
        &mut self,
        flag: &str,
        paths: impl IntoIterator<Item = &'a PathBuf>,
    ) -> &mut Self {
        for p in paths {
            self.input(flag, p);
        }
        self
    }

    /// A file the run writes (replaced whole; a symlink is written through,
    /// see [`crate::atomic`]).
    pub fn file(&mut self, flag: &str, path: &Path) -> &mut Self {
        self.files.push(Entry::new(flag, path));
        self
    }

    /// An optional file the run writes.
    pub fn maybe_file(&mut self, flag: &str, path: Option<&PathBuf>) -> &mut Self {
        if let Some(p) = path {
            self.file(flag, p);
        }
        self
    }

    /// A directory the run writes a set of outputs into.
    pub fn dir(&mut self, flag: &str, path: &Path) -> &mut Self {
        self.dirs.push(Entry::new(flag, path));
        self
    }

    /// Refuses the plan (a [`BadInput`], exit 2) when an output would land
    /// on an input, on another output, or among a directory's set.
    pub fn check(&self) -> anyhow::Result<()> {
        let refuse = |text: String| -> anyhow::Result<()> { Err(BadInput(text).into()) };
        for (i, f) in self.files.iter().enumerate() {
            if let Some(input) = self.inputs.iter().find(|i| f.same_file(i)) {
                return refuse(format!(
                    "{} is {}: writing it would destroy an input; name another file",
                    f.describe(),
                    if f.given == input.given {
                        format!("also {}", input.describe())
                    } else {
                        format!("the same file as {}", input.describe())
                    }
                ));
            }
            if let Some(other) = self.files[..i].iter().find(|o| f.same_file(o)) {
                return refuse(format!(
                    "{} and {} name the same file: one output would be lost",
                    other.describe(),
                    f.describe()
                ));
            }
            if let Some(dir) = self
                .dirs
                .iter()
                .find(|d| f.resolved.starts_with(&d.resolved))
            {
                return refuse(format!(
                    "{} is inside {}, whose files nesprof manages as one set; name a file outside it",
                    f.describe(),
                    dir.describe()
                ));
            }
        }
        for (i, d) in self.dirs.iter().enumerate() {
            if let Some(input) = self
                .inputs
                .iter()
                .find(|i| i.resolved.starts_with(&d.resolved))
            {
                let what = if input.resolved == d.resolved {
                    "is".to_string()
                } else {
                    "holds".to_string()
                };
                return refuse(format!(
                    "{} {what} {}: a run's outputs there could replace or remove it; choose another directory",
                    d.describe(),
                    input.describe()
                ));
            }
            if let Some(other) = self.dirs[..i].iter().find(|o| {
                o.resolved.starts_with(&d.resolved) || d.resolved.starts_with(&o.resolved)
            }) {
                return refuse(format!(
                    "{} and {} overlap: one set of outputs would mix with the other",
                    other.describe(),
                    d.describe()
                ));
            }
            if let Some(f) = self.files.iter().find(|f| f.same_file(d)) {
                return refuse(format!(
                    "{} and {} are one path",
                    f.describe(),
                    d.describe()
                ));
            }
        }
        Ok(())
    }
}

/// Device and inode of the file at `path` (following symlinks), if any.
fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// `path` as the file it reaches: absolute, with symlinks resolved along
/// the longest prefix that exists and `.`/`..` resolved lexically after it.
pub fn resolve(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .unwrap_or_else(|_| PathBuf::from("/"))
            .join(path)
    };
    if let Ok(real) = std::fs::canonicalize(&absolute) {
        return real;
    }
    // Find the longest prefix that exists, canonicalize it, append the rest.
    let components: Vec<Component> = absolute.components().collect();
    for split in (0..components.len()).rev() {
        let prefix: PathBuf = components[..split].iter().collect();
        if let Ok(real) = std::fs::canonicalize(&prefix) {
            let mut out = real;
            for c in &components[split..] {
                match c {
                    Component::ParentDir => {
                        out.pop();
                    }
                    Component::CurDir => {}
                    other => out.push(other.as_os_str()),
                }
            }
            return out;
        }
    }
    absolute
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("nesprof-policy-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn refused(p: &WritePolicy) -> String {
        p.check().unwrap_err().to_string()
    }

    #[test]
    fn an_output_on_an_input_is_refused_also_through_links() {
        let dir = scratch("links");
        let rom = dir.join("game.nes");
        std::fs::write(&rom, "rom").unwrap();
        std::os::unix::fs::symlink(&rom, dir.join("link.nes")).unwrap();
        std::fs::hard_link(&rom, dir.join("hard.nes")).unwrap();
        for out in ["game.nes", "link.nes", "hard.nes", "sub/../game.nes"] {
            let mut p = WritePolicy::new();
            p.input("ROM", &rom).file("--out", &dir.join(out));
            assert!(refused(&p).contains("destroy an input"), "{out}");
        }
        let mut p = WritePolicy::new();
        p.input("ROM", &rom).file("--out", &dir.join("movie.fm2"));
        p.check().unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn two_outputs_on_one_file_are_refused() {
        let dir = scratch("two");
        let mut p = WritePolicy::new();
        p.file("--screenshot", &dir.join("x"))
            .file("--wav", &dir.join("./x"));
        assert!(refused(&p).contains("same file"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_directory_holding_an_input_or_an_output_file_is_refused() {
        let dir = scratch("dirs");
        let samples = dir.join("samples.bin");
        std::fs::write(&samples, "s").unwrap();
        let mut p = WritePolicy::new();
        p.input("SAMPLES", &samples).dir("--out", &dir);
        assert!(refused(&p).contains("holds"), "{}", refused(&p));
        let mut p = WritePolicy::new();
        p.dir("--out", &dir).file("--cdl", &dir.join("x.cdl"));
        assert!(refused(&p).contains("inside"));
        let mut p = WritePolicy::new();
        p.dir("--out", &dir.join("out"))
            .file("--cdl", &dir.join("x.cdl"));
        p.input("SAMPLES", &samples);
        p.check().unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn paths_that_do_not_exist_yet_resolve_lexically() {
        let dir = scratch("resolve");
        let real = std::fs::canonicalize(&dir).unwrap();
        assert_eq!(resolve(&dir.join("a/b/../c")), real.join("a/c"));
        assert_eq!(resolve(&dir.join("./x")), real.join("x"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
