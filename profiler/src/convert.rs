//! Turns the emulator's retired-instruction records into the architecture-
//! neutral samples GFCGaussiano consumes.

use emu::cpu::opcodes::{Flow as CpuFlow, OPCODES};
use emu::sampling::Retired;
use gfc::{Addr, Flow, Sample};

/// The GFC flow class of a 6502 control-flow class.
pub fn flow_of(flow: CpuFlow) -> Flow {
    match flow {
        CpuFlow::None | CpuFlow::Jam => Flow::None,
        CpuFlow::Branch => Flow::Branch,
        CpuFlow::Jump => Flow::Jump,
        CpuFlow::Call => Flow::Call,
        CpuFlow::Return => Flow::Return,
        CpuFlow::ReturnInterrupt => Flow::ReturnInterrupt,
        CpuFlow::Break => Flow::Break,
    }
}

pub fn sample(r: &Retired) -> Sample {
    let mut s = match r.opcode {
        None => Sample::interrupt(r.pc as Addr),
        Some(opcode) => {
            let info = &OPCODES[opcode as usize];
            Sample::control(
                r.pc as Addr,
                info.byte_len(),
                flow_of(info.flow),
                r.next_pc as Addr,
            )
            .with_target(r.target as Addr)
        }
    };
    s.cycle = r.cycle;
    s
}

pub fn batch(records: &[Retired]) -> Vec<Sample> {
    records.iter().map(sample).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branch_and_interrupt() {
        let taken = sample(&Retired {
            pc: 0x8003,
            opcode: Some(0xD0),
            next_pc: 0x8002,
            target: 0x8002,
            cycle: 9,
        });
        assert_eq!(
            (taken.flow, taken.taken, taken.len, taken.cycle),
            (Flow::Branch, true, 2, 9)
        );
        let not_taken = sample(&Retired {
            pc: 0x8003,
            opcode: Some(0xD0),
            next_pc: 0x8005,
            target: 0x8002,
            cycle: 9,
        });
        assert!(!not_taken.taken);
        assert_eq!(not_taken.target, 0x8002, "known though not taken");
        let nmi = sample(&Retired {
            pc: 0x9000,
            opcode: None,
            next_pc: 0x9000,
            target: 0x9000,
            cycle: 1,
        });
        assert_eq!((nmi.flow, nmi.len), (Flow::Interrupt, 0));
    }
}
