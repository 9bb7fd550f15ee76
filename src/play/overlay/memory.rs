//! The panel's memory view (`play --overlay --memory`, key M): the
//! memory-dependence profile recorded so far (`emu::memory_profile`), shown
//! in place of the hot-CFG graph as `profile --memory` writes it out —
//! the heat maps of ram.png / wram.png and the report's "memory" section:
//!
//! ```text
//! | RAM $0000-$07FF  2048 bytes         |  64×32, a cell per byte: reads
//! | ██████████████████████████████████  |  green, writes red, log scale
//! | WRAM $6000-$7FFF  812 bytes         |  128×64, only when the cartridge
//! | █████████████████                   |  has PRG RAM and it was used
//! | shared with NMI/IRQ: 13 ranges, ... |  address or label; writer and
//! |  nmi_ready            W4  R3    35k |  reader blocks, reads across contexts
//! | top dependences: 482                |  writer -> reader, address, reads
//! |  vm_next -> vm_operand vm_pc  4.8M  |  (orange: crosses an interrupt)
//! ```
//!
//! Making a [`Picture`] is the analysis `profile` runs
//! (`profiler::memory::analyse` over the whole profile, plus the exact CFG
//! built to name the blocks): 1 ms on tracker, 10–15 ms on fff, too much
//! for the 2 ms the panel may take of a frame, so `memory_worker.rs` makes
//! it about once a second on its own thread, and a frame only copies the
//! finished pixels into the window.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use emu::flow_counts::FlowCounts;
use emu::memory_profile::MemoryProfile;
use profiler::memory::{heat_map_rgb, MemoryReport};
use profiler::symbols::Symbols;

use super::canvas::Canvas;
use super::colors;
use super::panel::Layout;
use super::text;

/// Bytes per row and rows of the heat maps: the 2 KiB of RAM and the
/// 8 KiB of PRG RAM ($6000-$7FFF), the grids of ram.png and wram.png.
const RAM_GRID: (i32, i32) = (64, 32);
const WRAM_GRID: (i32, i32) = (128, 64);
/// Percentage of the band the RAM map may take: the rest is for WRAM and
/// the lists, which are what one reads. 49 keeps the default window's 7
/// pixels per byte (ram.png's grid) under the status text's eight lines
/// (the last the CPU bar's).
const RAM_SHARE: i32 = 49;
/// The heat maps' colours at full intensity (`heat_map_rgb`), for legends.
pub const READ_GREEN: u32 = 0x00_ff_18;
pub const WRITE_RED: u32 = 0xff_00_18;

/// Where a heat map goes: its title row, its top-left corner, pixels per
/// byte, and its grid of bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MapPlace {
    pub title_y: i32,
    pub x: i32,
    pub y: i32,
    pub cell: i32,
    pub cols: i32,
    pub rows: i32,
}

impl MapPlace {
    pub fn w(&self) -> i32 {
        self.cols * self.cell
    }

    pub fn h(&self) -> i32 {
        self.rows * self.cell
    }
}

/// The memory view's parts inside the panel's band (below the legend,
/// above the footer), for a panel layout and whether a WRAM map is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryLayout {
    /// Text scale and line height of titles and lists.
    pub text_scale: i32,
    pub line_height: i32,
    /// Left edge and width of everything.
    pub x: i32,
    pub w: i32,
    pub ram: MapPlace,
    pub wram: Option<MapPlace>,
    /// First list row, and how many rows fit below it.
    pub list_y: i32,
    pub list_lines: usize,
    /// Characters per list row.
    pub chars: usize,
}

