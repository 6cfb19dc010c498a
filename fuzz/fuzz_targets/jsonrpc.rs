//! Fuzz target `jsonrpc`: `switchboard_fuzzing::jsonrpc` on each input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| switchboard_fuzzing::jsonrpc(data));
