//! The CPU's view of the machine (NESdev wiki "CPU memory map"): 2 KiB RAM
//! mirrored to $1FFF, PPU registers mirrored to $3FFF, APU and I/O at
//! $4000-$401F, cartridge above. Each access is one CPU cycle: the bus clocks
//! the PPU three dots and the APU one cycle, then performs the access.
//! Unmapped reads return the last value on the data bus (open bus).

use crate::apu::Apu;
use crate::cartridge::Cartridge;
use crate::code_watch::{CodeKey, CodeWatch};
use crate::controller::Controller;
use crate::dma::Dma;
use crate::ppu::Ppu;

pub const RAM_SIZE: usize = 2048;

pub struct Bus {
    pub ram: [u8; RAM_SIZE],
    /// Tests' switch: OAM DMA one pair at a time (`Bus::oam_dma_bulk`).
    #[cfg(test)]
    pub(crate) no_bulk_dma: bool,
    pub ppu: Ppu,
    pub apu: Apu,
    pub cart: Cartridge,
    pub controllers: [Controller; 2],
    /// The strobe bit of a $4016 write the controllers have not seen yet:
    /// the OUT0 pin follows the written latch once every two CPU cycles, at
    /// the APU clock's edge (what AccuracyCoin calls the "get" to "put"
    /// transition: here, the start of the cycles [`Bus::is_get_cycle`]
    /// calls get; the other parity fails its "Controller Strobing" test), so
    /// a strobe written and cleared between two edges never reaches them.
    strobe_latch: Option<bool>,
    pub dma: Dma,
    /// Last value driven on the CPU data bus.
    pub open_bus: u8,
    /// CPU cycles since power-on.
    pub cycles: u64,
    /// The cycle count when the last DMA ended: the translator's idle-loop
    /// skipping uses it to tell an iteration a DMA stole cycles from.
    pub dma_ended_at: u64,
    /// The data bus as the CPU left it when the last DMA began. The CPU's
    /// internal data bus does not see DMA reads, so a $4015 read right
    /// after a DMA takes its open-bus bit 5 from here, not from the
    /// external bus the DMA drove (AccuracyCoin "Internal Data Bus").
    pub bus_before_dma: u8,
    mapper_irq: bool,
    /// PPU dots owed: the PPU runs lazily (see [`Bus::sync_ppu`]).
    ppu_debt: u32,
    /// Debt at which the PPU must catch up by itself (its outputs may change).
    ppu_deadline: u32,
    /// Run the PPU every cycle instead of lazily (for equivalence tests).
    eager_ppu: bool,
    /// The bytes of RAM / PRG RAM that translated code was decoded from, and
    /// the writes to them since the translator last looked.
    pub code: CodeWatch,
    /// Interrupt line levels (bit 0 /NMI, bit 1 /IRQ, true = asserted) as of
    /// the last change, and a counter of their changes: the CPU skips its
    /// per-cycle poll while neither the lines nor its own state moved.
    lines: u8,
    pub lines_epoch: u32,
    /// Something a running translated block must stop for happened: code it
    /// may have decoded was written, the PRG mapping changed, or a frame
    /// ended. Cleared by the translator.
    pub attention: bool,
    /// Cycles the CPU was halted for OAM DMA since power-on (the halt,
    /// alignment, get and put cycles of every $4014 copy; see
    /// `dma::cycles`). Counted on DMA's cold path, always.
    pub oam_dma_cycles: u64,
    /// Cycles the CPU was halted for DMC sample fetches since power-on: a
    /// fetch's halt, dummy, alignment and get cycles, and of a fetch that
    /// rides on an OAM DMA (whose cycles serve as its halt and dummy) its
    /// get and the put cycle it costs the OAM DMA to realign.
    pub dmc_dma_cycles: u64,
    /// CPU read cycles of the controller ports $4016/$4017 since power-on
    /// (dummy reads included, as they clock the controllers; not the
    /// cycles a DMA holds the CPU halted on such a read, nor DMA reads).
    /// A frame without one is a lag frame, as FCEUX counts them.
    pub controller_reads: u64,
    /// The memory-dependence recorder (`memory_log.rs`), when attached:
    /// fed by the instruction code's `cpu::Recorded` cycles, which the
    /// engines use only while it is.
    pub memory: Option<Box<crate::memory_log::MemoryRecorder>>,
}

