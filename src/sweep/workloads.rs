//! Workload lists: which ROMs the sweep runs, with which movie, for how long.
//!
//! A workloads file is RON:
//!
//! ```ron
//! (
//!     workloads: [
//!         (name: "maze", rom: "roms-test/maze.nes", movie: "movies/maze.fm2", minutes: 5.0),
//!         (name: "yun", rom: "${ROMS}/games/yun.nes", movie: "movies/yun.fm2"),
//!     ],
//! )
//! ```
//!
//! - `name`: unique, non-empty; names the workload in tables, CSV and plots,
//!   and is also the stem of its output files (`cfg/<name>.h90.ron`, ...),
//!   so it must be usable as one file name as it is: see [`check_name`].
//! - `rom`, `movie`: paths. A relative path is relative to the directory of
//!   the workloads file (not the current directory), so the file works from
//!   anywhere. A leading `${ROMS}` is the shared third-party ROM directory
//!   (`$NESPROF_ROMS`, else the nearest `shared/roms` above the current or
//!   source directory), and a leading `${CORPUS}` the corpus of games the
//!   team did not write (`$NESPROF_CORPUS`, else the nearest `corpus/` with
//!   a `roms/` folder above the current or source directory: see
//!   [`corpus_dir`]); neither is ever copied into the repository.
//! - `movie` and `minutes` are optional; `minutes` defaults to the movie's
//!   length, or 5 without a movie (the thesis ran each game ~5 minutes).
//! - `ignore_rom_mismatch` (optional, default `false`): replay the movie even
//!   if its `romChecksum` names another ROM (otherwise the workload fails),
//!   as `--ignore-rom-mismatch` does on the command line.
//!
//! Errors name the file, line and field. Whether the ROM exists is *not*
//! checked here: the sweep reports and skips a missing ROM so that a list
//! naming games a user does not have still runs the rest.

use std::path::{Path, PathBuf};

use emu::input_file::{shorten, shorten_to};
use serde::{Deserialize, Deserializer};
use thiserror::Error;

/// The programs in `roms-test/`, each with `movies/<name>.fm2`: what
/// `nesprof sweep` runs without arguments. The last three are the busy ones
/// (an H90 of 40 to 70 edges), so the default sweep judges the builders on
/// something; the first five mostly wait for the next frame.
pub const BUNDLED: [&str; 8] = [
    "cfgdemo", "snake", "breakout", "fountain", "maze", "swarm", "plasma", "tracker",
];

/// The variable a path may start with, for the shared ROM directory.
pub const ROMS_VAR: &str = "${ROMS}";

/// The variable a path may start with, for the corpus directory
/// (`workloads-corpus.ron`: games and movies kept outside the repository).
pub const CORPUS_VAR: &str = "${CORPUS}";

/// The environment variable naming the corpus directory.
pub const CORPUS_ENV: &str = "NESPROF_CORPUS";

/// What the path variables of a workloads file stand for.
#[derive(Debug, Clone, PartialEq)]
pub struct Roots {
    /// `${ROMS}`: the shared ROM directory ([`crate::testrom::roms_dir`]).
    pub roms: PathBuf,
    /// `${CORPUS}`: the corpus directory ([`corpus_dir`]).
    pub corpus: PathBuf,
}

impl Roots {
    /// This machine's directories: from the environment, else found.
    pub fn found() -> Roots {
        Roots {
            roms: crate::testrom::roms_dir(),
            corpus: corpus_dir(),
        }
    }
}

/// The corpus directory: `$NESPROF_CORPUS`, else the first `corpus/`
/// holding a `roms/` folder found beside the current directory or the
/// source tree or one of their ancestors (the workplace keeps it at
/// `../corpus` relative to a checkout), else `../corpus`.
pub fn corpus_dir() -> PathBuf {
    corpus_dir_from(
        std::env::var_os(CORPUS_ENV),
        &[
            std::env::current_dir().unwrap_or_default(),
            PathBuf::from(env!("CARGO_MANIFEST_DIR")),
        ],
    )
}

/// [`corpus_dir`] with the variable's value and the starting directories
/// given (an empty value counts as unset, as an empty path names nothing).
fn corpus_dir_from(var: Option<std::ffi::OsString>, starts: &[PathBuf]) -> PathBuf {
    if let Some(dir) = var.filter(|v| !v.is_empty()) {
        return PathBuf::from(dir);
    }
    for start in starts {
        for dir in start.ancestors() {
            let candidate = dir.join("corpus");
            if candidate.join("roms").is_dir() {
                return candidate;
            }
        }
    }
    PathBuf::from("../corpus")
}

