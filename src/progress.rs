//! The progress bar of long runs (`profile`, `sweep`), on stderr.

use indicatif::{ProgressBar, ProgressStyle};

/// A bar counting `total` frames, labelled `label`.
pub fn frames_bar(total: u64, label: &str) -> ProgressBar {
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template(
            "{msg:>12} [{bar:40}] {pos}/{len} frames ({per_sec}, eta {eta})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar.set_message(label.to_string());
    bar
}
