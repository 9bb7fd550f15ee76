//! Block and edge construction from one flow segment — the thesis' `buildCFGR`
//! (low std-dev) and `highStddevBatchProcess` (high std-dev), with the
//! `Targets` dictionary and the `BBRepository`.
//!
//! # Model
//!
//! A segment is cut into *runs*: a run ends after a block-ending instruction
//! (`Flow::ends_block`, the thesis' `isBranchOrCall`) and before any address
//! that is a known target or a block entry. Each run is a piece of at most one
//! block; consecutive runs are the transitions the graph counts. The thesis'
//! recursion (a branch ends the block, `buildCFGR` recurses on the rest of the
//! batch and links the two blocks on return) walks exactly these runs in
//! order, so it is done here with a loop and no recursion: nothing to
//! overflow on arbitrary input, no allocation per run.
//!
//! # Decisions (pseudo-code of the appendix vs. this implementation)
//!
//! - **Targets.** The thesis registers `inst.target` for every
//!   branch-or-call at the top of `buildCFGR` and in `highStddevBatchProcess`,
//!   then again when following it ("Targets.createOrIncrementTargets"), and in
//!   the not-taken case writes `nextInst.target`. Decision: every
//!   block-ending instruction registers its *real successor* once, in both
//!   routines — the pc of the next sample of the same flow, or `next_pc` at
//!   the end of the segment. That covers taken targets and not-taken
//!   fall-throughs, exactly the ground truth's leaders ("every PC that is the
//!   target of a taken branch … and every PC that follows a conditional
//!   branch"); counting each transition once keeps the count meaningful. An
//!   RTI ending a segment registers nothing: its successor is the interrupted
//!   point, which must not become a leader. Interrupt handler entries are
//!   registered by the caller.
//! - **The instruction after** (`batch.getInstAfter(inst)`). Read as the
//!   next sample of the same flow segment — the instruction that really
//!   executed next once interrupt handlers are excised — never the static
//!   fall-through `pc + len` nor the static branch target. The pseudo-code's
//!   taken / not-taken cases ("se nextInst.pc == inst.target … senao …") then
//!   do the same thing, register the successor and link to its block, so
//!   `Sample::taken` is not needed. At the end of a segment there is no
//!   instruction after: "termina o while e o bloco fica sem o alvo" — the
//!   block ends without an edge (`next_pc` still registers the target).
//! - **Where blocks start.** "novos blocos basicos so sejam construídos a
//!   partir de enderecos conhecidos por serem alvos de instrucoes de fluxo de
//!   controle": a block is created only at a known target (or, in the high
//!   routine's `justBuild` case, at the destination of a qualifying
//!   transition, which is itself always a target). The first run of a segment
//!   usually starts mid-block and creates nothing.
//! - **Where blocks end.** At a block-ending instruction ("consideramos que as
//!   instrucoes de fluxo de controle desempenha este papel"), or where the next
//!   instruction begins another block ("um bloco basico ja inicia na proxima
//!   instrucao"). Decision: also before any known target without a block yet,
//!   since it is a leader in the ground truth and the block would otherwise
//!   have to be split later anyway.
//! - **getBB / getBBOrCreate.** `getBB(pc)` is "o bloco basico que contém o
//!   pc", the block containing pc. When a run starts at a known target that
//!   lies *inside* an existing block, that block is split there (head keeps
//!   its entry and falls through to the tail; the tail takes the head's
//!   out-edges and entry count, and the new fall-through edge gets that count,
//!   since every entry of the head reached the tail). The thesis would attach
//!   the edge to the containing block's entry, which never matches a ground
//!   truth edge; splitting mirrors the truth's "splits applied at the end".
//! - **Recurrence gate.** "O algoritmo é continuado se, e somente se, um
//!   balde para a instrução existir e se a recorrência dele for maior que o
//!   recurrentThreshold": in the low routine a block is created or grown only
//!   when its entry's bin is recurrent (see `bins` for `≥`). The pseudo-code's
//!   `return` when an instruction has no bin only ends one recursion level,
//!   after which the caller resumes the shared iterator; decision: such a run
//!   is skipped and the walk goes on, at every level, so the result does not
//!   depend on whether the batch happened to start in a binned instruction.
//! - **Edges, low routine.** Every transition between consecutive runs whose
//!   source (block containing the run's last instruction) and destination
//!   (block entered at the next run's first instruction) both exist is
//!   counted, fall-throughs included. The pseudo-code counts fall-throughs
//!   only while a block is being built (its `while` loop), so a fall-through
//!   edge would stop counting once its block is done; the ground truth counts
//!   every transition, so this does too. Links are made after the destination
//!   is resolved, as the recursion does ("ao retornar uma aresta entre o bloco
//!   básico construído anteriormente … e o bloco básico atual é ligada").
//! - **High routine.** "apenas transições entre blocos básicos recorrentes
//!   sejam criadas ou atualizadas … Caso o balde seja recorrente, o balde da
//!   próxima instrução é coletados e caso também seja recorrente … são criadas
//!   ou incrementadas as arestas": a transition is counted only if the source
//!   block exists, the source instruction's bin is recurrent and the
//!   destination instruction's bin is recurrent. If the destination has no
//!   block it is built from its run (`buildCFGR(…, justBuild=true)`), ignoring
//!   the Targets gate. No other block is created or grown in a high segment;
//!   splits at known targets still apply, being structure, not new code.
//! - **Block counts.** A block's `count` is the number of runs seen entering
//!   it at its entry (in either routine).
//! - **Overlapping decodes.** If a run reaches an instruction already in
//!   another block at a non-entry address (only possible with inconsistent
//!   input), the block being built stops there with no edge, so no address
//!   ever belongs to two blocks.

