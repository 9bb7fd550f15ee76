//! blargg's apu_mixer ROMs print only "done"; their verdict is audible. Each
//! beeps, plays a test section, and beeps again. In the square, triangle and
//! DMC tests the test section is a tone on the channel under test plus its
//! inverse on the DMC DAC, which cancel to near silence only if the relative
//! channel levels and the non-linear mixer are right. The noise test fades
//! noise in and out "without any tone".
//!
//! Here that is measured on the emulator's audio (the samples `nesprof run
//! --wav` writes): the same run is mixed three ways - everything, everything
//! but the DMC, only the DMC (channel masks affect audio only, so the three
//! runs are sample-aligned) - and the test section is compared by RMS level
//! and by its dominant frequency (Goertzel scan).
//!
//! The last test locks the hash of a short WAV made by the CLI: a regression
//! guard, meaningful because the measurements above verify that audio.

mod common;

use std::path::PathBuf;
use std::process::Command;

use emu::apu::mixer::{ALL, DMC};
use emu::Nes;

const RATE: u32 = 48_000;
/// The beep: pulse 1 at timer period $6F.
const BEEP_HZ: f64 = 1_789_772.7 / (16.0 * 112.0);

fn rom(name: &str) -> PathBuf {
    common::roms_root().join("apu/apu_mixer").join(name)
}

/// Runs an apu_mixer ROM until it reports "done", mixing only `mask`.
fn run_mixer(name: &str, mask: u8) -> Vec<f32> {
    let mut nes = Nes::load(&rom(name)).unwrap_or_else(|e| panic!("{e}"));
    nes.enable_audio(RATE);
    nes.set_audio_channel_mask(mask);
    let mut samples = Vec::new();
    let mut done_at = None;
    while nes.frame_count() < 2400 {
        nes.run_frame();
        nes.take_audio(&mut samples);
        let started = [nes.peek(0x6001), nes.peek(0x6002), nes.peek(0x6003)] == [0xDE, 0xB0, 0x61];
        if done_at.is_none() && started && nes.peek(0x6000) < 0x80 {
            assert_eq!(nes.peek(0x6000), 0, "{name} reported an error");
            done_at = Some(nes.frame_count());
        }
        if done_at.is_some_and(|f| nes.frame_count() > f + 30) {
            return samples;
        }
    }
    panic!("{name} did not finish");
}

fn rms(x: &[f32]) -> f64 {
    (x.iter().map(|&v| (v as f64).powi(2)).sum::<f64>() / x.len().max(1) as f64).sqrt()
}

fn db(x: f64) -> f64 {
    20.0 * (x + 1e-12).log10()
}

/// Windowed (Hann) DFT magnitude of `x` at `freq` (Goertzel).
fn magnitude(x: &[f32], freq: f64) -> f64 {
    let n = x.len() as f64;
    let w = 2.0 * std::f64::consts::PI * freq / RATE as f64;
    let coeff = 2.0 * w.cos();
    let (mut s1, mut s2) = (0.0f64, 0.0f64);
    for (i, &v) in x.iter().enumerate() {
        let hann = 0.5 - 0.5 * (2.0 * std::f64::consts::PI * i as f64 / n).cos();
        let s = v as f64 * hann + coeff * s1 - s2;
        s2 = s1;
        s1 = s;
    }
    (s1 * s1 + s2 * s2 - coeff * s1 * s2).max(0.0).sqrt()
}

/// The strongest frequency between 50 Hz and 6 kHz, to 0.5 Hz.
fn dominant(x: &[f32]) -> f64 {
    let x = &x[..x.len().min(16384)];
    let coarse = (50..6000)
        .step_by(5)
        .map(|f| f as f64)
        .max_by(|a, b| magnitude(x, *a).total_cmp(&magnitude(x, *b)))
        .unwrap();
    (0..=40)
        .map(|i| coarse - 10.0 + i as f64 * 0.5)
        .max_by(|a, b| magnitude(x, *a).total_cmp(&magnitude(x, *b)))
        .unwrap()
}

/// Sample ranges of the two beeps: the first two runs of 20 ms windows
/// louder than -32 dBFS in the full mix.
fn beeps(full: &[f32]) -> [(usize, usize); 2] {
    let win = RATE as usize / 50;
    let loud: Vec<bool> = full.chunks(win).map(|c| db(rms(c)) > -32.0).collect();
    let mut runs = Vec::new();
    let mut i = 0;
    while i < loud.len() {
        if loud[i] {
            let start = i;
            while i < loud.len() && loud[i] {
                i += 1;
            }
            runs.push((start * win, i * win));
        }
        i += 1;
    }
    assert!(runs.len() >= 2, "expected two beeps, found {runs:?}");
    [runs[0], runs[1]]
}

