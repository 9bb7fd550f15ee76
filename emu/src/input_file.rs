//! Reading a whole input file (ROM, movie, CFG record, workloads list,
//! sample stream) with a size limit that comes from its format.
//!
//! Why: `std::fs::read` on `/dev/zero` never returns, and on a FIFO it waits
//! for a writer forever; a multi-gigabyte file named by mistake would be read
//! whole before any parser could object. So a path must name a regular file
//! (checked on its metadata, before it is opened: opening a FIFO blocks), and
//! reading stops after `limit + 1` bytes, which is enough to tell "at the
//! limit" from "over it". Each format states its limit and where the number
//! comes from, and the error repeats both so the user knows what was expected.
//!
//! Messages that quote a file shorten what they quote ([`shorten`]), and
//! every line printed goes through [`printable`]: one line, control
//! characters escaped, bounded length.
//!
//! Errors are `std::io::Error`s (kind `InvalidInput`) so that every crate's
//! existing "`{path}: {io error}`" variant carries them unchanged.

use std::io::Read;
use std::path::Path;

/// The largest file a format accepts, and why, in words for the error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SizeLimit {
    /// Bytes allowed.
    pub bytes: u64,
    /// What the file is and where the number comes from, e.g. "a ROM image
    /// (NES 2.0's largest PRG + CHR ROM plus header and trainer)".
    pub what: &'static str,
}

/// Reads all of `path` if it is a regular file of at most `limit.bytes`.
pub fn read_limited(path: &Path, limit: SizeLimit) -> std::io::Result<Vec<u8>> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    let too_big = || {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "larger than the {}-byte limit for {}",
                limit.bytes, limit.what
            ),
        )
    };
    // The length is only a hint (the file may grow while we read); `take`
    // is what bounds the read.
    if meta.len() > limit.bytes {
        return Err(too_big());
    }
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit.bytes.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit.bytes {
        return Err(too_big());
    }
    Ok(bytes)
}

/// Opens `path` for reading a bit at a time if it is a regular file (see
/// [`read_limited`] for why that is checked first); for readers whose
/// memory does not grow with the file, which need no size limit.
pub fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    if !std::fs::metadata(path)?.is_file() {
        return Err(not_regular());
    }
    std::fs::File::open(path)
}

fn not_regular() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        "not a regular file (a device, FIFO or directory could block or never end)",
    )
}

/// Reads `path` as text (see [`read_limited`]); invalid UTF-8 is an error.
pub fn read_limited_text(path: &Path, limit: SizeLimit) -> std::io::Result<String> {
    let bytes = read_limited(path, limit)?;
    String::from_utf8(bytes).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

/// How much of a field from a file an error message repeats.
pub const ECHO_CHARS: usize = 40;

/// Longest line nesprof prints as an error or notice, in bytes: the
/// one-line contract's bound (`tests/bad_input.rs` holds every error line
/// to 400 bytes). Room for a problem and two paths of ordinary length; a
/// longer message keeps its start and its end ([`printable`]), so the file
/// named first and the problem stated last both survive.
pub const MESSAGE_BYTES: usize = 400;

/// `field` for an error message: at most [`ECHO_CHARS`] characters, then
/// `…`, so a damaged file cannot turn one error line into megabytes.
/// Control characters are escaped ([`printable`]).
pub fn shorten(field: &str) -> String {
    shorten_to(field, ECHO_CHARS)
}

/// `text` cut to at most `chars` characters (then `…`), for messages from
/// parsers that quote the file (RON's do); control characters escaped as
/// [`printable`] does (an escape counts as its characters).
pub fn shorten_to(text: &str, chars: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let unit = Escaped::of(c);
        if used + unit.chars() > chars {
            out.push('…');
            return out;
        }
        used += unit.chars();
        unit.push_to(&mut out);
    }
    out
}

/// `text` made safe to print as one line of a terminal, at most
/// `max_bytes` bytes of UTF-8: control characters escaped (`\n`, `\r`,
/// `\t`, `\x1b`, `\u{9b}`, and the Unicode line separators and
/// bidirectional overrides as `\u{202e}`), since a newline from a file
/// name or a ROM name in a stream header breaks the one-line contract and
/// an escape sequence can rewrite what the terminal shows. A longer text
/// keeps its start and its end around `…` (a message names its file first
/// and its problem last). Work is bounded by `max_bytes`, not by the text.
pub fn printable(text: &str, max_bytes: usize) -> String {
    // The whole text when it fits.
    let mut whole = String::new();
    let mut used = 0;
    let mut fits = true;
    for c in text.chars() {
        let unit = Escaped::of(c);
        used += unit.bytes();
        if used > max_bytes {
            fits = false;
            break;
        }
        unit.push_to(&mut whole);
    }
    if fits {
        return whole;
    }
    // Head and tail, whole escapes and characters only, around `…`.
    let budget = max_bytes.saturating_sub('…'.len_utf8());
    let head_budget = budget - budget / 2;
    let tail_budget = budget / 2;
    let mut head = String::new();
    let mut used = 0;
    for c in text.chars() {
        let unit = Escaped::of(c);
        if used + unit.bytes() > head_budget {
            break;
        }
        used += unit.bytes();
        unit.push_to(&mut head);
    }
    let mut tail: Vec<Escaped> = Vec::new();
    let mut used = 0;
    for c in text.chars().rev() {
        let unit = Escaped::of(c);
        if used + unit.bytes() > tail_budget {
            break;
        }
        used += unit.bytes();
        tail.push(unit);
    }
    head.push('…');
    for unit in tail.into_iter().rev() {
        unit.push_to(&mut head);
    }
    head
}

