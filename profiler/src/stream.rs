//! Sample-stream files: every batch of a run, so any number of GFCGaussiano
//! configurations can be replayed offline (the 144-config sweep).
//!
//! Layout (little-endian):
//! - `NPSTREAM` magic, `u32` format version;
//! - `u32` length + RON text of [`StreamHeader`] (ROM hash, trigger settings);
//! - per batch: `u16` sample count, `u64` cycle of its first sample, then
//!   16 bytes per sample: `u32` pc, `u32` next pc, `u32` a branch's taken
//!   target (code addresses, see `emu::code_addr`; [`Sample::target`]),
//!   `u8` length, `u8` flow (bits 0-3 class, bit 4 taken), `u16` cycles
//!   since the previous sample. Version 1 streams, from before banks were
//!   told apart, had 8-byte samples with `u16` addresses and no target
//!   (read as the fall-through), and are still read;
//! - `u16` 0xFFFF end marker and a RON [`StreamTrailer`] (run totals), so a
//!   stream cut short by a crash is still readable up to its last batch.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use gfc::{Addr, Flow, Sample};
use serde::{Deserialize, Serialize};
use thiserror::Error;

pub const MAGIC: &[u8; 8] = b"NPSTREAM";
pub const FORMAT_VERSION: u32 = 2;
const END_MARKER: u16 = 0xFFFF;

/// What the run was and how it was sampled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamHeader {
    /// FNV-1a 64 of the ROM file, hex.
    pub rom_hash: String,
    pub rom_name: String,
    /// Movie file name, if the run replayed one.
    pub movie: Option<String>,
    /// `wall` or `emulated`.
    pub trigger: String,
    /// X: milliseconds between batch requests.
    pub interval_ms: f64,
    /// N: instructions per batch.
    pub batch_len: usize,
    /// Maximum extra delay drawn per batch (emulated trigger), ms.
    pub jitter_ms: f64,
    /// How the emulated trigger drew its intervals (`uniform` or
    /// `periodic`); streams written before there was a choice were
    /// periodic.
    #[serde(default = "periodic")]
    pub spacing: String,
    pub seed: u64,
}

fn periodic() -> String {
    "periodic".into()
}

/// Totals known only when the run ends.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StreamTrailer {
    pub executed_instructions: u64,
    pub sampled_instructions: u64,
    pub batches: u64,
    pub dropped_batches: u64,
    pub frames: u64,
    /// The run's last frame hash, so a replay can print `profile`'s last
    /// line (0 in streams written before it was kept).
    #[serde(default)]
    pub frame_hash: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SampleStream {
    pub header: StreamHeader,
    pub batches: Vec<Vec<Sample>>,
    /// `None` if the file ended without its trailer (the run was cut short).
    pub trailer: Option<StreamTrailer>,
}

#[derive(Debug, Error)]
pub enum StreamError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not a sample stream (bad magic)")]
    BadMagic { path: PathBuf },
    #[error(
        "{path}: sample stream format version {found}, this nesprof reads version {FORMAT_VERSION}"
    )]
    Version { path: PathBuf, found: u32 },
    #[error("{path}: bad {what}: {problem}")]
    Corrupt {
        path: PathBuf,
        what: &'static str,
        problem: String,
    },
}

fn flow_code(flow: Flow) -> u8 {
    match flow {
        Flow::None => 0,
        Flow::Branch => 1,
        Flow::Jump => 2,
        Flow::Call => 3,
        Flow::Return => 4,
        Flow::ReturnInterrupt => 5,
        Flow::Break => 6,
        Flow::Interrupt => 7,
    }
}

fn flow_from_code(code: u8) -> Option<Flow> {
    Some(match code {
        0 => Flow::None,
        1 => Flow::Branch,
        2 => Flow::Jump,
        3 => Flow::Call,
        4 => Flow::Return,
        5 => Flow::ReturnInterrupt,
        6 => Flow::Break,
        7 => Flow::Interrupt,
        _ => return None,
    })
}

/// Writes a stream batch by batch.
pub struct StreamWriter<W: Write> {
    out: W,
}

impl StreamWriter<BufWriter<std::fs::File>> {
    pub fn create(path: &Path, header: &StreamHeader) -> Result<Self, StreamError> {
        let io = |source| StreamError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = std::fs::File::create(path).map_err(io)?;
        StreamWriter::new(BufWriter::new(file), header).map_err(io)
    }
}

impl<W: Write> StreamWriter<W> {
    pub fn new(mut out: W, header: &StreamHeader) -> std::io::Result<Self> {
        out.write_all(MAGIC)?;
        out.write_all(&FORMAT_VERSION.to_le_bytes())?;
        write_ron(&mut out, header)?;
        Ok(StreamWriter { out })
    }

