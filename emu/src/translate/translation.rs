//! Translating: finding the block for a PC (keyed by where its code lives
//! under the current mapping) and decoding a new one, marking the RAM and
//! PRG RAM bytes it covers so that writes to them can be caught.

use super::block::{Block, Link, MAX_BLOCK_OPS};
use super::op::Op;
use super::op::PLAIN;
use super::Translator;
use crate::bus::Bus;
use crate::call_stacks::CallCache;
use crate::code_addr::code_address;
use crate::code_watch::CodeKey;
use crate::cpu::opcodes::{Flow, OPCODES};
use crate::flow_counts::FlowCounts;
use crate::frame_events::EventKind;
use crate::wait_loop::JMP_ABSOLUTE;
use std::cell::{Cell, RefCell};

impl Translator {
    /// Where the code at `pc` lives under the current mapping, if it is in
    /// translatable memory and its 3-byte window stays in the same region.
    #[inline]
    pub(super) fn key_for(bus: &Bus, pc: u16) -> Option<CodeKey> {
        match pc {
            0x0000..=0x1FFF => {
                let a = pc & 0x7FF;
                (a <= 0x7FD).then_some(CodeKey::Ram(a))
            }
            0x6000..=0x7FFF => {
                let base = bus.cart.banks.prg_ram?;
                let off = (pc & 0x1FFF) as usize;
                (off <= 0x1FFD)
                    .then(|| CodeKey::PrgRam(((base + off) % bus.cart.prg_ram.len()) as u32))
            }
            0x8000..=0xFFFF => {
                let off = (pc & 0x1FFF) as usize;
                (off <= 0x1FFD).then(|| {
                    CodeKey::PrgRom((bus.cart.banks.prg[(pc as usize >> 13) & 3] + off) as u32)
                })
            }
            _ => None,
        }
    }

    #[inline]
    pub(super) fn index_slot(&mut self, key: CodeKey) -> &mut u32 {
        match key {
            CodeKey::Ram(a) => &mut self.ram_index[a as usize],
            CodeKey::PrgRam(o) => &mut self.prg_ram_index[o as usize],
            CodeKey::PrgRom(o) => &mut self.prg_rom_index[o as usize],
        }
    }

