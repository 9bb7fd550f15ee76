//! State of the 2A03's DMA unit: pending OAM DMA (written via $4014) and DMC
//! sample fetches (requested by the APU). The cycle-by-cycle driver is in
//! `cpu/dma.rs`, because DMA steals the CPU's bus cycles.

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
}

impl Dma {
    #[inline(always)]
    pub fn pending(&self) -> bool {
        self.oam_page.is_some() || self.dmc_request
    }

    pub fn active(&self) -> bool {
        self.pending()
    }

    pub fn start_oam(&mut self, page: u8) {
        self.oam_page = Some(page);
        self.oam_index = 0;
        self.oam_copied = 0;
    }

    pub fn oam_advance(&mut self) {
        self.oam_index = self.oam_index.wrapping_add(1);
        self.oam_copied += 1;
        if self.oam_copied == 256 {
            self.oam_page = None;
        }
    }

    pub fn request_dmc(&mut self, address: u16) {
        self.dmc_request = true;
        self.dmc_address = address;
        self.dmc_needs_halt = true;
        self.dmc_needs_dummy = true;
    }

    pub fn cancel_dmc(&mut self) {
        self.dmc_request = false;
    }

    /// The halt cycle just happened.
    pub fn dmc_halted(&mut self) {
        self.dmc_needs_halt = false;
    }

    /// Called at the end of each DMA cycle: the DMC's dummy cycle is the first
    /// cycle after its halt.
    pub fn dmc_dummy_done(&mut self) {
        if self.dmc_request && !self.dmc_needs_halt {
            self.dmc_needs_dummy = false;
        }
    }

    pub fn dmc_ready_to_fetch(&self) -> bool {
        self.dmc_request && !self.dmc_needs_halt && !self.dmc_needs_dummy
    }

    pub fn dmc_fetched(&mut self) {
        self.dmc_request = false;
    }
}
