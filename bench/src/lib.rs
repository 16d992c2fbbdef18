//! Benchmarks only: see `benches/lookup.rs`.