    /// Decodes a block at `pc` from side-effect-free reads (with live
    /// operands if `live`: see [`Block::live`]).
    ///
    /// A block ends before a wait loop's head (`crate::wait_loop`), so
    /// that every arrival there, by fall-through too, runs the loop's own
    /// block ([`Block::wait_loop`]); a head whose loop cannot be one block
    /// is left to the interpreter. The wait-loop rule is asked only here:
    /// in RAM and PRG RAM the block watches every byte it read for the
    /// block's instructions, so a write that could change an answer drops
    /// the block (the answer for the address where the block stopped needs
    /// no watching: a block that stops early only splits). A block with
    /// live operands, whose absolute addresses change unwatched, ends
    /// before any address where a loop could start whatever they are
    /// ([`crate::wait_loop::may_be_at`]), and whether its entry is a loop's
    /// head is asked as it runs where it could be whatever its operands
    /// ([`Block::wait_loop_dynamic`]).
    #[inline]
    pub(super) fn translate(
        &mut self,
        bus: &mut Bus,
        pc: u16,
        key: CodeKey,
        live: bool,
    ) -> Option<u32> {
        let writable = matches!(key, CodeKey::Ram(_) | CodeKey::PrgRam(_));
        // What the wait-loop rule read, in RAM and PRG RAM: with fixed
        // operands how far (offsets from `pc`, plus one), with live ones
        // where.
        let furthest = Cell::new(0u16);
        let read = RefCell::new(Vec::new());
        let peek = |a: u16| {
            let offset = a.wrapping_sub(pc);
            if writable && live {
                read.borrow_mut().push(offset);
            } else if writable {
                furthest.set(furthest.get().max(offset + 1));
            }
            bus.peek(a)
        };
        let (head, head_dynamic) = if live {
            (None, crate::wait_loop::may_be_at_any_operands(pc, peek))
        } else {
            (crate::wait_loop::at(pc, peek), false)
        };
        let mut ops = Vec::new();
        let mut at = pc;
        loop {
            let here = Self::key_for(bus, at)?;
            // Stay inside one region (and, for ROM, one bank window).
            if std::mem::discriminant(&here) != std::mem::discriminant(&key)
                || (at ^ pc) & 0xE000 != 0
            {
                break;
            }
            let bytes = [
                bus.peek(at),
                bus.peek(at.wrapping_add(1)),
                bus.peek(at.wrapping_add(2)),
                0,
            ];
            // A watched address (`frame_events::EventLog::watch`) starts a
            // block of its own.
            if at != pc
                && !self.watched.is_empty()
                && self.watched.contains_key(&code_address(
                    bus.cart.prg_rom.len(),
                    &bus.cart.banks,
                    at,
                ))
            {
                break;
            }
            // (Where it cannot, the rule reads the opcode alone.)
            if at != pc && crate::wait_loop::may_begin(bytes[0]) {
                let before = (furthest.get(), read.borrow().len());
                let head = if live {
                    crate::wait_loop::may_be_at(at, peek)
                } else {
                    crate::wait_loop::at(at, peek).is_some()
                };
                if head {
                    furthest.set(before.0);
                    read.borrow_mut().truncate(before.1);
                    break;
                }
            }
            let info = &OPCODES[bytes[0] as usize];
            // JSR fetches its operand's high byte after pushing the return
            // address: when that byte is in the stack page the pushes can
            // rewrite it, which a pre-decoded copy would miss. Such a JSR
            // is left to the interpreter.
            let high_operand = at.wrapping_add(2);
            if info.flow == Flow::Call && high_operand < 0x2000 && high_operand & 0x700 == 0x100 {
                break;
            }
            let op = Op::new(at, bytes);
            ops.push(if live { op.with_live_operands() } else { op });
            if info.flow != Flow::None || ops.len() == MAX_BLOCK_OPS {
                break;
            }
            at = at.wrapping_add(info.byte_len() as u16);
        }
        let last = *ops.last()?;
        let span = last.pc.wrapping_sub(pc) + OPCODES[last.opcode() as usize].byte_len() as u16;
        let wait_loop = head.is_some();
        let wait_loop_dynamic = head_dynamic;
        if head.is_some_and(|len| len != span) {
            // The loop does not fit one block (it cannot, by the wait-loop
            // rule and where blocks end, but the interpreter would count
            // its iterations if it did).
            return None;
        }
        let (watch_end, watch_extra) = Self::watch_beyond(&ops, furthest.get(), &read.into_inner());
        if writable {
            let prg_ram_len = self.prg_ram_cover.len();
            for loc in Self::watched_bytes(key, &ops, live, watch_end, &watch_extra, prg_ram_len) {
                let cover = self.cover_slot(loc);
                *cover += 1;
                if *cover == 1 {
                    bus.set_code_mark(loc, true);
                }
            }
        }
        let code_high = code_address(bus.cart.prg_rom.len(), &bus.cart.banks, pc) & !0xFFFF;
        let exit = last.opcode();
        let exit_flow = OPCODES[exit as usize].flow;
        // A `JMP` back into the wait loop it closes logs no event: known
        // now in ROM, looked at as it runs where the loop may change.
        let exit_event_checked = writable && exit == JMP_ABSOLUTE;
        let closes_loop = !writable
            && exit == JMP_ABSOLUTE
            && crate::wait_loop::jumps_back(
                last.pc,
                u16::from_le_bytes([last.bytes[1], last.bytes[2]]),
                |a| bus.peek(a),
            );
        let exit_event = EventKind::of_instruction(exit).filter(|_| !closes_loop);
        // No transfer of its own: it may fall, or branch forward, into a
        // watched address (checked as it runs, `Translator::log_run`). A
        // branch with live operands is a candidate wherever it goes now:
        // its offset is read again at every run, and rewriting it drops
        // the block no more, so a branch translated while it went
        // elsewhere may later go forward into a watched address (issue 45,
        // fuzz seed 9011487). Only with watched addresses, so the plain
        // translator's blocks are as they were.
        let live_branch = live && exit_flow == Flow::Branch;
        let next = last
            .pc
            .wrapping_add(OPCODES[exit as usize].byte_len() as u16);
        let branch = (exit_flow == Flow::Branch)
            .then(|| next.wrapping_add(last.bytes[1] as i8 as u16))
            .filter(|&to| to > last.pc);
        let falls_into = exit_event.is_none()
            && !self.watched.is_empty()
            && (live_branch
                || [Some(next).filter(|&n| n > last.pc), branch]
                    .into_iter()
                    .flatten()
                    .any(|to| {
                        self.watched.contains_key(&code_address(
                            bus.cart.prg_rom.len(),
                            &bus.cart.banks,
                            to,
                        ))
                    }));
        let exit_event = exit_event.or(falls_into.then_some(EventKind::FallInto));
        // A live block's operands change without invalidating it: its
        // transfers are counted in bulk only where they have no static
        // target to go stale (an RTS, a `JMP` indirect, a fall-through).
        let counts_by_links = FlowCounts::transfers_in_bulk(exit_flow)
            && !(live && FlowCounts::has_static_target(exit));
        let polls_vblank = !live && Block::is_vblank_poll(&ops);
        let block = Block {
            key,
            code_high,
            entry: ops[0].pc,
            idle_loop: polls_vblank || (!live && Block::is_idle_loop(&ops)),
            polls_vblank,
            branch_noted: false,
            self_loop: exit_flow == Flow::Branch
                && (live || last.branch_target() == Some(ops[0].pc)),
            repeat_at: None,
            wait_loop,
            logs: wait_loop || wait_loop_dynamic || exit_event.is_some(),
            plain_event: exit_event.filter(|&e| {
                !(wait_loop
                    || wait_loop_dynamic
                    || e == EventKind::FallInto
                    || (e == EventKind::Jump && exit_event_checked))
            }),
            iterates: wait_loop || wait_loop_dynamic,
            exit_code: last.code(code_high),
            wait_loop_dynamic,
            exit_event,
            exit_event_checked,
            watch_end,
            watch_extra,
            live,
            idle_timing: None,
            ops,
            valid: true,
            pending_body_runs: 0,
            pending_runs: 0,
            counts_by_links,
            exit_flow,
            call_cache: CallCache::default(),
            // Stamp 0 is never current (the epoch starts at 1).
            links: [Link::default(); 2],
            handlers: PLAIN,
            region: 0,
            in_region: false,
            region_failed: false,
        };
        let block = Block {
            repeat_at: block.repeat_at_for(self.no_idle_skip, self.taken.is_some()),
            ..block
        };
        self.stats.translated += 1;
        let id = match self.free.pop() {
            Some(id) => {
                self.blocks[id as usize] = block;
                id
            }
            None => {
                self.blocks.push(block);
                (self.blocks.len() - 1) as u32
            }
        };
        if writable {
            self.writable_blocks.push(id);
        }
        Some(id)
    }

