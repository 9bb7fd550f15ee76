//! The live hot-CFG overlay (`nesprof play --overlay`): a side panel beside
//! the game, as tall as the scaled picture, redrawn every frame from the
//! builder's latest published snapshot (the trace builder's by default,
//! GFCGaussiano's with `--builder gfc` or a preset). O hides it: the window
//! shrinks to the game alone (`play/mod.rs` makes it anew) and grows back.
//!
//! Threads: the emulation thread (the window's) runs the sampler, and a
//! profiling session (`profiler::session`, the same one `profile` uses)
//! offers its batches to the feeder thread with `try_send`; the feeder
//! publishes the builder's snapshots behind a parking_lot lock, which the
//! panel reads with `try_read` only (`view.rs`), so the emulation never
//! waits on the panel.
//! With `--truth` a third thread builds the exact CFG about once a second
//! for the live metrics (`truth.rs`).
//!
//! With `--memory` the session also records the memory-dependence profile,
//! and M switches the graph area to the memory view (`memory.rs`: heat maps
//! of RAM and PRG RAM, shared variables, top dependences), which another
//! thread remakes about once a second while it is shown
//! (`memory_worker.rs`).
//!
//! Parts, one file each: `axis` (the address axis), `strip` (bins on it),
//! `graph` (the arc diagram: layout, clustering and why it stays legible),
//! `recency` (ages by diffing snapshots), `panel` (layout and text), `text`
//! (bitmap font), `canvas` (pixel primitives), `colors`, `presets` (keys
//! 1–4), `view` (the snapshot copy), `memory` and `memory_worker` (the
//! memory view), `background` (the threads behind `truth` and
//! `memory_worker`).

pub mod axis;
pub mod background;
pub mod canvas;
pub mod colors;
pub mod cpu_bar;
pub mod graph;
pub mod memory;
pub mod memory_worker;
pub mod panel;
pub mod presets;
pub mod recency;
pub mod strip;
pub mod text;
pub mod truth;
pub mod view;

use std::fmt::Write as _;
use std::sync::Arc;

use emu::Nes;
use gfc::BuilderKind;
use parking_lot::RwLock;
use profiler::feeder::Snapshot;
use profiler::session::{self, ProfileSettings, Recording, Session};
use profiler::symbols::Symbols;

use axis::{Axis, Bands};
use canvas::Canvas;
pub use colors::Colouring;
use colors::Ramps;
use graph::{Geometry, GraphView};
use memory_worker::MemoryWorker;
use panel::{Layout, Status};
use recency::History;
use strip::Strip;
use truth::TruthWorker;
use view::View;

/// What the overlay's keys ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// O: show or hide the panel.
    Toggle,
    /// C: count / recency colouring.
    CycleColouring,
    /// 1–4: restart the graph with that preset (0-based here).
    Preset(usize),
    /// R: restart the graph with the current parameters.
    Reset,
    /// M: the hot-CFG graph or the memory view.
    SwitchView,
}

/// What the panel's graph area shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PanelView {
    /// The hot CFG: address strip and arc diagram.
    #[default]
    Graph,
    /// The memory-dependence profile (with `--memory`; else a hint).
    Memory,
}

impl PanelView {
    pub const ALL: [PanelView; 2] = [PanelView::Graph, PanelView::Memory];

    /// Its name in `--overlay-view`.
    pub fn name(self) -> &'static str {
        match self {
            PanelView::Graph => "graph",
            PanelView::Memory => "memory",
        }
    }
}

/// Hottest nodes labelled beside the graph (with `--symbols`).
const NODE_LABELS: usize = 12;

/// Frames between two ground-truth comparisons (about a second).
const TRUTH_EVERY_FRAMES: u64 = 60;
/// Frames between two refreshes of the memory view (about a second: each
/// walks the whole profile, see `memory_worker.rs`).
const MEMORY_EVERY_FRAMES: u64 = 60;
/// Batches between two snapshots the feeder publishes: a few per second at
/// the thesis' 3 ms interval, so the panel follows the graph closely.
const PUBLISH_EVERY: u64 = 16;

