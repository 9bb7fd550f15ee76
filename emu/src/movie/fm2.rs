//! The FM2 text format (FCEUX 2.x movies; TASVideos "FM2" page, FCEUX
//! `src/movie.cpp`).
//!
//! A file starts with `version 3`, then header lines `key value` (the value
//! is the rest of the line), then one input line per frame:
//! `|commands|port0|port1|port2|`. `commands` is a decimal bit set (1 = soft
//! reset, 2 = power cycle, applied before the frame's input). A gamepad field
//! is 8 characters in the order `RLDUTSBA`; `.` or space means released and
//! any other character pressed, as FCEUX reads it. A port with no device has
//! an empty field, and `port2` (the Famicom expansion port) is always empty.
//!
//! Reading is strict where FCEUX would silently desync or read garbage (a
//! malformed input line, a header line that is not `key value`, a bad
//! `version`, a file cut off before its first input line, fewer input lines
//! than `length` claims: each an error naming its line number), and keeps
//! header keys it does not interpret, so read → write → read gives the same
//! movie. Unknown keys are tolerated, as FCEUX ignores them and newer
//! versions add some, but only when they look like keys (a letter, then
//! letters, digits or `_`, at most 40 characters) and have a value; any
//! other line among the header lines is damage. Error messages quote at most
//! 40 characters of any field (`input_file::shorten`).

use std::path::Path;

use super::checksum::{format_checksum, parse_checksum};
use super::ram_init::RamInit;
use super::MovieError;
use crate::input_file::shorten;

/// Command bits of an input line (FCEUX `MOVIECMD_*`).
pub mod command {
    pub const RESET: u8 = 0x01;
    pub const POWER: u8 = 0x02;
    /// FDS disk and VS System commands: recognised so the error can name
    /// them, never applied (no FDS or VS System support).
    pub const FDS_INSERT: u8 = 0x04;
    pub const FDS_SELECT: u8 = 0x08;
    pub const VS_INSERT_COIN: u8 = 0x10;
    pub const SUPPORTED: u8 = RESET | POWER;
}

/// One frame of input: the commands and the buttons held on each pad
/// (bit 0 = A ... bit 7 = Right, as [`crate::controller::buttons`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FrameInput {
    pub commands: u8,
    pub ports: [u8; 2],
}

/// What is plugged into a controller port (FCEUX `SI_*` numbers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortDevice {
    None,
    Gamepad,
}

impl PortDevice {
    fn number(self) -> u32 {
        match self {
            PortDevice::None => 0,
            PortDevice::Gamepad => 1,
        }
    }
}

/// The header keys we interpret. Keys FCEUX writes with a fixed meaning
/// (`palFlag`, `fourscore`, `FDS`, ...) must have the value we support.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub emu_version: u32,
    pub rerecord_count: u32,
    pub rom_filename: String,
    /// MD5 of PRG+CHR ROM (see `checksum.rs`); `None` if the movie has none.
    pub rom_checksum: Option<[u8; 16]>,
    pub guid: String,
    pub ports: [PortDevice; 2],
    pub new_ppu: bool,
    pub ram_init: RamInit,
    pub comments: Vec<String>,
    pub subtitles: Vec<String>,
    /// Keys we do not interpret, in file order (e.g. `microphone`), kept so
    /// writing the movie back loses nothing.
    pub extra: Vec<(String, String)>,
}

impl Default for Header {
    fn default() -> Self {
        Header {
            emu_version: EMU_VERSION,
            rerecord_count: 0,
            rom_filename: String::new(),
            rom_checksum: None,
            guid: String::new(),
            ports: [PortDevice::Gamepad, PortDevice::Gamepad],
            new_ppu: false,
            ram_init: RamInit::default(),
            comments: Vec::new(),
            subtitles: Vec::new(),
            extra: Vec::new(),
        }
    }
}

/// `emuVersion` we write: nesprof 0.1.0 as FCEUX encodes versions
/// (major·10000 + minor·100 + patch). FCEUX reads the key but ignores it.
pub const EMU_VERSION: u32 = 100;

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Movie {
    pub header: Header,
    /// Input line k is read at the start of frame k.
    pub frames: Vec<FrameInput>,
}

/// Gamepad characters in file order: bit 7 (Right) first, bit 0 (A) last.
const MNEMONICS: &[u8; 8] = b"RLDUTSBA";

