//! Fuzz target `rest_bodies`: `switchboard_fuzzing::rest_bodies` on each input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| switchboard_fuzzing::rest_bodies(data));
