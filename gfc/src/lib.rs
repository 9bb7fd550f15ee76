//! Architecture-neutral profiling algorithms: the sample and batch types, the
//! GFCGaussiano hot-CFG builder, the CFG type, hot-subgraph extraction, the
//! similarity metrics and the thesis' parameter grid. Knows nothing of the NES.
