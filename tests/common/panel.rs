//! What the overlay tests share: the panel's colours as a capture shows
//! them, a window image, scratch directories and the binary.

use std::path::{Path, PathBuf};

use super::x11::read_png;

/// Window scale the overlay tests run at.
pub const SCALE: usize = 3;
/// The panel's background as RGB.
pub const BG: [u8; 3] = rgb(nesprof::play::overlay::colors::BG);
/// Its dim text: hints and notes, never arcs.
pub const TEXT_DIM: [u8; 3] = rgb(nesprof::play::overlay::colors::TEXT_DIM);

pub const fn rgb(colour: u32) -> [u8; 3] {
    [(colour >> 16) as u8, (colour >> 8) as u8, colour as u8]
}

pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh directory for test `name`'s files.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nesprof-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `nesprof ARGS`, waited for.
pub fn nesprof(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_nesprof"))
        .args(args)
        .output()
        .expect("nesprof runs")
}

/// A window image (game, and panel right of it).
pub struct Image {
    pub w: usize,
    pub h: usize,
    pub pixels: Vec<[u8; 3]>,
}

impl Image {
    pub fn read(path: &Path) -> Image {
        let (w, h, pixels) = read_png(path);
        Image { w, h, pixels }
    }

    pub fn at(&self, x: usize, y: usize) -> [u8; 3] {
        self.pixels[y * self.w + x]
    }

    /// A pixel of the panel, which starts right of the game at [`SCALE`].
    pub fn panel(&self, x: i32, y: i32) -> [u8; 3] {
        self.at(256 * SCALE + x as usize, y as usize)
    }
}
