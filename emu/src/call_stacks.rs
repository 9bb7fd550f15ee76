//! Call stacks of a run, for flame graphs: the ground-truth recorder
//! (`flow_counts.rs`) follows JSR/RTS, BRK/RTI and hardware interrupts and
//! credits every retired instruction to the chain of routine entries it ran
//! under.
//!
//! The contexts form a trie (node = parent context + entry code address +
//! how it was entered; node 0 is the root, the code reset started), so a
//! context costs one node however often it recurs, and the weight of a node
//! is the instructions retired in it (not in its callees).
//!
//! The 6502 has no frame pointer and programs use the stack freely, so
//! frames are not matched JSR-to-RTS. A frame remembers the stack pointer
//! that returning from it restores (`ret_sp`): its return address lives in
//! the two (three for interrupts) bytes just below, and once the stack
//! pointer is at or above `ret_sp` that address is gone — popped by its
//! RTS/RTI, dropped by PLA PLA, or abandoned by a TXS that reset the stack.
//! At every stack event (JSR, RTS, RTI, BRK, NMI/IRQ entry) every frame whose
//! `ret_sp` is at or below the stack pointer is closed. That handles:
//! - a routine that drops its return address (PLA PLA) and returns to its
//!   caller's caller: the RTS closes both frames;
//! - the "push address-1 then RTS" jump: the RTS pulls only what was
//!   pushed, the stack pointer stays below the current frame's `ret_sp`, and
//!   the target runs in the same frame (a jump, not a return);
//! - a stack reset by TXS (a handler that never returns): the frames it
//!   abandoned close at the next stack event.
//!
//! Events happen only at control-transfer instructions and interrupt
//! entries, which both engines report one at a time (the translator's block
//! bodies are straight-line code), so both engines build the same stacks.
//! Instructions are credited lazily: each engine adds what retired to
//! `pending` (one add per instruction or per translated block run) and the
//! pending count goes to the current context at the next event, or when read.
//!
//! Between truth bursts nothing may be needed of the stacks, and following
//! every JSR and RTS there cost bursty recording more than its bursts (see
//! `translate::flow`): the recorder is then parked ([`CallStacks::park`])
//! and hears of nothing, and when it resumes ([`CallStacks::resume`]) the
//! stacks are read back from the 6502's stack page. A frame open at the
//! park whose return address (or interrupt frame) still sits, unchanged,
//! above the stack pointer is kept, with its activation; below the
//! innermost one kept, each pair of bytes that holds the return address
//! of a `JSR` (the byte two before it, in the code mapped now, is a `JSR`
//! opcode) is taken as a call of that `JSR`'s target, outermost first. This
//! is a reading, not a record: data pushed between two calls that happens
//! to look like such an address adds a frame, and an interrupt entered
//! while parked, or a return address into a bank switched out since, is
//! missed. Bursts start at frame boundaries, where games are mostly in
//! their main loop a few calls deep; the bursty profiles' overlap with the
//! full ones (BENCHMARKS.md, issue 26) measures what this loses.
//!
//! Known limits: frames pushed while the stack pointer wraps below $0100
//! close at the next event; contexts beyond [`MAX_DEPTH`] frames (or beyond
//! [`MAX_NODES`] distinct contexts) are credited to the deepest one kept, so
//! a runaway program cannot grow memory.

use crate::int_hash::IntMap;

/// Deepest call stack kept; deeper calls are credited to the frame at this
/// depth. NES programs rarely nest more than a dozen calls deep.
pub const MAX_DEPTH: usize = 64;

/// Most distinct contexts kept (a node is 24 bytes plus its map entry).
pub const MAX_NODES: usize = 1 << 20;

/// How a frame was entered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FrameKind {
    /// JSR.
    Call,
    /// BRK (software interrupt).
    Brk,
    /// NMI.
    Nmi,
    /// IRQ.
    Irq,
    /// A hardware interrupt reported without saying which.
    Interrupt,
}

impl FrameKind {
    fn bits(self) -> u64 {
        self as u64
    }
}

/// One frame of a call stack: the code address it was entered at
/// (`crate::code_addr`) and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Frame {
    pub entry: u32,
    pub kind: FrameKind,
}

#[derive(Debug, Clone)]
struct Node {
    parent: u32,
    frame: Frame,
    /// Instructions retired in this context (credited so far).
    weight: u64,
}

