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

/// Frames between two looks at the hot CFG (one second of NTSC): a game
/// moving from its title to gameplay has its regions re-formed within two
/// seconds, while the trace builder derives its graph (about 1 ms on fff,
/// on the feeder's core) once a second of emulated time.
pub const GUIDE_PERIOD_FRAMES: u64 = 60;

/// How long the guide waits for a snapshot it asked for before it takes
/// the feeder for gone (it makes one in well under a millisecond).
const FEEDER_GONE_AFTER: std::time::Duration = std::time::Duration::from_secs(10);

/// The sampler and the trace builder, running only to choose the
/// translator's regions: the default profile's sampler (what a user leaves
/// on), with no truth and no stream kept.
///
/// Every [`GUIDE_PERIOD_FRAMES`] frames the feeder is asked for a snapshot
/// of the builder with every batch so far, and the one asked for a period
/// before is taken: its edge profile's busy hot CFG ([`busy_hot`]), where
/// it chooses other paths than the one before, replaces the regions
/// (`Nes::set_regions`). Asking at frames, not when the feeder gets round
/// to it, makes the regions, and so `run`'s counts of them and the
/// experiment's host instructions, the same from run to run; taking the
/// snapshot a period late lets the feeder make it on its own core while
/// the emulation goes on (it is long done by then, so the wait for it is
/// nearly always none).
pub struct SampledGuide {
    session: Session,
    snapshot: Arc<RwLock<Snapshot>>,
    /// The generation of the snapshot asked for last, not yet taken.
    pending: Option<u64>,
    current: Option<Arc<HotPaths>>,
    waits: WaitLoops,
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
        let snapshot = session.snapshot();
        SampledGuide {
            session,
            snapshot,
            pending: None,
            current: None,
            waits,
            updates: 0,
        }
    }

    /// After each frame: hands the batches on, and at every period takes
    /// the hot CFG asked for a period before as the regions' guide.
    pub fn after_frame(&mut self, nes: &mut Nes) {
        self.session.after_frame(nes);
        if !nes.frame_count().is_multiple_of(GUIDE_PERIOD_FRAMES) {
            return;
        }
        if let Some(generation) = self.pending.take() {
            let asked = std::time::Instant::now();
            let paths = loop {
                {
                    let snapshot = self.snapshot.read();
                    if snapshot.generation >= generation {
                        break Some(hot_paths(&busy_hot(&snapshot.profile, &mut self.waits)));
                    }
                }
                // A feeder that died (its builder panicked) never makes
                // it: the regions then stay as they are.
                if asked.elapsed() > FEEDER_GONE_AFTER {
                    break None;
                }
                std::thread::sleep(std::time::Duration::from_micros(50));
            };
            if let Some(paths) = paths.filter(|p| self.current.as_deref() != Some(p)) {
                let paths = Arc::new(paths);
                self.current = Some(paths.clone());
                self.updates += 1;
                nes.set_regions(RegionChoice::Guided(paths));
            }
        }
        self.pending = self.session.publish_now(nes);
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
}