    pub fn batch(&mut self, batch: &[Sample]) -> std::io::Result<()> {
        let count = batch.len().min(END_MARKER as usize - 1);
        let batch = &batch[..count];
        self.out.write_all(&(count as u16).to_le_bytes())?;
        let first = batch.first().map(|s| s.cycle).unwrap_or(0);
        self.out.write_all(&first.to_le_bytes())?;
        let mut prev = first;
        for s in batch {
            let delta = s.cycle.saturating_sub(prev).min(u16::MAX as u64) as u16;
            prev = s.cycle;
            let flags = flow_code(s.flow) | if s.taken { 0x10 } else { 0 };
            let mut rec = [0u8; 16];
            rec[0..4].copy_from_slice(&s.pc.to_le_bytes());
            rec[4..8].copy_from_slice(&s.next_pc.to_le_bytes());
            rec[8..12].copy_from_slice(&s.target.to_le_bytes());
            rec[12] = s.len;
            rec[13] = flags;
            rec[14..16].copy_from_slice(&delta.to_le_bytes());
            self.out.write_all(&rec)?;
        }
        Ok(())
    }

    pub fn finish(mut self, trailer: &StreamTrailer) -> std::io::Result<W> {
        self.out.write_all(&END_MARKER.to_le_bytes())?;
        write_ron(&mut self.out, trailer)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

fn write_ron<W: Write, T: Serialize>(out: &mut W, value: &T) -> std::io::Result<()> {
    let text = ron::to_string(value).map_err(std::io::Error::other)?;
    out.write_all(&(text.len() as u32).to_le_bytes())?;
    out.write_all(text.as_bytes())
}

/// Parses a whole stream from bytes (`path` names it in errors).
pub fn parse(bytes: &[u8], path: &Path) -> Result<SampleStream, StreamError> {
    let corrupt = |what: &'static str, problem: String| StreamError::Corrupt {
        path: path.to_path_buf(),
        what,
        problem,
    };
    let mut r = bytes;
    let mut take = |n: usize, what: &'static str| -> Result<&[u8], StreamError> {
        if r.len() < n {
            return Err(corrupt(
                what,
                format!("file ends {} bytes early", n - r.len()),
            ));
        }
        let (head, rest) = r.split_at(n);
        r = rest;
        Ok(head)
    };
    if take(8, "header")? != MAGIC {
        return Err(StreamError::BadMagic {
            path: path.to_path_buf(),
        });
    }
    let version = u32::from_le_bytes(take(4, "header")?.try_into().unwrap());
    if version != 1 && version != FORMAT_VERSION {
        return Err(StreamError::Version {
            path: path.to_path_buf(),
            found: version,
        });
    }
    let len = u32::from_le_bytes(take(4, "header")?.try_into().unwrap()) as usize;
    let text = std::str::from_utf8(take(len, "header")?)
        .map_err(|e| corrupt("header", emu::input_file::shorten_to(&e.to_string(), 160)))?;
    let header: StreamHeader = ron::from_str(text)
        .map_err(|e| corrupt("header", emu::input_file::shorten_to(&e.to_string(), 160)))?;
    let mut batches = Vec::new();
    let mut trailer = None;
    while let Ok(count_bytes) = take(2, "batch") {
        let count = u16::from_le_bytes(count_bytes.try_into().unwrap());
        if count == END_MARKER {
            let len = u32::from_le_bytes(take(4, "trailer")?.try_into().unwrap()) as usize;
            let text = std::str::from_utf8(take(len, "trailer")?).map_err(|e| {
                corrupt("trailer", emu::input_file::shorten_to(&e.to_string(), 160))
            })?;
            trailer = Some(ron::from_str(text).map_err(|e| {
                corrupt("trailer", emu::input_file::shorten_to(&e.to_string(), 160))
            })?);
            break;
        }
        let first = u64::from_le_bytes(take(8, "batch")?.try_into().unwrap());
        let width = if version == 1 { 8 } else { 16 };
        let body = take(count as usize * width, "batch")?;
        let mut cycle = first;
        let mut batch = Vec::with_capacity(count as usize);
        for rec in body.chunks_exact(width) {
            // Addresses, then length, flags and the cycle delta.
            let word = |i: usize| Addr::from_le_bytes([rec[i], rec[i + 1], rec[i + 2], rec[i + 3]]);
            let (pc, next_pc, target, rest) = if version == 1 {
                let pc = u16::from_le_bytes([rec[0], rec[1]]) as Addr;
                let next_pc = u16::from_le_bytes([rec[2], rec[3]]) as Addr;
                // No target recorded: what [`Sample::control`] assumes.
                (pc, next_pc, next_pc, &rec[4..])
            } else {
                (word(0), word(4), word(8), &rec[12..])
            };
            // Checked: `first` comes from the file and may be anything.
            cycle = cycle
                .checked_add(u16::from_le_bytes([rest[2], rest[3]]) as u64)
                .ok_or_else(|| corrupt("batch", "cycle count overflows 64 bits".into()))?;
            let flow = flow_from_code(rest[1] & 0x0F).ok_or_else(|| {
                corrupt("sample", format!("unknown flow code {}", rest[1] & 0x0F))
            })?;
            batch.push(Sample {
                pc,
                next_pc,
                target,
                len: rest[0],
                flow,
                taken: rest[1] & 0x10 != 0,
                cycle,
            });
        }
        batches.push(batch);
    }
    Ok(SampleStream {
        header,
        batches,
        trailer,
    })
}