impl Bus {
    pub fn new(cart: Cartridge) -> Bus {
        Bus {
            ram: [0; RAM_SIZE],
            #[cfg(test)]
            no_bulk_dma: false,
            ppu: Ppu::new(),
            apu: Apu::new(),
            cart,
            controllers: [Controller::default(), Controller::default()],
            strobe_latch: None,
            dma: Dma::default(),
            open_bus: 0,
            cycles: 0,
            dma_ended_at: 0,
            bus_before_dma: 0,
            mapper_irq: false,
            ppu_debt: 0,
            ppu_deadline: 0,
            eager_ppu: false,
            code: CodeWatch::new(RAM_SIZE),
            attention: false,
            oam_dma_cycles: 0,
            dmc_dma_cycles: 0,
            controller_reads: 0,
            lines: 0,
            lines_epoch: 0,
            memory: None,
        }
    }

    /// Re-reads the interrupt sources after anything that may have changed
    /// them, bumping `lines_epoch` if a level changed.
    #[inline]
    pub fn refresh_lines(&mut self) {
        let lines = self.ppu.nmi_output() as u8 | ((self.apu.irq() || self.mapper_irq) as u8) << 1;
        if lines != self.lines {
            self.lines = lines;
            self.lines_epoch = self.lines_epoch.wrapping_add(1);
        }
    }

    /// Where the byte at CPU address `addr` lives if it is RAM or PRG RAM
    /// under the current mapping (the memories whose code can change).
    pub fn writable_code_key(&self, addr: u16) -> Option<CodeKey> {
        match addr {
            0x0000..=0x1FFF => Some(CodeKey::Ram(addr & 0x7FF)),
            0x6000..=0x7FFF => self.prg_ram_offset(addr).map(|o| CodeKey::PrgRam(o as u32)),
            _ => None,
        }
    }

    /// Sets or clears the "holds translated code" mark of a RAM or PRG RAM
    /// byte; writes to marked bytes are reported to the translator.
    pub fn set_code_mark(&mut self, key: CodeKey, marked: bool) {
        self.code.set_mark(key, marked, self.cart.prg_ram.len());
    }

    fn prg_ram_offset(&self, addr: u16) -> Option<usize> {
        let base = self.cart.banks.prg_ram?;
        Some((base + (addr as usize & 0x1FFF)) % self.cart.prg_ram.len())
    }

    #[inline(always)]
    fn note_code_write(&mut self, addr: u16) {
        let key = match addr {
            0x0000..=0x1FFF => CodeKey::Ram(addr & 0x7FF),
            _ => match self.prg_ram_offset(addr) {
                Some(o) if self.code.prg_ram_marked(o) => CodeKey::PrgRam(o as u32),
                _ => return,
            },
        };
        if let CodeKey::Ram(a) = key {
            if !self.code.ram_marked(a as usize) {
                return;
            }
        }
        self.code.note_write(key);
        self.attention = true;
    }

    /// Runs the PPU in step with every CPU cycle (dot by dot) instead of
    /// catching it up lazily. Slower; the results must be identical, which the
    /// tests check.
    pub fn set_eager_ppu(&mut self, eager: bool) {
        self.eager_ppu = eager;
        self.ppu_deadline = 0;
    }

    /// Bus accesses since power-on. Every CPU cycle is exactly one access
    /// (read, write, or a DMA cycle), so this is the cycle count; lockstep
    /// tests compare it as the access count.
    pub fn accesses(&self) -> u64 {
        self.cycles
    }

