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
    #[inline]
    pub(super) fn translate(
        &mut self,
        bus: &mut Bus,
        pc: u16,
        key: CodeKey,
        live: bool,
    ) -> Option<u32> {
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
        if ops.is_empty() {
            return None;
        }
        let writable = matches!(key, CodeKey::Ram(_) | CodeKey::PrgRam(_));
        if writable {
            for loc in Self::watched_bytes(key, &ops, live, self.prg_ram_cover.len()) {
                let cover = self.cover_slot(loc);
                *cover += 1;
                if *cover == 1 {
                    bus.set_code_mark(loc, true);
                }
            }
        }
        let code_high = code_address(bus.cart.prg_rom.len(), &bus.cart.banks, pc) & !0xFFFF;
        let exit = ops[ops.len() - 1].opcode();
        let exit_flow = OPCODES[exit as usize].flow;
        // A live block's operands change without invalidating it: its
        // transfers are counted in bulk only where they have no static
        // target to go stale (an RTS, a `JMP` indirect, a fall-through).
        let counts_by_links = FlowCounts::transfers_in_bulk(exit_flow)
            && !(live && FlowCounts::has_static_target(exit));
        let block = Block {
            key,
            code_high,
            idle_loop: !live && Block::is_idle_loop(&ops),
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

    /// The RAM / PRG RAM bytes a block's instructions occupy (each op's 3-byte
    /// window, as the ops store 3 bytes), located from the block's key so a
    /// later PRG RAM bank switch cannot shift them.
    #[inline]
    pub(super) fn covered_bytes(
        key: CodeKey,
        ops: &[Op],
        prg_ram_len: usize,
    ) -> impl Iterator<Item = CodeKey> + '_ {
        let prg_ram_len = prg_ram_len.max(1) as u32;
        let entry = ops.first().map_or(0, |op| op.pc);
        ops.iter().flat_map(move |op| {
            (0..3u16).map(move |i| {
                let delta = op.pc.wrapping_sub(entry).wrapping_add(i);
                match key {
                    CodeKey::Ram(a) => CodeKey::Ram(a.wrapping_add(delta) & 0x7FF),
                    CodeKey::PrgRam(o) => CodeKey::PrgRam((o + delta as u32) % prg_ram_len),
                    CodeKey::PrgRom(o) => CodeKey::PrgRom(o + delta as u32),
                }
            })
        })
    }

    /// The bytes whose writes concern a block: all it was decoded from, or
    /// with live operands only its opcodes (see [`Block::live`]).
    pub(super) fn watched_bytes(
        key: CodeKey,
        ops: &[Op],
        live: bool,
        prg_ram_len: usize,
    ) -> impl Iterator<Item = CodeKey> + '_ {
        let step = if live { 3 } else { 1 };
        Self::covered_bytes(key, ops, prg_ram_len).step_by(step)
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