/// Whether [`printable`] escapes `c` (a control character, a line
/// separator or a bidirectional override).
pub fn needs_escape(c: char) -> bool {
    !matches!(Escaped::of(c), Escaped::Plain(_))
}

/// One character as [`printable`] shows it.
#[derive(Clone, Copy)]
enum Escaped {
    Plain(char),
    Short(char),
    Hex(u8),
    Unicode(char),
}

impl Escaped {
    fn of(c: char) -> Escaped {
        match c {
            '\n' => Escaped::Short('n'),
            '\r' => Escaped::Short('r'),
            '\t' => Escaped::Short('t'),
            '\0'..='\x1f' | '\x7f' => Escaped::Hex(c as u8),
            // C1 controls (CSI is U+009B), line and paragraph separators,
            // and the marks and overrides that reorder text.
            '\u{80}'..='\u{9f}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}' => Escaped::Unicode(c),
            _ => Escaped::Plain(c),
        }
    }

    /// Characters it takes.
    fn chars(self) -> usize {
        match self {
            Escaped::Plain(_) => 1,
            Escaped::Short(_) => 2,
            Escaped::Hex(_) => 4,
            Escaped::Unicode(c) => format!("{:x}", c as u32).len() + 4,
        }
    }

    /// Bytes it takes (escapes are ASCII).
    fn bytes(self) -> usize {
        match self {
            Escaped::Plain(c) => c.len_utf8(),
            other => other.chars(),
        }
    }

    fn push_to(self, out: &mut String) {
        use std::fmt::Write;
        match self {
            Escaped::Plain(c) => out.push(c),
            Escaped::Short(c) => {
                out.push('\\');
                out.push(c);
            }
            Escaped::Hex(b) => {
                let _ = write!(out, "\\x{b:02x}");
            }
            Escaped::Unicode(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMIT: SizeLimit = SizeLimit {
        bytes: 10,
        what: "test files (ten bytes, by fiat)",
    };

    #[test]
    fn reads_up_to_the_limit_and_refuses_more() {
        let dir = std::env::temp_dir().join(format!("nesprof-input-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ok = dir.join("ok");
        std::fs::write(&ok, b"0123456789").unwrap();
        assert_eq!(read_limited(&ok, LIMIT).unwrap().len(), 10);
        let big = dir.join("big");
        std::fs::write(&big, b"0123456789A").unwrap();
        let e = read_limited(&big, LIMIT).unwrap_err().to_string();
        assert!(e.contains("10-byte limit for test files (ten bytes"), "{e}");
        assert!(read_limited(&dir, LIMIT).is_err());
        assert!(open_regular(&ok).is_ok());
        let e = open_regular(&dir).unwrap_err().to_string();
        assert!(e.contains("not a regular file"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn printable_escapes_and_keeps_both_ends() {
        assert_eq!(printable("plain text", 40), "plain text");
        assert_eq!(
            printable("a\nb\r\tc\x1b[2Jd\u{9b}e\u{202e}f\0", 80),
            "a\\nb\\r\\tc\\x1b[2Jd\\u{9b}e\\u{202e}f\\x00"
        );
        // Exactly at the bound: whole; one over: head, `…`, tail.
        assert_eq!(printable("0123456789", 10), "0123456789");
        let cut = printable("0123456789A", 10);
        assert_eq!(cut, "0123…89A");
        assert_eq!(cut.len(), 10);
        // The bound is in bytes: a character is never split.
        let cut = printable(&"é".repeat(20), 10);
        assert_eq!(cut, "éé…é");
        assert!(cut.len() <= 10);
        // Escapes are never split, and the bound counts them.
        let cut = printable(&"\n".repeat(100), 11);
        assert_eq!(cut, "\\n\\n…\\n\\n");
        assert!(cut.len() <= 11);
        // Work bounded by the bound: a 100 MB text is quick.
        let big = "x".repeat(100 << 20);
        let start = std::time::Instant::now();
        let cut = printable(&big, MESSAGE_BYTES);
        assert!(cut.len() <= MESSAGE_BYTES && cut.len() >= MESSAGE_BYTES - 3);
        assert!(start.elapsed() < std::time::Duration::from_secs(1));
        // Nothing of what is printed is a line break or an escape.
        for c in printable("\u{2028}\u{85}\x07", 40).chars() {
            assert!(!c.is_control() && c != '\u{2028}', "{c:?}");
        }
    }

    #[test]
    fn shorten_escapes_and_cuts_the_end() {
        assert_eq!(shorten_to("abc\ndef", 40), "abc\\ndef");
        assert_eq!(shorten_to("abcdef", 3), "abc…");
        assert_eq!(shorten_to("ab\ncd", 3), "ab…");
        assert_eq!(shorten(&"y".repeat(1000)).chars().count(), ECHO_CHARS + 1);
    }

    #[cfg(unix)]
    #[test]
    fn refuses_dev_zero_at_once() {
        let start = std::time::Instant::now();
        let e = read_limited(Path::new("/dev/zero"), LIMIT).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        assert!(start.elapsed() < std::time::Duration::from_secs(1));
    }
}
