//! The hot CFG as an arc diagram on the address axis.
//!
//! What it has to cope with: GFCGaussiano's graph of a game is hundreds of
//! blocks and edges (fff: ~300 of each after 30 s of its movie, ~400 after a
//! minute), and it is *local* — half the edges are fall-throughs to the next
//! block, most of the rest branches of a few dozen bytes, in dozens of
//! unconnected fragments. Drawn whole in a 530-row panel, every arc spans a
//! pixel or two and the graph is a solid bar. So:
//!
//! - **Only the hottest edges are drawn** (two thirds as many as nodes fit,
//!   at most 96: [`Geometry::for_panel`]), and only the blocks they join
//!   become nodes; a "+N more edges" note counts the rest. The strip beside
//!   the graph still shows every bin, so cold code is not lost from view.
//! - **Nodes sit on one vertical axis by address** ($8000 at the top, the
//!   axis of the address strip), at least `2·scale + 1` rows apart, placed by
//!   isotonic regression (pool-adjacent-violators): each as close to its
//!   address row as order and gap allow. Unrelated code therefore stays
//!   apart, fragments show as separate groups, and a faint leader joins each
//!   node to its row of the strip. If the nodes still do not fit, the
//!   closest neighbours in address merge first (1-D single linkage) and
//!   their edges are summed (an edge inside a cluster is a self-loop).
//! - **Edges are arcs**, backward jumps (loops) left of the axis and forward
//!   ones right of it, so the two families never overlap. An arc's width is
//!   linear in its span counted in nodes, scaled so that the widest drawn
//!   arc reaches the panel edge: neighbour-to-neighbour arcs (most of them)
//!   become flat loops stacked like ribs, each visible on its own, and arcs
//!   with nested spans nest instead of crossing.
//! - **Count is thickness and colour**: thickness log-scaled (1 to scale+1
//!   pixels); colour on a log heat ramp spanning the *drawn* edges' own
//!   range (they are all hot, a 1..max scale would paint them alike), weak
//!   ones blended towards the background and drawn first, the hottest last.
//! - **New edges** (first seen in the last [`NEW_FRAMES`] frames) get a
//!   fading cyan halo; the node holding the current PC gets a green box.
//!
//! Layout is recomputed only when the feeder publishes a new snapshot;
//! drawing a frame is stores into the window buffer (see benches/overlay.rs).

use super::axis::Axis;
use super::canvas::Canvas;
use super::colors::{self, Colouring, Ramps};
use super::recency::{edge_key, History};
use super::strip::RECENCY_FRAMES;
use super::view::View;

/// The arc widths are scaled so that the widest span drawn reaches the
/// panel's edge, but never as if it spanned fewer nodes than this (a graph of
/// neighbour-to-neighbour edges does not get panel-wide arcs).
pub const MIN_SPAN_SCALE: u32 = 6;
/// Frames during which a new edge keeps its halo.
pub const NEW_FRAMES: u64 = 120;

/// A node: one block or a cluster of neighbouring blocks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Node {
    /// Lowest entry and highest end of its blocks.
    pub lo: u32,
    pub hi: u32,
    pub count: u64,
    pub blocks: u32,
    pub last_grown: u64,
    /// Its address row on the axis, and where it was placed.
    pub ideal: f32,
    pub y: f32,
}

/// An edge between two nodes, counts summed over the blocks' edges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArcEdge {
    pub a: u32,
    pub b: u32,
    pub count: u64,
    pub first_seen: u64,
    pub last_grown: u64,
}

/// Where the graph goes and how dense it may get.
#[derive(Debug, Clone, Copy)]
pub struct Geometry {
    /// Rows of the axis (the graph area's height).
    pub height: f32,
    /// Minimum rows between two nodes.
    pub min_gap: f32,
    /// Edges drawn at most (the hottest); the others are counted.
    pub max_edges: usize,
}

impl Geometry {
    /// The geometry of a graph `height` rows tall in a panel at `scale`:
    /// nodes at least `2·scale + 1` rows apart (room for a node bar and a
    /// visible gap), and as many edges as two thirds of the nodes that fit —
    /// the graph is mostly chains, so that many edges join about as many
    /// blocks, and leaves slack for gaps between unrelated code.
    pub fn for_panel(height: f32, scale: i32) -> Geometry {
        let min_gap = (2 * scale + 1) as f32;
        let capacity = (height / min_gap) as usize + 1;
        Geometry {
            height,
            min_gap,
            max_edges: (capacity * 2 / 3).clamp(16, 96),
        }
    }
}

