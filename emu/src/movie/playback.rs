//! Replaying a movie so that every input line reaches the game at the same
//! point as in FCEUX (2.6, old PPU, the one FM2 movies are made with).
//!
//! Frame boundary. FCEUX emulates a frame as: read input line k (commands
//! first, then buttons), then run the PPU from scanline 240 through the end
//! of visible scanline 239. Our frame also ends when scanline 239 completes
//! (DESIGN.md), so from then on frame k here is frame k there.
//!
//! Power-on and reset. After power-on and after every reset, FCEUX's PPU sits
//! out two whole frames (`ppudead = 2`: the CPU runs, but no vblank flag and
//! no NMI) before its first vblank, which comes in frame 2. Our PPU starts at
//! scanline 0, so it completes scanline 239 after 240 lines with no vblank,
//! and its first vblank falls in the next frame. That first short stretch
//! stands for FCEUX's two dead frames: frame 0 is counted as done at power-on
//! (it takes no time), the 240 lines are frame 1, and the first vblank is in
//! frame 2 as in FCEUX. A reset or power command at frame k does the same:
//! the PPU goes back to scanline 0, frame k takes no time, and the first
//! vblank is in frame k + 2. The game code then sees every vblank, and so
//! reads every input line, in the same frame as under FCEUX (compared with
//! FCEUX 2.6.5 over whole 5-minute movies: `movies/README.md`); only the CPU
//! time spent waiting in the dead frames differs.
//!
//! Memory at power-on follows the movie's `RAMInitOption` (`ram_init.rs`).

use crate::cartridge::Cartridge;
use crate::error::RomProblem;
use crate::nes::Nes;
use crate::rom::RomImage;

use super::fm2::{command, FrameInput, Movie};
use super::ram_init::{Filler, RamInit};

/// Frames already counted when a movie run powers on (see the module doc).
pub const FRAMES_AT_POWER_ON: u64 = 1;

/// Powers the console on as FCEUX does for a movie: memories filled per
/// `init`, frame 0 counted as done.
pub fn power_on(cart: Cartridge, init: RamInit) -> Nes {
    let mut nes = Nes::new(cart);
    let mut filler = Filler::new(init);
    filler.fill(&mut nes.bus.ram, false);
    nes.bus.cart.fill_nametables(|ram| filler.fill(ram, true));
    filler.fill(&mut nes.bus.ppu.palette, true);
    for entry in nes.bus.ppu.palette.iter_mut() {
        *entry &= 0x3F;
    }
    filler.fill(&mut nes.bus.ppu.oam, true);
    if nes.bus.cart.chr_writable {
        nes.bus.cart.fill_chr(|chr| filler.fill(chr, false));
    }
    nes.bus.ppu.frame = FRAMES_AT_POWER_ON;
    nes
}

impl Nes {
    /// The reset button as FCEUX's movie timing has it: the frame about to
    /// start takes no time and the PPU restarts at scanline 0, so the next
    /// vblank is two frames later (see `movie/playback.rs`).
    pub fn movie_reset(&mut self) {
        self.sync();
        self.bus.ppu.scanline = 0;
        self.bus.ppu.dot = 0;
        self.bus.ppu.frame += 1;
        // Also makes the PPU re-plan its next event for the new position.
        self.reset();
        self.sync();
    }

    /// Sets both pads and applies `input`'s commands the way FCEUX does
    /// outside a replay (power needs the ROM: see [`Replay`]).
    pub fn apply_buttons(&mut self, input: &FrameInput) {
        self.set_buttons(0, input.ports[0]);
        self.set_buttons(1, input.ports[1]);
    }
}

/// A movie bound to its ROM, ready to drive a machine.
pub struct Replay {
    image: RomImage,
    init: RamInit,
    frames: Vec<FrameInput>,
}

impl Replay {
    /// `rom_file` is the iNES file's bytes.
    pub fn new(rom_file: &[u8], movie: &Movie) -> Result<Replay, RomProblem> {
        Ok(Replay {
            image: RomImage::parse(rom_file)?,
            init: movie.header.ram_init,
            frames: movie.frames.clone(),
        })
    }