type KeyMap = IntMap<u64, u32>;

/// What a call site remembers of the context its last `JSR` entered
/// ([`CallStacks::call_cached`]): the trie lookup is skipped when the same
/// site calls the same target from the same context of the same recorder
/// again, as loops and per-frame routines mostly do.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallCache {
    /// The recorder's [`CallStacks::id`] (0: none).
    stacks: u32,
    parent: u32,
    target: u32,
    node: u32,
}

/// Identities of recorders ([`CallStacks::id`]), from 1.
static NEXT_ID: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);

fn next_id() -> u32 {
    NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// The call-stack recorder (see the module doc).
pub struct CallStacks {
    /// Tells recorders apart for the call sites' caches: a copy gets its
    /// own, since its trie may grow apart from the original's.
    id: u32,
    nodes: Vec<Node>,
    /// (parent node, entry, kind) packed into a u64 → child node.
    children: KeyMap,
    /// Open frames, outermost first: (node, stack pointer after return,
    /// activation serial: the value of `pushes` when it was entered).
    stack: Vec<(u32, u8, u64)>,
    /// Frames entered so far: tells two activations of one context apart
    /// (the memory recorder's common ancestors, `memory_profile.rs`).
    pushes: u64,
    /// Instructions retired since the last event, not yet credited.
    pending: u64,
    /// While parked: the stack-page bytes of each open frame (its return
    /// address, and for an interrupt the status pushed with it), `None`
    /// where they wrapped around the page.
    parked: Vec<Option<[u8; 3]>>,
}

/// (Without the identity: two recorders holding the same stacks print
/// alike.)
impl std::fmt::Debug for CallStacks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallStacks")
            .field("nodes", &self.nodes)
            .field("children", &self.children)
            .field("stack", &self.stack)
            .field("pushes", &self.pushes)
            .field("pending", &self.pending)
            .field("parked", &self.parked)
            .finish()
    }
}

impl Clone for CallStacks {
    fn clone(&self) -> Self {
        CallStacks {
            id: next_id(),
            nodes: self.nodes.clone(),
            children: self.children.clone(),
            stack: self.stack.clone(),
            pushes: self.pushes,
            pending: self.pending,
            parked: self.parked.clone(),
        }
    }

    fn clone_from(&mut self, other: &Self) {
        self.nodes.clone_from(&other.nodes);
        self.children.clone_from(&other.children);
        self.stack.clone_from(&other.stack);
        self.pushes = other.pushes;
        self.pending = other.pending;
        self.parked.clone_from(&other.parked);
        self.id = next_id();
    }
}

impl Default for CallStacks {
    fn default() -> Self {
        CallStacks::new()
    }
}

impl CallStacks {
    pub fn new() -> CallStacks {
        CallStacks {
            id: next_id(),
            nodes: vec![Node {
                parent: 0,
                frame: Frame {
                    entry: 0,
                    kind: FrameKind::Call,
                },
                weight: 0,
            }],
            children: KeyMap::default(),
            stack: Vec::new(),
            pushes: 0,
            pending: 0,
            parked: Vec::new(),
        }
    }

    /// Bytes the frame of `node` with return stack pointer `ret_sp` holds
    /// on the stack page (the return address; an interrupt's status byte
    /// too), and where the lowest of them is.
    fn frame_bytes(&self, node: u32, ret_sp: u8, page: &[u8; 256]) -> Option<(u8, [u8; 3])> {
        let size = match self.nodes[node as usize].frame.kind {
            FrameKind::Call => 2,
            _ => 3,
        };
        let low = (ret_sp as usize + 1).checked_sub(size)?;
        let mut bytes = [0; 3];
        bytes[..size].copy_from_slice(&page[low..=ret_sp as usize]);
        Some((low as u8, bytes))
    }

    /// Stops hearing of events (see the module doc): remembers what each
    /// open frame holds on the stack page `page` now.
    pub fn park(&mut self, page: &[u8; 256]) {
        self.credit();
        self.parked = self
            .stack
            .iter()
            .map(|&(node, ret_sp, _)| self.frame_bytes(node, ret_sp, page).map(|(_, b)| b))
            .collect();
    }

