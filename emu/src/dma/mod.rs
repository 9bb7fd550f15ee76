//! The 2A03's DMA unit (NESdev wiki "DMA"): here its state — pending OAM DMA
//! (written via $4014) and DMC sample fetches (requested by the APU) — and in
//! `cycles.rs` the cycle-by-cycle driver, which runs on the CPU's side
//! because DMA steals the CPU's bus cycles.
//!
//! A DMC fetch needs a halt cycle and a dummy cycle before its get cycle
//! (wiki "DMA" § DMC DMA). Any DMA cycle counts for them, so a fetch that
//! arrives during an OAM DMA rides on the OAM DMA's cycles and costs only its
//! get (plus an alignment cycle for the OAM DMA it delays).

mod cycles;

#[derive(Debug, Clone, Default)]
pub struct Dma {
    /// Source page of an OAM DMA in progress or pending.
    pub oam_page: Option<u8>,
    /// Next byte of the page to copy.
    pub oam_index: u8,
    oam_copied: u16,
    /// A DMC sample fetch is wanted.
    pub dmc_request: bool,
    /// Address the DMC fetch will read.
    pub dmc_address: u16,
    /// The DMC fetch still needs its halt and dummy cycles.
    dmc_needs_halt: bool,
    dmc_needs_dummy: bool,
    /// `oam_page.is_some() || dmc_request`, kept up to date by every method
    /// that changes either, so the CPU's per-read check is one load.
    pending: bool,
}

impl Dma {
    /// Whether the next CPU read cycle will be halted.
    #[inline(always)]
    pub fn pending(&self) -> bool {
        self.pending
    }

    fn update_pending(&mut self) {
        self.pending = self.oam_page.is_some() || self.dmc_request;
    }

    /// Whether the DMA unit still has work (the CPU stays halted).
    pub fn active(&self) -> bool {
        self.pending()
    }

    pub fn start_oam(&mut self, page: u8) {
        self.oam_page = Some(page);
        self.oam_index = 0;
        self.oam_copied = 0;
        self.update_pending();
    }

    /// The OAM DMA's source address for its next get cycle.
    pub fn oam_source(&self) -> Option<u16> {
        self.oam_page
            .map(|page| (page as u16) << 8 | self.oam_index as u16)
    }

    pub fn oam_advance(&mut self) {
        self.oam_index = self.oam_index.wrapping_add(1);
        self.oam_copied += 1;
        if self.oam_copied == 256 {
            self.oam_page = None;
            self.update_pending();
        }
    }

    /// Get/put pairs the OAM DMA in progress has left (0 with none).
    pub fn oam_pairs_left(&self) -> u16 {
        if self.oam_page.is_some() {
            256 - self.oam_copied
        } else {
            0
        }
    }

    /// [`Dma::oam_advance`] `pairs` times, short of the last pair.
    pub fn oam_advance_by(&mut self, pairs: u16) {
        debug_assert!(pairs < self.oam_pairs_left());
        self.oam_index = self.oam_index.wrapping_add(pairs as u8);
        self.oam_copied += pairs;
    }

    pub fn request_dmc(&mut self, address: u16) {
        self.dmc_request = true;
        self.dmc_address = address;
        self.dmc_needs_halt = true;
        self.dmc_needs_dummy = true;
        self.update_pending();
    }

    /// The DMC no longer wants its byte (sample stopped).
    pub fn cancel_dmc(&mut self) {
        self.dmc_request = false;
        self.dmc_needs_halt = false;
        self.dmc_needs_dummy = false;
        self.update_pending();
    }

    /// A DMA cycle (halt, dummy, alignment, get or put) is starting: it serves
    /// as the pending DMC fetch's halt cycle, or else as its dummy cycle.
    #[inline]
    pub fn begin_cycle(&mut self) {
        if self.dmc_needs_halt {
            self.dmc_needs_halt = false;
        } else if self.dmc_needs_dummy {
            self.dmc_needs_dummy = false;
        }
    }

    pub fn dmc_ready_to_fetch(&self) -> bool {
        self.dmc_request && !self.dmc_needs_halt && !self.dmc_needs_dummy
    }

    pub fn dmc_fetched(&mut self) {
        self.dmc_request = false;
        self.update_pending();
    }
}
