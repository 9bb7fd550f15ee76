//! The frame-time profile (issue 43): where a run's CPU cycles go, by
//! frame, routine and class (busy, idle, NMI, IRQ, DMA).

pub mod sampled;