pub struct Overlay {
    /// The profiling session; gone once [`Overlay::settle`] finished it.
    session: Option<Session>,
    snapshot: Arc<RwLock<Snapshot>>,
    truth: Option<TruthWorker>,
    params: gfc::GfcParams,
    /// The builder drawn; presets 1–4 switch to GFCGaussiano.
    builder: BuilderKind,
    view: View,
    edge_history: History,
    block_history: History,
    graph: GraphView,
    strip: Strip,
    bands: Bands,
    axis: Axis,
    layout: Layout,
    ramps: Ramps,
    colouring: Colouring,
    visible: bool,
    /// What the graph area shows (M).
    panel_view: PanelView,
    /// With `--memory`: the memory view's refreshes.
    memory: Option<MemoryWorker>,
    /// The session's settings (its bursts switch the recorders per frame).
    settings: ProfileSettings,
    /// Frame of the last memory refresh handed over (`None`: one is due).
    last_memory_frame: Option<u64>,
    /// Baselines at the last reset, for the sampled share and drops.
    retired_at_reset: u64,
    dropped_at_reset: u64,
    last_truth_frame: u64,
    /// Drops of the finished session (after [`Overlay::settle`]).
    final_dropped: Option<u64>,
    line: String,
    /// Labels (`--symbols`): the PC's in the status text, the hottest
    /// nodes' beside the graph, code and data in the memory view (shared
    /// with its thread).
    symbols: Option<Arc<Symbols>>,
    /// The last frame's cycles by class, and its lag mark.
    cpu_bar: cpu_bar::CpuBar,
}

impl Overlay {
    /// Starts a profiling session on `nes` (the sampler, with `truth` the
    /// flow recorder, and with `settings.memory` the memory recorder); the
    /// panel is for a game drawn at `scale`.
    pub fn new(
        nes: &mut Nes,
        settings: &ProfileSettings,
        truth: bool,
        scale: usize,
        symbols: Option<Symbols>,
    ) -> Overlay {
        // The recorder costs emulation time; only --truth reads it.
        let recording = Recording {
            truth,
            stream: false,
            publish_every: PUBLISH_EVERY,
            mid_frame: false,
        };
        let session = Session::attach(nes, settings, recording);
        let cpu_bar = cpu_bar::CpuBar::attach(nes);
        let snapshot = session.snapshot();
        let layout = Layout::new(scale);
        let bands = Bands::default();
        let symbols = symbols.map(Arc::new);
        let memory = settings
            .memory
            .is_some()
            .then(|| MemoryWorker::spawn(layout, symbols.clone()));
        Overlay {
            truth: truth.then(|| TruthWorker::spawn(snapshot.clone())),
            session: Some(session),
            snapshot,
            params: settings.params,
            builder: settings.builder,
            view: View::default(),
            edge_history: History::default(),
            block_history: History::default(),
            graph: GraphView::default(),
            strip: Strip::default(),
            bands,
            axis: Axis::new(layout.band_h as f32, bands),
            layout,
            ramps: Ramps::default(),
            colouring: Colouring::Count,
            visible: true,
            panel_view: PanelView::Graph,
            memory,
            settings: settings.clone(),
            last_memory_frame: None,
            retired_at_reset: nes.retired(),
            dropped_at_reset: 0,
            last_truth_frame: nes.frame_count(),
            final_dropped: None,
            line: String::with_capacity(64),
            symbols,
            cpu_bar,
        }
    }

    /// The panel's layout (its width is added to the window's).
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    pub fn colouring(&self) -> Colouring {
        self.colouring
    }

    pub fn visible(&self) -> bool {
        self.visible
    }

    pub fn panel_view(&self) -> PanelView {
        self.panel_view
    }

    /// Shows `view` in the graph area (`--overlay-view`; M switches).
    pub fn set_panel_view(&mut self, view: PanelView) {
        self.panel_view = view;
    }

    /// One line for `--headless` runs (scripts and tests read it):
    /// `frames=N batches=N blocks=N edges=N nodes=N drawn_edges=N dropped=N`,
    /// plus the metrics with `--truth` and the memory profile's totals
    /// (`memory_bytes=N memory_shared=N memory_deps=N`) with `--memory`.
    pub fn summary(&mut self, nes: &Nes) -> String {
        let mut line = format!(
            "frames={} batches={} blocks={} edges={} nodes={} drawn_edges={} dropped={}",
            nes.frame_count(),
            self.view.batches,
            self.graph.blocks,
            self.view.edges.len(),
            self.graph.nodes.len(),
            self.graph.edges.len(),
            self.final_dropped
                .unwrap_or_else(|| self.dropped().saturating_sub(self.dropped_at_reset)),
        );
        if let Some(m) = self.truth.as_mut().and_then(TruthWorker::latest) {
            let _ = write!(
                line,
                " similarity={:.4} precision={:.4} weighted={:.4}",
                m.similarity, m.precision, m.weighted
            );
        }
        if let Some(p) = self.memory.as_mut().and_then(MemoryWorker::latest) {
            let _ = write!(
                line,
                " memory_bytes={} memory_shared={} memory_deps={}",
                p.bytes, p.shared_total, p.dependences_total
            );
        }
        line
    }