use super::bins::Bins;
use crate::cfg::{Block, Cfg, Edge};
use crate::hash::AddrMap;
use crate::sample::{Addr, Flow, Sample};

/// Which routine processes a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Path {
    /// σ(μ_w) below stdevThreshold: `lowStddevProcess` + `buildCFGR`.
    Low,
    /// σ(μ_w) at or above stdevThreshold, or no full window: `highStddevProcess`.
    High,
}

/// What is known about one address.
#[derive(Debug, Default, Clone, Copy)]
struct AddrInfo {
    /// Transitions observed into this address (`Targets`); 0: not a target.
    target: u64,
    /// Entry of the block containing this address, if any.
    block: Option<Addr>,
    /// At a block entry: the block may still grow (the batch ended in it).
    open: bool,
}

/// `Targets` + `BBRepository` + the graph under construction.
#[derive(Debug, Default)]
pub struct Repository {
    cfg: Cfg,
    addrs: AddrMap<Addr, AddrInfo>,
    edge_scratch: Vec<Edge>,
    splits: u64,
}

/// The recurrence test of both routines.
struct Hot<'a> {
    bins: &'a Bins,
    threshold: u64,
}

impl Hot<'_> {
    #[inline]
    fn recurrent(&self, addr: Addr) -> bool {
        self.bins
            .bin_for_addr(addr)
            .is_some_and(|b| b.count() >= self.threshold)
    }
}

impl Repository {
    /// The graph built so far.
    pub fn cfg(&self) -> &Cfg {
        &self.cfg
    }

    /// Consumes the repository, keeping the graph.
    pub fn into_cfg(self) -> Cfg {
        self.cfg
    }

    /// Mutable graph, for interrupt counts.
    pub fn cfg_mut(&mut self) -> &mut Cfg {
        &mut self.cfg
    }

    /// Times `addr` was seen as the successor of a control transfer.
    pub fn target_count(&self, addr: Addr) -> u64 {
        self.addrs.get(&addr).map_or(0, |i| i.target)
    }

    /// Number of distinct known targets.
    pub fn num_targets(&self) -> usize {
        self.addrs.values().filter(|i| i.target > 0).count()
    }

    /// Whether the block entered at `entry` may still grow.
    pub fn is_open(&self, entry: Addr) -> bool {
        self.addrs.get(&entry).is_some_and(|i| i.open)
    }

    /// Block splits performed so far.
    pub fn splits(&self) -> u64 {
        self.splits
    }

    /// Registers a control-transfer successor.
    pub fn add_target(&mut self, addr: Addr) {
        let info = self.addrs.entry(addr).or_default();
        info.target = info.target.saturating_add(1);
    }

    #[inline]
    fn block_of(&self, addr: Addr) -> Option<Addr> {
        self.addrs.get(&addr).and_then(|i| i.block)
    }

    #[inline]
    fn is_boundary(&self, addr: Addr) -> bool {
        self.addrs
            .get(&addr)
            .is_some_and(|i| i.target > 0 || i.block == Some(addr))
    }

    /// Processes one segment by the given routine.
    pub fn walk(&mut self, seg: &[Sample], path: Path, bins: &Bins, recurrent_threshold: u32) {
        let hot = Hot {
            bins,
            threshold: recurrent_threshold as u64,
        };
        let n = seg.len();
        let mut prev_last: Option<usize> = None;
        let mut i = 0;
        while i < n {
            let first = i;
            let mut last = i;
            loop {
                let s = &seg[last];
                if s.flow.ends_block() {
                    if last + 1 < n {
                        self.add_target(seg[last + 1].pc);
                    } else if s.flow != Flow::ReturnInterrupt {
                        self.add_target(s.next_pc);
                    }
                    break;
                }
                if last + 1 >= n || self.is_boundary(seg[last + 1].pc) {
                    break;
                }
                last += 1;
            }
            let open_end = last + 1 >= n && !seg[last].flow.ends_block();
            let run = &seg[first..=last];
            let src = prev_last.map(|pl| seg[pl].pc);
            match path {
                Path::Low => self.low_run(run, open_end, src, &hot),
                Path::High => self.high_run(run, open_end, src, &hot),
            }
            prev_last = Some(last);
            i = last + 1;
        }
    }

