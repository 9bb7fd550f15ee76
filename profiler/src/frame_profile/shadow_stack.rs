//! The shadow call stack's frames, and how they are read back from the
//! 6502's stack page when a window starts mid-run.
//!
//! The 6502 has no frame pointer and programs use the stack freely, so a
//! frame is not matched call-to-return: as `emu::call_stacks` does, it
//! remembers the stack pointer at which it is gone (`ret_sp`, the stack
//! pointer before the `JSR` or the interrupt's pushes; its return address
//! sits just below), and every event closes the frames whose `ret_sp` is
//! at or below the stack pointer — popped by their `RTS`/`RTI`, dropped by
//! `PLA PLA`, abandoned by a `TXS` that reset the stack. Frames on the
//! stack then have strictly decreasing `ret_sp` from the bottom up, so at
//! most 256 are open, whatever the program does. A frame pushed while the
//! stack pointer wraps below $0100 wraps too and closes at the next event
//! (as in `emu::call_stacks`).
//!
//! The accounting's rules on top of this (tail calls, the RTS trick,
//! interrupts as roots) are in `accounting.rs`.

/// How a frame was entered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FrameKind {
    /// The bottom frame: the reset handler's routine (or what it
    /// tail-called). Never closed.
    Root = 0,
    /// `JSR`, or a tail call from a call frame.
    Call = 1,
    /// `BRK`: a software interrupt, nested like a call.
    Brk = 2,
    /// NMI: a root of its own.
    Nmi = 3,
    /// IRQ: a root of its own.
    Irq = 4,
}

impl FrameKind {
    /// Whether the frame is an interrupt handler's root (NMI or IRQ).
    pub fn is_interrupt(self) -> bool {
        matches!(self, FrameKind::Nmi | FrameKind::Irq)
    }
}

/// Which handler a frame runs under: the innermost NMI or IRQ frame at or
/// below it, or none (the main program).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    Main,
    Nmi,
    Irq,
}

/// One open frame.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Frame {
    /// The routine's index in the accounting's table.
    pub routine: u32,
    pub ret_sp: u8,
    pub kind: FrameKind,
    pub context: Context,
    /// Its context in the cycle trie, and the parent context it hangs off.
    pub node: u32,
    pub parent_node: u32,
    /// Its interrupt level: how many NMI and IRQ frames are at or below
    /// it (0: the main program). Frames of one level above its lowest
    /// interrupt frame are one handler's (or the main program's) stack.
    pub level: u32,
    /// The work done at its level so far when the activation began, and
    /// when its inclusive time was last credited.
    pub entry_mark: u64,
    pub credit_mark: u64,
    /// The same routine is open below it at its level, which is credited
    /// the time instead (recursion counts each cycle once).
    pub dup: bool,
    /// Begun before the window: its time per call is not known.
    pub partial: bool,
}

/// The calls on a stack page, outermost first: (target code address,
/// `ret_sp`), read as `emu::call_stacks::CallStacks::resume` reads them.
/// From the page's top down to the stack pointer `sp`, each pair of bytes
/// that holds the return address of a `JSR` (`jsr_target(address)` is the
/// code address of the target of the `JSR` whose return address is
/// `address`, so the `JSR` is at `address - 2`; `None` if none is there)
/// is taken for a call of that target. A reading, not a record: data
/// pushed between two calls that happens to look like such an address
/// adds a frame, and an interrupt's frame (whose return address follows
/// no `JSR`) is not seen.
pub fn calls_on_page(
    page: &[u8; 256],
    sp: u8,
    jsr_target: &mut dyn FnMut(u16) -> Option<u32>,
) -> Vec<(u32, u8)> {
    let mut calls = Vec::new();
    // `high` is where a return address's high byte would be.
    let mut high = 0x100usize;
    while high >= sp as usize + 3 {
        high -= 1;
        let address = u16::from_le_bytes([page[high - 1], page[high]]);
        if let Some(target) = jsr_target(address) {
            calls.push((target, high as u8));
            high -= 1;
        }
    }
    calls
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_read_from_the_page_outermost_first() {
        let mut page = [0u8; 256];
        // JSR $8100 at $8010 (returns to $8012+1) with SP $FF, a pushed
        // byte, then JSR $8200 at $8105 with SP $FC.
        page[0xFF] = 0x80;
        page[0xFE] = 0x12;
        page[0xFD] = 0x55;
        page[0xFC] = 0x81;
        page[0xFB] = 0x07;
        let mut jsr = |address: u16| match address {
            0x8012 => Some(0x8100),
            0x8107 => Some(0x8200),
            _ => None,
        };
        assert_eq!(
            calls_on_page(&page, 0xFA, &mut jsr),
            vec![(0x8100, 0xFF), (0x8200, 0xFC)]
        );
        // Above the stack pointer only.
        assert_eq!(calls_on_page(&page, 0xFC, &mut jsr), vec![(0x8100, 0xFF)]);
        assert_eq!(calls_on_page(&page, 0xFF, &mut jsr), vec![]);
    }
}