    /// What a block of `ops` watches besides its ops' bytes, given what
    /// the wait-loop rule read for it: the end of the run it watches (its
    /// ops' 3-byte windows, or `furthest` where the rule read on past
    /// them), and with live operands the bytes the rule read besides its
    /// opcodes (`read`, offsets from its entry: opcodes past its own,
    /// branch offsets and jump targets; a live block watches its opcodes
    /// only).
    fn watch_beyond(ops: &[Op], furthest: u16, read: &[u16]) -> (u16, Box<[u16]>) {
        let entry = ops[0].pc;
        let windows_end = ops[ops.len() - 1].pc.wrapping_sub(entry) + 3;
        let mut extra: Vec<u16> = read
            .iter()
            .copied()
            .filter(|&r| !ops.iter().any(|op| op.pc.wrapping_sub(entry) == r))
            .collect();
        extra.sort_unstable();
        extra.dedup();
        let end = extra.last().map_or(furthest, |&r| furthest.max(r + 1));
        (windows_end.max(end), extra.into_boxed_slice())
    }

    /// The RAM / PRG RAM bytes at offsets `offsets` from the entry of a
    /// block keyed `key`, located from the key so a later PRG RAM bank
    /// switch cannot shift them.
    #[inline]
    fn located(
        key: CodeKey,
        offsets: impl Iterator<Item = u16>,
        prg_ram_len: usize,
    ) -> impl Iterator<Item = CodeKey> {
        let prg_ram_len = prg_ram_len.max(1) as u32;
        offsets.map(move |delta| match key {
            CodeKey::Ram(a) => CodeKey::Ram(a.wrapping_add(delta) & 0x7FF),
            CodeKey::PrgRam(o) => CodeKey::PrgRam((o + delta as u32) % prg_ram_len),
            CodeKey::PrgRom(o) => CodeKey::PrgRom(o + delta as u32),
        })
    }

    /// The bytes whose writes concern a block of `ops`: all it was decoded
    /// from and what the wait-loop rule read beyond them, up to `watch_end`
    /// (see [`Block::watch_end`]); or with live operands only its opcodes
    /// and the operand bytes `extra` (see [`Block::live`],
    /// [`Block::watch_extra`]).
    pub(super) fn watched_bytes<'a>(
        key: CodeKey,
        ops: &'a [Op],
        live: bool,
        watch_end: u16,
        extra: &'a [u16],
        prg_ram_len: usize,
    ) -> impl Iterator<Item = CodeKey> + 'a {
        let entry = ops.first().map_or(0, |op| op.pc);
        let run = if live { 0..0 } else { 0..watch_end };
        let opcodes = ops
            .iter()
            .filter(move |_| live)
            .map(move |op| op.pc.wrapping_sub(entry));
        let offsets = run.chain(opcodes).chain(extra.iter().copied());
        Self::located(key, offsets, prg_ram_len)
    }

    #[inline]
    pub(super) fn cover_slot(&mut self, loc: CodeKey) -> &mut u16 {
        match loc {
            CodeKey::Ram(a) => &mut self.ram_cover[a as usize],
            CodeKey::PrgRam(o) => &mut self.prg_ram_cover[o as usize],
            CodeKey::PrgRom(_) => unreachable!("PRG ROM is never written"),
        }
    }
}