#[derive(Default)]
pub struct GraphView {
    pub nodes: Vec<Node>,
    /// Drawn edges, in drawing order (ascending count).
    pub edges: Vec<ArcEdge>,
    /// Edges between clusters before the cap, and how many the cap hid.
    pub total_edges: usize,
    pub hidden_edges: usize,
    /// Blocks and edges of the snapshot.
    pub blocks: usize,
    /// Count ranges of the drawn edges and of the nodes (colour scales).
    pub min_edge_count: u64,
    pub max_edge_count: u64,
    pub min_node_count: u64,
    pub max_node_count: u64,
    /// The largest node-index span of a drawn arc (at least
    /// [`MIN_SPAN_SCALE`]), which reaches the panel's edge, and the node gap.
    max_span: u32,
    min_gap: f32,
    /// Every edge of the snapshot with its age (block entries in `a`, `b`),
    /// then only the drawn ones.
    all_edges: Vec<ArcEdge>,
    /// When each block of the snapshot last grew.
    block_grown: Vec<u64>,
    /// Indices of the blocks the drawn edges join, ascending.
    shown: Vec<usize>,
    merge: Vec<bool>,
    gaps: Vec<u32>,
    sorted_gaps: Vec<u32>,
    pav: Vec<(f32, f32)>,
}

impl GraphView {
    /// Rebuilds nodes, edges and layout from `view` at `frame`, updating the
    /// edge and block histories.
    pub fn rebuild(
        &mut self,
        view: &View,
        edge_history: &mut History,
        block_history: &mut History,
        frame: u64,
        axis: &Axis,
        geometry: Geometry,
    ) {
        self.blocks = view.blocks.len();

        // Every edge and block goes through the histories (an edge drawn
        // only later still keeps its true age).
        self.all_edges.clear();
        edge_history.begin();
        for e in &view.edges {
            let age = edge_history.see(edge_key(e.src, e.dst), e.count, frame);
            self.all_edges.push(ArcEdge {
                a: e.src,
                b: e.dst,
                count: e.count,
                first_seen: age.first_seen,
                last_grown: age.last_grown,
            });
        }
        edge_history.end();
        self.block_grown.clear();
        block_history.begin();
        for b in &view.blocks {
            let age = block_history.see(b.entry as u64, b.count, frame);
            self.block_grown.push(age.last_grown);
        }
        block_history.end();

        // Only the hottest edges are drawn, and only the blocks they join.
        self.total_edges = self.all_edges.len();
        let max_edges = geometry.max_edges.max(1);
        self.hidden_edges = self.total_edges.saturating_sub(max_edges);
        if self.hidden_edges > 0 {
            self.all_edges
                .select_nth_unstable_by(max_edges, |x, y| y.count.cmp(&x.count));
            self.all_edges.truncate(max_edges);
        }
        self.shown.clear();
        for e in &self.all_edges {
            for addr in [e.a, e.b] {
                if let Ok(i) = view.blocks.binary_search_by_key(&addr, |b| b.entry) {
                    self.shown.push(i);
                }
            }
        }
        self.shown.sort_unstable();
        self.shown.dedup();
        self.cluster(view, geometry);

        // Nodes.
        self.nodes.clear();
        for (k, &i) in self.shown.iter().enumerate() {
            let b = &view.blocks[i];
            let last_grown = self.block_grown[i];
            let joins = k > 0 && self.merge[k - 1];
            match self.nodes.last_mut() {
                Some(n) if joins => {
                    n.hi = n.hi.max(b.end);
                    n.count += b.count;
                    n.blocks += 1;
                    n.last_grown = n.last_grown.max(last_grown);
                }
                _ => self.nodes.push(Node {
                    lo: b.entry,
                    hi: b.end,
                    count: b.count,
                    blocks: 1,
                    last_grown,
                    ideal: 0.0,
                    y: 0.0,
                }),
            }
        }
        self.max_node_count = self.nodes.iter().map(|n| n.count).max().unwrap_or(0);
        self.min_node_count = self.nodes.iter().map(|n| n.count).min().unwrap_or(0);

        // The drawn edges between nodes, summed.
        self.edges.clear();
        for e in &self.all_edges {
            let (Some(a), Some(b)) = (self.node_of(e.a), self.node_of(e.b)) else {
                continue;
            };
            self.edges.push(ArcEdge {
                a: a as u32,
                b: b as u32,
                ..*e
            });
        }
        self.edges.sort_unstable_by_key(|e| (e.a, e.b));
        self.edges.dedup_by(|next, kept| {
            if (next.a, next.b) == (kept.a, kept.b) {
                kept.count += next.count;
                // A cluster edge is as new as its oldest part, as recent as
                // its most recent.
                kept.first_seen = kept.first_seen.min(next.first_seen);
                kept.last_grown = kept.last_grown.max(next.last_grown);
                true
            } else {
                false
            }
        });
        // Draw order: weak first, hot on top; ties by position (deterministic).
        self.edges.sort_unstable_by_key(|e| (e.count, e.a, e.b));
        self.max_edge_count = self.edges.last().map_or(0, |e| e.count);
        self.min_edge_count = self.edges.first().map_or(0, |e| e.count);

        self.max_span = self
            .edges
            .iter()
            .map(|e| e.a.abs_diff(e.b))
            .max()
            .unwrap_or(0)
            .max(MIN_SPAN_SCALE);
        self.min_gap = geometry.min_gap;
        self.place(axis, geometry);
    }

