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
//!   stream cut short by a crash is still readable up to its last batch;
//!   nothing after it.
//!
//! [`StreamReader`] reads a stream a batch at a time and checks that its
//! parts agree (header, batches, trailer); [`parse`] and [`read`] hold the
//! whole stream.

use std::io::{BufReader, BufWriter, Read, Write};
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
    /// Where branches were taken in the run (`emu::taken_targets`' bits:
    /// CPU addresses, then PRG-ROM offsets past 0x10000), so that a replay
    /// cuts blocks where the live builder did (empty in streams written
    /// before they were kept, or by an engine that did not keep them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub taken_targets: Vec<u32>,
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

/// Longest header read, in bytes: its RON holds a ROM's file name (at most
/// 255 bytes), a movie's path (at most 4096, Linux's `PATH_MAX`), a hash
/// and the trigger's settings; 16 KiB is room for all of them, escaped.
pub const MAX_HEADER_BYTES: u32 = 16 << 10;

/// Longest trailer read, in bytes: six numbers in RON, some 150 bytes,
/// and the taken branch targets, at most one per two bytes of code: 16 MiB
/// holds those of a 2 MiB PRG ROM written out in full.
pub const MAX_TRAILER_BYTES: u32 = 16 << 20;

/// Most instructions a frame can hold (see there): a trailer claiming
/// more executed instructions than its frames can run is wrong.
pub use crate::cfg_file::MAX_INSTRUCTIONS_PER_FRAME;

/// Largest batch the format holds: its sample count is a `u16` and
/// 0xFFFF is the end marker.
pub const MAX_BATCH_SAMPLES: usize = END_MARKER as usize - 1;

/// Parses a whole stream from bytes (`path` names it in errors), with the
/// checks of [`StreamReader`].
pub fn parse(bytes: &[u8], path: &Path) -> Result<SampleStream, StreamError> {
    let mut reader = StreamReader::new(bytes, path)?;
    let mut batches = Vec::new();
    for batch in reader.by_ref() {
        batches.push(batch?);
    }
    Ok(SampleStream {
        header: reader.header().clone(),
        batches,
        trailer: reader.trailer().cloned(),
    })
}

/// The largest sample stream read whole by [`read`]: 2 GiB, about four
/// emulated hours at the thesis' trigger (X = 3 ms, N = 25: 333 batches a
/// second of 10 + 25 × 16 bytes). [`StreamReader`] reads a stream of any
/// size a batch at a time.
pub const MAX_FILE: emu::input_file::SizeLimit = emu::input_file::SizeLimit {
    bytes: 2 << 30,
    what: "sample streams read whole (2 GiB: ~4 emulated hours at X = 3 ms, N = 25)",
};