impl MemoryLayout {
    pub fn new(l: &Layout, wram: bool) -> MemoryLayout {
        let ts = l.label_scale;
        let lh = (text::CELL + 2) * ts;
        let gap = lh / 2;
        let (x, w) = (l.pad, l.width - 2 * l.pad);
        let bottom = l.band_y + l.band_h;
        // Whole pixels per byte keep every byte a cell of its own.
        let ram_cell = (w / RAM_GRID.0)
            .min((l.band_h * RAM_SHARE / 100 - lh) / RAM_GRID.1)
            .max(1);
        let ram = MapPlace {
            title_y: l.band_y,
            x,
            y: l.band_y + lh,
            cell: ram_cell,
            cols: RAM_GRID.0,
            rows: RAM_GRID.1,
        };
        let mut y = ram.y + ram.h() + gap;
        let wram = if wram {
            // Half of what is left; at the smallest scales one pixel per
            // byte if that still leaves two list rows.
            let rest = bottom - y;
            let mut cell = (w / WRAM_GRID.0).min((rest / 2 - lh) / WRAM_GRID.1);
            if cell < 1 && w >= WRAM_GRID.0 && rest - 3 * lh >= WRAM_GRID.1 {
                cell = 1;
            }
            (cell >= 1).then(|| {
                let place = MapPlace {
                    title_y: y,
                    x,
                    y: y + lh,
                    cell,
                    cols: WRAM_GRID.0,
                    rows: WRAM_GRID.1,
                };
                y = place.y + place.h() + gap;
                place
            })
        } else {
            None
        };
        MemoryLayout {
            text_scale: ts,
            line_height: lh,
            x,
            w,
            ram,
            wram,
            list_y: y,
            list_lines: ((bottom - y) / lh).max(0) as usize,
            chars: (w / (text::CELL * ts)).max(0) as usize,
        }
    }
}

/// A heat map as window pixels (`0x00RRGGBB`, row-major).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeatMap {
    pub place: MapPlace,
    pub pixels: Vec<u32>,
    /// Bytes of the region read or written.
    pub touched: usize,
}

impl HeatMap {
    /// The heat map of `bytes` from `base` at `place`: the pixels of
    /// ram.png / wram.png (`profiler::memory::heat_map_rgb`) at the
    /// place's cell size.
    fn render(bytes: &[(u16, u64, u64)], base: u16, place: MapPlace) -> HeatMap {
        let (cols, rows, cell) = (
            place.cols as usize,
            place.rows as usize,
            place.cell as usize,
        );
        let rgb = heat_map_rgb(bytes, base, cols, rows, cell);
        let end = base as usize + cols * rows;
        HeatMap {
            place,
            pixels: rgb
                .chunks_exact(3)
                .map(|p| (p[0] as u32) << 16 | (p[1] as u32) << 8 | p[2] as u32)
                .collect(),
            touched: bytes
                .iter()
                .filter(|&&(a, _, _)| (base as usize..end).contains(&(a as usize)))
                .count(),
        }
    }
}

/// One list row: a name on the left (cut to fit), numbers flush right.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub name: String,
    pub numbers: String,
    /// Writer and reader ran in different interrupt contexts.
    pub crosses: bool,
}

/// What one refresh of the memory view shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Picture {
    /// Frame the profile was copied at.
    pub frame: u64,
    pub layout: MemoryLayout,
    pub ram: HeatMap,
    pub wram: Option<HeatMap>,
    /// The heaviest shared ranges and dependences, at most as many as the
    /// list has rows.
    pub shared: Vec<Row>,
    pub dependences: Vec<Row>,
    /// Totals: bytes touched, shared ranges, dependences (as report.txt's
    /// "memory" line counts them).
    pub bytes: usize,
    pub shared_total: usize,
    pub dependences_total: usize,
    /// Time the refresh took (the analysis and the pixels).
    pub took: Duration,
}

/// Analyses `memory` as `profile --memory` does (its blocks are the exact
/// CFG's, built from `counts`, which the memory recorder runs alongside)
/// and lays out what the view shows in the panel `layout`, naming code and
/// data by `symbols` when given.
pub fn picture(
    layout: &Layout,
    symbols: Option<&Symbols>,
    memory: &MemoryProfile,
    counts: &FlowCounts,
    frame: u64,
) -> Picture {
    let start = Instant::now();
    let truth = profiler::truth::build(counts);
    let report = profiler::memory::analyse(memory, &truth, counts.call_stacks());
    let mut p = from_report(layout, symbols, &report, frame);
    p.took = start.elapsed();
    p
}