    /// Hears of events again, with the stack pointer at `sp` and the stack
    /// page `page` (see the module doc): keeps the open frames still on
    /// the stack, then reads the calls below them. `jsr_target(address)`
    /// is the code address of the target of the `JSR` whose return address
    /// is `address` (so the `JSR` is at `address - 2`), `None` if no `JSR`
    /// is there.
    pub fn resume(
        &mut self,
        page: &[u8; 256],
        sp: u8,
        jsr_target: &mut dyn FnMut(u16) -> Option<u32>,
    ) {
        let parked = std::mem::take(&mut self.parked);
        let kept = self
            .stack
            .iter()
            .zip(&parked)
            .take_while(|&(&(node, ret_sp, _), saved)| {
                match (self.frame_bytes(node, ret_sp, page), saved) {
                    (Some((low, now)), Some(then)) => low > sp && now == *then,
                    _ => false,
                }
            })
            .count();
        self.stack.truncate(kept);
        // The lowest byte of the innermost frame kept (the page's end if
        // none): calls below it are read from the page.
        let floor = self
            .stack
            .last()
            .and_then(|&(node, ret_sp, _)| self.frame_bytes(node, ret_sp, page))
            .map_or(0x100, |(low, _)| low as usize);
        // `high` is where a return address's high byte would be.
        let mut high = floor;
        while high >= sp as usize + 3 {
            high -= 1;
            let address = u16::from_le_bytes([page[high - 1], page[high]]);
            if let Some(target) = jsr_target(address) {
                self.enter(target, FrameKind::Call, high as u8);
                high -= 1;
            }
        }
    }

    /// `n` instructions retired in the current context.
    #[inline(always)]
    pub fn retired(&mut self, n: u64) {
        self.pending += n;
    }

    /// A JSR to `target` retired, leaving the stack pointer at `sp`.
    #[inline]
    pub fn call(&mut self, target: u32, sp: u8) {
        self.enter(target, FrameKind::Call, sp.wrapping_add(2));
    }

    /// BRK or a hardware interrupt entered `handler`, leaving the stack
    /// pointer at `sp` after its three pushes.
    #[inline]
    pub fn interrupt(&mut self, handler: u32, kind: FrameKind, sp: u8) {
        self.enter(handler, kind, sp.wrapping_add(3));
    }

    /// An RTS or RTI retired, leaving the stack pointer at `sp`.
    #[inline]
    pub fn ret(&mut self, sp: u8) {
        self.credit();
        self.close_below(sp);
    }

    #[inline]
    fn credit(&mut self) {
        let node = self.current() as usize;
        self.nodes[node].weight += self.pending;
        self.pending = 0;
    }

    /// The current context's node.
    #[inline]
    fn current(&self) -> u32 {
        self.stack.last().map_or(0, |&(node, _, _)| node)
    }

    /// Closes the frames whose return address is no longer on the stack.
    #[inline]
    fn close_below(&mut self, sp: u8) {
        while let Some(&(_, ret_sp, _)) = self.stack.last() {
            if ret_sp > sp {
                break;
            }
            self.stack.pop();
        }
    }

    /// [`CallStacks::call`] from a call site that keeps `cache`.
    #[inline]
    pub fn call_cached(&mut self, target: u32, sp: u8, cache: &mut CallCache) {
        self.enter_from(target, FrameKind::Call, sp.wrapping_add(2), Some(cache));
    }

    fn enter(&mut self, entry: u32, kind: FrameKind, ret_sp: u8) {
        self.enter_from(entry, kind, ret_sp, None);
    }

    /// Opens a frame for `entry` entered by `kind`, returning to `ret_sp`,
    /// from a call site that keeps `cache` if any.
    #[inline(always)]
    fn enter_from(
        &mut self,
        entry: u32,
        kind: FrameKind,
        ret_sp: u8,
        cache: Option<&mut CallCache>,
    ) {
        self.credit();
        // The new frame's return address was pushed where any frame with
        // `ret_sp` at or below this one's had its own: those are gone.
        self.close_below(ret_sp);
        if self.stack.len() >= MAX_DEPTH {
            return;
        }
        let parent = self.current();
        let node = match cache {
            Some(c) if (c.stacks, c.parent, c.target) == (self.id, parent, entry) => c.node,
            Some(c) => {
                let Some(node) = self.child(parent, entry, kind) else {
                    return;
                };
                *c = CallCache {
                    stacks: self.id,
                    parent,
                    target: entry,
                    node,
                };
                node
            }
            None => match self.child(parent, entry, kind) {
                Some(node) => node,
                None => return,
            },
        };
        self.pushes += 1;
        self.stack.push((node, ret_sp, self.pushes));
    }

