//! A run's output files in one directory (`profile --out`, `sweep --out`,
//! `cfg build --out`), committed together. Each file is staged under a
//! temporary name in the directory (see [`crate::atomic`]); only when all
//! are written and flushed to disk, and no termination signal has come (or
//! the run keeps what it has, [`OutputSet::commit_interrupted`]), are they
//! renamed into place, one after another with nothing in between that can
//! fail halfway (signals only set a flag, and a second signal waits for the
//! renames, see [`crate::signals`]). So after a Ctrl-C, a SIGTERM, a full
//! disk or any error the directory holds the previous run's set untouched,
//! or the new set whole.
//!
//! The directory keeps a list of the files its last run wrote
//! (`.nesprof-outputs`, headed by the command that wrote them): a file of
//! the previous set that the new run does not write is removed at the
//! commit, so the two runs' files never mix; any other file in the
//! directory is left alone. Opening a set refuses (exit 2, before the run):
//!
//! - a directory another nesprof run is writing (a lock, `.nesprof-lock`,
//!   held with `flock` for the set's life, so it is released even when the
//!   process is killed): two runs would mix their files;
//! - a directory holding another command's results (`profile --out` on a
//!   sweep's directory would remove its tables as stale);
//! - a file the run would write that exists but was not written by
//!   nesprof (the user's own `report.txt`);
//! - a directory that cannot be written (read-only, full inode table):
//!   found now by creating a file, not after a long run.
//!
//! The list is read as plain names inside the directory: an entry that is
//! absolute, has `..` or an empty part, or passes through a symlink is
//! ignored, and the list itself is never followed through a link. Files of
//! the set are written *in* the directory: a symlink found in a file's place
//! is replaced, not written through, and a subdirectory that is a symlink is
//! refused. Temporaries left by a run of ours that was killed (`.NAME.PID.tmp`
//! whose process is gone) are removed when the next set opens.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

use crate::atomic::{self, Staged};
use crate::error::{printable, BadInput};

/// The list of the last committed set's file names, one per line.
const MANIFEST: &str = ".nesprof-outputs";
/// The lock a run holds on its output directory.
const LOCK: &str = ".nesprof-lock";
/// The manifest's first line names the command: `# nesprof profile`.
const HEADER: &str = "# nesprof ";
/// Longest manifest read: far above any set's list (a sweep of a thousand
/// workloads lists about 3000 short names).
const MAX_MANIFEST: u64 = 1 << 20;

/// The commands that write output sets, and what each may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    Profile,
    Sweep,
    CfgBuild,
}

impl Tool {
    /// The name in the manifest's header and in messages.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Profile => "profile",
            Tool::Sweep => "sweep",
            Tool::CfgBuild => "cfg build",
        }
    }

    fn from_name(name: &str) -> Option<Tool> {
        [Tool::Profile, Tool::Sweep, Tool::CfgBuild]
            .into_iter()
            .find(|t| t.name() == name)
    }

    /// Whether a set of this command could hold `name`: how a manifest
    /// without a header (written before headers existed) is told apart.
    fn may_write(self, name: &str) -> bool {
        match self {
            Tool::Profile => PROFILE_FILES.contains(&name),
            Tool::CfgBuild => CFG_BUILD_FILES.contains(&name),
            Tool::Sweep => {
                SWEEP_FILES.contains(&name)
                    || (!name.contains('/') && name.ends_with(".svg"))
                    || name
                        .strip_prefix("cfg/")
                        .is_some_and(|n| !n.contains('/') && n.ends_with(".ron"))
            }
        }
    }
}

/// Every file `profile` may write into its --out.
pub const PROFILE_FILES: &[&str] = &[
    "truth.ron",
    "samples.bin",
    "hot_cfg.ron",
    "hot_cfg.dot",
    "edge_profile.ron",
    "report.txt",
    "report.html",
    "stacks.folded",
    "flame.svg",
    "memory.ron",
    "ram.png",
    "wram.png",
    "frames.csv",
    "routines.csv",
];

/// Every file `cfg build` may write into its --out.
pub const CFG_BUILD_FILES: &[&str] = &["hot_cfg.ron", "hot_cfg.dot", "edge_profile.ron"];

/// The fixed names of a sweep's outputs (besides its plots and cfg/).
const SWEEP_FILES: &[&str] = &["tables.md", "sweep.csv", "workloads.csv", "timing.txt"];

pub struct OutputSet {
    dir: PathBuf,
    tool: Tool,
    files: Vec<(String, Staged)>,
    /// The previous set's names, as the manifest listed them.
    previous: Vec<String>,
    /// Held for the set's life: dropping the set releases the directory.
    _lock: File,
}