    /// What is known of the run start `p`, after making it an entry if it is
    /// a known target inside a block.
    fn resolve_start(&mut self, p: Addr) -> AddrInfo {
        let info = self.addrs.get(&p).copied().unwrap_or_default();
        match info.block {
            Some(entry) if entry != p && info.target > 0 => {
                self.split(entry, p);
                self.addrs.get(&p).copied().unwrap_or_default()
            }
            _ => info,
        }
    }

    fn low_run(&mut self, run: &[Sample], open_end: bool, src: Option<Addr>, hot: &Hot) {
        let p = run[0].pc;
        let info = self.resolve_start(p);
        let entered = if info.block == Some(p) {
            if info.open && hot.recurrent(p) {
                self.extend(run, open_end);
            }
            true
        } else if info.block.is_none() && info.target > 0 && hot.recurrent(p) {
            self.create(run, open_end);
            true
        } else {
            false
        };
        if entered {
            if let Some(src_block) = src.and_then(|q| self.block_of(q)) {
                self.cfg.add_edge(src_block, p, 1);
            }
            self.count_entry(p);
        }
    }

    fn high_run(&mut self, run: &[Sample], open_end: bool, src: Option<Addr>, hot: &Hot) {
        let p = run[0].pc;
        let info = self.resolve_start(p);
        let mut entered = info.block == Some(p);
        let src_block = src.and_then(|q| {
            let b = self.block_of(q)?;
            hot.recurrent(q).then_some(b)
        });
        if let Some(src_block) = src_block {
            if hot.recurrent(p) {
                if info.block.is_none() {
                    // justBuild: the destination's run becomes a block.
                    self.create(run, open_end);
                    entered = true;
                }
                if entered {
                    self.cfg.add_edge(src_block, p, 1);
                }
            }
        }
        if entered {
            self.count_entry(p);
        }
    }

    fn count_entry(&mut self, entry: Addr) {
        if let Some(b) = self.cfg.block_mut(entry) {
            b.count = b.count.saturating_add(1);
        }
    }

    /// A new block from `run`, whose first address belongs to no block.
    fn create(&mut self, run: &[Sample], open_end: bool) {
        let p = run[0].pc;
        let mut block = Block::new(p, run[0].len);
        self.addrs.entry(p).or_default().block = Some(p);
        let mut done = !open_end;
        for s in &run[1..] {
            let info = self.addrs.entry(s.pc).or_default();
            if info.block.is_some() {
                done = true;
                break;
            }
            info.block = Some(p);
            block.instrs.push(s.pc);
            block.end = s.end();
        }
        if let Some(info) = self.addrs.get_mut(&p) {
            info.open = !done;
        }
        self.cfg.insert_block(block);
    }

    /// Grows the open block entered at `run[0].pc` with the run's new
    /// instructions.
    fn extend(&mut self, run: &[Sample], open_end: bool) {
        let p = run[0].pc;
        // Disjoint field borrows: the block lives in `cfg`, the address map
        // beside it.
        let Some(block) = self.cfg.block_mut(p) else {
            return;
        };
        let mut overlap = false;
        for s in &run[1..] {
            let info = self.addrs.entry(s.pc).or_default();
            match info.block {
                Some(b) if b == p => continue,
                Some(_) => {
                    overlap = true;
                    break;
                }
                None => {
                    info.block = Some(p);
                    block.instrs.push(s.pc);
                    block.end = s.end();
                }
            }
        }
        let last = run[run.len() - 1].pc;
        let done = overlap || (!open_end && block.last() == last);
        if done {
            if let Some(info) = self.addrs.get_mut(&p) {
                info.open = false;
            }
        }
    }

    /// Splits the block entered at `entry` so that `at` starts a block.
    fn split(&mut self, entry: Addr, at: Addr) {
        let Some(head) = self.cfg.block_mut(entry) else {
            return;
        };
        let Some(k) = head.instrs.iter().position(|&a| a == at) else {
            return;
        };
        if k == 0 {
            return;
        }
        let tail_instrs = head.instrs.split_off(k);
        let tail_end = head.end;
        head.end = at;
        let count = head.count;
        for &a in &tail_instrs {
            if let Some(info) = self.addrs.get_mut(&a) {
                info.block = Some(at);
            }
        }
        let head_open = self.addrs.get(&entry).is_some_and(|i| i.open);
        if let Some(info) = self.addrs.get_mut(&entry) {
            info.open = false;
        }
        if let Some(info) = self.addrs.get_mut(&at) {
            info.open = head_open;
        }
        self.cfg.insert_block(Block {
            entry: at,
            instrs: tail_instrs,
            end: tail_end,
            count,
        });
        self.cfg.move_out_edges(entry, at, &mut self.edge_scratch);
        self.cfg.add_edge(entry, at, count);
        self.splits += 1;
    }
}