struct Measured {
    beep_db: f64,
    beep_hz: f64,
    full_db: f64,
    others_db: f64,
    dmc_db: f64,
    others_hz: f64,
    dmc_hz: f64,
}

fn measure(name: &str) -> Measured {
    let full = run_mixer(name, ALL);
    let others = run_mixer(name, ALL & !DMC);
    let dmc = run_mixer(name, DMC);
    assert_eq!(full.len(), others.len());
    let [b1, b2] = beeps(&full);
    let margin = RATE as usize / 4;
    let test = b1.1 + margin..b2.0 - margin;
    let beep = &full[b1.0 + 960..b1.1 - 960];
    Measured {
        beep_db: db(rms(beep)),
        beep_hz: dominant(beep),
        full_db: db(rms(&full[test.clone()])),
        others_db: db(rms(&others[test.clone()])),
        dmc_db: db(rms(&dmc[test.clone()])),
        others_hz: dominant(&others[test.clone()]),
        dmc_hz: dominant(&dmc[test]),
    }
}

fn report(name: &str, m: &Measured) {
    println!(
        "{name}: beep {:.1} dBFS at {:.1} Hz; test section: full mix {:.1} dBFS, \
         without DMC {:.1} dBFS at {:.1} Hz, DMC alone {:.1} dBFS at {:.1} Hz, \
         cancellation {:.1} dB",
        m.beep_db,
        m.beep_hz,
        m.full_db,
        m.others_db,
        m.others_hz,
        m.dmc_db,
        m.dmc_hz,
        m.others_db - m.full_db
    );
}

/// Magnitude at `freq` over the median magnitude of 100 Hz-8 kHz.
fn prominence(x: &[f32], freq: f64) -> f64 {
    let x = &x[..x.len().min(16384)];
    let mut floor: Vec<f64> = (100..8000)
        .step_by(37)
        .map(|f| magnitude(x, f as f64))
        .collect();
    floor.sort_by(f64::total_cmp);
    magnitude(x, freq) / floor[floor.len() / 2]
}

/// The beeps are the expected pulse tone; the channel under test and its DMC
/// inverse play the same tone at matching levels; together they cancel.
fn check_cancellation(name: &str, min_cancel_db: f64, max_level_gap_db: f64) {
    let m = measure(name);
    report(name, &m);
    assert!(
        (m.beep_hz - BEEP_HZ).abs() < 2.0,
        "{name}: beep at {:.1} Hz, expected {BEEP_HZ:.1}",
        m.beep_hz
    );
    assert!(
        m.beep_db > -30.0,
        "{name}: beep too quiet ({:.1} dBFS)",
        m.beep_db
    );
    assert!(
        m.others_db > -30.0 && m.dmc_db > -30.0,
        "{name}: the tone and its inverse should each be clearly audible"
    );
    assert!(
        (m.others_hz - m.dmc_hz).abs() < 2.0,
        "{name}: tone at {:.1} Hz but DMC inverse at {:.1} Hz",
        m.others_hz,
        m.dmc_hz
    );
    assert!(
        (m.others_db - m.dmc_db).abs() <= max_level_gap_db,
        "{name}: channel {:.1} dBFS vs DMC {:.1} dBFS",
        m.others_db,
        m.dmc_db
    );
    assert!(
        m.others_db - m.full_db >= min_cancel_db,
        "{name}: cancels by only {:.1} dB (want {min_cancel_db})",
        m.others_db - m.full_db
    );
}

#[test]
fn square_cancels() {
    // Pulse and DMC are in different mixer groups, so masking one leaves the
    // other's level exact: the two must match closely.
    check_cancellation("square.nes", 30.0, 1.0);
}

#[test]
fn dmc_cancels() {
    check_cancellation("dmc.nes", 28.0, 1.0);
}

#[test]
fn triangle_cancels() {
    // Triangle and DMC share the tnd group: muting the DMC moves the
    // triangle's operating point, so the separate levels differ by ~3 dB even
    // though the sum cancels.
    check_cancellation("triangle.nes", 20.0, 4.5);
}