    /// The node of context `parent` entering `entry` by `kind`, added if
    /// new (`None` when the trie is full).
    fn child(&mut self, parent: u32, entry: u32, kind: FrameKind) -> Option<u32> {
        let key = (parent as u64) << 32 | (entry as u64) << 3 | kind.bits();
        if let Some(&node) = self.children.get(&key) {
            return Some(node);
        }
        if self.nodes.len() >= MAX_NODES {
            return None;
        }
        let node = self.nodes.len() as u32;
        self.nodes.push(Node {
            parent,
            frame: Frame { entry, kind },
            weight: 0,
        });
        self.children.insert(key, node);
        Some(node)
    }

    /// Frames entered so far (each entry's activation serial is the count
    /// after it).
    #[inline]
    pub fn pushes(&self) -> u64 {
        self.pushes
    }

    /// The activation serial of each open frame, outermost first (the
    /// frame at depth d + 1 of the current node's path is the d-th).
    pub fn activations(&self) -> impl DoubleEndedIterator<Item = u64> + '_ {
        self.stack.iter().map(|&(_, _, serial)| serial)
    }

    /// The current context's node id (0 = the root).
    #[inline]
    pub fn current_node(&self) -> u32 {
        self.current()
    }

    /// How many nodes (contexts) the trie holds; node ids are below this.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// The parent of `node` (the root is its own parent).
    pub fn parent(&self, node: u32) -> u32 {
        self.nodes[node as usize].parent
    }

    /// The frame that entered `node` (the root's is a placeholder call of
    /// entry 0).
    pub fn frame(&self, node: u32) -> Frame {
        self.nodes[node as usize].frame
    }

    /// The frames of `node` from the outermost (empty for the root), or
    /// none for an unknown node.
    pub fn path(&self, node: u32) -> Vec<Frame> {
        let mut frames = Vec::new();
        let mut at = node as usize;
        if at >= self.nodes.len() {
            return frames;
        }
        while at != 0 {
            frames.push(self.nodes[at].frame);
            at = self.nodes[at].parent as usize;
        }
        frames.reverse();
        frames
    }

    /// Open frames now, outermost first.
    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    /// Instructions credited to all contexts, including those not yet
    /// credited (equals the instructions retired while recording).
    pub fn total(&self) -> u64 {
        self.nodes.iter().map(|n| n.weight).sum::<u64>() + self.pending
    }

    /// Every context with instructions retired in it: its frames from the
    /// outermost (empty for the root context) and its instruction count.
    /// In trie order (a context after its ancestors).
    pub fn stacks(&self) -> impl Iterator<Item = (Vec<Frame>, u64)> + '_ {
        let current = self.current() as usize;
        self.nodes.iter().enumerate().filter_map(move |(i, node)| {
            let weight = node.weight + if i == current { self.pending } else { 0 };
            if weight == 0 {
                return None;
            }
            let mut frames = Vec::new();
            let mut at = i;
            while at != 0 {
                frames.push(self.nodes[at].frame);
                at = self.nodes[at].parent as usize;
            }
            frames.reverse();
            Some((frames, weight))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(entry: u32) -> Frame {
        Frame {
            entry,
            kind: FrameKind::Call,
        }
    }

    fn stacks(s: &CallStacks) -> Vec<(Vec<Frame>, u64)> {
        let mut v: Vec<_> = s.stacks().collect();
        v.sort();
        v
    }

    /// Runs `n` instructions then a JSR (counted in the caller) to `target`
    /// from stack pointer `sp` (before the JSR).
    fn jsr(s: &mut CallStacks, n: u64, target: u32, sp: u8) {
        s.retired(n + 1);
        s.call(target, sp.wrapping_sub(2));
    }

    /// `n` instructions then an RTS (counted in the callee) that leaves the
    /// stack pointer at `sp`.
    fn rts(s: &mut CallStacks, n: u64, sp: u8) {
        s.retired(n + 1);
        s.ret(sp);
    }

    /// Parked in B (called from A), then B returned, A pushed a byte and
    /// called C: resuming keeps A (its return address is intact), drops B
    /// (its bytes were overwritten) and reads C's return address.
    #[test]
    fn resume_keeps_intact_frames_and_reads_new_calls() {
        let mut page = [0u8; 256];
        let mut s = CallStacks::new();
        // JSR $8100 at $8010 (returns to $8012+1) with SP $FF.
        page[0xFF] = 0x80;
        page[0xFE] = 0x12;
        s.call(0x8100, 0xFD);
        // JSR $8200 at $8105.
        page[0xFD] = 0x81;
        page[0xFC] = 0x07;
        s.call(0x8200, 0xFB);
        s.park(&page);
        // B's RTS, a PHA of $55, JSR $8300 at $8120.
        page[0xFD] = 0x55;
        page[0xFC] = 0x81;
        page[0xFB] = 0x22;
        let mut jsr_target = |address: u16| match address {
            0x8012 => Some(0x8100),
            0x8107 => Some(0x8200),
            0x8122 => Some(0x8300),
            _ => None,
        };
        s.resume(&page, 0xFA, &mut jsr_target);
        assert_eq!(s.path(s.current_node()), vec![call(0x8100), call(0x8300)]);
        // A is the same activation; C a new one.
        assert_eq!(s.activations().collect::<Vec<_>>(), vec![1, 3]);
        // Below a stack pointer above every frame, none is kept or read.
        s.park(&page);
        s.resume(&page, 0xFF, &mut jsr_target);
        assert_eq!(s.depth(), 0);
    }

    /// A call site's cache gives the same contexts as the lookup, from any
    /// parent and in any recorder (another's nodes are numbered apart).
    #[test]
    fn cached_calls_enter_the_contexts_lookups_do() {
        let mut cache = CallCache::default();
        let (mut a, mut b) = (CallStacks::new(), CallStacks::new());
        b.call(0x9000, 0xFD);
        b.ret(0xFF);
        for s in [&mut a, &mut b] {
            for outer in [None, Some(0x8800)] {
                for _ in 0..2 {
                    if let Some(target) = outer {
                        s.call(target, 0xFD);
                    }
                    s.retired(1);
                    s.call_cached(0x8100, 0xFB, &mut cache);
                    let expected: Vec<_> = outer.into_iter().chain([0x8100]).map(call).collect();
                    assert_eq!(s.path(s.current_node()), expected);
                    s.ret(0xFF);
                }
            }
        }
        let mut copy = a.clone();
        copy.call_cached(0x8100, 0xFB, &mut cache);
        assert_eq!(copy.path(copy.current_node()), vec![call(0x8100)]);
        assert_ne!(cache.stacks, a.id);
    }

    #[test]
    fn nested_calls_credit_each_context() {
        let mut s = CallStacks::new();
        jsr(&mut s, 2, 0x8100, 0xFF); // root: 3 (incl. JSR)
        jsr(&mut s, 4, 0x8200, 0xFD); // A: 5
        rts(&mut s, 6, 0xFD); // B: 7
        rts(&mut s, 0, 0xFF); // A: +1
        s.retired(10); // root: +10
        assert_eq!(
            stacks(&s),
            vec![
                (vec![], 13),
                (vec![call(0x8100)], 6),
                (vec![call(0x8100), call(0x8200)], 7),
            ]
        );
        assert_eq!(s.total(), 26);
        assert_eq!(s.depth(), 0);
    }

    #[test]
    fn repeated_calls_share_a_context() {
        let mut s = CallStacks::new();
        for _ in 0..3 {
            jsr(&mut s, 0, 0x9000, 0xFF);
            rts(&mut s, 1, 0xFF);
        }
        assert_eq!(stacks(&s), vec![(vec![], 3), (vec![call(0x9000)], 6)]);
    }

    #[test]
    fn rts_used_as_a_jump_stays_in_the_frame() {
        let mut s = CallStacks::new();
        jsr(&mut s, 0, 0x8100, 0xFF); // A, SP $FD
                                      // A pushes a target address - 1 (SP $FB) and RTSes to it: SP $FD.
        rts(&mut s, 2, 0xFD);
        s.retired(5); // the target, still inside A
        assert_eq!(s.depth(), 1);
        rts(&mut s, 0, 0xFF); // the target returns to A's caller
        assert_eq!(s.depth(), 0);
        assert_eq!(stacks(&s), vec![(vec![], 1), (vec![call(0x8100)], 9)]);
    }

    #[test]
    fn dropped_return_address_returns_two_levels() {
        let mut s = CallStacks::new();
        jsr(&mut s, 0, 0x8100, 0xFF); // A, SP $FD
        jsr(&mut s, 0, 0x8200, 0xFD); // B, SP $FB
                                      // B: PLA PLA (SP $FD) then RTS to A's caller (SP $FF).
        rts(&mut s, 2, 0xFF);
        assert_eq!(s.depth(), 0);
        // A jump-table dispatcher: PLA PLA, JMP (ind) to a routine that
        // calls another: the dispatcher's frame is gone at that JSR.
        jsr(&mut s, 0, 0x8300, 0xFF); // dispatcher, SP $FD
        s.retired(3); // PLA PLA JMP: SP $FF
        jsr(&mut s, 0, 0x8400, 0xFF);
        assert_eq!(s.depth(), 1);
        assert_eq!(
            stacks(&s)
                .iter()
                .map(|(f, _)| f.clone())
                .collect::<Vec<_>>(),
            vec![
                vec![],
                vec![call(0x8100)],
                vec![call(0x8100), call(0x8200)],
                vec![call(0x8300)],
            ]
        );
        // The call from the dispatched routine hangs off the root.
        rts(&mut s, 0, 0xFF);
        assert!(stacks(&s).contains(&(vec![call(0x8400)], 1)));
    }

    #[test]
    fn interrupt_during_a_call() {
        let mut s = CallStacks::new();
        jsr(&mut s, 0, 0x8100, 0xFF); // A, SP $FD
        s.retired(2);
        s.interrupt(0xC000, FrameKind::Nmi, 0xFA); // SP $FD - 3
        jsr(&mut s, 1, 0xC100, 0xFA); // handler calls H, SP $F8
        rts(&mut s, 0, 0xFA);
        s.retired(1);
        s.ret(0xFD); // RTI
        assert_eq!(s.depth(), 1);
        s.retired(1);
        let nmi = Frame {
            entry: 0xC000,
            kind: FrameKind::Nmi,
        };
        assert_eq!(
            stacks(&s),
            vec![
                (vec![], 1),
                (vec![call(0x8100)], 3),
                (vec![call(0x8100), nmi], 3),
                (vec![call(0x8100), nmi, call(0xC100)], 1),
            ]
        );
    }

    #[test]
    fn stack_reset_abandons_frames() {
        let mut s = CallStacks::new();
        jsr(&mut s, 0, 0x8100, 0xFF); // main calls A, SP $FD
        jsr(&mut s, 0, 0x8200, 0xFD); // SP $FB
        s.interrupt(0xC000, FrameKind::Nmi, 0xF8);
        // The handler resets the stack (LDX #$FF TXS) and jumps to the main
        // loop, which calls A again: everything before is abandoned.
        s.retired(3);
        jsr(&mut s, 0, 0x8100, 0xFF);
        assert_eq!(s.depth(), 1);
        assert_eq!(s.current(), s.children[&(0x8100u64 << 3)]);
    }

    #[test]
    fn depth_is_capped_and_returns_still_match() {
        let mut s = CallStacks::new();
        let mut sp = 0xFFu8;
        for i in 0..100 {
            jsr(&mut s, 0, 0x8000 + i, sp);
            sp -= 2;
        }
        assert_eq!(s.depth(), MAX_DEPTH);
        let deepest = s.current();
        // Returning from the calls beyond the cap leaves the deepest frame
        // kept open; returning past it closes it.
        for _ in 0..(100 - MAX_DEPTH) {
            sp += 2;
            rts(&mut s, 0, sp);
        }
        assert_eq!(s.depth(), MAX_DEPTH);
        assert_eq!(s.current(), deepest);
        sp += 2;
        rts(&mut s, 0, sp);
        assert_eq!(s.depth(), MAX_DEPTH - 1);
        assert!(s.stacks().all(|(f, _)| f.len() <= MAX_DEPTH));
        assert_eq!(s.total(), 100 + 100 - MAX_DEPTH as u64 + 1);
    }

    #[test]
    fn brk_and_rti() {
        let mut s = CallStacks::new();
        s.retired(1);
        s.interrupt(0xE000, FrameKind::Brk, 0xFC);
        s.retired(2);
        s.ret(0xFF);
        assert_eq!(s.depth(), 0);
        let brk = Frame {
            entry: 0xE000,
            kind: FrameKind::Brk,
        };
        assert_eq!(stacks(&s), vec![(vec![], 1), (vec![brk], 2)]);
    }
}