    /// Brings the PPU up to the present. The PPU runs lazily: the bus counts
    /// the dots it owes and runs them in one go when something could observe
    /// the difference — a PPU register access, a mapper register write (bank
    /// changes alter fetches), the dots at which the PPU's NMI output or frame
    /// flag change by themselves, and every cycle on boards whose mapper
    /// watches the PPU bus (MMC3's IRQ). What the CPU sees is exactly what a
    /// dot-by-dot PPU would show, at a fraction of the call overhead.
    #[inline]
    pub fn sync_ppu(&mut self) {
        if self.ppu_debt > 0 {
            let frame = self.ppu.frame;
            self.ppu.run_dots(self.ppu_debt, &mut self.cart);
            self.ppu_debt = 0;
            if self.ppu.frame != frame {
                self.attention = true;
            }
        }
        self.refresh_lines();
        // Eager mode catches up at the end of every cycle; so do boards
        // that watch the PPU bus (MMC3) while their IRQ could rise on the
        // next dots, and until it could otherwise.
        self.ppu_deadline = if self.eager_ppu {
            0
        } else if self.cart.watches_ppu() {
            self.ppu
                .dots_until_output_change()
                .min(self.dots_before_mapper_irq())
        } else {
            self.ppu.dots_until_output_change()
        };
    }

    /// A lower bound on the PPU dots before a bus-watching mapper's IRQ can
    /// rise: from the counted A12 rises it needs and the PPU's fetch pattern
    /// when both are known, else the mapper's own bound.
    fn dots_before_mapper_irq(&self) -> u32 {
        self.cart
            .a12_rises_before_irq()
            .and_then(|n| self.ppu.dots_until_a12_rises(n))
            .unwrap_or_else(|| self.cart.ppu_dots_before_irq())
    }

    /// The part of a CPU cycle before the CPU's access: the APU's cycle and
    /// two PPU dots owed. An access to the PPU catches it up first (see
    /// [`Bus::sync_ppu`]), so it then sees the PPU as it is after the second dot
    /// of the cycle, which is what the VBL/NMI race tests require (a $2002
    /// read on the dot VBL is set or the next one suppresses the NMI; two
    /// later does not, because the CPU sampled /NMI at the end of the
    /// previous cycle).
    #[inline(always)]
    fn begin_cycle(&mut self) {
        self.cycles += 1;
        if self.strobe_latch.is_some() && self.is_get_cycle() {
            self.update_strobe_pin();
        }
        self.ppu_debt += 2;
        if self.apu.tick(&mut self.dma) {
            self.refresh_lines();
        }
    }

    /// The rest of the cycle after the access: the third PPU dot, and a PPU
    /// catch-up if one is due before the CPU samples its interrupt lines.
    #[inline(always)]
    fn end_cycle(&mut self) {
        self.ppu_debt += 1;
        if self.ppu_debt >= self.ppu_deadline {
            self.catch_up_at_cycle_end();
        }
    }

    /// A CPU access to a PPU register can move the PPU address bus (and
    /// clock an A12-watching mapper's counter) or change rendering, so on
    /// such boards the cycle ends with a catch-up, which re-reads the
    /// mapper's IRQ and recomputes the deadline.
    #[inline]
    fn after_ppu_register_access(&mut self) {
        if self.cart.watches_ppu() {
            self.ppu_deadline = 0;
        }
        self.refresh_lines();
    }

    #[inline(never)]
    fn catch_up_at_cycle_end(&mut self) {
        self.sync_ppu();
        if self.cart.watches_ppu() {
            self.mapper_irq = self.cart.irq();
        }
        self.refresh_lines();
    }