    /// Frames in the movie.
    pub fn len(&self) -> u64 {
        self.frames.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// Input line `frame`; past the end, nothing pressed.
    pub fn input(&self, frame: u64) -> FrameInput {
        self.frames.get(frame as usize).copied().unwrap_or_default()
    }

    /// Powers on for this movie and applies line 0's commands (a reset then
    /// only restarts the CPU: the PPU is already at its power-on position).
    pub fn power_on(&self) -> Result<Nes, RomProblem> {
        let mut nes = power_on(Cartridge::from_image(self.image.clone())?, self.init);
        if self.input(0).commands & command::RESET != 0 {
            nes.reset();
        }
        Ok(nes)
    }

    /// Applies the input for the frame about to run (`nes.frame_count()`).
    /// A reset or power command makes that frame take no time, so the next
    /// line is applied too, and so on; it stops at frame `limit`.
    pub fn apply(&self, nes: &mut Nes, limit: u64) -> Result<(), RomProblem> {
        while nes.frame_count() < limit {
            let frame = nes.frame_count();
            let input = self.input(frame);
            // FCEUX order: power, then reset, then the buttons.
            if input.commands & command::POWER != 0 {
                let mut fresh = power_on(Cartridge::from_image(self.image.clone())?, self.init);
                // Cartridge RAM survives a power cycle in FCEUX.
                fresh.bus.cart.prg_ram.clone_from(&nes.bus.cart.prg_ram);
                fresh.bus.ppu.frame = frame + 1;
                if input.commands & command::RESET != 0 {
                    fresh.reset();
                }
                // The new machine keeps the old one's engine and observers.
                fresh.set_engine(nes.engine());
                fresh.set_idle_skip(nes.idle_skip());
                fresh.probes = std::mem::take(&mut nes.probes);
                if let Some(log) = fresh.probes.events.as_deref_mut() {
                    // Power cut the wait-loop iteration in progress; the
                    // counters start again from 0 (`frame_events::Stamp`).
                    log.interrupted();
                }
                if let Some(rate) = nes.audio_sample_rate() {
                    fresh.enable_audio(rate);
                }
                *nes = fresh;
                continue;
            }
            if input.commands & command::RESET != 0 {
                nes.movie_reset();
                continue;
            }
            nes.apply_buttons(&input);
            break;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NROM image whose program waits for vblank twice, then counts NMIs in
    /// $00 and copies pad 1's first bit into $01 every NMI.
    fn counter_rom() -> Vec<u8> {
        let mut prg = vec![0xEAu8; 0x4000];
        let code: &[u8] = &[
            0x78, // sei
            0xA2, 0x00, // ldx #0
            0x86, 0x00, // stx $00
            0x2C, 0x02, 0x20, // bit $2002
            0x10, 0xFB, // bpl -5
            0x2C, 0x02, 0x20, // bit $2002
            0x10, 0xFB, // bpl -5
            0xA9, 0x80, // lda #$80
            0x8D, 0x00, 0x20, // sta $2000
            0x4C, 0x14, 0xC0, // jmp *
        ];
        prg[..code.len()].copy_from_slice(code);
        let nmi: &[u8] = &[
            0xE6, 0x00, // inc $00
            0xA9, 0x01, 0x8D, 0x16, 0x40, // lda #1 sta $4016
            0xA9, 0x00, 0x8D, 0x16, 0x40, // lda #0 sta $4016
            0xAD, 0x16, 0x40, 0x29, 0x01, 0x85, 0x01, // lda $4016 and #1 sta $01
            0x40, // rti
        ];
        prg[0x100..0x100 + nmi.len()].copy_from_slice(nmi);
        prg[0x3FFA..].copy_from_slice(&[0x00, 0xC1, 0x00, 0xC0, 0x00, 0xC0]);
        let mut rom = vec![b'N', b'E', b'S', 0x1A, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        rom.extend(prg);
        rom.extend(vec![0u8; 0x2000]);
        rom
    }

    #[test]
    fn ram_pattern_and_frame_zero_counted() {
        let movie = Movie::default();
        let replay = Replay::new(&counter_rom(), &movie).unwrap();
        let nes = replay.power_on().unwrap();
        assert_eq!(nes.frame_count(), 1);
        assert_eq!(nes.ram()[..8], [0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]);
    }

    #[test]
    fn reset_takes_its_frame_and_delays_vblank_two_frames() {
        let mut movie = Movie {
            frames: vec![FrameInput::default(); 40],
            ..Movie::default()
        };
        movie.frames[20].commands = command::RESET;
        movie.frames[30].ports[0] = crate::controller::buttons::A;
        let replay = Replay::new(&counter_rom(), &movie).unwrap();
        let mut nes = replay.power_on().unwrap();
        let mut nmis_at = Vec::new();
        while nes.frame_count() < 40 {
            replay.apply(&mut nes, 40).unwrap();
            if nes.frame_count() >= 40 {
                break;
            }
            nes.run_frame();
            nmis_at.push((nes.frame_count(), nes.ram()[0], nes.ram()[1]));
        }
        // Entries are (frames done, NMIs, pad bit) after each frame run.
        // Power-on: the first vblank (frame 2) and the second (frame 3) are
        // waited for, so the first NMI is frame 4's.
        assert_eq!(nmis_at[0], (2, 0, 0));
        assert!(nmis_at.contains(&(4, 0, 0)));
        assert!(nmis_at.contains(&(5, 1, 0)));
        // Reset at 20: frame 20 takes no time, and the first NMI is again
        // four frames later, in frame 24.
        assert!(!nmis_at.iter().any(|&(done, _, _)| done == 21));
        assert!(nmis_at.contains(&(24, 0, 0)));
        assert!(nmis_at.contains(&(25, 1, 0)));
        // Line 30's A press is read by frame 30's NMI, and only by it.
        assert!(nmis_at.contains(&(31, 7, 1)));
        assert!(nmis_at.contains(&(32, 8, 0)));
    }
}