/// The largest movie file read: 24 hours of input at 60 frames a second,
/// 32 bytes a line (the longest well-formed line, `|255|RLDUTSBA|RLDUTSBA||`
/// and CR LF, is 27), plus 1 MiB of header for comments and subtitles.
/// Longer TAS movies than a day of play do not exist; a bigger file is a
/// mistake, refused before it is read.
pub const MAX_FILE: crate::input_file::SizeLimit = crate::input_file::SizeLimit {
    bytes: 24 * 3600 * 60 * 32 + (1 << 20),
    what: "FM2 movies (24 hours at 60 fps, 32 bytes a line, plus 1 MiB of header)",
};

/// Header keys with a meaning in FCEUX's FM2 (its `MovieData::installValue`
/// and the TASVideos page). `length` is TAS Editor's.
const KNOWN_KEYS: [&str; 22] = [
    "version",
    "emuVersion",
    "rerecordCount",
    "palFlag",
    "romFilename",
    "romChecksum",
    "guid",
    "fourscore",
    "microphone",
    "port0",
    "port1",
    "port2",
    "FDS",
    "NewPPU",
    "RAMInitOption",
    "RAMInitSeed",
    "comment",
    "subtitle",
    "binary",
    "savestate",
    "saveram",
    "length",
];

/// Longest key accepted; FCEUX's longest is 13 characters.
const MAX_KEY_LEN: usize = 40;