/// The longest workload name, in bytes. A name is the stem of the sweep's
/// longest output file name, `<name>.hot_thesis_best.ron` (20 bytes more),
/// which is staged first as `.<file>.<pid>.tmp` (at most 16 bytes more:
/// see `crate::atomic`); file systems allow 255 bytes in one name (ext4,
/// XFS, btrfs, APFS; NTFS 255 UTF-16 units). 200 + 20 + 16 = 236 leaves
/// room to spare, and 200 bytes is still 50 to 200 characters, more than a
/// table column wants.
pub const MAX_NAME_BYTES: usize = 200;

/// The suffixes of a workload's CFG records in the sweep's `cfg/`
/// directory: `cfg/<name>.<suffix>.ron`. None is a suffix of another, so
/// two different names never give one file name (`a.h90` + `.hot_trace`
/// cannot equal `b` + `.h90`: the ends differ).
pub const RECORD_SUFFIXES: [&str; 3] = ["h90", "hot_thesis_best", "hot_trace"];

/// The output file, relative to the sweep's output directory, of workload
/// `name`'s CFG record with `suffix` (one of [`RECORD_SUFFIXES`]). `name`
/// must have passed [`check_name`] (as `sweep`'s `publish` checks): then
/// this is one plain file in `cfg/`.
pub fn record_file(name: &str, suffix: &str) -> String {
    format!("cfg/{name}.{suffix}.ron")
}

/// Whether `name` can be a workload name. A name comes from input data (a
/// workloads file, a shard file, a ROM's file name) and names output files
/// (see [`record_file`]), so it is never trusted as a path: it is refused,
/// rather than quietly changed, when it is not one plain file name as it
/// stands, so that the files a user finds are called what they wrote.
/// Refused: an empty name; more than [`MAX_NAME_BYTES`] bytes; a path
/// separator (`/`, or `\`, Windows' one); a leading dot (hidden files,
/// `.` and `..` themselves, and the sweep's own temporaries all start
/// so; with no separator and no leading dot, a `..` inside a name is
/// harmless); a control character (a newline or an escape sequence would
/// also break the one-line messages and the tables that show the name).
/// The problem is said without the name, which the caller quotes.
pub fn check_name(name: &str) -> Result<(), String> {
    if name.trim().is_empty() {
        return Err("must not be empty".into());
    }
    if name.len() > MAX_NAME_BYTES {
        return Err(format!(
            "is {} bytes long, at most {MAX_NAME_BYTES} (it names the files cfg/<name>.*.ron, \
             and a file name has at most 255 bytes)",
            name.len()
        ));
    }
    if name.contains(['/', '\\']) {
        return Err(
            "contains a path separator (/ or \\): a workload name names files in cfg/, \
             it is never a path"
                .into(),
        );
    }
    if name.starts_with('.') {
        return Err("starts with a dot (it names the files cfg/<name>.*.ron, which must not be hidden, . or ..)".into());
    }
    if let Some(c) = name.chars().find(|c| c.is_control()) {
        return Err(format!("contains the control character {c:?}"));
    }
    Ok(())
}

/// The key under which two names give the same files on a case-insensitive
/// file system (macOS's and Windows' defaults): `Maze` and `maze` would
/// write `cfg/maze.h90.ron` twice, one workload's records lost.
/// (Unicode normalisation, which makes APFS treat a precomposed `é` and
/// `e` + accent as one name, is not folded: that needs tables this crate
/// does not carry.)
fn file_key(name: &str) -> String {
    name.to_lowercase()
}

/// Checks a whole list of names: each with [`check_name`], and no two that
/// give the same files ([`file_key`]). On a problem: the index of the
/// offending name (the second of a pair) and the problem, quoting the
/// names.
pub fn check_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<(), (usize, String)> {
    let mut seen: std::collections::HashMap<String, &str> = std::collections::HashMap::new();
    for (i, name) in names.into_iter().enumerate() {
        check_name(name).map_err(|p| (i, format!("workload name {:?} {p}", shorten(name))))?;
        if let Some(earlier) = seen.insert(file_key(name), name) {
            let problem = if earlier == name {
                format!("workload {:?} is listed twice", shorten(name))
            } else {
                format!(
                    "workloads {:?} and {:?} would write the same files on a case-insensitive \
                     file system (cfg/{}.*.ron): rename one",
                    shorten(earlier),
                    shorten(name),
                    shorten(name)
                )
            };
            return Err((i, problem));
        }
    }
    Ok(())
}