    /// Before each emulated frame: with `--memory-bursts`, whether the
    /// memory recorder counts, follows writers or pauses in this frame (as
    /// `profile` does, `profiler::session::before_frame`).
    pub fn before_frame(&mut self, nes: &mut Nes) {
        if self.session.is_some() {
            session::before_frame(nes, &self.settings);
        }
    }

    fn dropped(&self) -> u64 {
        self.session.as_ref().map_or(0, Session::dropped)
    }

    /// After each emulated frame: hands the sampler's batches to the feeder,
    /// picks up a new snapshot if one was published, and now and then starts
    /// a ground-truth comparison. Never blocks.
    pub fn after_frame(&mut self, nes: &mut Nes) {
        if let Some(session) = self.session.as_mut() {
            session.after_frame(nes);
        }
        self.cpu_bar.after_frame(nes);
        let frame = nes.frame_count();
        if self.view.refresh(&self.snapshot) {
            self.rebuild(frame);
        }
        if let Some(worker) = self.truth.as_mut() {
            if frame >= self.last_truth_frame + TRUTH_EVERY_FRAMES && worker.idle() {
                if let Some(counts) = nes.flow_counts() {
                    worker.submit(counts, frame);
                }
                self.last_truth_frame = frame;
                // Not both copies in one frame: on a busy game (fff) the
                // memory view's alone can take most of the panel's 2 ms. It
                // comes a frame later.
                return;
            }
        }
        self.refresh_memory(nes);
    }

    /// Hands the memory view's worker a copy of the profile when the view
    /// is shown, a second has passed since the last (or a refresh is due)
    /// and the worker is idle: the graph view costs nothing.
    fn refresh_memory(&mut self, nes: &mut Nes) {
        if self.panel_view != PanelView::Memory || !self.visible {
            return;
        }
        let Some(worker) = self.memory.as_mut() else {
            return;
        };
        let frame = nes.frame_count();
        let due = self
            .last_memory_frame
            .is_none_or(|last| frame >= last + MEMORY_EVERY_FRAMES);
        if due && worker.idle() && self.session.is_some() && worker.submit(nes, frame) {
            self.last_memory_frame = Some(frame);
        }
    }

    fn rebuild(&mut self, frame: u64) {
        let mut bands = Bands::default();
        for b in &self.view.blocks {
            bands.note(b.entry);
        }
        for &(c, _) in &self.view.bins {
            bands.note(c.max(0.0) as u32);
        }
        if bands != self.bands {
            self.bands = bands;
            self.axis = Axis::new(self.layout.band_h as f32, bands);
        }
        // GFCGaussiano's bins, or the trace builder's blocks (it has no bins).
        match self.view.params {
            Some(params) => self.strip.rebuild(
                &self.axis,
                &self.view.bins,
                params.bin_size,
                params.recurrent_threshold,
                frame,
            ),
            None => self
                .strip
                .rebuild_blocks(&self.axis, &self.view.blocks, frame),
        }
        let geometry = Geometry::for_panel(self.layout.band_h as f32, self.layout.scale);
        self.graph.rebuild(
            &self.view,
            &mut self.edge_history,
            &mut self.block_history,
            frame,
            &self.axis,
            geometry,
        );
    }

    /// Copies the published snapshot again and lays the graph out anew,
    /// whether or not it changed: what every new snapshot costs the
    /// emulation thread (benches/overlay.rs measures it).
    pub fn relayout(&mut self, nes: &Nes) {
        self.view.invalidate();
        if self.view.refresh(&self.snapshot) {
            self.rebuild(nes.frame_count());
        }
    }

    /// The panel's width in the window: its layout's while shown, 0 while
    /// hidden (O), when the window is the game alone.
    pub fn width(&self) -> usize {
        if self.visible {
            self.layout.width as usize
        } else {
            0
        }
    }

