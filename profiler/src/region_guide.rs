//! A hot CFG as the translator's guide to hot regions (`run --regions
//! sampled|exact`, issue 47): its edges by their source block's last
//! instruction, for `emu::translate::hot_paths` ([`hot_paths`]), and the
//! sampler with the trace builder running only to keep that guide current
//! ([`SampledGuide`]).

use std::sync::Arc;

use emu::nes::Nes;
use emu::translate::hot_paths::{HotEdge, HotPaths};
use emu::translate::region::RegionChoice;
use gfc::{Cfg, HotFraction};
use parking_lot::RwLock;

use crate::feeder::Snapshot;
use crate::frame_profile::sampled::WaitLoops;
use crate::session::{ProfileSettings, Recording, Session};

/// Frames from asking the feeder for a guide to taking it (one second of
/// NTSC), and the least between two asks.
pub const GUIDE_LAG_FRAMES: u64 = 60;

/// The most frames between two asks (half a minute of NTSC).
pub const GUIDE_GAP_MAX_FRAMES: u64 = 1800;

/// The frames from an ask `frame` frames into the run to the next: a
/// quarter of the run so far, at least [`GUIDE_LAG_FRAMES`] and at most
/// [`GUIDE_GAP_MAX_FRAMES`].
///
/// Decision: the guide is the hot CFG of every batch so far, so after
/// the run has grown by a fraction f its edges' estimates have moved by
/// about f at most; asked sooner, a new guide only reshuffles the edges at
/// the 90 % cut, whose estimates wander with sampling noise (asked once a
/// second, fff's guide changed 296 times in 300 and re-formed its regions
/// each time). The same holds for a game moving from its title to
/// gameplay: the new code enters the cumulative hot CFG as its share of
/// the run grows, which a geometric schedule follows. Each guide costs a
/// derivation over everything sampled (about 3 ms on fff, on the feeder's
/// core); once a second of emulated time is, at fff's 8,000 frames a
/// second, 130 a second of wall time, which kept the feeder's core busy
/// and made the emulation wait for it.
pub fn guide_gap(frame: u64) -> u64 {
    (frame / 4).clamp(GUIDE_LAG_FRAMES, GUIDE_GAP_MAX_FRAMES)
}

/// How long the guide waits for a snapshot it asked for before it takes
/// the feeder for gone (it makes one in a few milliseconds).
const FEEDER_GONE_AFTER: std::time::Duration = std::time::Duration::from_secs(10);

/// The sampler and the trace builder, running only to choose the
/// translator's regions: the default profile's sampler (what a user leaves
/// on), with no truth and no stream kept.
///
/// At frame [`GUIDE_LAG_FRAMES`] and then at gaps that grow with the run
/// ([`guide_gap`]) the feeder is asked for the busy hot CFG
/// ([`busy_hot`]) of every batch so far, which it derives on its own
/// thread ([`crate::feeder::Guide`]), and [`GUIDE_LAG_FRAMES`] later the
/// guide is taken: where it chooses other paths than the one before, it
/// replaces the regions (`Nes::set_regions`). Asking and taking at frames,
/// not when the feeder gets round to it, makes the regions, and so `run`'s
/// counts of them and the experiment's host instructions, the same from
/// run to run; taking the guide a second late lets the feeder make it
/// while the emulation goes on (it is long done by then, so the wait for
/// it is nearly always none).
pub struct SampledGuide {
    session: Session,
    snapshot: Arc<RwLock<Snapshot>>,
    /// The generation of the snapshot asked for last, not yet taken, and
    /// the frame at which to take it.
    pending: Option<(u64, u64)>,
    /// The frame at which to ask for the next.
    ask_at: u64,
    /// The frame it was attached at (the run so far is counted from it).
    start: u64,
    current: Option<Arc<HotPaths>>,
    /// Hot CFGs that changed the regions.
    pub updates: u64,
}

impl SampledGuide {
    /// Attaches the sampler of `settings` to `nes`, with its trace builder
    /// told where branches are taken (as `profile`'s is).
    pub fn attach(nes: &mut Nes, settings: &ProfileSettings) -> SampledGuide {
        let waits = WaitLoops::from_prg(nes.cartridge().prg_rom.to_vec());
        let recording = Recording {
            truth: false,
            stream: false,
            publish_every: u64::MAX,
            mid_frame: false,
        };
        let taken = nes.record_taken_targets();
        let mut session = Session::attach(nes, settings, recording);
        let mut builder = settings.builder.build(settings.params);
        builder.set_taken_targets(Some(Arc::new(move |a| taken.contains(a))));
        session.restart(nes, builder);
        // Derived on the feeder's thread: on the emulation thread it cost
        // fff 4 % of its host instructions.
        let mut waits = waits;
        session.guide_with(Box::new(move |profile| {
            hot_paths(&busy_hot(profile, &mut waits))
        }));
        let snapshot = session.snapshot();
        SampledGuide {
            session,
            snapshot,
            pending: None,
            ask_at: nes.frame_count() + GUIDE_LAG_FRAMES,
            start: nes.frame_count(),
            current: None,
            updates: 0,
        }
    }

