//! Helpers shared by the reports of `profile`, `sweep` and `cfg record`:
//! disassembly of the instructions in a CFG and the record files.

use std::collections::BTreeMap;

use emu::code_addr;
use emu::cpu::opcodes::OPCODES;
use emu::{FlowCounts, Nes};
use gfc::Cfg;

use crate::cfg_file::{CfgFile, CFG_FILE_VERSION};

/// Disassembly of every instruction address in `cfg`, using the opcode the
/// recorder saw executed there and the operand bytes: of the bank a banked
/// code address names, else in memory now (code in RAM rewritten since may
/// show different operands).
pub fn disassemble(cfg: &Cfg, counts: Option<&FlowCounts>, nes: &Nes) -> BTreeMap<u32, String> {
    let mut out = BTreeMap::new();
    for block in cfg.blocks() {
        for &pc in &block.instrs {
            // The opcode that ran (code in RAM may have changed since),
            // else the one there now.
            let opcode = counts.map_or_else(|| nes.peek_code(pc), |c| c.opcode(pc));
            let len = OPCODES[opcode as usize].byte_len() as u16;
            let mut bytes = vec![opcode];
            bytes.extend((1..len).map(|i| nes.peek_code(code_addr::advance(pc, i))));
            out.insert(pc, emu::disasm::plain(code_addr::cpu_address(pc), &bytes));
        }
    }
    out
}

pub fn record(
    kind: &str,
    rom_name: &str,
    rom_bytes: &[u8],
    frames: u64,
    cfg: Cfg,
    disasm: BTreeMap<u32, String>,
) -> CfgFile {
    CfgFile {
        version: CFG_FILE_VERSION,
        kind: kind.to_string(),
        rom_name: rom_name.to_string(),
        rom_hash: format!("{:016x}", emu::hash::fnv1a64(rom_bytes)),
        frames,
        cfg,
        disasm,
        confidence: Vec::new(),
    }
}