    /// One CPU read cycle.
    #[inline(always)]
    pub fn read(&mut self, addr: u16) -> u8 {
        self.begin_cycle();
        let value = match addr {
            0x0000..=0x1FFF => self.ram[addr as usize & 0x7FF],
            0x2000..=0x3FFF => return self.read_ppu_register(addr),
            0x4000..=0x401F => self.read_io(addr),
            0x8000..=0xFFFF => self.cart.prg_rom_read(addr),
            _ => {
                if self.cart.ram_follows_ppu() {
                    self.sync_ppu();
                }
                self.cart.cpu_read(addr).unwrap_or(self.open_bus)
            }
        };
        if addr != 0x4015 {
            self.open_bus = value;
        }
        self.end_cycle();
        value
    }

    /// The read cycle of a PPU register ($2000-$3FFF): the PPU is caught
    /// up first, and a $2002 read takes its sprite flags late in the cycle.
    #[inline(never)]
    fn read_ppu_register(&mut self, addr: u16) -> u8 {
        self.sync_ppu();
        let value = self.ppu.read_register(addr, &mut self.cart);
        self.after_ppu_register_access();
        self.open_bus = value;
        self.end_cycle();
        if addr & 7 == 2 {
            return self.status_sprite_bits_late(value);
        }
        value
    }

    /// A $2002 read takes its VBL bit when M2 rises and its sprite flags
    /// when M2 falls, later in the cycle (15/24 duty cycle; AccuracyCoin
    /// "$2002 flag timing"): here with the cycle's third dot run, so a read
    /// on the dot before the pre-render line's dot 1 sees VBL still set
    /// and the sprite flags already clear.
    #[cold]
    fn status_sprite_bits_late(&mut self, value: u8) -> u8 {
        self.sync_ppu();
        let value = (value & !0x60) | self.ppu.sprite_status_bits();
        self.open_bus = value;
        value
    }

    /// How many cycles from now nothing can happen on its own: no DMA
    /// pending, no APU event, no PPU catch-up due, no strobe on its way to
    /// the controllers (the cycles
    /// [`Bus::skip_idle_cycles`] may count at once).
    #[inline]
    pub fn idle_cycles_available(&self) -> u64 {
        if self.dma.pending() || self.ppu_deadline <= self.ppu_debt || self.strobe_latch.is_some() {
            return 0;
        }
        let ppu = ((self.ppu_deadline - self.ppu_debt - 1) / 3) as u64;
        ppu.min(self.apu.quiet_cycles())
    }

    /// Counts `cycles` cycles of side-effect-free reads whose last value is
    /// already on the data bus (callers stay within
    /// [`Bus::idle_cycles_available`]).
    #[inline(always)]
    pub fn skip_idle_cycles(&mut self, cycles: u64) {
        debug_assert!(cycles <= self.idle_cycles_available());
        self.cycles += cycles;
        self.ppu_debt += 3 * cycles as u32;
        self.apu.skip_quiet_cycles(cycles);
    }

    /// A read cycle of a code byte the caller already knows (it is in RAM or
    /// ROM, where reads have no side effects): the cycle and open-bus update
    /// without the address decode.
    #[inline(always)]
    pub fn read_known(&mut self, value: u8) {
        self.begin_cycle();
        self.open_bus = value;
        self.end_cycle();
    }

    #[cold]
    fn read_io(&mut self, addr: u16) -> u8 {
        match addr {
            // $4015 is inside the 2A03: its value is not driven onto the
            // external bus, so open bus keeps the previous value.
            0x4015 => {
                let internal = if self.cycles == self.dma_ended_at + 1 {
                    self.bus_before_dma
                } else {
                    self.open_bus
                };
                let value = self.apu.read_status(internal);
                self.refresh_lines();
                value
            }
            0x4016 | 0x4017 => {
                self.controller_reads += 1;
                let port = (addr - 0x4016) as usize;
                self.controllers[port].read() | (self.open_bus & 0xE0)
            }
            _ => self.open_bus,
        }
    }

