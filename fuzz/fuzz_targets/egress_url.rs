//! Fuzz target `egress_url`: `switchboard_fuzzing::egress_url` on each input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| switchboard_fuzzing::egress_url(data));