/// [`picture`]'s layout and text, from an analysed report.
pub fn from_report(
    layout: &Layout,
    symbols: Option<&Symbols>,
    report: &MemoryReport,
    frame: u64,
) -> Picture {
    let ml = MemoryLayout::new(layout, report.touches_wram());
    let name = crate::symbol_files::namer(symbols);
    let data = |first: u16, last: u16| {
        if first == last {
            name(first as u32)
        } else {
            format!("{}..{}", name(first as u32), name(last as u32))
        }
    };
    let rows = ml.list_lines;
    // Heaviest first, as the dependences: a game can share a thousand
    // ranges (fff), and the list has room for a few.
    let mut heaviest: Vec<&profiler::memory::Shared> = report.shared.iter().collect();
    heaviest.sort_by(|a, b| b.count.cmp(&a.count).then(a.first.cmp(&b.first)));
    let shared = heaviest
        .into_iter()
        .take(rows)
        .map(|s| Row {
            name: data(s.first, s.last),
            // Fixed widths keep the numbers in columns.
            numbers: format!(
                "W{:<3}R{:<3}{:>5}",
                s.writer_blocks.len(),
                s.reader_blocks.len(),
                compact(s.count)
            ),
            // All of them cross: orange is kept for the dependences that do.
            crosses: false,
        })
        .collect();
    let dependences = report
        .dependences
        .iter()
        .take(rows)
        .map(|d| Row {
            name: format!(
                "{} -> {} {}",
                name(d.writer_block),
                name(d.reader_block),
                data(d.first, d.last)
            ),
            numbers: format!("{:>5}", compact(d.count)),
            crosses: d.crosses_interrupt,
        })
        .collect();
    Picture {
        frame,
        layout: ml,
        ram: HeatMap::render(&report.bytes, 0x0000, ml.ram),
        wram: ml.wram.map(|p| HeatMap::render(&report.bytes, 0x6000, p)),
        shared,
        dependences,
        bytes: report.bytes.len(),
        shared_total: report.shared.len(),
        dependences_total: report.dependences.len(),
        took: Duration::ZERO,
    }
}

/// A count in at most five characters: 9999, 76k, 4.8M, 12M, 3.1G.
pub fn compact(n: u64) -> String {
    match n {
        0..=9_999 => n.to_string(),
        10_000..=999_999 => format!("{}k", n / 1_000),
        1_000_000..=9_999_999 => format!("{:.1}M", n as f64 / 1e6),
        10_000_000..=999_999_999 => format!("{}M", n / 1_000_000),
        _ if n < 10_000_000_000 => format!("{:.1}G", n as f64 / 1e9),
        _ => format!("{}G", n / 1_000_000_000),
    }
}