    /// One CPU write cycle.
    #[inline(always)]
    pub fn write(&mut self, addr: u16, value: u8) {
        self.begin_cycle();
        self.open_bus = value;
        match addr {
            0x0000..=0x1FFF => {
                self.store_ram(addr, value);
            }
            0x2000..=0x3FFF => {
                self.sync_ppu();
                self.ppu.write_register(addr, value, &mut self.cart);
                self.after_ppu_register_access();
            }
            0x4000..=0x401F => self.write_io(addr, value),
            _ => {
                if (addr >= 0x8000 && self.cart.writes_reach_ppu()) || self.cart.ram_follows_ppu() {
                    self.sync_ppu();
                }
                if (0x6000..0x8000).contains(&addr) && self.code.watches_prg_ram() {
                    self.note_code_write(addr);
                }
                let generation = self.cart.banks.prg_generation;
                self.cart.cpu_write(addr, value, self.cycles);
                if self.cart.banks.prg_generation != generation {
                    self.attention = true;
                }
                self.mapper_irq = self.cart.irq();
                if self.cart.watches_ppu() {
                    // The write may have changed when the IRQ can rise: the
                    // cycle's end recomputes the deadline.
                    self.ppu_deadline = 0;
                }
                self.refresh_lines();
            }
        }
        self.end_cycle();
    }

    /// A console-RAM write ($0000-$1FFF, mirrored): the store, and the
    /// report if it changed a byte translated code was decoded from (then
    /// `true`, and `attention` is raised).
    ///
    /// A write of the value the byte already holds changes no
    /// translation, so it is not reported. Games that patch their own
    /// code often store the same opcode again and again (fff puts back the
    /// `RTS` that ends a zero-page routine about 13 times a frame); each
    /// report dropped the block and made every successor link stale.
    #[inline(always)]
    pub fn store_ram(&mut self, addr: u16, value: u8) -> bool {
        let at = addr as usize & 0x7FF;
        let code = self.code.ram_marked(at) && self.ram[at] != value;
        self.ram[at] = value;
        if code {
            self.note_code_write(addr);
        }
        code
    }

    /// The value of a read that has no side effect and needs no bus work
    /// beyond the cycle itself (console RAM, PRG ROM); `None` elsewhere.
    #[inline(always)]
    pub fn plain_read(&self, addr: u16) -> Option<u8> {
        match addr {
            0x0000..=0x1FFF => Some(self.ram[addr as usize & 0x7FF]),
            0x8000..=0xFFFF => Some(self.cart.prg_rom_read(addr)),
            _ => None,
        }
    }

    #[cold]
    fn write_io(&mut self, addr: u16, value: u8) {
        match addr {
            0x4014 => {
                self.dma.start_oam(value);
                if let Some(memory) = self.memory.as_deref_mut() {
                    memory.oam_dma(value);
                }
            }
            0x4016 => self.strobe_latch = Some(value & 1 != 0),
            _ => {
                self.apu.write_register(addr, value, self.cycles);
                self.refresh_lines();
            }
        }
    }

    /// A put cycle begins: the controllers see the latched strobe bit.
    #[cold]
    fn update_strobe_pin(&mut self) {
        if let Some(strobe) = self.strobe_latch.take() {
            self.controllers[0].write_strobe(strobe);
            self.controllers[1].write_strobe(strobe);
        }
    }

    /// A cycle in which DMA holds the CPU halted on a read of `addr`.
    /// Reads of the controller ports are not repeated: the port sees one
    /// continuous read.
    pub fn dma_halted_read(&mut self, addr: u16) {
        if addr == 0x4016 || addr == 0x4017 {
            self.begin_cycle();
            self.end_cycle();
        } else {
            self.read(addr);
        }
    }