/// The workload name for a ROM given on the command line: its file stem,
/// made into a name [`check_name`] accepts, since the user chose a file,
/// not a name (a stem may be long, or start with a dot, or hold control
/// characters on Unix): control characters become `_`, leading dots are
/// dropped, and the rest is cut to [`MAX_NAME_BYTES`] at a character
/// boundary; `rom` if nothing is left. A stem has no separator.
pub fn name_from_rom(rom: &Path) -> String {
    let stem = rom
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let cleaned: String = stem
        .trim_start_matches('.')
        .chars()
        .map(|c| if c.is_control() || c == '\\' { '_' } else { c })
        .collect();
    let mut end = cleaned.len().min(MAX_NAME_BYTES);
    while !cleaned.is_char_boundary(end) {
        end -= 1;
    }
    let name = &cleaned[..end];
    if check_name(name).is_ok() {
        name.to_string()
    } else {
        "rom".into()
    }
}

/// One workload, paths resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    pub name: String,
    pub rom: PathBuf,
    pub movie: Option<PathBuf>,
    /// Emulated minutes; `None`: the movie's length (or 5 minutes).
    pub minutes: Option<f64>,
    /// Replay the movie even if it was recorded with another ROM (see
    /// `open::check_rom_checksum`); the file's `ignore_rom_mismatch: true`.
    pub ignore_rom_mismatch: bool,
}

#[derive(Debug, Error)]
pub enum WorkloadsError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Syntax errors and bad field values, with the position ron reports.
    #[error("{path}:{line}:{col}: {problem}")]
    Parse {
        path: PathBuf,
        line: usize,
        col: usize,
        problem: String,
    },
    /// Errors found after parsing (duplicates, bad paths), located by line.
    #[error("{path}:{line}: {problem}")]
    Entry {
        path: PathBuf,
        line: usize,
        problem: String,
    },
    #[error("{path}: the workloads list is empty")]
    Empty { path: PathBuf },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileShape {
    workloads: Vec<EntryShape>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EntryShape {
    #[serde(deserialize_with = "non_empty")]
    name: String,
    #[serde(deserialize_with = "non_empty")]
    rom: String,
    #[serde(default, deserialize_with = "optional_path")]
    movie: Option<String>,
    #[serde(default, deserialize_with = "minutes")]
    minutes: Option<f64>,
    #[serde(default)]
    ignore_rom_mismatch: bool,
}

// Value checks run inside deserialization, so ron reports the line and
// column of the offending value.

fn non_empty<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let s = String::deserialize(d)?;
    if s.trim().is_empty() {
        return Err(serde::de::Error::custom("must not be empty"));
    }
    Ok(s)
}

fn optional_path<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let s = Option::<String>::deserialize(d)?;
    if s.as_deref().is_some_and(|s| s.trim().is_empty()) {
        return Err(serde::de::Error::custom("movie must not be empty"));
    }
    Ok(s)
}

fn minutes<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let m = Option::<f64>::deserialize(d)?;
    if let Some(m) = m {
        // The NaN check matters: `m > 0.0` is false for NaN.
        if !(m.is_finite() && m > 0.0 && m <= crate::options::MAX_MINUTES) {
            return Err(serde::de::Error::custom(format!(
                "minutes must be a positive number at most {}, got {m}",
                crate::options::MAX_MINUTES
            )));
        }
    }
    Ok(m)
}

/// The largest workloads file read: 4 MiB, hand-written lists being far
/// smaller (4096 entries of 1 KiB, or 480 naming two 4096-byte paths each).
pub const MAX_FILE: emu::input_file::SizeLimit = emu::input_file::SizeLimit {
    bytes: 4 << 20,
    what: "workloads files (4 MiB: thousands of entries)",
};