/// The first `chars` characters of `s`, without allocating.
fn cut(s: &str, chars: usize) -> &str {
    match s.char_indices().nth(chars) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// Rows for the shared ranges and the dependences out of `lines` list rows
/// (two of them are the sections' titles): each section gets at least half,
/// and what one does not fill goes to the other.
pub fn split_rows(lines: usize, shared: usize, dependences: usize) -> (usize, usize) {
    let rows = lines.saturating_sub(2);
    let shared_rows = shared.min(rows.div_ceil(2).max(rows.saturating_sub(dependences)));
    (shared_rows, dependences.min(rows - shared_rows))
}

/// The legend row in the memory view: the map colours, and the frame of
/// the profile shown (or that it is still being measured); empty without
/// `--memory`.
pub fn draw_legend(
    canvas: &mut Canvas,
    l: &Layout,
    picture: Option<&Picture>,
    enabled: bool,
    line: &mut String,
) {
    if !enabled {
        // Nothing to explain: the band holds the hint.
        return;
    }
    let ts = l.text_scale;
    let y = l.legend_y;
    let swatch = text::CELL * ts - 2 * ts;
    let mut x = l.pad;
    for (label, color) in [("reads", READ_GREEN), ("writes", WRITE_RED)] {
        canvas.fill_rect(x, y + ts, swatch, swatch, color);
        x = text::draw(canvas, x + swatch + ts, y, ts, colors::TEXT_DIM, label) + 2 * ts;
    }
    line.clear();
    match picture {
        Some(p) => {
            let _ = write!(line, "@frame {}", p.frame);
        }
        None => line.push_str("..."),
    }
    let w = text::width(line, ts);
    text::draw(canvas, l.width - l.pad - w, y, ts, colors::TEXT_DIM, line);
}

/// Draws the memory view into the band: the picture if there is one, else
/// that it is being measured, or (without `--memory`) how to get one.
pub fn draw(
    canvas: &mut Canvas,
    l: &Layout,
    picture: Option<&Picture>,
    enabled: bool,
    line: &mut String,
) {
    let Some(p) = picture else {
        let hint = if enabled {
            "memory: measuring..."
        } else {
            "memory view: run with --memory"
        };
        text::draw(
            canvas,
            l.pad,
            l.band_y,
            l.text_scale,
            colors::TEXT_DIM,
            hint,
        );
        return;
    };
    let ml = &p.layout;
    let ts = ml.text_scale;
    for (map, title) in [
        (Some(&p.ram), "RAM $0000-$07FF"),
        (p.wram.as_ref(), "WRAM $6000-$7FFF"),
    ] {
        let Some(map) = map else { continue };
        line.clear();
        let _ = write!(line, "{title}  {} bytes touched", map.touched);
        text::draw(canvas, ml.x, map.place.title_y, ts, colors::TEXT, line);
        canvas.blit(
            map.place.x,
            map.place.y,
            map.place.w(),
            map.place.h(),
            &map.pixels,
        );
    }
    let (shared_rows, dep_rows) = split_rows(ml.list_lines, p.shared.len(), p.dependences.len());
    let mut y = ml.list_y;
    let title = |canvas: &mut Canvas, line: &mut String, y: &mut i32| {
        text::draw(canvas, ml.x, *y, ts, colors::TEXT, cut(line, ml.chars));
        *y += ml.line_height;
    };
    if ml.list_lines == 0 {
        return;
    }
    line.clear();
    if p.shared_total == 0 {
        line.push_str("shared with NMI/IRQ: none");
    } else {
        let _ = write!(
            line,
            "shared with NMI/IRQ: {} ranges, heaviest first",
            p.shared_total
        );
    }
    title(canvas, line, &mut y);
    for row in p.shared.iter().take(shared_rows) {
        draw_row(canvas, ml, y, row);
        y += ml.line_height;
    }
    if ml.list_lines < 2 {
        return;
    }
    line.clear();
    let _ = write!(line, "top dependences: {}", p.dependences_total);
    if p.dependences.iter().take(dep_rows).any(|d| d.crosses) {
        line.push_str(" (orange: crosses NMI/IRQ)");
    }
    title(canvas, line, &mut y);
    for row in p.dependences.iter().take(dep_rows) {
        draw_row(canvas, ml, y, row);
        y += ml.line_height;
    }
}

/// A list row, indented by one character: the name cut to leave room for
/// the numbers, which are flush right.
fn draw_row(canvas: &mut Canvas, ml: &MemoryLayout, y: i32, row: &Row) {
    let ts = ml.text_scale;
    let numbers = row.numbers.chars().count();
    let room = ml.chars.saturating_sub(numbers + 2);
    let color = if row.crosses {
        colors::CROSSES
    } else {
        colors::TEXT_DIM
    };
    text::draw(
        canvas,
        ml.x + text::CELL * ts,
        y,
        ts,
        color,
        cut(&row.name, room),
    );
    let w = text::width(&row.numbers, ts);
    text::draw(canvas, ml.x + ml.w - w, y, ts, colors::TEXT, &row.numbers);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_fit_the_band() {
        for scale in 1..=8 {
            let l = Layout::new(scale);
            for wram in [false, true] {
                let m = MemoryLayout::new(&l, wram);
                let bottom = l.band_y + l.band_h;
                assert!(m.ram.cell >= 1 && m.ram.x + m.ram.w() <= l.width, "{m:?}");
                assert!(m.ram.y + m.ram.h() <= bottom, "scale {scale}: {m:?}");
                if let Some(w) = m.wram {
                    assert!(w.x + w.w() <= l.width && w.y + w.h() <= bottom, "{m:?}");
                }
                assert!(m.list_y + m.list_lines as i32 * m.line_height <= bottom);
                // From scale 2 on, both maps and a useful list fit.
                if scale >= 2 {
                    assert_eq!(m.wram.is_some(), wram, "scale {scale}");
                    assert!(m.list_lines >= 8, "scale {scale}: {m:?}");
                }
            }
        }
        // The default window: 7 pixels per RAM byte, as ram.png's grid.
        let m = MemoryLayout::new(&Layout::new(3), false);
        assert_eq!((m.ram.cell, m.ram.w(), m.ram.h()), (7, 448, 224));
    }

    #[test]
    fn rows_are_split_between_the_sections() {
        // Half each, the rest to whichever has more.
        assert_eq!(split_rows(12, 50, 50), (5, 5));
        assert_eq!(split_rows(12, 2, 50), (2, 8));
        assert_eq!(split_rows(12, 50, 3), (7, 3));
        assert_eq!(split_rows(1, 5, 5), (0, 0));
        assert_eq!(split_rows(0, 5, 5), (0, 0));
    }

    #[test]
    fn counts_are_compact() {
        assert_eq!(compact(9_999), "9999");
        assert_eq!(compact(76_159), "76k");
        assert_eq!(compact(4_878_974), "4.9M");
        assert_eq!(compact(26_509_602), "26M");
        assert_eq!(compact(u64::MAX), "18446744073G");
        assert_eq!(cut("vbuf+$4..vbuf+$49", 4), "vbuf");
        assert_eq!(cut("λx", 5), "λx");
    }

    #[test]
    fn a_report_becomes_maps_and_rows() {
        use profiler::memory::{Dep, Shared};
        let report = MemoryReport {
            dependences: vec![Dep {
                writer_block: 0x8000,
                reader_block: 0x9000,
                first: 0x10,
                last: 0x11,
                count: 12_345,
                nca: vec![],
                crosses_interrupt: true,
            }],
            shared: vec![Shared {
                first: 0x10,
                last: 0x11,
                writer_blocks: vec![0x8000],
                reader_blocks: vec![0x9000, 0x9010],
                count: 12_345,
            }],
            dead: vec![],
            oam_dma: vec![],
            bytes: vec![(0x0010, 5, 0), (0x0011, 0, 9), (0x6000, 1, 1)],
            accesses: vec![],
        };
        let p = from_report(&Layout::new(3), None, &report, 60);
        assert_eq!((p.ram.touched, p.bytes), (2, 3));
        let wram = p.wram.as_ref().expect("PRG RAM was used");
        assert_eq!(wram.touched, 1);
        // Byte $10 is the 17th cell of the first row: read, so green.
        let cell = p.ram.place.cell as usize;
        let at = |x: usize| p.ram.pixels[x * cell + 1];
        assert_eq!(at(0x10) & 0xff_ff_00, 0x00_ff_00);
        assert_eq!(at(0x11) & 0xff_ff_00, 0xff_00_00);
        assert_eq!(p.shared[0].name, "$0010..$0011");
        assert_eq!(p.shared[0].numbers, "W1  R2    12k");
        assert_eq!(p.dependences[0].name, "$8000 -> $9000 $0010..$0011");
        assert!(p.dependences[0].crosses && !p.shared[0].crosses);
    }
}