    /// Up to `pairs` get/put pairs of an OAM DMA from console RAM at `src`
    /// (the CPU halted off the 2A03's registers) in one step, as many as
    /// end before anything could tell them from pairs run one cycle at a
    /// time: no APU event (so no DMC fetch either, none being wanted
    /// now), no PPU output change or mapper IRQ (the catch-up deadline),
    /// no controller strobe on its way, and no `$2004` write reaching a
    /// rendering line ([`crate::ppu::Ppu::oam_writes_plain_for`]). The gets
    /// read RAM, which has no side effects; the puts' bytes land in OAM as
    /// they would one at a time; the data bus ends holding the last byte.
    /// Returns the pairs made. (Each put caught the PPU up to its cycle
    /// and an OAM DMA's 513 cycles were 3 % of a busy frame's host time.)
    pub fn oam_dma_bulk(&mut self, src: u16, pairs: u16) -> u16 {
        if self.strobe_latch.is_some() || self.dma.dmc_request || src >= 0x2000 {
            return 0;
        }
        #[cfg(test)]
        if self.no_bulk_dma {
            return 0;
        }
        self.sync_ppu();
        if self.ppu_deadline <= self.ppu_debt {
            return 0;
        }
        let ppu_cycles = (self.ppu_deadline - self.ppu_debt - 1) / 3;
        let plain_cycles = self.ppu.oam_writes_plain_for() / 3;
        let cycles = (ppu_cycles.min(plain_cycles) as u64).min(self.apu.quiet_cycles());
        let made = (cycles / 2).min(pairs as u64) as u16;
        if made == 0 {
            return 0;
        }
        // The pairs left never pass the end of the source page.
        let from = src as usize & 0x7FF;
        let bytes = &self.ram[from..from + made as usize];
        self.ppu.oam_dma_writes(bytes);
        self.open_bus = bytes[made as usize - 1];
        let cycles = 2 * made as u64;
        self.cycles += cycles;
        self.ppu_debt += 3 * cycles as u32;
        self.apu.skip_quiet_cycles(cycles);
        made
    }

    /// An OAM DMA read of `src` while the CPU is halted on a read of
    /// `cpu_addr`. The 2A03's own registers ($4000-$401F) answer only when
    /// the 6502's address bus, not the DMA's, is in that range: otherwise
    /// the DMA reads open bus there, with no side effect (a page-$40 DMA
    /// does not clear the frame IRQ through $4015). When it is, they answer
    /// everywhere, mirrored every 32 bytes, in conflict with the memory
    /// read (see [`Bus::register_conflict`]; NESdev wiki "DMA", AccuracyCoin
    /// "APU Register Activation").
    pub fn oam_dma_read(&mut self, src: u16, cpu_addr: u16) -> u8 {
        let cpu_on_registers = (0x4000..=0x401F).contains(&cpu_addr);
        match src {
            0x4000..=0x401F if !cpu_on_registers => {
                self.begin_cycle();
                let value = self.open_bus;
                self.end_cycle();
                value
            }
            0x4000..=0x401F => self.read(src),
            _ if cpu_on_registers => {
                let value = self.read(src);
                self.register_conflict(src, value)
            }
            _ => self.read(src),
        }
    }

    /// A DMC DMA read of the sample byte at `src` while the CPU is halted
    /// on a read of `cpu_addr`: with the CPU's address on the registers,
    /// the same conflict as [`Bus::oam_dma_read`]'s (AccuracyCoin "DMC DMA
    /// Bus Conflicts").
    pub fn dmc_dma_read(&mut self, src: u16, cpu_addr: u16) -> u8 {
        let value = self.read(src);
        if (0x4000..=0x401F).contains(&cpu_addr) {
            self.register_conflict(src, value)
        } else {
            value
        }
    }

