//! Fuzz target `policy_doc`: `switchboard_fuzzing::policy_doc` on each input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| switchboard_fuzzing::policy_doc(data));
