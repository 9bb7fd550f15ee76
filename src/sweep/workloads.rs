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
//! - `name`: unique, non-empty; names the workload in tables, CSV and plots.
//! - `rom`, `movie`: paths. A relative path is relative to the directory of
//!   the workloads file (not the current directory), so the file works from
//!   anywhere. A leading `${ROMS}` is the shared third-party ROM directory
//!   (`$NESPROF_ROMS`, else the nearest `shared/roms` above the current or
//!   source directory), which is never copied into the repository.
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
    parse(&text, path, base, &crate::testrom::roms_dir())
}

/// Parses workloads `text` (read from `path`); relative paths are resolved
/// against `base`, `${ROMS}` against `roms`.
pub fn parse(
    text: &str,
    path: &Path,
    base: &Path,
    roms: &Path,
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
    let mut out: Vec<Workload> = Vec::with_capacity(shape.workloads.len());
    for entry in shape.workloads {
        let seen = out.iter().filter(|w| w.name == entry.name).count();
        if seen > 0 {
            return Err(entry_error(
                &entry.name,
                seen,
                format!(
                    "field name: workload {:?} is listed twice",
                    shorten(&entry.name)
                ),
            ));
        }
        let resolve = |field: &str, p: &str| {
            resolve_path(p, base, roms)
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

/// Expands a leading `${ROMS}` and makes relative paths relative to `base`.
fn resolve_path(p: &str, base: &Path, roms: &Path) -> Result<PathBuf, String> {
    if let Some(rest) = p.strip_prefix(ROMS_VAR) {
        let rest = rest.trim_start_matches(['/', '\\']);
        return Ok(roms.join(rest));
    }
    if p.contains("${") {
        return Err(format!(
            "{:?}: the only variable is {ROMS_VAR}, at the start of a path",
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

/// The bundled workload or shared-set game (`workloads-games.ron`) called
/// `name`: how the examples that measure one movie find it by name.
pub fn find(repo: &Path, name: &str) -> Option<Workload> {
    let games = load(&repo.join("workloads-games.ron")).unwrap_or_default();
    bundled(repo)
        .into_iter()
        .chain(games)
        .find(|w| w.name == name)
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

    fn parse_str(text: &str) -> Result<Vec<Workload>, WorkloadsError> {
        parse(
            text,
            Path::new("w.ron"),
            Path::new("/repo"),
            Path::new("/roms"),
        )
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