    /// Carries out a key's action.
    pub fn apply(&mut self, action: Action, nes: &mut Nes) {
        match action {
            Action::Toggle => self.visible = !self.visible,
            Action::CycleColouring => {
                self.colouring = match self.colouring {
                    Colouring::Count => Colouring::Recency,
                    Colouring::Recency => Colouring::Count,
                }
            }
            Action::Preset(i) => {
                self.params = presets::PRESETS[i.min(presets::PRESETS.len() - 1)];
                self.builder = BuilderKind::Gfc;
                self.reset(nes);
            }
            Action::Reset => self.reset(nes),
            Action::SwitchView => {
                self.panel_view = match self.panel_view {
                    PanelView::Graph => PanelView::Memory,
                    PanelView::Memory => PanelView::Graph,
                };
                // At once, also while paused: the last picture may be old.
                self.last_memory_frame = None;
                self.refresh_memory(nes);
            }
        }
    }

    /// Restarts the graph (and the truth it is compared with, so both cover
    /// the same stretch of the run).
    fn reset(&mut self, nes: &mut Nes) {
        if let Some(session) = self.session.as_mut() {
            session.restart(nes, self.builder.build(self.params));
        }
        if let Some(worker) = self.truth.as_mut() {
            worker.reset();
        }
        // The memory profile started over with the flow counts.
        if let Some(worker) = self.memory.as_mut() {
            worker.reset();
        }
        self.last_memory_frame = None;
        self.retired_at_reset = nes.retired();
        self.dropped_at_reset = self.dropped();
        self.last_truth_frame = nes.frame_count();
        self.edge_history.clear();
        self.block_history.clear();
        self.view.invalidate();
    }

    /// Lets the feeder catch up with every batch offered so far and takes
    /// its final state, with exact metrics when `--truth` is on: the headless
    /// screenshot path, so that its picture does not depend on thread timing.
    /// The overlay samples no more afterwards.
    pub fn settle(&mut self, nes: &mut Nes) {
        self.after_frame(nes);
        let Some(session) = self.session.take() else {
            return;
        };
        // `finish` offers the last batches, drains the queue and publishes
        // the final state.
        let finished = session.finish(nes);
        self.final_dropped = Some(
            finished
                .dropped_batches
                .saturating_sub(self.dropped_at_reset),
        );
        self.view.invalidate();
        if self.view.refresh(&self.snapshot) {
            self.rebuild(nes.frame_count());
        }
        if let (Some(worker), Some(counts)) = (self.truth.as_mut(), finished.counts.as_deref()) {
            let graph = self.snapshot.read().graph.clone();
            worker.set(truth::compare(&graph, counts, nes.frame_count()));
        }
        if let (Some(worker), Some(memory), Some(counts)) = (
            self.memory.as_mut(),
            finished.memory.as_deref(),
            finished.counts.as_deref(),
        ) {
            worker.set(memory::picture(
                &self.layout,
                self.symbols.as_deref(),
                memory,
                counts,
                nes.frame_count(),
            ));
        }
    }

