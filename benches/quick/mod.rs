//! Criterion settings shared by the benches: `KILN_BENCH_QUICK=1` gives
//! short settings for a whole-suite run in a few minutes (noisier numbers;
//! label them as quick-mode numbers).

use std::time::Duration;

use criterion::Criterion;

/// True when `KILN_BENCH_QUICK` is set to something other than `0`.
pub fn quick() -> bool {
    std::env::var_os("KILN_BENCH_QUICK").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Criterion's defaults, or the quick-mode settings.
pub fn config() -> Criterion {
    let c = Criterion::default();
    if quick() {
        c.sample_size(10)
            .warm_up_time(Duration::from_millis(200))
            .measurement_time(Duration::from_millis(500))
    } else {
        c
    }
}