    /// A DMA read of `src` (outside $4000-$401F) that found `value` in
    /// memory, made while the registers answer: register `src & $1F` is
    /// read too. $4015 gives the DMA its status (read, so the frame IRQ
    /// flag clears) and drives no external bus; a controller port gives its
    /// bits under the memory byte's bits 5-7; the write-only registers
    /// leave the memory byte.
    fn register_conflict(&mut self, src: u16, value: u8) -> u8 {
        match 0x4000 | (src & 0x1F) {
            0x4015 => {
                let status = self.apu.read_status(value);
                self.refresh_lines();
                status
            }
            port @ (0x4016 | 0x4017) => {
                let bits = self.controllers[(port - 0x4016) as usize].read() & 0x1F;
                let conflict = bits | (value & 0xE0);
                self.open_bus = conflict;
                conflict
            }
            _ => value,
        }
    }

    /// The DMC's sample byte arrived.
    pub fn dmc_dma_complete(&mut self, value: u8) {
        self.dma.dmc_fetched();
        self.apu.dmc_sample_fetched(value);
        self.refresh_lines();
    }

    #[inline(always)]
    pub fn dma_pending(&self) -> bool {
        self.dma.pending()
    }

    /// Cycles the CPU was halted for DMA since power-on, OAM and DMC.
    #[inline(always)]
    pub fn dma_cycles(&self) -> u64 {
        self.oam_dma_cycles + self.dmc_dma_cycles
    }

    /// DMA reads happen on "get" cycles, writes on "put" cycles.
    #[inline(always)]
    pub fn is_get_cycle(&self) -> bool {
        self.cycles & 1 == 0
    }

    /// Level of the PPU's /NMI output (true = asserted).
    #[inline(always)]
    pub fn nmi_line(&self) -> bool {
        self.lines & 1 != 0
    }

    /// Level of the shared /IRQ line (true = asserted).
    #[inline(always)]
    pub fn irq_line(&self) -> bool {
        self.lines & 2 != 0
    }

    /// The 6502's stack page ($0100-$01FF).
    pub fn stack_page(&self) -> &[u8; 256] {
        self.ram[0x100..0x200]
            .try_into()
            .unwrap_or_else(|_| unreachable!("RAM holds the stack page"))
    }