    /// Draws the panel into the window buffer `buf` (rows of `stride`
    /// pixels) with its left edge at column `x0`; nothing while it is
    /// hidden (the window then has no room for it).
    pub fn draw(&mut self, buf: &mut [u32], stride: usize, x0: usize, nes: &Nes) {
        if !self.visible {
            return;
        }
        let l = self.layout;
        let mut canvas = Canvas::new(buf, stride, x0, 0, l.width as usize, l.height as usize);
        canvas.fill_rect(0, 0, l.width, l.height, colors::BG);
        canvas.fill_rect(0, 0, (l.scale / 2).max(1), l.height, colors::RULE);
        let frame = nes.frame_count();
        let pc = nes.pc();
        let params = self.view.params.unwrap_or(self.params);
        let executed = nes.retired().saturating_sub(self.retired_at_reset);
        let dropped = self
            .final_dropped
            .unwrap_or_else(|| self.dropped().saturating_sub(self.dropped_at_reset));
        let gfc = self.builder.has_params();
        // The PC by its code address (`03:A1F0` on a banked board, `$C123`
        // otherwise), and with symbols by its label.
        let code = nes.pc_code();
        let pc_address = emu::code_addr::label(code);
        let pc_label = self
            .symbols
            .as_deref()
            .and_then(|s| s.lookup(code))
            .map(|hit| hit_text(hit.name, hit.offset));
        let status = Status {
            params: gfc.then_some(params),
            preset: if gfc {
                presets::number_of(&params)
            } else {
                None
            },
            batches: self.view.batches,
            dropped,
            sampled_pct: gfc::metrics::sampled_pct(self.view.sampled_instructions, executed),
            bins: self.view.bins.len(),
            hot_bins: self.strip.hot_bins,
            blocks: self.graph.blocks,
            edges: self.view.edges.len(),
            nodes: (self.graph.nodes.len() < self.graph.blocks).then_some(self.graph.nodes.len()),
            truth: self
                .truth
                .as_mut()
                .map(|w| w.latest().map(|m| (m.similarity, m.precision, m.weighted))),
            pc_address: &pc_address,
            pc_label: pc_label.as_deref(),
            frame,
        };
        panel::draw_status(&mut canvas, &l, &status, &mut self.line);
        self.cpu_bar.draw(
            &mut canvas,
            l.pad,
            l.text_y + (panel::TEXT_LINES - 1) * l.line_height,
            l.width - 2 * l.pad,
            l.text_scale,
            &mut self.line,
        );
        if self.panel_view == PanelView::Memory {
            let enabled = self.memory.is_some();
            let picture = self.memory.as_mut().and_then(MemoryWorker::latest);
            memory::draw_legend(&mut canvas, &l, picture, enabled, &mut self.line);
            memory::draw(&mut canvas, &l, picture, enabled, &mut self.line);
            panel::draw_footer(&mut canvas, &l);
            return;
        }
        panel::draw_legend(
            &mut canvas,
            &l,
            &self.ramps,
            self.colouring,
            self.view.params.map(|p| p.recurrent_threshold),
            self.strip.max_count,
            &mut self.line,
        );
        panel::draw_axis_labels(&mut canvas, &l, &self.axis, &mut self.line);
        self.strip.draw(
            &mut canvas,
            &self.ramps,
            self.colouring,
            (l.strip_x, l.band_y, l.strip_w),
            l.tick_w,
            frame,
        );
        // The PC on the strip: a marker left of it, in the label column.
        let pc_y = l.band_y + self.axis.y_of(pc as f64) as i32;
        canvas.fill_rect(
            l.strip_x - 3 * l.scale,
            pc_y - l.scale / 2,
            3 * l.scale,
            l.scale.max(2),
            colors::PC,
        );
        self.graph.draw(
            &mut canvas,
            &self.ramps,
            self.colouring,
            l.graph_rect(),
            l.strip_x + l.strip_w + l.tick_w + 1,
            l.scale,
            frame,
            nes.pc_code(),
        );
        self.draw_node_labels(&mut canvas, &l);
        if self.graph.hidden_edges > 0 {
            self.line.clear();
            let _ = write!(self.line, "+{} more edges", self.graph.hidden_edges);
            let w = text::width(&self.line, l.label_scale);
            text::draw(
                &mut canvas,
                l.graph_x + l.graph_w - w,
                l.band_y + l.band_h - text::CELL * l.label_scale,
                l.label_scale,
                colors::TEXT_DIM,
                &self.line,
            );
        }
        panel::draw_footer(&mut canvas, &l);
    }

    /// The names of the hottest nodes, right-aligned at the graph's right
    /// edge on their row, on a background patch so arcs do not cross the
    /// text: the label that reaches the node's first block with
    /// `--symbols` (`draw_sprites@spark+$4`), else its code address
    /// (`$C123`, `03:A1F0`); one that would overlap a name already drawn
    /// is left out.
    fn draw_node_labels(&self, canvas: &mut Canvas, l: &Layout) {
        let (gx, gy, gw, _) = l.graph_rect();
        let glyph = text::CELL * l.label_scale;
        let room = (gw / (text::CELL * l.label_scale)).max(4) as usize;
        let mut hottest: Vec<&graph::Node> = self.graph.nodes.iter().collect();
        hottest.sort_by(|a, b| b.count.cmp(&a.count).then(a.lo.cmp(&b.lo)));
        let mut taken: Vec<i32> = Vec::new();
        for n in hottest.into_iter().take(NODE_LABELS) {
            let y = gy + n.y.round() as i32 - glyph / 2;
            if taken.iter().any(|&t| (t - y).abs() < glyph + 1) {
                continue;
            }
            taken.push(y);
            let name = match self.symbols.as_deref().and_then(|s| s.lookup(n.lo)) {
                Some(hit) => hit_text(hit.name, hit.offset),
                None => emu::code_addr::label(n.lo),
            };
            let name = panel::fit_tail(&name, room);
            let w = text::width(&name, l.label_scale);
            let x = gx + gw - w;
            canvas.fill_rect(x - 1, y - 1, w + 2, glyph + 2, colors::BG);
            text::draw(canvas, x, y, l.label_scale, colors::TEXT_DIM, &name);
        }
    }
}

/// `label` or `label+$off`, as symbol tables describe an address.
fn hit_text(name: &str, offset: u32) -> String {
    match offset {
        0 => name.to_string(),
        off => format!("{name}+${off:X}"),
    }
}
