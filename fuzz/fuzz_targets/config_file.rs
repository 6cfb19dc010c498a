//! Fuzz target `config_file`: `switchboard_fuzzing::config_file` on each input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| switchboard_fuzzing::config_file(data));