/// Reads and parses the stream at `path`: a regular file of at most
/// [`MAX_FILE`] bytes, held in memory (the sweep replays it 144 times).
pub fn read(path: &Path) -> Result<SampleStream, StreamError> {
    let bytes =
        emu::input_file::read_limited(path, MAX_FILE).map_err(|source| StreamError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    parse(&bytes, path)
}

/// Reads a stream a batch at a time, so replaying a stream of any length
/// takes memory for one batch, and checks it as it goes:
///
/// - the header: a known trigger and spacing, an interval that is a
///   positive finite number of milliseconds, a jitter that is a finite one
///   not below 0, a batch length of 1 to [`MAX_BATCH_SAMPLES`], a ROM hash
///   of 16 hex digits (or none);
/// - every batch against the header: exactly `batch_len` instructions
///   (the sampler only hands out full batches), interrupt entries (length
///   0, flow `interrupt`) besides, instruction lengths 1 to 3, code
///   addresses a ROM can have ([`crate::cfg_file::check_address`]);
/// - the end: the file ends at a batch's end (no trailer: a run cut short,
///   [`StreamReader::trailer`] is `None`) or with the trailer and nothing
///   after it (a stray byte or junk is an error), and the trailer agrees
///   with the body: its batch count and sampled instructions are the
///   batches and instructions present, no more dropped batches than
///   batches, no more sampled instructions than executed ones, and no more
///   executed than its frames can run ([`MAX_INSTRUCTIONS_PER_FRAME`]).
///
/// Any problem is a [`StreamError`] naming the file and what is wrong, and
/// ends the iteration.
pub struct StreamReader<R: Read> {
    input: R,
    path: PathBuf,
    version: u32,
    header: StreamHeader,
    /// Bytes read so far, to say where a problem is.
    offset: u64,
    batches: u64,
    instructions: u64,
    ended: bool,
    trailer: Option<StreamTrailer>,
}

impl StreamReader<BufReader<std::fs::File>> {
    /// Opens the stream at `path` (a regular file; its size is not
    /// limited, since it is read a batch at a time) and reads its header.
    pub fn open(path: &Path) -> Result<Self, StreamError> {
        let file = emu::input_file::open_regular(path).map_err(|source| StreamError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        StreamReader::new(BufReader::new(file), path)
    }
}

impl<R: Read> StreamReader<R> {
    /// Reads the magic, version and header from `input` (`path` names it
    /// in errors).
    pub fn new(input: R, path: &Path) -> Result<Self, StreamError> {
        let mut reader = StreamReader {
            input,
            path: path.to_path_buf(),
            version: 0,
            header: StreamHeader {
                rom_hash: String::new(),
                rom_name: String::new(),
                movie: None,
                trigger: String::new(),
                interval_ms: 0.0,
                batch_len: 0,
                jitter_ms: 0.0,
                spacing: String::new(),
                seed: 0,
            },
            offset: 0,
            batches: 0,
            instructions: 0,
            ended: false,
            trailer: None,
        };
        let mut magic = [0u8; 8];
        reader.exact(&mut magic, "header")?;
        if &magic != MAGIC {
            return Err(StreamError::BadMagic {
                path: path.to_path_buf(),
            });
        }
        let version = reader.u32("header")?;
        if version != 1 && version != FORMAT_VERSION {
            return Err(StreamError::Version {
                path: path.to_path_buf(),
                found: version,
            });
        }
        reader.version = version;
        let text = reader.text("header", MAX_HEADER_BYTES)?;
        let header: StreamHeader = ron::from_str(&text).map_err(|e| {
            reader.corrupt("header", emu::input_file::shorten_to(&e.to_string(), 160))
        })?;
        check_header(&header).map_err(|p| reader.corrupt("header", p))?;
        reader.header = header;
        Ok(reader)
    }

    pub fn header(&self) -> &StreamHeader {
        &self.header
    }

    /// The format version (1 or [`FORMAT_VERSION`]).
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The trailer, once the iteration has ended with one (`None` before,
    /// and for a stream cut short).
    pub fn trailer(&self) -> Option<&StreamTrailer> {
        self.trailer.as_ref()
    }

    /// Batches read so far.
    pub fn batches_read(&self) -> u64 {
        self.batches
    }

    /// Reads the next batch into `batch` (its old contents dropped, its
    /// allocation reused); false at the end of the stream.
    pub fn next_into(&mut self, batch: &mut Vec<Sample>) -> Result<bool, StreamError> {
        batch.clear();
        if self.ended {
            return Ok(false);
        }
        let result = self.read_batch(batch);
        if !matches!(result, Ok(true)) {
            self.ended = true;
        }
        result
    }

    fn read_batch(&mut self, batch: &mut Vec<Sample>) -> Result<bool, StreamError> {
        let mut count_bytes = [0u8; 2];
        match self.fill(&mut count_bytes)? {
            0 => return Ok(false), // cut short after a whole batch
            1 => {
                return Err(self.corrupt(
                    "end",
                    format!(
                        "a stray byte at offset {} (neither a batch nor the trailer)",
                        self.offset - 1
                    ),
                ))
            }
            _ => {}
        }
        let count = u16::from_le_bytes(count_bytes);
        if count == END_MARKER {
            self.read_trailer()?;
            return Ok(false);
        }
        let n = self.batches + 1;
        if count == 0 {
            return Err(self.corrupt("batch", format!("batch {n} is empty")));
        }
        let mut first = [0u8; 8];
        self.exact(&mut first, "batch")?;
        let first = u64::from_le_bytes(first);
        let width = if self.version == 1 { 8 } else { 16 };
        let mut cycle = first;
        let mut instructions = 0usize;
        let mut rec = [0u8; 16];
        for _ in 0..count {
            let rec = &mut rec[..width];
            self.exact(rec, "batch")?;
            // Addresses, then length, flags and the cycle delta.
            let word = |i: usize| Addr::from_le_bytes([rec[i], rec[i + 1], rec[i + 2], rec[i + 3]]);
            let (pc, next_pc, target, rest) = if self.version == 1 {
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
                .ok_or_else(|| {
                    self.corrupt("batch", format!("batch {n}: cycle count overflows 64 bits"))
                })?;
            let flow = flow_from_code(rest[1] & 0x0F).ok_or_else(|| {
                self.corrupt(
                    "sample",
                    format!("batch {n}: unknown flow code {}", rest[1] & 0x0F),
                )
            })?;
            let sample = Sample {
                pc,
                next_pc,
                target,
                len: rest[0],
                flow,
                taken: rest[1] & 0x10 != 0,
                cycle,
            };
            check_sample(&sample).map_err(|p| self.corrupt("sample", format!("batch {n}: {p}")))?;
            instructions += usize::from(sample.len > 0);
            batch.push(sample);
        }
        if instructions != self.header.batch_len {
            return Err(self.corrupt(
                "batch",
                format!(
                    "batch {n} holds {instructions} instructions but the header says N = {}",
                    self.header.batch_len
                ),
            ));
        }
        self.batches = n;
        self.instructions += instructions as u64;
        Ok(true)
    }

    fn read_trailer(&mut self) -> Result<(), StreamError> {
        let text = self.text("trailer", MAX_TRAILER_BYTES)?;
        let trailer: StreamTrailer = ron::from_str(&text).map_err(|e| {
            self.corrupt("trailer", emu::input_file::shorten_to(&e.to_string(), 160))
        })?;
        let end = self.offset;
        let mut more = [0u8; 1];
        if self.fill(&mut more)? > 0 {
            return Err(self.corrupt(
                "end",
                format!("junk after the trailer, from offset {end} on"),
            ));
        }
        check_trailer(&trailer, self.batches, self.instructions)
            .map_err(|p| self.corrupt("trailer", p))?;
        self.trailer = Some(trailer);
        Ok(())
    }

    /// A `u32` length, then that much UTF-8 text (at most `max` bytes).
    fn text(&mut self, what: &'static str, max: u32) -> Result<String, StreamError> {
        let len = self.u32(what)?;
        if len > max {
            return Err(self.corrupt(
                what,
                format!("{len} bytes long; a stream's {what} is at most {max}"),
            ));
        }
        let mut bytes = vec![0u8; len as usize];
        self.exact(&mut bytes, what)?;
        String::from_utf8(bytes).map_err(|e| {
            self.corrupt(
                what,
                format!(
                    "not UTF-8 (invalid byte at {})",
                    e.utf8_error().valid_up_to()
                ),
            )
        })
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, StreamError> {
        let mut bytes = [0u8; 4];
        self.exact(&mut bytes, what)?;
        Ok(u32::from_le_bytes(bytes))
    }

    /// Fills `buf`, or an error saying how early the file ends.
    fn exact(&mut self, buf: &mut [u8], what: &'static str) -> Result<(), StreamError> {
        let got = self.fill(buf)?;
        if got < buf.len() {
            return Err(self.corrupt(what, format!("file ends {} bytes early", buf.len() - got)));
        }
        Ok(())
    }

    /// Reads into `buf` until it is full or the input ends: the bytes read.
    fn fill(&mut self, buf: &mut [u8]) -> Result<usize, StreamError> {
        let mut got = 0;
        while got < buf.len() {
            match self.input.read(&mut buf[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(source) => {
                    return Err(StreamError::Io {
                        path: self.path.clone(),
                        source,
                    })
                }
            }
        }
        self.offset += got as u64;
        Ok(got)
    }

    fn corrupt(&self, what: &'static str, problem: String) -> StreamError {
        StreamError::Corrupt {
            path: self.path.clone(),
            what,
            problem,
        }
    }
}

impl<R: Read> Iterator for StreamReader<R> {
    type Item = Result<Vec<Sample>, StreamError>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut batch = Vec::new();
        match self.next_into(&mut batch) {
            Ok(true) => Some(Ok(batch)),
            Ok(false) => None,
            Err(e) => Some(Err(e)),
        }
    }
}

/// The header's own consistency (see [`StreamReader`]).
fn check_header(h: &StreamHeader) -> Result<(), String> {
    if !matches!(h.trigger.as_str(), "wall" | "emulated") {
        return Err(format!(
            "trigger {:?} is not wall or emulated",
            emu::input_file::shorten(&h.trigger)
        ));
    }
    if !matches!(h.spacing.as_str(), "uniform" | "periodic") {
        return Err(format!(
            "spacing {:?} is not uniform or periodic",
            emu::input_file::shorten(&h.spacing)
        ));
    }
    if !(h.interval_ms.is_finite() && h.interval_ms > 0.0) {
        return Err(format!(
            "interval {} ms is not a positive number",
            h.interval_ms
        ));
    }
    if !(h.jitter_ms.is_finite() && h.jitter_ms >= 0.0) {
        return Err(format!(
            "jitter {} ms is not a number from 0 up",
            h.jitter_ms
        ));
    }
    if !(1..=MAX_BATCH_SAMPLES).contains(&h.batch_len) {
        return Err(format!(
            "batch length N = {} is not 1 to {MAX_BATCH_SAMPLES}",
            h.batch_len
        ));
    }
    let hex = |s: &str| s.len() == 16 && s.bytes().all(|b| b.is_ascii_hexdigit());
    if !(h.rom_hash.is_empty() || hex(&h.rom_hash)) {
        return Err(format!(
            "ROM hash {:?} is not 16 hex digits",
            emu::input_file::shorten(&h.rom_hash)
        ));
    }
    Ok(())
}

/// One sample's own consistency (see [`StreamReader`]).
fn check_sample(s: &Sample) -> Result<(), String> {
    if s.len > 3 {
        return Err(format!(
            "instruction at {:#x} is {} bytes long (a 6502 instruction is 1 to 3)",
            s.pc, s.len
        ));
    }
    if (s.len == 0) != (s.flow == Flow::Interrupt) {
        return Err(format!(
            "entry at {:#x} of length {} has flow {:?} (only interrupt entries have length 0)",
            s.pc, s.len, s.flow
        ));
    }
    for a in [s.pc, s.next_pc, s.target] {
        crate::cfg_file::check_address(a)?;
    }
    Ok(())
}

/// The trailer against the body: `batches` batches holding `instructions`
/// instructions (see [`StreamReader`]).
fn check_trailer(t: &StreamTrailer, batches: u64, instructions: u64) -> Result<(), String> {
    if t.batches != batches {
        return Err(format!(
            "it counts {} batches but the file holds {batches}",
            t.batches
        ));
    }
    if t.sampled_instructions != instructions {
        return Err(format!(
            "it counts {} sampled instructions but the batches hold {instructions}",
            t.sampled_instructions
        ));
    }
    if t.dropped_batches > t.batches {
        return Err(format!(
            "{} dropped batches of {} in all",
            t.dropped_batches, t.batches
        ));
    }
    if t.sampled_instructions > t.executed_instructions {
        return Err(format!(
            "{} sampled instructions of {} executed",
            t.sampled_instructions, t.executed_instructions
        ));
    }
    let most = t
        .frames
        .saturating_add(1)
        .saturating_mul(MAX_INSTRUCTIONS_PER_FRAME);
    if t.executed_instructions > most {
        return Err(format!(
            "{} executed instructions in {} frames (at most {MAX_INSTRUCTIONS_PER_FRAME} a frame)",
            t.executed_instructions, t.frames
        ));
    }
    // Bits of `emu::taken_targets`: ascending, inside the CPU space and
    // the largest PRG ROM a code address can name.
    const MOST_BITS: u64 = 0x10000 + 0xFFF * 16 * 1024;
    if let Some(w) = t.taken_targets.windows(2).find(|w| w[0] >= w[1]) {
        return Err(format!(
            "taken branch targets out of order ({} then {})",
            w[0], w[1]
        ));
    }
    if let Some(&b) = t.taken_targets.last().filter(|&&b| b as u64 >= MOST_BITS) {
        return Err(format!("taken branch target {b} beyond any PRG ROM"));
    }
    Ok(())
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

    fn sample_at(mut s: Sample, cycle: u64) -> Sample {
        s.cycle = cycle;
        s
    }

    /// Two batches of N = 3 instructions, one with an interrupt entry and
    /// a banked branch, and the trailer that agrees with them.
    fn two_batches() -> (Vec<Vec<Sample>>, StreamTrailer) {
        let a = sample_at(Sample::control(0x8003, 2, Flow::Branch, 0x8000), 1000);
        let b = sample_at(Sample::plain(0x8000, 2), 1003);
        let c = sample_at(Sample::interrupt(0x9000), 1010);
        // A banked code address; a branch not taken, its target known.
        let d = sample_at(
            Sample::control(0x3C_8010, 2, Flow::Branch, 0x3C_8012).with_target(0x3C_8000),
            1020,
        );
        let e = sample_at(Sample::plain(0x8000, 2), 5000);
        let f = sample_at(Sample::plain(0x8002, 1), 5002);
        let g = sample_at(Sample::control(0x8003, 3, Flow::Jump, 0x8000), 5004);
        let trailer = StreamTrailer {
            executed_instructions: 99,
            sampled_instructions: 6,
            batches: 2,
            dropped_batches: 1,
            frames: 1,
            frame_hash: 7,
            taken_targets: vec![0x8000, 0x10000 + 0x4010],
        };
        (vec![vec![a, b, c, d], vec![e, f, g]], trailer)
    }

    fn write(header: &StreamHeader, batches: &[Vec<Sample>], trailer: &StreamTrailer) -> Vec<u8> {
        let mut w = StreamWriter::new(Vec::new(), header).unwrap();
        for batch in batches {
            w.batch(batch).unwrap();
        }
        w.finish(trailer).unwrap()
    }

    #[test]
    fn round_trip() {
        let (batches, trailer) = two_batches();
        let bytes = write(&header(), &batches, &trailer);
        let stream = parse(&bytes, Path::new("x")).unwrap();
        assert_eq!(stream.header, header());
        assert_eq!(stream.batches, batches);
        assert_eq!(stream.trailer, Some(trailer.clone()));
        // Batch by batch, reusing one buffer: the same.
        let mut reader = StreamReader::new(&bytes[..], Path::new("x")).unwrap();
        let mut batch = Vec::new();
        let mut again = Vec::new();
        while reader.next_into(&mut batch).unwrap() {
            again.push(batch.clone());
        }
        assert_eq!(again, batches);
        assert_eq!(reader.trailer(), Some(&trailer));
        assert_eq!(reader.batches_read(), 2);
        assert!(!reader.next_into(&mut batch).unwrap(), "stays ended");
        // Cut after a whole batch: the batches before the cut, no trailer.
        let header_len = write(&header(), &[], &StreamTrailer::default()).len()
            - 2
            - 4
            - ron::to_string(&StreamTrailer::default()).unwrap().len();
        let first_batch = 2 + 8 + 4 * 16;
        let cut = parse(&bytes[..header_len + first_batch], Path::new("x")).unwrap();
        assert_eq!(cut.batches, batches[..1]);
        assert_eq!(cut.trailer, None);
        // Cut anywhere else: an error (never a panic).
        let second_batch = 2 + 8 + 3 * 16;
        let whole = [
            header_len,
            header_len + first_batch,
            header_len + first_batch + second_batch,
        ];
        for end in 0..bytes.len() {
            if !whole.contains(&end) {
                let r = parse(&bytes[..end], Path::new("x"));
                assert!(r.is_err(), "cut at {end} accepted");
            }
        }
    }

    /// Streams written before code addresses had banks (format 1: 16-bit
    /// addresses, no branch targets) still replay.
    #[test]
    fn reads_format_1() {
        let mut v = MAGIC.to_vec();
        v.extend_from_slice(&1u32.to_le_bytes());
        let text = ron::to_string(&StreamHeader {
            batch_len: 1,
            ..header()
        })
        .unwrap();
        v.extend_from_slice(&(text.len() as u32).to_le_bytes());
        v.extend_from_slice(text.as_bytes());
        v.extend_from_slice(&1u16.to_le_bytes());
        v.extend_from_slice(&500u64.to_le_bytes());
        // BNE at $8003 taken to $8000, 0 cycles after the batch's first.
        v.extend_from_slice(&[0x03, 0x80, 0x00, 0x80, 2, 0x11, 0, 0]);
        v.extend_from_slice(&END_MARKER.to_le_bytes());
        let text = ron::to_string(&StreamTrailer {
            executed_instructions: 10,
            sampled_instructions: 1,
            batches: 1,
            frames: 1,
            ..Default::default()
        })
        .unwrap();
        v.extend_from_slice(&(text.len() as u32).to_le_bytes());
        v.extend_from_slice(text.as_bytes());
        let stream = parse(&v, Path::new("x")).unwrap();
        let mut expected = Sample::control(0x8003, 2, Flow::Branch, 0x8000);
        expected.cycle = 500;
        assert_eq!(stream.batches, vec![vec![expected]]);
    }

    fn refused(bytes: &[u8]) -> String {
        let e = parse(bytes, Path::new("s.bin"))
            .expect_err("refused")
            .to_string();
        assert!(e.starts_with("s.bin: "), "{e}");
        assert!(!e.contains('\n') && e.len() < 300, "{e}");
        e
    }

    /// A trailer that disagrees with the body (it once printed
    /// `sampled_pct=1.8e21`), junk after it, a stray byte: refused.
    #[test]
    fn trailer_must_agree_with_the_body() {
        let (batches, good) = two_batches();
        let bad = |change: &dyn Fn(&mut StreamTrailer)| {
            let mut t = good.clone();
            change(&mut t);
            refused(&write(&header(), &batches, &t))
        };
        let e = bad(&|t| t.batches = 3);
        assert!(e.contains("counts 3 batches but the file holds 2"), "{e}");
        let e = bad(&|t| t.sampled_instructions = 7);
        assert!(
            e.contains("7 sampled instructions but the batches hold 6"),
            "{e}"
        );
        let e = bad(&|t| t.executed_instructions = 5);
        assert!(e.contains("6 sampled instructions of 5 executed"), "{e}");
        let e = bad(&|t| t.dropped_batches = 3);
        assert!(e.contains("3 dropped batches of 2"), "{e}");
        let e = bad(&|t| t.executed_instructions = u64::MAX);
        assert!(e.contains("executed instructions in 1 frames"), "{e}");

        let bytes = write(&header(), &batches, &good);
        let mut junk = bytes.clone();
        junk.extend_from_slice(b"more");
        let e = refused(&junk);
        assert!(
            e.contains(&format!(
                "junk after the trailer, from offset {}",
                bytes.len()
            )),
            "{e}"
        );
        // A stray byte after a whole batch (no trailer).
        let header_only = write(&header(), &[], &StreamTrailer::default());
        let trailer_len = 2 + 4 + ron::to_string(&StreamTrailer::default()).unwrap().len();
        let mut stray = header_only[..header_only.len() - trailer_len].to_vec();
        stray.push(0x42);
        let e = refused(&stray);
        assert!(e.contains("a stray byte"), "{e}");
    }

    /// A header contradicting itself or the body: refused.
    #[test]
    fn header_must_be_sane_and_match_the_batches() {
        let (batches, trailer) = two_batches();
        for (change, expect) in [
            (
                &(|h: &mut StreamHeader| h.batch_len = 0) as &dyn Fn(&mut StreamHeader),
                "batch length N = 0",
            ),
            (
                &|h| h.batch_len = 4,
                "holds 3 instructions but the header says N = 4",
            ),
            (&|h| h.interval_ms = f64::NAN, "interval NaN ms"),
            (&|h| h.interval_ms = f64::INFINITY, "interval inf ms"),
            (&|h| h.interval_ms = -3.0, "interval -3 ms"),
            (&|h| h.jitter_ms = -1.0, "jitter -1 ms"),
            (&|h| h.jitter_ms = f64::NAN, "jitter NaN ms"),
            (&|h| h.trigger = "timer\n".into(), "trigger \"timer\\\\n\""),
            (&|h| h.spacing = "random".into(), "spacing \"random\""),
            (&|h| h.rom_hash = "xyz".into(), "ROM hash \"xyz\""),
        ] {
            let mut h = header();
            change(&mut h);
            let e = refused(&write(&h, &batches, &trailer));
            assert!(e.contains(expect), "{expect}: {e}");
        }
        // A header length past its limit is refused before it is read.
        let mut v = MAGIC.to_vec();
        v.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        v.extend_from_slice(&u32::MAX.to_le_bytes());
        let e = refused(&v);
        assert!(e.contains("at most 16384"), "{e}");
    }

    /// Samples no sampler writes: refused.
    #[test]
    fn samples_must_be_instructions_or_interrupts() {
        let (batches, trailer) = two_batches();
        for (change, expect) in [
            (
                &(|s: &mut Sample| s.len = 4) as &dyn Fn(&mut Sample),
                "4 bytes long",
            ),
            (&|s| s.flow = Flow::Interrupt, "has flow Interrupt"),
            (&|s| s.len = 0, "of length 0 has flow"),
            (&|s| s.pc = 0x1_2000, "not in ROM"),
            (&|s| s.next_pc = 0xFFFF_FFFF, "not in any PRG ROM"),
        ] {
            let mut b = batches.clone();
            change(&mut b[1][0]);
            let e = refused(&write(&header(), &b, &trailer));
            assert!(e.contains(expect) && e.contains("batch 2"), "{expect}: {e}");
        }
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