/// Whether `key` looks like a header key: a letter, then letters, digits or
/// `_`. FCEUX ignores keys it does not know (newer versions add some), so an
/// unknown key of this shape is kept; anything else is a damaged line.
fn is_key_shaped(key: &str) -> bool {
    key.len() <= MAX_KEY_LEN
        && key.starts_with(|c: char| c.is_ascii_alphabetic())
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl Movie {
    /// Reads and parses the movie at `path`: a regular file of at most
    /// [`MAX_FILE`] bytes.
    pub fn load(path: &Path) -> Result<Movie, MovieError> {
        let bytes =
            crate::input_file::read_limited(path, MAX_FILE).map_err(|source| MovieError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        Movie::parse(
            &String::from_utf8_lossy(&bytes),
            &path.display().to_string(),
        )
    }

    /// Parses FM2 text; `source` names the file in error messages.
    ///
    /// Strict about the header, where FCEUX is lenient: the first line must
    /// be `version 3`; every header line is `key value` with a key-shaped key
    /// (unknown keys are kept, as FCEUX ignores them, if they look like keys);
    /// known keys must have well-formed values; and there must be at least
    /// one input line (and at least `length` of them, if given), so a file
    /// cut off inside its header is an error rather than an empty movie.
    pub fn parse(text: &str, source: &str) -> Result<Movie, MovieError> {
        let err = |line: usize, message: String| MovieError::Format {
            path: source.to_string(),
            line,
            message,
        };
        let unsupported = |message: String| MovieError::Unsupported {
            path: source.to_string(),
            message,
        };
        let first = text.split('\n').next().unwrap_or("");
        if first.trim_end_matches([' ', '\t', '\r']) != "version 3" {
            return Err(err(
                1,
                format!(
                    "not an FM2 movie: the file must start with `version 3`, found `{}`",
                    shorten(first)
                ),
            ));
        }
        let mut header = Header {
            ports: [PortDevice::Gamepad, PortDevice::Gamepad],
            emu_version: 0,
            ..Header::default()
        };
        let mut frames = Vec::new();
        let mut seen_input = false;
        let mut last_line = 1;
        let mut length: Option<u32> = None;
        for (index, raw) in text.split('\n').enumerate() {
            let number = index + 1;
            // All trailing CRs: a value kept with one would not survive a write-back.
            let line = raw.trim_end_matches('\r');
            let trimmed = line.trim_start_matches([' ', '\t']);
            if trimmed.is_empty() {
                continue;
            }
            last_line = number;
            if let Some(record) = trimmed.strip_prefix('|') {
                seen_input = true;
                frames.push(parse_record(record, &header.ports).map_err(|m| err(number, m))?);
                continue;
            }
            let (key, value) = match trimmed.find([' ', '\t']) {
                Some(at) => (
                    &trimmed[..at],
                    trimmed[at..].trim_start_matches([' ', '\t']),
                ),
                None => (trimmed, ""),
            };
            let known = KNOWN_KEYS.contains(&key);
            if !known && (!is_key_shaped(key) || value.is_empty()) {
                return Err(err(
                    number,
                    format!(
                        "not a header line (`key value`) or an input line (`|...|`): `{}`",
                        shorten(line)
                    ),
                ));
            }
            let int = |v: &str| -> Result<i64, MovieError> {
                v.trim().parse::<i64>().map_err(|_| {
                    err(
                        number,
                        format!("`{key}` needs a whole number, found `{}`", shorten(v)),
                    )
                })
            };
            let flag = |v: &str| -> Result<bool, MovieError> {
                match int(v)? {
                    0 => Ok(false),
                    1 => Ok(true),
                    _ => Err(err(
                        number,
                        format!("`{key}` must be 0 or 1, found `{}`", shorten(v)),
                    )),
                }
            };
            let must_be_off = |v: &str, what: &str| -> Result<(), MovieError> {
                if flag(v)? {
                    Err(unsupported(format!(
                        "line {number}: `{key} 1`: {what} is not supported"
                    )))
                } else {
                    Ok(())
                }
            };
            if seen_input && key != "subtitle" && key != "comment" {
                // FCEUX would accept it, but a header key among the input
                // lines is far more likely a damaged file.
                return Err(err(
                    number,
                    format!("header key `{}` after the first input line", shorten(key)),
                ));
            }
            match key {
                "version" => {
                    if value.trim() != "3" {
                        return Err(err(
                            number,
                            format!("FM2 version `{}` (only version 3 exists)", shorten(value)),
                        ));
                    }
                }
                "emuVersion" => header.emu_version = to_u32(int(value)?, key, number, source)?,
                "rerecordCount" => {
                    header.rerecord_count = to_u32(int(value)?, key, number, source)?
                }
                "palFlag" => must_be_off(value, "PAL timing")?,
                "fourscore" => must_be_off(value, "the Four Score")?,
                "FDS" => must_be_off(value, "the Famicom Disk System")?,
                "binary" => must_be_off(value, "the binary input log")?,
                "NewPPU" => header.new_ppu = flag(value)?,
                // Recorded for the Famicom's second controller; it changes
                // no input we replay, so it is only checked and kept.
                "microphone" => {
                    flag(value)?;
                    header.extra.push((key.to_string(), value.to_string()));
                }
                "romFilename" => header.rom_filename = value.to_string(),
                "romChecksum" => {
                    header.rom_checksum = Some(parse_checksum(value).ok_or_else(|| {
                        err(
                            number,
                            format!("`romChecksum {}`: expected `base64:` and 16 bytes of MD5, or 32 hex digits", shorten(value)),
                        )
                    })?)
                }
                "guid" => header.guid = value.to_string(),
                "port0" | "port1" => {
                    let port = usize::from(key == "port1");
                    header.ports[port] = match int(value)? {
                        0 => PortDevice::None,
                        1 => PortDevice::Gamepad,
                        2 => {
                            return Err(unsupported(format!(
                                "line {number}: `{key} 2`: the Zapper is not supported"
                            )))
                        }
                        n => {
                            return Err(err(
                                number,
                                format!("`{key} {n}`: unknown device (0 none, 1 gamepad)"),
                            ))
                        }
                    }
                }
                "port2" => {
                    if int(value)? != 0 {
                        return Err(unsupported(format!(
                            "line {number}: `port2 {}`: Famicom expansion devices are not supported",
                            shorten(value)
                        )));
                    }
                }
                "RAMInitOption" => {
                    let option = int(value)?;
                    if !(0..=3).contains(&option) {
                        return Err(err(
                            number,
                            format!("`RAMInitOption {}`: expected 0-3", shorten(value)),
                        ));
                    }
                    header.ram_init.option = option as u8;
                }
                // FCEUX writes the seed with %d from an int, so it may be
                // negative; it seeds from the same 32 bits either way.
                "RAMInitSeed" => {
                    let seed = int(value)?;
                    if !(i32::MIN as i64..=u32::MAX as i64).contains(&seed) {
                        return Err(err(
                            number,
                            format!("`RAMInitSeed {}` is out of range", shorten(value)),
                        ));
                    }
                    header.ram_init.seed = seed as u32;
                }
                "comment" => header.comments.push(value.to_string()),
                "subtitle" => header.subtitles.push(value.to_string()),
                "savestate" => {
                    return Err(unsupported(format!(
                        "line {number}: the movie starts from a savestate; only movies recorded from power-on are supported"
                    )))
                }
                "saveram" => {
                    return Err(unsupported(format!(
                        "line {number}: the movie starts with saved battery RAM (`saveram`), which is not supported"
                    )))
                }
                // TAS Editor projects truncate the log at `length` frames.
                "length" => {
                    length = Some(to_u32(int(value)?, key, number, source)?);
                    header.extra.push((key.to_string(), value.to_string()));
                }
                _ => header.extra.push((key.to_string(), value.to_string())),
            }
        }
        if frames.is_empty() {
            return Err(err(
                last_line,
                "the file ends inside the header: no input lines (`|commands|port0|port1|port2|`)"
                    .into(),
            ));
        }
        if let Some(length) = length {
            let length = length as usize;
            if length == 0 {
                return Err(err(
                    last_line,
                    "`length 0` leaves no frames (a movie needs at least one)".into(),
                ));
            }
            if length > frames.len() {
                return Err(err(
                    last_line,
                    format!(
                        "`length {length}` but the file has only {} input lines (truncated?)",
                        frames.len()
                    ),
                ));
            }
            frames.truncate(length);
        }
        Ok(Movie { header, frames })
    }

    /// The movie as FM2 text, keys in the order FCEUX writes them.
    pub fn to_fm2(&self) -> String {
        use std::fmt::Write;
        let h = &self.header;
        let mut out = String::with_capacity(64 * 1024 + self.frames.len() * 24);
        let _ = writeln!(out, "version 3");
        let _ = writeln!(out, "emuVersion {}", h.emu_version);
        let _ = writeln!(out, "rerecordCount {}", h.rerecord_count);
        let _ = writeln!(out, "palFlag 0");
        let _ = writeln!(out, "romFilename {}", h.rom_filename);
        if let Some(sum) = &h.rom_checksum {
            let _ = writeln!(out, "romChecksum {}", format_checksum(sum));
        }
        if !h.guid.is_empty() {
            let _ = writeln!(out, "guid {}", h.guid);
        }
        let _ = writeln!(out, "fourscore 0");
        let _ = writeln!(out, "port0 {}", h.ports[0].number());
        let _ = writeln!(out, "port1 {}", h.ports[1].number());
        let _ = writeln!(out, "port2 0");
        let _ = writeln!(out, "FDS 0");
        let _ = writeln!(out, "NewPPU {}", u8::from(h.new_ppu));
        let _ = writeln!(out, "RAMInitOption {}", h.ram_init.option);
        let _ = writeln!(out, "RAMInitSeed {}", h.ram_init.seed as i32);
        for (key, value) in &h.extra {
            let _ = writeln!(out, "{key} {value}");
        }
        for c in &h.comments {
            let _ = writeln!(out, "comment {c}");
        }
        for s in &h.subtitles {
            let _ = writeln!(out, "subtitle {s}");
        }
        for frame in &self.frames {
            out.push('|');
            let _ = write!(out, "{}", frame.commands);
            for (port, device) in h.ports.iter().enumerate() {
                out.push('|');
                if *device == PortDevice::Gamepad {
                    for (i, &c) in MNEMONICS.iter().enumerate() {
                        let bit = 7 - i;
                        out.push(if frame.ports[port] & (1 << bit) != 0 {
                            c as char
                        } else {
                            '.'
                        });
                    }
                }
            }
            out.push_str("||\n");
        }
        out
    }

    /// Writes the movie to `path` atomically: a temporary file beside it,
    /// flushed to disk, then renamed over `path`, so a crash or Ctrl-C leaves
    /// either the old file or the complete new one.
    pub fn save(&self, path: &Path) -> Result<(), MovieError> {
        use std::io::Write;
        let io = |source| MovieError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
        tmp_name.push(".tmp");
        let tmp = path.with_file_name(tmp_name);
        let mut file = std::fs::File::create(&tmp).map_err(io)?;
        file.write_all(self.to_fm2().as_bytes()).map_err(io)?;
        file.sync_all().map_err(io)?;
        drop(file);
        std::fs::rename(&tmp, path).map_err(io)
    }
}

fn to_u32(v: i64, key: &str, line: usize, source: &str) -> Result<u32, MovieError> {
    u32::try_from(v).map_err(|_| MovieError::Format {
        path: source.to_string(),
        line,
        message: format!("`{key} {v}` is out of range"),
    })
}

/// Parses an input line after its leading `|`.
fn parse_record(record: &str, ports: &[PortDevice; 2]) -> Result<FrameInput, String> {
    // commands, port0, port1, port2, and the empty rest after the final `|`
    // (kept in an array: a vector per line was most of a long movie's
    // parsing, 54,000 lines costing ~20 ms of start-up).
    let mut fields = [""; 5];
    let mut count = 0;
    for field in record.split('|') {
        if let Some(slot) = fields.get_mut(count) {
            *slot = field;
        }
        count += 1;
    }
    if count != 5 || !fields[4].trim().is_empty() {
        return Err(format!(
            "malformed input line: expected `|commands|port0|port1|port2|` (5 `|`), found {count} `|`"
        ));
    }
    let commands: u8 = fields[0].trim().parse().map_err(|_| {
        format!(
            "commands field `{}` is not a number 0-255",
            shorten(fields[0])
        )
    })?;
    let unknown = commands & !command::SUPPORTED;
    if unknown != 0 {
        let what = if unknown & (command::FDS_INSERT | command::FDS_SELECT) != 0 {
            "FDS disk commands"
        } else if unknown & command::VS_INSERT_COIN != 0 {
            "VS System coin commands"
        } else {
            "unknown command bits"
        };
        return Err(format!(
            "commands {commands}: {what} are not supported (only 1 = reset, 2 = power)"
        ));
    }
    let mut input = FrameInput {
        commands,
        ports: [0, 0],
    };
    for (port, device) in ports.iter().enumerate() {
        let field = fields[1 + port];
        match device {
            PortDevice::None => {
                if !field.is_empty() {
                    return Err(format!(
                        "port{port} has no device in the header but its field is `{}`",
                        shorten(field)
                    ));
                }
            }
            PortDevice::Gamepad => {
                if field.chars().count() != 8 {
                    return Err(format!(
                        "port{port} field `{}` must be 8 characters (RLDUTSBA, `.` = released)",
                        shorten(field)
                    ));
                }
                for (i, c) in field.chars().enumerate() {
                    if c != '.' && c != ' ' {
                        input.ports[port] |= 1 << (7 - i);
                    }
                }
            }
        }
    }
    if !fields[3].is_empty() {
        return Err(format!(
            "port2 field `{}` must be empty (no expansion device)",
            shorten(fields[3])
        ));
    }
    Ok(input)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::buttons;

    const SAMPLE: &str = "version 3\nemuVersion 22020\nrerecordCount 5\npalFlag 0\n\
romFilename lunarlimit\nromChecksum base64:AAECAwQFBgcICQoLDA0ODw==\n\
guid 452DE2C3-EF43-2FA9-77AC-0677FC51543B\nfourscore 0\nmicrophone 0\nport0 1\nport1 1\n\
port2 0\nFDS 0\nNewPPU 0\ncomment author someone\nsubtitle 10 hello there\n\
|0|........|........||\n|1|R......A|........||\n|2|.L.U.SB.|RLDUTSBA||\n";

    #[test]
    fn reads_fceux_text() {
        let m = Movie::parse(SAMPLE, "t.fm2").unwrap();
        assert_eq!(m.header.emu_version, 22020);
        assert_eq!(m.header.rerecord_count, 5);
        assert_eq!(m.header.rom_filename, "lunarlimit");
        assert_eq!(m.header.rom_checksum.unwrap()[15], 15);
        assert_eq!(m.header.comments, vec!["author someone"]);
        assert_eq!(m.header.subtitles, vec!["10 hello there"]);
        assert_eq!(m.frames.len(), 3);
        assert_eq!(m.frames[1].commands, command::RESET);
        assert_eq!(m.frames[1].ports[0], buttons::RIGHT | buttons::A);
        assert_eq!(
            m.frames[2].ports[0],
            buttons::LEFT | buttons::UP | buttons::SELECT | buttons::B
        );
        assert_eq!(m.frames[2].ports[1], 0xFF);
        assert_eq!(m.frames[2].commands, command::POWER);
    }

    #[test]
    fn round_trip_is_identical() {
        let m = Movie::parse(SAMPLE, "t.fm2").unwrap();
        let text = m.to_fm2();
        let again = Movie::parse(&text, "t2.fm2").unwrap();
        assert_eq!(m, again);
        assert_eq!(text, again.to_fm2());
    }

    #[test]
    fn errors_name_the_line() {
        let bad = SAMPLE.replace("|1|R......A|", "|1|R.....A|");
        let e = Movie::parse(&bad, "m.fm2").unwrap_err().to_string();
        assert!(e.starts_with("m.fm2:18: port0 field"), "{e}");
        let bad = SAMPLE.replace("|0|........|........||", "|x|........|........||");
        let e = Movie::parse(&bad, "m.fm2").unwrap_err().to_string();
        assert!(e.starts_with("m.fm2:17: commands field"), "{e}");
        let e = Movie::parse("hello", "m.fm2").unwrap_err().to_string();
        assert!(e.contains("m.fm2:1:"), "{e}");
        let bad = SAMPLE.replace("palFlag 0", "palFlag 1");
        let e = Movie::parse(&bad, "m.fm2").unwrap_err().to_string();
        assert!(e.contains("PAL"), "{e}");
        let bad = SAMPLE.replace("|2|", "|4|");
        let e = Movie::parse(&bad, "m.fm2").unwrap_err().to_string();
        assert!(e.contains("FDS"), "{e}");
    }

    #[test]
    fn crlf_and_missing_port() {
        let text = "version 3\r\nport1 0\r\n|0|....T...|||\r\n";
        let m = Movie::parse(text, "x").unwrap();
        assert_eq!(m.header.ports[1], PortDevice::None);
        assert_eq!(m.frames[0].ports[0], buttons::START);
        assert_eq!(Movie::parse(&m.to_fm2(), "y").unwrap(), m);
    }

    #[test]
    fn header_errors_name_the_line() {
        // Cut off inside the header: no input lines.
        let cut = &SAMPLE[..SAMPLE.find("port0").unwrap()];
        let e = Movie::parse(cut, "m.fm2").unwrap_err().to_string();
        assert!(
            e.starts_with("m.fm2:9: the file ends inside the header"),
            "{e}"
        );
        // Cut in the middle of a header line.
        let e = Movie::parse("version 3\nemuVers", "m.fm2")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("m.fm2:2:"), "{e}");
        // A junk line among the header lines.
        let bad = SAMPLE.replace("port2 0\n", "port2 0\n%%% garbage\n");
        let e = Movie::parse(&bad, "m.fm2").unwrap_err().to_string();
        assert!(e.starts_with("m.fm2:13: not a header line"), "{e}");
        let bad = SAMPLE.replace("port2 0\n", "port2 0\nlonelyword\n");
        let e = Movie::parse(&bad, "m.fm2").unwrap_err().to_string();
        assert!(e.starts_with("m.fm2:13: not a header line"), "{e}");
        // An unknown but key-shaped key is kept, as FCEUX ignores it.
        let extra = SAMPLE.replace("port2 0\n", "port2 0\nnewKey 7\n");
        let m = Movie::parse(&extra, "m.fm2").unwrap();
        assert!(m.header.extra.contains(&("newKey".into(), "7".into())));
        // Bad versions.
        let e = Movie::parse("version 33\n|0|........|........||\n", "m.fm2")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("m.fm2:1: not an FM2 movie"), "{e}");
        let bad = SAMPLE.replace("emuVersion", "version 2\nemuVersion");
        let e = Movie::parse(&bad, "m.fm2").unwrap_err().to_string();
        assert!(e.starts_with("m.fm2:2: FM2 version `2`"), "{e}");
        // More frames claimed than present.
        let bad = SAMPLE.replace("NewPPU 0\n", "NewPPU 0\nlength 9\n");
        let e = Movie::parse(&bad, "m.fm2").unwrap_err().to_string();
        assert!(e.contains("`length 9` but the file has only 3"), "{e}");
    }

    #[test]
    fn huge_fields_are_shortened_in_errors() {
        let field = "9".repeat(5 << 20) + "x";
        for bad in [
            SAMPLE.replace("emuVersion 22020", &format!("emuVersion {field}")),
            SAMPLE.replace("|0|........|", &format!("|{field}|........|")),
            SAMPLE.replace("|0|........|", &format!("|0|{field}|")),
            SAMPLE.replace("port2 0\n", &format!("port2 0\n{field} 1\n")),
            format!("version 3{field}\n"),
        ] {
            let e = Movie::parse(&bad, "m.fm2").unwrap_err().to_string();
            assert!(e.chars().count() < 200, "{} chars", e.len());
            assert!(e.contains('…'), "{e}");
        }
    }

    /// Inputs the input fuzzer (`src/input_fuzz.rs`) found.
    #[test]
    fn fuzz_findings_stay_fixed() {
        // A value ending in a second CR was kept with it, and lost it when
        // written back and read again.
        let text = "version 3\r\nport255 0\r\r\n|2|....T...|...U...A||\n|0|...U....|........||\n";
        let m = Movie::parse(text, "f").unwrap();
        assert_eq!(Movie::parse(&m.to_fm2(), "g").unwrap(), m);
        // `length 0` read as an empty movie, which cannot be written back.
        let e = Movie::parse("version 3\nlength 0\n|0|........|........||\n", "f")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`length 0` leaves no frames"), "{e}");
    }
}