impl OutputSet {
    /// Opens `dir` (created if missing) for a set of `tool`'s outputs, which
    /// will be some of `names`; refuses the directory (a [`BadInput`], exit
    /// 2) for the reasons in the module comment.
    pub fn open(dir: &Path, tool: Tool, names: &[&str]) -> anyhow::Result<OutputSet> {
        let shown = || printable(&dir.display().to_string());
        if dir.exists() && !dir.is_dir() {
            return Err(BadInput(format!("{}: not a directory", shown())).into());
        }
        std::fs::create_dir_all(dir)
            .map_err(|e| BadInput(format!("cannot create {}: {e}", shown())))?;
        // Checked before the lock is taken, so that a refused directory is
        // left exactly as it was, and again under it (another run may have
        // committed in between).
        refuse_occupied(dir, tool, names)?;
        let lock = lock(dir)?;
        probe(dir)?;
        remove_stale_temporaries(dir);
        let previous = refuse_occupied(dir, tool, names)?;
        Ok(OutputSet {
            dir: dir.to_path_buf(),
            tool,
            files: Vec::new(),
            previous,
            _lock: lock,
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Starts the file `name` (a plain relative name: `cfg/x.ron` stages in
    /// the subdirectory, created now), for streaming into; hand it back with
    /// [`OutputSet::add`].
    pub fn stage(&self, name: &str) -> anyhow::Result<Staged> {
        let path = self.dir.join(name);
        if !is_plain(name) {
            return Err(anyhow::anyhow!(
                "internal: output name {name:?} is not a plain name"
            ));
        }
        // Subdirectories must be real directories inside the set's.
        let mut at = self.dir.clone();
        let parts: Vec<&str> = name.split('/').collect();
        for part in &parts[..parts.len() - 1] {
            at.push(part);
            match std::fs::symlink_metadata(&at) {
                Ok(m) if m.is_dir() => {}
                Ok(_) => {
                    return Err(BadInput(format!(
                    "{} is not a directory (a symlink or a file): nesprof writes only inside {}",
                    printable(&at.display().to_string()),
                    printable(&self.dir.display().to_string())
                ))
                    .into())
                }
                Err(_) => std::fs::create_dir(&at).map_err(|e| atomic::say(&at, e))?,
            }
        }
        Staged::create_in_place(&path).map_err(|e| atomic::say(&path, e))
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
        let names: Vec<String> = self.files.iter().map(|(n, _)| n.clone()).collect();
        let mut list = format!("{HEADER}{}\n", self.tool.name());
        for name in &names {
            list.push_str(name);
            list.push('\n');
        }
        // The list first: an I/O error after it leaves at worst a list naming
        // files that are still the old ones, never new files unlisted.
        let mut staged =
            Staged::create_in_place(&manifest).map_err(|e| atomic::say(&manifest, e))?;
        staged
            .write_all(list.as_bytes())
            .and_then(|_| staged.commit())
            .map_err(|e| atomic::say(&manifest, e))?;
        for old in &self.previous {
            if !names.contains(old) && inside_without_links(&self.dir, old) {
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

/// Refuses `dir` when it holds another command's results or a file among
/// `names` that nesprof did not write; else the names the previous set
/// listed.
fn refuse_occupied(dir: &Path, tool: Tool, names: &[&str]) -> anyhow::Result<Vec<String>> {
    let shown = || printable(&dir.display().to_string());
    let (writer, previous) = read_manifest(dir);
    let other = match writer {
        Some(Some(t)) => (t != tool).then(|| t.name().to_string()),
        Some(None) => Some("another program".to_string()),
        None => previous
            .iter()
            .find(|n| !tool.may_write(n))
            .map(|n| format!("another nesprof command (it lists {})", printable(n))),
    };
    if let Some(other) = other {
        return Err(BadInput(format!(
            "{} holds the results of {other}, which a {} set would remove as stale; choose another directory",
            shown(),
            tool.name()
        ))
        .into());
    }
    for name in names {
        let path = dir.join(name);
        let ours = previous.iter().any(|p| p == name);
        if !ours && std::fs::symlink_metadata(&path).is_ok() {
            return Err(BadInput(format!(
                "{} exists and was not written by nesprof {}: it would be replaced; move it or choose another directory",
                printable(&path.display().to_string()),
                tool.name()
            ))
            .into());
        }
    }
    Ok(previous)
}

/// A name a set may list: relative, parts that are neither empty, `.`,
/// `..` nor hidden, at most one subdirectory deep.
fn is_plain(name: &str) -> bool {
    let parts: Vec<&str> = name.split('/').collect();
    parts.len() <= 2
        && parts
            .iter()
            .all(|p| !p.is_empty() && !p.starts_with('.') && !p.contains('\0'))
        && Path::new(name)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
}

/// Whether `name` (plain) reaches a file of `dir` without passing through a
/// symlink: its subdirectory, if any, is a real directory.
fn inside_without_links(dir: &Path, name: &str) -> bool {
    if !is_plain(name) {
        return false;
    }
    match name.rsplit_once('/') {
        None => true,
        Some((sub, _)) => std::fs::symlink_metadata(dir.join(sub)).is_ok_and(|m| m.is_dir()),
    }
}

/// The manifest of `dir`: who wrote it (`None`: no header, an older
/// nesprof; `Some(None)`: a header naming no command of ours) and the
/// plain names it lists. A manifest that is missing, not a regular file (a
/// symlink is not followed), too long or not text reads as empty.
fn read_manifest(dir: &Path) -> (Option<Option<Tool>>, Vec<String>) {
    let path = dir.join(MANIFEST);
    let regular = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file());
    if !regular {
        return (None, Vec::new());
    }
    let mut text = String::new();
    let read = open_no_follow(&path).and_then(|f| f.take(MAX_MANIFEST).read_to_string(&mut text));
    if read.is_err() {
        return (None, Vec::new());
    }
    let mut lines = text.lines().peekable();
    let writer = match lines.peek().and_then(|l| l.strip_prefix(HEADER)) {
        Some(tool) => {
            let tool = Tool::from_name(tool);
            lines.next();
            Some(tool)
        }
        None => None,
    };
    let names = lines.filter(|l| is_plain(l)).map(str::to_string).collect();
    (writer, names)
}

fn open_no_follow(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
}

/// Takes the directory's lock, or says which run holds it.
fn lock(dir: &Path) -> anyhow::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::io::AsRawFd;
    let path = dir.join(LOCK);
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&path)
        .map_err(|e| {
            BadInput(format!(
                "cannot lock {}: {e}",
                printable(&path.display().to_string())
            ))
        })?;
    // SAFETY: flock(2) on a descriptor this File owns.
    // (The file stays empty: a directory's contents do not depend on which
    // process wrote them, so two runs' directories compare equal.)
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        return Err(BadInput(format!(
            "{} is being written by another nesprof run: wait for it to end or choose another directory",
            printable(&dir.display().to_string())
        ))
        .into());
    }
    Ok(file)
}

/// Creates and removes a file in `dir`: a directory that cannot be written
/// is refused now, not after the run.
fn probe(dir: &Path) -> anyhow::Result<()> {
    let path = dir.join(format!(".nesprof-probe.{}.tmp", std::process::id()));
    let made = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path);
    match made {
        Ok(_) => {
            let _ = std::fs::remove_file(&path);
            Ok(())
        }
        Err(e) => Err(BadInput(format!(
            "cannot write in {}: {e}",
            printable(&dir.display().to_string())
        ))
        .into()),
    }
}

/// Removes the temporaries of our runs that died (see
/// [`atomic::stale_temporary`]) from `dir` and its real subdirectories.
fn remove_stale_temporaries(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if let Ok(inner) = std::fs::read_dir(entry.path()) {
                for e in inner.flatten() {
                    if e.file_type().is_ok_and(|k| k.is_file()) {
                        atomic::remove_if_stale(&e.path());
                    }
                }
            }
        } else if kind.is_file() {
            atomic::remove_if_stale(&entry.path());
        }
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

    const NAMES: &[&str] = &["truth.ron", "report.txt"];

    fn open(dir: &Path) -> anyhow::Result<OutputSet> {
        OutputSet::open(dir, Tool::Profile, NAMES)
    }

    #[test]
    fn a_set_replaces_the_previous_set_and_nothing_else() {
        let dir = scratch("replace");
        let mut first = open(&dir).unwrap();
        first.write("truth.ron", "1").unwrap();
        first.write("report.txt", "1").unwrap();
        first.commit().unwrap();
        std::fs::write(dir.join("mine.txt"), "user's").unwrap();
        let mut second = open(&dir).unwrap();
        second.write("truth.ron", "2").unwrap();
        second.commit().unwrap();
        assert_eq!(
            listing(&dir),
            [".nesprof-lock", ".nesprof-outputs", "mine.txt", "truth.ron"]
        );
        assert_eq!(std::fs::read_to_string(dir.join("truth.ron")).unwrap(), "2");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_abandoned_set_changes_nothing() {
        let dir = scratch("abandon");
        let mut first = open(&dir).unwrap();
        first.write("truth.ron", "1").unwrap();
        first.commit().unwrap();
        let mut second = open(&dir).unwrap();
        second.write("truth.ron", "2").unwrap();
        let mut streaming = second.stage("report.txt").unwrap();
        streaming.write_all(b"partial").unwrap();
        drop(streaming);
        drop(second);
        assert_eq!(
            listing(&dir),
            [".nesprof-lock", ".nesprof-outputs", "truth.ron"]
        );
        assert_eq!(std::fs::read_to_string(dir.join("truth.ron")).unwrap(), "1");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_second_set_in_a_locked_directory_is_refused() {
        let dir = scratch("lock");
        let first = open(&dir).unwrap();
        let e = open(&dir).err().unwrap().to_string();
        assert!(e.contains("another nesprof run"), "{e}");
        drop(first);
        open(&dir).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn another_commands_results_and_foreign_files_are_refused() {
        let dir = scratch("other");
        let mut sweep = OutputSet::open(&dir, Tool::Sweep, &["tables.md"]).unwrap();
        sweep.write("tables.md", "t").unwrap();
        sweep.commit().unwrap();
        let e = open(&dir).err().unwrap().to_string();
        assert!(e.contains("results of sweep"), "{e}");
        // An older manifest without a header: told by its names.
        std::fs::write(dir.join(MANIFEST), "tables.md\ncfg/x.h90.ron\n").unwrap();
        let e = open(&dir).err().unwrap().to_string();
        assert!(e.contains("another nesprof command"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
        // The user's own file where a set file would go.
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("report.txt"), "mine").unwrap();
        let e = open(&dir).err().unwrap().to_string();
        assert!(e.contains("not written by nesprof"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_manifest_is_never_followed_out_of_the_directory() {
        let dir = scratch("links");
        let outside = scratch("links-outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("victim"), "keep").unwrap();
        std::fs::create_dir_all(&dir).unwrap();
        std::os::unix::fs::symlink(&outside, dir.join("sub")).unwrap();
        std::fs::write(
            dir.join(MANIFEST),
            format!(
                "{HEADER}profile\nsub/victim\n../{}/victim\n{}/victim\n",
                outside.file_name().unwrap().to_string_lossy(),
                outside.display()
            ),
        )
        .unwrap();
        let mut set = open(&dir).unwrap();
        set.write("truth.ron", "1").unwrap();
        set.commit().unwrap();
        assert_eq!(
            std::fs::read_to_string(outside.join("victim")).unwrap(),
            "keep"
        );
        // A manifest that is a symlink is replaced, not written through.
        let target = outside.join("target");
        std::fs::write(&target, "keep").unwrap();
        std::fs::remove_file(dir.join(MANIFEST)).unwrap();
        std::os::unix::fs::symlink(&target, dir.join(MANIFEST)).unwrap();
        // Unlisted now, truth.ron is not known to be ours.
        assert!(open(&dir).is_err());
        std::fs::remove_file(dir.join("truth.ron")).unwrap();
        let mut set = open(&dir).unwrap();
        set.write("truth.ron", "2").unwrap();
        set.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
        assert!(std::fs::symlink_metadata(dir.join(MANIFEST))
            .unwrap()
            .is_file());
        // A set file that is a symlink is replaced, not written through.
        std::fs::remove_file(dir.join("truth.ron")).unwrap();
        std::os::unix::fs::symlink(&target, dir.join("truth.ron")).unwrap();
        let mut listed = std::fs::read_to_string(dir.join(MANIFEST)).unwrap();
        listed.push_str("truth.ron\n");
        std::fs::write(dir.join(MANIFEST), listed).unwrap();
        let mut set = open(&dir).unwrap();
        set.write("truth.ron", "3").unwrap();
        set.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
        assert_eq!(std::fs::read_to_string(dir.join("truth.ron")).unwrap(), "3");
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_dir_all(&outside);
    }

    #[test]
    fn a_dead_runs_temporaries_are_removed_and_a_live_ones_kept() {
        let dir = scratch("stale");
        std::fs::create_dir_all(dir.join("cfg")).unwrap();
        // A process id that cannot be alive (above the kernel's pid_max).
        let dead = dir.join(".truth.ron.99999999.tmp");
        let dead_sub = dir.join("cfg/.x.ron.99999999.tmp");
        let live = dir.join(format!(".report.txt.{}.tmp", std::process::id()));
        for p in [&dead, &dead_sub, &live] {
            std::fs::write(p, "t").unwrap();
        }
        drop(open(&dir).unwrap());
        assert!(!dead.exists() && !dead_sub.exists());
        assert!(live.exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn plain_names() {
        for ok in ["a.txt", "cfg/x.ron"] {
            assert!(is_plain(ok), "{ok}");
        }
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../b",
            "a//b",
            ".hidden",
            "a/b/c",
            "./a",
        ] {
            assert!(!is_plain(bad), "{bad}");
        }
    }
}
