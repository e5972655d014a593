#![no_main]
//! cargo-fuzz target `cancellation_reason`: see `inquiry_model::fuzzing::cancellation_reason`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| inquiry_model::fuzzing::cancellation_reason(data));