    /// Decides which consecutive blocks merge: none if the blocks fit, else
    /// the smallest address gaps first.
    fn cluster(&mut self, view: &View, geometry: Geometry) {
        let n = self.shown.len();
        self.merge.clear();
        self.merge.resize(n.saturating_sub(1), false);
        let capacity = (geometry.height / geometry.min_gap.max(1.0)) as usize + 1;
        if n <= capacity {
            return;
        }
        let mut merges = n - capacity;
        self.gaps.clear();
        self.gaps.extend(self.shown.windows(2).map(|w| {
            view.blocks[w[1]]
                .entry
                .saturating_sub(view.blocks[w[0]].end)
        }));
        self.sorted_gaps.clear();
        self.sorted_gaps.extend_from_slice(&self.gaps);
        let (_, &mut threshold, _) = self.sorted_gaps.select_nth_unstable(merges - 1);
        // Merge every gap below the threshold, then equal ones left to right
        // until exactly `merges` merges are made.
        for (m, &g) in self.merge.iter_mut().zip(&self.gaps) {
            if g < threshold {
                *m = true;
                merges -= 1;
            }
        }
        for (m, &g) in self.merge.iter_mut().zip(&self.gaps) {
            if merges == 0 {
                break;
            }
            if g == threshold {
                *m = true;
                merges -= 1;
            }
        }
    }

    /// The node holding `addr`, if any.
    pub fn node_of(&self, addr: u32) -> Option<usize> {
        let i = self.nodes.partition_point(|n| n.lo <= addr);
        (i > 0 && addr < self.nodes[i - 1].hi).then(|| i - 1)
    }

    /// Places the nodes: as near their address rows as possible, in address
    /// order, at least `min_gap` rows apart, inside the axis (isotonic
    /// regression of `ideal - i·gap`, pool-adjacent-violators, then clamped).
    fn place(&mut self, axis: &Axis, geometry: Geometry) {
        let n = self.nodes.len();
        if n == 0 {
            return;
        }
        let top = 2.0;
        let bottom = (geometry.height - 3.0).max(top);
        let gap = geometry
            .min_gap
            .min((bottom - top) / (n.max(2) - 1) as f32)
            .max(0.0);
        self.pav.clear();
        // Blocks of pooled values: (sum, count).
        for (i, node) in self.nodes.iter_mut().enumerate() {
            node.ideal = axis.y_of(node.lo as f64);
            let z = node.ideal - i as f32 * gap;
            self.pav.push((z, 1.0));
            while self.pav.len() >= 2 {
                let (s2, c2) = self.pav[self.pav.len() - 1];
                let (s1, c1) = self.pav[self.pav.len() - 2];
                if s1 / c1 <= s2 / c2 {
                    break;
                }
                self.pav.pop();
                *self.pav.last_mut().expect("two blocks") = (s1 + s2, c1 + c2);
            }
        }
        let (lo, hi) = (top, (bottom - (n - 1) as f32 * gap).max(top));
        let mut i = 0;
        for &(sum, count) in &self.pav {
            let z = (sum / count).clamp(lo, hi);
            for _ in 0..count as usize {
                self.nodes[i].y = z + i as f32 * gap;
                i += 1;
            }
        }
    }

