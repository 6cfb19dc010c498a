//! Replays every committed fuzz input (`fuzz/corpus/<target>/` and the findings kept in
//! `fuzz/regressions/<target>/`) through its target: what a fuzzer once found stays fixed.

use std::path::Path;

#[test]
fn every_committed_input_passes_its_target() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    for (target, run) in switchboard_fuzzing::TARGETS {
        let mut replayed = 0;
        for folder in ["corpus", "regressions"] {
            let dir = fuzz.join(folder).join(target);
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries {
                let path = entry.expect("a corpus entry").path();
                let data = std::fs::read(&path).expect("a corpus file");
                let outcome = std::panic::catch_unwind(|| run(&data));
                assert!(outcome.is_ok(), "{target}: {} fails", path.display());
                replayed += 1;
            }
        }
        assert!(replayed > 0, "{target}: no corpus under {}", fuzz.display());
    }
}
