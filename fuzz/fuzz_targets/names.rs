//! Fuzz target `names`: `switchboard_fuzzing::names` on each input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| switchboard_fuzzing::names(data));