    /// Draws leaders, edges, nodes and the PC marker. `area` is the graph
    /// rectangle `(x, y, w, h)`; `strip_right` the x where leaders start.
    #[allow(clippy::too_many_arguments)]
    pub fn draw(
        &self,
        canvas: &mut Canvas,
        ramps: &Ramps,
        colouring: Colouring,
        (x, y, w, _h): (i32, i32, i32, i32),
        strip_right: i32,
        scale: i32,
        frame: u64,
        pc: u32,
    ) {
        let axis_x = x + w / 2;
        let reach = (w / 2 - 2 * scale).max(4) as f32;
        let leader = colors::mix(colors::BG, colors::RULE, 200);
        for n in &self.nodes {
            let (ya, yb) = (y + n.ideal.round() as i32, y + n.y.round() as i32);
            canvas.line((strip_right, ya), (x - 1, yb), 1, leader);
        }

        let tmax = scale + 1;
        for pass in [false, true] {
            for e in &self.edges {
                let is_new = frame.saturating_sub(e.first_seen) < NEW_FRAMES;
                // First pass: everything; second: the halo of new edges and
                // the edge again on top of it.
                if pass && !is_new {
                    continue;
                }
                let level = colors::log_between(e.count, self.min_edge_count, self.max_edge_count);
                let t = 1 + ((level as i32 * (tmax - 1) + 127) / 255);
                let color = match colouring {
                    Colouring::Count => colors::mix(
                        colors::BG,
                        ramps.heat[level as usize],
                        150 + level * 105 / 255,
                    ),
                    Colouring::Recency => {
                        let l = colors::recency_level(
                            frame.saturating_sub(e.last_grown),
                            RECENCY_FRAMES,
                        );
                        colors::mix(colors::BG, ramps.recent[l as usize], 90 + l * 165 / 255)
                    }
                };
                if pass {
                    let fade = 255 - (frame.saturating_sub(e.first_seen) * 255 / NEW_FRAMES) as u32;
                    let halo = colors::mix(colors::BG, colors::NEW_EDGE, fade);
                    self.draw_edge(canvas, e, scale, (axis_x, y), reach, t + 2, halo);
                }
                self.draw_edge(canvas, e, scale, (axis_x, y), reach, t, color);
            }
        }

        for n in &self.nodes {
            let (half, color) = self.node_style(n, ramps, colouring, scale, frame);
            let ny = y + n.y.round() as i32;
            let height = if n.blocks > 1 {
                scale + 2
            } else {
                scale.max(2)
            };
            canvas.fill_rect(axis_x - half, ny - height / 2, 2 * half + 1, height, color);
            // A tick at the graph's left edge ends the leader.
            canvas.fill_rect(x, ny, 2 * scale, 1, colors::TEXT_DIM);
        }

        if let Some(i) = self.node_of(pc) {
            let n = &self.nodes[i];
            let ny = y + n.y.round() as i32;
            let (half, _) = self.node_style(n, ramps, colouring, scale, frame);
            let pad = scale + 1;
            canvas.stroke_rect(
                axis_x - half - pad,
                ny - pad - 1,
                2 * (half + pad) + 1,
                2 * pad + 3,
                1.max(scale / 2),
                colors::PC,
            );
        }
    }

    fn node_style(
        &self,
        n: &Node,
        ramps: &Ramps,
        colouring: Colouring,
        scale: i32,
        frame: u64,
    ) -> (i32, u32) {
        let level = colors::log_between(n.count, self.min_node_count, self.max_node_count);
        let half = scale + (level as i32 * 2 * scale) / 255;
        let color = match colouring {
            Colouring::Count => ramps.heat[level as usize],
            Colouring::Recency => {
                ramps.recent[colors::recency_level(
                    frame.saturating_sub(n.last_grown),
                    RECENCY_FRAMES,
                ) as usize]
            }
        };
        (half, color)
    }