    /// After each frame: hands the batches on, takes the guide asked for
    /// [`GUIDE_LAG_FRAMES`] before, and asks for the next when it is due.
    pub fn after_frame(&mut self, nes: &mut Nes) {
        self.session.after_frame(nes);
        let frame = nes.frame_count();
        if let Some((generation, _)) = self.pending.filter(|&(_, at)| frame >= at) {
            self.pending = None;
            let asked = std::time::Instant::now();
            let paths = loop {
                {
                    let snapshot = self.snapshot.read();
                    if snapshot.generation >= generation {
                        break snapshot.guide.clone();
                    }
                }
                // A feeder that died (its builder panicked) never makes
                // it: the regions then stay as they are.
                if asked.elapsed() > FEEDER_GONE_AFTER {
                    break None;
                }
                std::thread::sleep(std::time::Duration::from_micros(50));
            };
            if let Some(paths) = paths.filter(|p| self.current.as_deref() != Some(&**p)) {
                self.current = Some(paths.clone());
                self.updates += 1;
                nes.set_regions(RegionChoice::Guided(paths));
            }
        }
        if frame >= self.ask_at {
            self.pending = self
                .session
                .publish_now(nes)
                .map(|generation| (generation, frame + GUIDE_LAG_FRAMES));
            self.ask_at = frame + guide_gap(frame - self.start);
        }
    }

    /// Detaches the sampler; the regions stay as they are.
    pub fn finish(self, nes: &mut Nes) {
        self.session.finish(nes);
    }
}

/// The hot CFG of the busy code: of `cfg`'s edges (all of them: the truth,
/// or the sampled edge profile), those that do not leave a wait loop
/// (`waits`, the frame-time profile's rule), cut at 90 % of their
/// transitions as H90 is cut. Regions never hold a wait loop (the
/// translator skips its iterations), and on a game that waits for the next
/// frame most of the time H90 itself is mostly the wait: over yun's first
/// 1,200 frames, its truth's H90 has 11 edges, 2 of them wait loops with
/// 88 % of all transitions.
pub fn busy_hot(cfg: &Cfg, waits: &mut WaitLoops) -> Cfg {
    let mut busy = Cfg::new();
    for e in cfg.edges() {
        let Some(from) = cfg.block(e.src) else {
            continue;
        };
        if waits.loop_of(from.last()).is_some() {
            continue;
        }
        for entry in [e.src, e.dst] {
            if busy.block(entry).is_none() {
                if let Some(b) = cfg.block(entry) {
                    busy.insert_block(b.clone());
                }
            }
        }
        busy.set_edge(e.src, e.dst, e.count);
    }
    gfc::hot_subgraph(&busy, HotFraction::H90)
}

/// The hot paths of hot CFG `hot` ([`busy_hot`]'s). An edge whose source
/// block has no record is left out: its last instruction is not known.
pub fn hot_paths(hot: &Cfg) -> HotPaths {
    let edges = hot.edges().into_iter().filter_map(|e| {
        let from = hot.block(e.src)?;
        Some(HotEdge {
            from_last: from.last(),
            to: e.dst,
            count: e.count,
        })
    });
    let instrs = hot.blocks().flat_map(|b| b.instrs.iter().copied());
    HotPaths::new(edges, instrs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gfc::cfg::Block;

    #[test]
    fn edges_are_keyed_by_the_source_blocks_last_instruction() {
        let mut g = Cfg::new();
        g.insert_block(Block {
            entry: 0x8000,
            instrs: vec![0x8000, 0x8002, 0x8004],
            end: 0x8006,
            count: 10,
        });
        g.insert_block(Block {
            entry: 0x8006,
            instrs: vec![0x8006],
            end: 0x8009,
            count: 1,
        });
        g.set_edge(0x8000, 0x8000, 9);
        g.set_edge(0x8000, 0x8006, 1);
        let paths = hot_paths(&g);
        assert_eq!(paths.next(0x8004), Some(Some(0x8000)));
        assert!(paths.is_head(0x8000));
        assert!(paths.is_hot(0x8002) && paths.is_hot(0x8006));
        assert_eq!(paths.next(0x8000), None);
    }

    #[test]
    fn guides_are_asked_for_every_second_then_as_the_run_grows() {
        let mut asks = vec![GUIDE_LAG_FRAMES];
        while *asks.last().unwrap() < 18_000 {
            let at = *asks.last().unwrap();
            asks.push(at + guide_gap(at));
        }
        assert_eq!(asks[..7], [60, 120, 180, 240, 300, 375, 468]);
        // Half a minute apart at most: a movie of five minutes asks 25
        // times (once a second, it asked 300 times).
        assert!(asks.windows(2).all(|w| w[1] - w[0] <= GUIDE_GAP_MAX_FRAMES));
        assert_eq!(asks.iter().filter(|&&f| f < 18_000).count(), 25);
    }

    #[test]
    fn a_guided_feeder_publishes_the_guide_in_place_of_the_graphs() {
        let settings = ProfileSettings::default();
        let mut feeder = crate::feeder::Feeder::spawn(
            settings.builder.build(settings.params),
            16,
            u64::MAX,
            false,
        );
        let mut g = Cfg::new();
        g.insert_block(Block {
            entry: 0x8000,
            instrs: vec![0x8000],
            end: 0x8002,
            count: 3,
        });
        g.set_edge(0x8000, 0x8000, 3);
        let expected = hot_paths(&g);
        // Whatever the builder has, the guide's result is what is published.
        feeder.guide_with(Box::new(move |_profile| hot_paths(&g)));
        let generation = feeder.publish_now().expect("the feeder runs");
        let snapshot = feeder.snapshot();
        let asked = std::time::Instant::now();
        while snapshot.read().generation < generation {
            assert!(asked.elapsed() < FEEDER_GONE_AFTER, "no snapshot");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let published = snapshot.read().clone();
        assert_eq!(published.guide.as_deref(), Some(&expected));
        assert!(published.graph.edges().is_empty());
        feeder.finish();
    }
}
