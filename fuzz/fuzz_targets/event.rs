#![no_main]
//! cargo-fuzz target `event`: see `inquiry_model::fuzzing::event`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| inquiry_model::fuzzing::event(data));