/// Reads (a regular file of at most [`MAX_FILE`]) and validates a
/// workloads file.
pub fn load(path: &Path) -> Result<Vec<Workload>, WorkloadsError> {
    let text = emu::input_file::read_limited_text(path, MAX_FILE).map_err(|source| {
        WorkloadsError::Io {
            path: path.to_path_buf(),
            source,
        }
    })?;
    let base = path.parent().unwrap_or(Path::new("."));
    parse(&text, path, base, &Roots::found())
}

/// Parses workloads `text` (read from `path`); relative paths are resolved
/// against `base`, `${ROMS}` and `${CORPUS}` against `roots`.
pub fn parse(
    text: &str,
    path: &Path,
    base: &Path,
    roots: &Roots,
) -> Result<Vec<Workload>, WorkloadsError> {
    // IMPLICIT_SOME: `movie: "x.fm2"` reads better than `movie: Some("x.fm2")`
    // (both are accepted).
    let options =
        ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
    let shape: FileShape = options.from_str(text).map_err(|e| WorkloadsError::Parse {
        path: path.to_path_buf(),
        line: e.span.start.line,
        col: e.span.start.col,
        problem: field_hint(&shorten_to(&e.code.to_string(), 160)),
    })?;
    if shape.workloads.is_empty() {
        return Err(WorkloadsError::Empty {
            path: path.to_path_buf(),
        });
    }
    let entry_error = |name: &str, occurrence: usize, problem: String| WorkloadsError::Entry {
        path: path.to_path_buf(),
        line: line_of_name(text, name, occurrence),
        problem,
    };
    // Names first, all of them, before any path is looked at: a name that
    // cannot be a file name is refused here, before the sweep runs, not
    // when its outputs are written.
    if let Err((i, problem)) = check_names(shape.workloads.iter().map(|e| e.name.as_str())) {
        let name = &shape.workloads[i].name;
        let occurrence = shape.workloads[..i]
            .iter()
            .filter(|e| e.name == *name)
            .count();
        return Err(entry_error(
            name,
            occurrence,
            format!("field name: {problem}"),
        ));
    }
    let mut out: Vec<Workload> = Vec::with_capacity(shape.workloads.len());
    for entry in shape.workloads {
        let resolve = |field: &str, p: &str| {
            resolve_path(p, base, roots)
                .map_err(|problem| entry_error(&entry.name, 0, format!("field {field}: {problem}")))
        };
        let rom = resolve("rom", &entry.rom)?;
        let movie = entry
            .movie
            .as_deref()
            .map(|m| resolve("movie", m))
            .transpose()?;
        out.push(Workload {
            name: entry.name,
            rom,
            movie,
            minutes: entry.minutes,
            ignore_rom_mismatch: entry.ignore_rom_mismatch,
        });
    }
    Ok(out)
}

/// ron's messages for missing or unknown fields name the field but not the
/// valid set; add it.
fn field_hint(problem: &str) -> String {
    if problem.contains("field") && !problem.contains("expected one of") {
        format!("{problem} (a workload has fields name, rom, movie, minutes, ignore_rom_mismatch)")
    } else {
        problem.to_string()
    }
}

/// Expands a leading `${ROMS}` or `${CORPUS}` and makes relative paths
/// relative to `base`.
fn resolve_path(p: &str, base: &Path, roots: &Roots) -> Result<PathBuf, String> {
    for (var, root) in [(ROMS_VAR, &roots.roms), (CORPUS_VAR, &roots.corpus)] {
        if let Some(rest) = p.strip_prefix(var) {
            let rest = rest.trim_start_matches(['/', '\\']);
            return Ok(root.join(rest));
        }
    }
    if p.contains("${") {
        return Err(format!(
            "{:?}: the only variables are {ROMS_VAR} and {CORPUS_VAR}, at the start of a path",
            shorten(p)
        ));
    }
    let path = Path::new(p);
    Ok(if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    })
}

/// The 1-based line of the `occurrence`-th (0-based) `"name"` string literal,
/// to point at an entry after parsing; line 1 if it cannot be found.
fn line_of_name(text: &str, name: &str, occurrence: usize) -> usize {
    let needle = format!("{name:?}");
    text.match_indices(&needle)
        .nth(occurrence)
        .map_or(1, |(at, _)| text[..at].matches('\n').count() + 1)
}