    /// Reads memory without side effects (for disassembly and traces). PPU and
    /// I/O registers, which have read side effects, return open bus.
    pub fn peek(&self, addr: u16) -> u8 {
        match addr {
            0x0000..=0x1FFF => self.ram[addr as usize & 0x7FF],
            0x2000..=0x401F => self.open_bus,
            _ => self.cart.peek(addr).unwrap_or(self.open_bus),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nrom_bus() -> Bus {
        let mut image = vec![b'N', b'E', b'S', 0x1A, 1, 1, 0, 0];
        image.resize(16 + 0x4000 + 0x2000, 0);
        Bus::new(Cartridge::from_bytes(&image).expect("valid NROM image"))
    }

    /// Bit 0 of the next eight $4016 reads after strobing 1 then 0 on two
    /// consecutive cycles, the first one even (`first_even`) or odd.
    fn reads_after_quick_strobe(first_even: bool) -> Vec<u8> {
        let mut bus = nrom_bus();
        bus.controllers[0].set_buttons(0b0000_0001); // A held
                                                     // Shift the register out so that a reload would show.
        bus.write(0x4016, 1);
        bus.write(0x4016, 0);
        for _ in 0..10 {
            bus.read(0x4016);
        }
        bus.read(0);
        bus.read(0);
        // The write's cycle is the next one: make its parity as asked.
        if (bus.cycles + 1).is_multiple_of(2) != first_even {
            bus.read(0);
        }
        bus.write(0x4016, 1);
        bus.write(0x4016, 0);
        (0..8).map(|_| bus.read(0x4016) & 1).collect()
    }

    /// The controllers see the $4016 latch only at the APU clock edge (the
    /// start of an even cycle): a 1 written on an even cycle and cleared on
    /// the next never strobes them, one written on an odd cycle does
    /// (AccuracyCoin "Controller Strobing", codes 3 and 4).
    #[test]
    fn a_strobe_between_two_edges_is_not_seen() {
        assert_eq!(reads_after_quick_strobe(true), vec![1; 8], "not reloaded");
        // Reloaded: the first read, on the odd cycle after the 0 was
        // written, still sees the strobe high and returns A without
        // shifting.
        assert_eq!(
            reads_after_quick_strobe(false),
            vec![1, 1, 0, 0, 0, 0, 0, 0],
            "reloaded"
        );
    }

    /// An OAM DMA reading $4015 while the CPU's own address is elsewhere
    /// gets open bus and leaves the frame IRQ flag set; with the CPU's
    /// address on the registers it reads them, mirrors included, and the
    /// read clears the flag (AccuracyCoin "APU Register Activation" 4).
    #[test]
    fn oam_dma_reads_registers_only_with_the_cpu_on_them() {
        let mut bus = nrom_bus();
        bus.write(0x4017, 0x00); // frame IRQs on
        while !bus.apu.irq() {
            bus.read(0);
        }
        bus.read(0x0000); // open bus now 0 (RAM)
        assert_eq!(bus.oam_dma_read(0x4015, 0x8123), 0, "open bus");
        assert!(bus.apu.irq(), "the DMA did not read $4015");
        let status = bus.oam_dma_read(0x4035, 0x4001); // a mirror of $4015
        assert_ne!(
            status & 0x40,
            0,
            "the frame IRQ flag read through the mirror"
        );
        for _ in 0..4 {
            bus.read(0);
        }
        assert!(!bus.apu.irq(), "reading $4015 cleared the flag");
    }

    /// Bit 5 of a $4015 read is the CPU's internal data bus: right after a
    /// DMA it is what the CPU left there, not the byte the DMA read
    /// (AccuracyCoin "Internal Data Bus" 2).
    #[test]
    fn status_bit_5_ignores_the_dma_byte() {
        let mut bus = nrom_bus();
        bus.bus_before_dma = 0x40;
        bus.open_bus = 0x60; // the DMC DMA's sample byte
        bus.dma_ended_at = bus.cycles;
        assert_eq!(bus.read(0x4015) & 0x20, 0, "right after the DMA");
        bus.open_bus = 0x60;
        bus.read(0x0000); // RAM holds 0: the bus is now 0
        bus.open_bus = 0x20;
        assert_eq!(bus.read(0x4015) & 0x20, 0x20, "otherwise the bus's bit 5");
    }

    /// With the CPU's address on the registers, a DMA read anywhere meets
    /// register `addr & $1F`: $xx15 gives the status and clears the frame
    /// IRQ flag, $xx16 the controller's bits under the memory byte's bits
    /// 5-7 (AccuracyCoin "DMC DMA Bus Conflicts", "APU Register
    /// Activation" 6).
    #[test]
    fn dma_reads_conflict_with_the_registers() {
        let mut bus = nrom_bus();
        bus.write(0x0215, 0xFF);
        bus.write(0x0216, 0xFF);
        bus.controllers[0].set_buttons(0x01); // A held
        bus.write(0x4016, 1);
        bus.write(0x4016, 0);
        bus.read(0);
        bus.write(0x4017, 0x00);
        while !bus.apu.irq() {
            bus.read(0);
        }
        assert_eq!(
            bus.oam_dma_read(0x0215, 0x8000),
            0xFF,
            "CPU elsewhere: plain RAM"
        );
        assert!(bus.apu.irq());
        let status = bus.oam_dma_read(0x0215, 0x4016);
        assert_eq!(status & 0x40, 0x40, "the status, frame IRQ flag set");
        for _ in 0..4 {
            bus.read(0);
        }
        assert!(!bus.apu.irq(), "and the read cleared it");
        assert_eq!(
            bus.dmc_dma_read(0x0216, 0x4000),
            0xE1,
            "A under bits 5-7 of $FF"
        );
    }
}