    #[allow(clippy::too_many_arguments)]
    fn draw_edge(
        &self,
        canvas: &mut Canvas,
        e: &ArcEdge,
        scale: i32,
        (axis_x, top): (i32, i32),
        reach: f32,
        t: i32,
        color: u32,
    ) {
        let (na, nb) = (&self.nodes[e.a as usize], &self.nodes[e.b as usize]);
        let (ya, yb) = (top as f32 + na.y, top as f32 + nb.y);
        if e.a == e.b {
            // A self-loop (or an edge inside a cluster): a flat loop on the
            // backward side, no taller than the gap between nodes, so loops
            // of neighbouring nodes do not run into each other.
            let ry = (self.min_gap * 0.5 - 0.5).max(1.0);
            canvas.half_ellipse(
                axis_x as f32,
                ya,
                6.0 + 3.0 * t as f32,
                ry,
                false,
                t.min(2),
                color,
            );
            return;
        }
        let ry = (yb - ya).abs() / 2.0;
        // Width grows linearly with the span counted in nodes, scaled so the
        // widest drawn arc reaches the panel edge: arcs between neighbours
        // (most edges: the graph is local) leave the axis far enough to be
        // told apart, the horizontal room is used whatever the spans, and
        // arcs with nested spans nest instead of crossing.
        let span = e.a.abs_diff(e.b) as f32 / self.max_span.max(1) as f32;
        let min_rx = 3.0 * scale as f32;
        let rx = min_rx + (reach - min_rx).max(0.0) * span.min(1.0);
        let backward = e.b < e.a;
        canvas.half_ellipse(
            axis_x as f32,
            (ya + yb) / 2.0,
            rx.max(2.0),
            ry,
            !backward,
            t,
            color,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::overlay::axis::Bands;
    use crate::play::overlay::view::{BlockView, EdgeView};

    fn view(blocks: &[(u32, u32)], edges: &[(u32, u32, u64)]) -> View {
        let mut v = View::default();
        v.blocks = blocks
            .iter()
            .map(|&(entry, end)| BlockView {
                entry,
                end,
                count: 1,
            })
            .collect();
        v.edges = edges
            .iter()
            .map(|&(src, dst, count)| EdgeView { src, dst, count })
            .collect();
        v
    }

    fn build(v: &View, height: f32, min_gap: f32) -> GraphView {
        let mut g = GraphView::default();
        let axis = Axis::new(height, Bands::default());
        g.rebuild(
            v,
            &mut History::default(),
            &mut History::default(),
            0,
            &axis,
            Geometry {
                height,
                min_gap,
                max_edges: 160,
            },
        );
        g
    }

    #[test]
    fn nodes_keep_order_and_gap() {
        // Four blocks within 12 bytes, three of them joined by edges: on a
        // 100-row axis they share a row and must be spread 5 rows apart
        // around it; the block no edge touches is not drawn.
        let v = view(
            &[
                (0xC000, 0xC003),
                (0xC003, 0xC006),
                (0xC006, 0xC009),
                (0xC009, 0xC00C),
            ],
            &[(0xC000, 0xC003, 5), (0xC009, 0xC000, 2)],
        );
        let g = build(&v, 100.0, 5.0);
        assert_eq!(g.nodes.len(), 3);
        assert_eq!(g.node_of(0xC006), None);
        for w in g.nodes.windows(2) {
            assert!(w[1].y - w[0].y >= 4.99, "{:?}", g.nodes);
        }
        let mid = (g.nodes[0].y + g.nodes[2].y) / 2.0;
        assert!(
            (mid - 50.0).abs() < 1.0,
            "centred on the address row: {mid}"
        );
        assert_eq!(g.edges.len(), 2);
        assert_eq!(g.edges[1].count, 5);
    }

    #[test]
    fn clusters_smallest_gaps_and_sums_edges() {
        // Capacity 3 nodes (height 10, gap 5): the two tight pairs merge.
        let v = view(
            &[
                (0x8000, 0x8002),
                (0x8002, 0x8004),
                (0x9000, 0x9002),
                (0xA000, 0xA002),
                (0xA003, 0xA004),
            ],
            &[
                (0x8000, 0x9000, 1),
                (0x8002, 0x9000, 2),
                (0x8000, 0x8002, 7),
                (0xA000, 0xA003, 1),
            ],
        );
        let g = build(&v, 10.0, 5.0);
        assert_eq!(g.nodes.len(), 3);
        assert_eq!(
            (g.nodes[0].lo, g.nodes[0].hi, g.nodes[0].blocks),
            (0x8000, 0x8004, 2)
        );
        assert_eq!(g.total_edges, 4);
        assert_eq!(g.edges.len(), 3);
        let cross = g.edges.iter().find(|e| e.a == 0 && e.b == 1).unwrap();
        assert_eq!(cross.count, 3);
        assert!(g.edges.iter().any(|e| e.a == 0 && e.b == 0 && e.count == 7));
        assert_eq!(g.node_of(0x8003), Some(0));
        assert_eq!(g.node_of(0x8005), None);
    }

    #[test]
    fn caps_the_drawn_edges() {
        let blocks: Vec<(u32, u32)> = (0..40).map(|i| (0x8000 + i * 4, 0x8002 + i * 4)).collect();
        let mut edges = Vec::new();
        for a in 0..40u32 {
            for b in 0..6u32 {
                edges.push((
                    0x8000 + a * 4,
                    0x8000 + ((a + b + 1) % 40) * 4,
                    (a * 6 + b) as u64 + 1,
                ));
            }
        }
        let g = build(&view(&blocks, &edges), 400.0, 5.0);
        assert_eq!(g.total_edges, 240);
        assert_eq!(g.edges.len(), 160);
        assert_eq!(g.hidden_edges, 80);
        assert_eq!(g.max_edge_count, 240);
        assert!(g.edges.windows(2).all(|w| w[0].count <= w[1].count));
        assert_eq!(g.edges[0].count, 81);
    }
}