#[test]
fn noise_fades_in_and_out_without_tone() {
    let full = run_mixer("noise.nes", ALL);
    let others = run_mixer("noise.nes", ALL & !DMC);
    let [b1, b2] = beeps(&full);
    let margin = RATE as usize / 4;
    let (full_t, others_t) = (
        &full[b1.1 + margin..b2.0 - margin],
        &others[b1.1 + margin..b2.0 - margin],
    );
    // Fade in and out: the loudest tenth is inside, the ends are softer.
    let parts: Vec<f64> = full_t
        .chunks(full_t.len() / 10)
        .map(|c| db(rms(c)))
        .collect();
    let loudest = parts.iter().cloned().fold(f64::MIN, f64::max);
    println!("noise.nes: test section by tenths (dBFS): {parts:.1?}");
    assert!(loudest > -45.0, "noise too quiet: {parts:?}");
    assert!(
        parts[0] < loudest - 3.0 && parts[9] < loudest - 3.0,
        "{parts:?}"
    );
    // Under the noise the pulse plays the beep tone and the DMC cancels it:
    // without the DMC it stands far above the noise, with it barely.
    for (i, (f, o)) in full_t
        .chunks(full_t.len() / 5)
        .zip(others_t.chunks(others_t.len() / 5))
        .enumerate()
    {
        let (pf, po) = (prominence(f, BEEP_HZ), prominence(o, BEEP_HZ));
        println!("noise.nes: fifth {i}: {BEEP_HZ:.0} Hz stands {pf:.0}x above the noise floor ({po:.0}x without the DMC)");
        assert!(
            po > 80.0,
            "the uncancelled tone should be obvious ({po:.1})"
        );
        assert!(pf < po / 5.0, "tone not cancelled: {pf:.1} vs {po:.1}");
    }
}

// ---- WAV regression ----------------------------------------------------------

fn nesprof(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_nesprof"))
        .args(args)
        .output()
        .expect("nesprof runs")
}

fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01B3)
    })
}

/// FNV-1a of the WAV that `nesprof run square.nes --frames 300 --wav` writes
/// (its first beep and the start of the cancelled section). Re-record only
/// after the measurements above pass: run this test and copy the printed hash.
const SQUARE_300_FRAMES_WAV_FNV: u64 = 0x1a8b_66ec_1bb4_0ebd;

#[test]
fn wav_of_a_short_run_is_locked_and_does_not_change_emulation() {
    let path = std::env::temp_dir().join(format!("nesprof-apu-{}.wav", std::process::id()));
    let rom = rom("square.nes").display().to_string();
    let with = nesprof(&[
        "run",
        &rom,
        "--frames",
        "300",
        "--wav",
        path.to_str().unwrap(),
    ]);
    let without = nesprof(&["run", &rom, "--frames", "300"]);
    assert!(
        with.status.success(),
        "{}",
        String::from_utf8_lossy(&with.stderr)
    );
    let hashes = |o: &std::process::Output| -> Vec<String> {
        String::from_utf8_lossy(&o.stdout)
            .split_whitespace()
            .filter(|kv| !kv.starts_with("fps="))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(hashes(&with), hashes(&without), "audio changed emulation");
    let (rate, samples) = nesprof::audio::wav::read_wav(&path).unwrap();
    assert_eq!(rate, RATE);
    let expected = 300.0 / emu::clock::FRAME_HZ_NTSC * RATE as f64;
    assert!(
        (samples.len() as f64 - expected).abs() < RATE as f64 / 60.0,
        "{} samples for 300 frames, expected about {expected:.0}",
        samples.len()
    );
    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let hash = fnv1a64(&bytes);
    println!(
        "square.nes 300-frame WAV: {} samples, fnv1a64 {hash:#018x}",
        samples.len()
    );
    assert_eq!(
        hash, SQUARE_300_FRAMES_WAV_FNV,
        "WAV changed (see the constant's doc)"
    );
}

/// FNV-1a of the WAV of fff's first 300 frames (its music, whose
/// spectrogram was inspected: rhythmic bass and percussion, harmonics rolling
/// off without alias lines).
const FFF_300_FRAMES_WAV_FNV: u64 = 0xc17b_70d0_7bd2_41ce;

#[test]
fn game_music_wav_is_locked() {
    let path = std::env::temp_dir().join(format!("nesprof-fff-{}.wav", std::process::id()));
    let rom = common::roms_root()
        .join("games/fff.nes")
        .display()
        .to_string();
    let out = nesprof(&[
        "run",
        &rom,
        "--frames",
        "300",
        "--wav",
        path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let hash = fnv1a64(&bytes);
    println!(
        "fff.nes 300-frame WAV: {} bytes, fnv1a64 {hash:#018x}",
        bytes.len()
    );
    assert_eq!(hash, FFF_300_FRAMES_WAV_FNV, "game audio changed");
}
