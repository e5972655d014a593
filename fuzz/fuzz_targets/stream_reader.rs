#![no_main]
//! cargo-fuzz target `stream_reader`: see `inquiry_model::fuzzing::stream_reader`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| inquiry_model::fuzzing::stream_reader(data));
