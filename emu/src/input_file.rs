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
//! Messages that quote a file shorten what they quote ([`shorten`]).
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
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (a device, FIFO or directory could block or never end)",
        ));
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

/// `field` for an error message: at most [`ECHO_CHARS`] characters, then
/// `…`, so a damaged file cannot turn one error line into megabytes.
pub fn shorten(field: &str) -> String {
    shorten_to(field, ECHO_CHARS)
}

/// `text` cut to at most `chars` characters (then `…`), for messages from
/// parsers that quote the file (RON's do).
pub fn shorten_to(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
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
        std::fs::remove_dir_all(&dir).unwrap();
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