/// The repository root: the nearest directory above the current one holding
/// `roms-test/` and `movies/`, else the one this binary was built from.
pub fn repo_root() -> PathBuf {
    let is_repo = |d: &Path| d.join("roms-test").is_dir() && d.join("movies").is_dir();
    if let Ok(cwd) = std::env::current_dir() {
        if let Some(d) = cwd.ancestors().find(|d| is_repo(d)) {
            return d.to_path_buf();
        }
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The bundled workloads, then the shared-set games
/// (`workloads-games.ron`): every workload the examples that measure one
/// movie know by name.
pub fn named(repo: &Path) -> Vec<Workload> {
    let games = load(&repo.join("workloads-games.ron")).unwrap_or_default();
    bundled(repo).into_iter().chain(games).collect()
}

/// The workload of [`named`] called `name`.
pub fn find(repo: &Path, name: &str) -> Option<Workload> {
    named(repo).into_iter().find(|w| w.name == name)
}

/// The bundled workloads (`roms-test/` programs with their movies, the
/// movies' full length).
pub fn bundled(repo: &Path) -> Vec<Workload> {
    BUNDLED
        .iter()
        .map(|name| Workload {
            name: (*name).to_string(),
            rom: repo.join("roms-test").join(format!("{name}.nes")),
            movie: Some(repo.join("movies").join(format!("{name}.fm2"))),
            minutes: None,
            ignore_rom_mismatch: false,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots() -> Roots {
        Roots {
            roms: PathBuf::from("/roms"),
            corpus: PathBuf::from("/corpus"),
        }
    }

    fn parse_str(text: &str) -> Result<Vec<Workload>, WorkloadsError> {
        parse(text, Path::new("w.ron"), Path::new("/repo"), &roots())
    }

    #[test]
    fn parses_and_resolves_paths() {
        let w = parse_str(
            r#"(workloads: [
                (name: "maze", rom: "roms-test/maze.nes", movie: "movies/maze.fm2", minutes: 1.5),
                (name: "yun", rom: "${ROMS}/games/yun.nes", movie: Some("/abs/yun.fm2"), ignore_rom_mismatch: true),
                (name: "bare", rom: "x.nes"),
            ])"#,
        )
        .unwrap();
        assert_eq!(w.len(), 3);
        assert_eq!(w[0].rom, Path::new("/repo/roms-test/maze.nes"));
        assert_eq!(
            w[0].movie.as_deref(),
            Some(Path::new("/repo/movies/maze.fm2"))
        );
        assert_eq!(w[0].minutes, Some(1.5));
        assert_eq!(w[1].rom, Path::new("/roms/games/yun.nes"));
        assert_eq!(w[1].movie.as_deref(), Some(Path::new("/abs/yun.fm2")));
        assert_eq!(w[1].minutes, None);
        assert!(w[1].ignore_rom_mismatch && !w[0].ignore_rom_mismatch);
        assert_eq!(w[2].movie, None);
    }

    /// `${CORPUS}` stands for the corpus directory, in the ROM and the
    /// movie alike; no other variable is expanded, and a variable counts
    /// only at the start of a path.
    #[test]
    fn the_corpus_variable_is_expanded() {
        let w = parse_str(
            r#"(workloads: [
                (name: "g", rom: "${CORPUS}/roms/g.nes", movie: "${CORPUS}/movies/g.fm2"),
                (name: "h", rom: "${CORPUS}roms/h.nes", movie: "movies/h.fm2"),
            ])"#,
        )
        .unwrap();
        assert_eq!(w[0].rom, Path::new("/corpus/roms/g.nes"));
        assert_eq!(
            w[0].movie.as_deref(),
            Some(Path::new("/corpus/movies/g.fm2"))
        );
        assert_eq!(w[1].rom, Path::new("/corpus/roms/h.nes"));
        assert_eq!(w[1].movie.as_deref(), Some(Path::new("/repo/movies/h.fm2")));
        for rom in ["${CORPUS_X}/a.nes", "x/${CORPUS}/a.nes", "${corpus}/a.nes"] {
            let e = err(&format!("(workloads: [\n (name: \"a\", rom: {rom:?}),\n])"));
            assert!(
                e.starts_with("w.ron:2: field rom:") && e.contains("${ROMS} and ${CORPUS}"),
                "{rom}: {e}"
            );
        }
    }

    /// Without `$NESPROF_CORPUS`, the corpus is the nearest `corpus/` with a
    /// `roms/` folder above the starting directories; the variable wins,
    /// unless empty.
    #[test]
    fn the_corpus_directory_is_found() {
        let top = std::env::temp_dir().join(format!("nesprof-corpus-{}", std::process::id()));
        let checkout = top.join("work").join("checkout");
        std::fs::create_dir_all(checkout.join("src")).unwrap();
        // A `corpus` without `roms/` is passed over.
        std::fs::create_dir_all(checkout.join("corpus")).unwrap();
        std::fs::create_dir_all(top.join("work").join("corpus").join("roms")).unwrap();
        let found = corpus_dir_from(None, &[checkout.join("src")]);
        assert_eq!(found, top.join("work").join("corpus"));
        let found = corpus_dir_from(Some("".into()), &[checkout.join("src")]);
        assert_eq!(found, top.join("work").join("corpus"));
        let set = corpus_dir_from(Some("/elsewhere".into()), &[checkout.join("src")]);
        assert_eq!(set, Path::new("/elsewhere"));
        let none = corpus_dir_from(None, &[]);
        assert_eq!(none, Path::new("../corpus"));
        std::fs::remove_dir_all(&top).unwrap();
    }

    fn err(text: &str) -> String {
        parse_str(text).unwrap_err().to_string()
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let e = err("(workloads: [\n  (name: \"a\", rom: \"a.nes\", minutes: -1.0),\n])");
        assert!(e.starts_with("w.ron:2:"), "{e}");
        assert!(e.contains("minutes must be a positive number"), "{e}");

        let e = err("(workloads: [\n  (name: \"a\", rom: \"a.nes\", minute: 1.0),\n])");
        assert!(e.starts_with("w.ron:2:"), "{e}");
        assert!(e.contains("minute"), "{e}");

        let e = err("(workloads: [\n  (name: \"a\"),\n])");
        assert!(e.starts_with("w.ron:2:"), "{e}");
        assert!(e.contains("rom"), "{e}");

        let e = err(
            "(workloads: [\n (name: \"a\", rom: \"a.nes\"),\n\n (name: \"a\", rom: \"b.nes\"),\n])",
        );
        assert_eq!(e, "w.ron:4: field name: workload \"a\" is listed twice");

        let e = err("(workloads: [\n (name: \"a\", rom: \"${HOME}/a.nes\"),\n])");
        assert!(e.starts_with("w.ron:2: field rom:"), "{e}");

        let e = err("(workloads: [\n (name: \"\", rom: \"a.nes\"),\n])");
        assert!(e.starts_with("w.ron:2:") && e.contains("empty"), "{e}");

        assert_eq!(err("(workloads: [])"), "w.ron: the workloads list is empty");
        assert!(err("(workloads: [").starts_with("w.ron:1:"));
    }

    /// Names from a workloads file are refused, with the line, when they
    /// cannot be one plain file name in cfg/ as they stand.
    #[test]
    fn names_that_are_not_file_names_are_refused() {
        let entry = |name: &str| format!("(workloads: [\n (name: {name:?}, rom: \"a.nes\"),\n])");
        for (name, problem) in [
            ("../../../X", "path separator"),
            ("/abs/x", "path separator"),
            ("a\\b", "path separator"),
            ("..", "starts with a dot"),
            (".hidden", "starts with a dot"),
            ("a\u{1b}[2Jb", "control character"),
            ("tab\there", "control character"),
            ("line\nbreak", "control character"),
            (&"x".repeat(MAX_NAME_BYTES + 1), "bytes long"),
            (&"é".repeat(MAX_NAME_BYTES / 2 + 1), "bytes long"),
        ] {
            let e = err(&entry(name));
            assert!(e.starts_with("w.ron:2: field name: "), "{name:?}: {e}");
            assert!(e.contains(problem), "{name:?}: {e}");
            assert!(!e.contains('\n') && !e.contains('\u{1b}'), "{e:?}");
            assert!(e.chars().count() < 300, "{e}");
        }
        // What is allowed: spaces, punctuation, other scripts, a `..`
        // inside, the longest name.
        for name in [
            "Super Mario Bros.",
            "a..b",
            "Pac-Man (J) | v1.1",
            "ドラゴンクエスト",
            &"x".repeat(MAX_NAME_BYTES),
        ] {
            let w = parse_str(&entry(name)).unwrap();
            assert_eq!(w[0].name, name);
        }
    }

    /// Two names that would write the same files are refused, also when
    /// they differ only in case (one file on macOS or Windows).
    #[test]
    fn names_sharing_files_are_refused() {
        let e = err("(workloads: [\n (name: \"Maze\", rom: \"a.nes\"),\n (name: \"maze\", rom: \"b.nes\"),\n])");
        assert!(e.starts_with("w.ron:3: field name: "), "{e}");
        assert!(
            e.contains("\"Maze\" and \"maze\"") && e.contains("case-insensitive"),
            "{e}"
        );
        assert_eq!(
            check_names(["a", "b", "A"]).unwrap_err().0,
            2,
            "the second of the pair"
        );
        assert!(check_names(["a", "b", "a.h90", "hot_trace"]).is_ok());
    }

    /// Every suffix pair gives different files for different names, so
    /// checking names alone is enough (see RECORD_SUFFIXES).
    #[test]
    fn record_files_of_different_names_differ() {
        let names = ["a", "a.h90", "a.hot_trace", "a.hot_thesis_best", "b"];
        let mut files = std::collections::HashSet::new();
        for n in names {
            for s in RECORD_SUFFIXES {
                let f = record_file(n, s);
                assert!(f.starts_with("cfg/") && !f[4..].contains('/'), "{f}");
                assert!(files.insert(f.clone()), "{f} twice");
            }
        }
        let longest = record_file(&"x".repeat(MAX_NAME_BYTES), "hot_thesis_best");
        // Its temporary, `.NAME.PID.tmp`, with a 10-digit pid.
        assert!(longest.len() - 4 + 16 <= 255);
    }

    /// A ROM given on the command line names its workload after its file,
    /// made into a valid name.
    #[test]
    fn a_rom_file_gives_a_valid_name() {
        for (path, name) in [
            ("/x/maze.nes", "maze".to_string()),
            ("/x/.hidden.nes", "hidden".to_string()),
            ("/x/...", "rom".to_string()),
            ("/x/a\u{1b}b.nes", "a_b".to_string()),
            ("/x/a\\b.nes", "a_b".to_string()),
            ("/", "rom".to_string()),
        ] {
            assert_eq!(name_from_rom(Path::new(path)), name, "{path:?}");
        }
        let long = format!("/x/{}.nes", "é".repeat(200));
        let name = name_from_rom(Path::new(&long));
        assert!(
            check_name(&name).is_ok() && name.len() >= MAX_NAME_BYTES - 1,
            "{name}"
        );
    }

    #[test]
    fn the_repository_workloads_file_parses() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let w = load(&repo.join("workloads.ron")).unwrap();
        for name in BUNDLED {
            let b = w.iter().find(|w| w.name == name).unwrap();
            assert!(b.rom.is_file(), "{}", b.rom.display());
            assert!(b.movie.as_ref().unwrap().is_file());
        }
        // The games' ROMs live outside the repository; their movies inside.
        let games = load(&repo.join("workloads-games.ron")).unwrap();
        assert_eq!(games.len(), 8);
        for g in &games {
            assert!(g.movie.as_ref().unwrap().is_file(), "{}", g.name);
        }
        // The corpus: ROMs and movies both outside the repository, under
        // ${CORPUS}, in its roms/ and movies/ folders, named as the workload.
        let text = std::fs::read_to_string(repo.join("workloads-corpus.ron")).unwrap();
        let corpus = parse(&text, Path::new("workloads-corpus.ron"), repo, &roots()).unwrap();
        assert!(corpus.len() >= 20, "{} games", corpus.len());
        for g in &corpus {
            assert_eq!(
                g.rom,
                Path::new("/corpus/roms").join(format!("{}.nes", g.name))
            );
            let movie = Path::new("/corpus/movies").join(format!("{}.fm2", g.name));
            assert_eq!(g.movie.as_deref(), Some(movie.as_path()));
        }
    }

    #[test]
    fn workloads_are_found_by_name() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let maze = find(repo, "maze").unwrap();
        assert_eq!(maze.rom, repo.join("roms-test/maze.nes"));
        let yun = find(repo, "yun").unwrap();
        assert!(yun.rom.ends_with("games/yun.nes"), "{}", yun.rom.display());
        assert_eq!(yun.movie.unwrap(), repo.join("movies/yun.fm2"));
        assert!(find(repo, "no-such-game").is_none());
    }
}