/// The largest sample stream read: 2 GiB, about four emulated hours at
/// the thesis' trigger (X = 3 ms, N = 25: 333 batches a second of
/// 10 + 25 × 16 bytes). Longer runs are not what streams are for (the sweep
/// replays them whole, in memory).
pub const MAX_FILE: emu::input_file::SizeLimit = emu::input_file::SizeLimit {
    bytes: 2 << 30,
    what: "sample streams (2 GiB: ~4 emulated hours at X = 3 ms, N = 25)",
};

/// Reads and parses the stream at `path`: a regular file of at most
/// [`MAX_FILE`] bytes.
pub fn read(path: &Path) -> Result<SampleStream, StreamError> {
    let bytes =
        emu::input_file::read_limited(path, MAX_FILE).map_err(|source| StreamError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    parse(&bytes, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn header() -> StreamHeader {
        StreamHeader {
            rom_hash: "0123456789abcdef".into(),
            rom_name: "test.nes".into(),
            movie: None,
            trigger: "emulated".into(),
            interval_ms: 3.0,
            batch_len: 3,
            jitter_ms: 0.0,
            spacing: "uniform".into(),
            seed: 0,
        }
    }

    #[test]
    fn round_trip() {
        let mut a = Sample::control(0x8003, 2, Flow::Branch, 0x8000);
        a.cycle = 1000;
        let mut b = Sample::plain(0x8000, 2);
        b.cycle = 1003;
        let mut c = Sample::interrupt(0x9000);
        c.cycle = 1010;
        // A banked code address; a branch not taken, its target known.
        let mut d = Sample::control(0x3C_8010, 2, Flow::Branch, 0x3C_8012).with_target(0x3C_8000);
        d.cycle = 1020;
        let batches = vec![vec![a, b, c, d], vec![b]];
        let mut w = StreamWriter::new(Vec::new(), &header()).unwrap();
        for batch in &batches {
            w.batch(batch).unwrap();
        }
        let trailer = StreamTrailer {
            executed_instructions: 99,
            batches: 2,
            ..Default::default()
        };
        let bytes = w.finish(&trailer).unwrap();
        let stream = parse(&bytes, Path::new("x")).unwrap();
        assert_eq!(stream.header, header());
        assert_eq!(stream.batches, batches);
        assert_eq!(stream.trailer, Some(trailer));
        // Cut short: the batches before the cut survive, no trailer.
        let cut = parse(&bytes[..bytes.len() - 20], Path::new("x"));
        assert!(cut.is_err() || cut.unwrap().trailer.is_none());
    }

    /// Streams written before code addresses had banks (format 1: 16-bit
    /// addresses, no branch targets) still replay.
    #[test]
    fn reads_format_1() {
        let mut v = MAGIC.to_vec();
        v.extend_from_slice(&1u32.to_le_bytes());
        let text = ron::to_string(&header()).unwrap();
        v.extend_from_slice(&(text.len() as u32).to_le_bytes());
        v.extend_from_slice(text.as_bytes());
        v.extend_from_slice(&1u16.to_le_bytes());
        v.extend_from_slice(&500u64.to_le_bytes());
        // BNE at $8003 taken to $8000, 0 cycles after the batch's first.
        v.extend_from_slice(&[0x03, 0x80, 0x00, 0x80, 2, 0x11, 0, 0]);
        v.extend_from_slice(&END_MARKER.to_le_bytes());
        let text = ron::to_string(&StreamTrailer::default()).unwrap();
        v.extend_from_slice(&(text.len() as u32).to_le_bytes());
        v.extend_from_slice(text.as_bytes());
        let stream = parse(&v, Path::new("x")).unwrap();
        let mut expected = Sample::control(0x8003, 2, Flow::Branch, 0x8000);
        expected.cycle = 500;
        assert_eq!(stream.batches, vec![vec![expected]]);
    }

    #[test]
    fn rejects_foreign_files() {
        assert!(matches!(
            parse(b"hello world!", Path::new("x")),
            Err(StreamError::BadMagic { .. })
        ));
        let mut v = MAGIC.to_vec();
        v.extend_from_slice(&9u32.to_le_bytes());
        assert!(matches!(
            parse(&v, Path::new("x")),
            Err(StreamError::Version { found: 9, .. })
        ));
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let _ = parse(&bytes, Path::new("x"));
            let mut with_magic = MAGIC.to_vec();
            with_magic.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
            with_magic.extend_from_slice(&bytes);
            let _ = parse(&with_magic, Path::new("x"));
        }
    }
}
