//! CI's short form of fuzzing: every target over its committed corpus and its regression inputs, then
//! twenty thousand mutated ones (`BETULA_FUZZ_EXECS` asks for more; the long form is `betula-fuzz`).

use std::path::PathBuf;

use betula_fuzz::runner::{read_dir_files, run, RunConfig};
use betula_fuzz::targets::ALL;

#[test]
fn every_target_survives_its_corpus_and_mutations() {
    let execs = std::env::var("BETULA_FUZZ_EXECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut report = Vec::new();
    for t in ALL {
        let corpus = read_dir_files(&root.join("corpus").join(t.name));
        assert!(!corpus.is_empty(), "{}: no committed corpus", t.name);
        let cfg = RunConfig {
            execs,
            seed: 1,
            root: root.clone(),
            save: false,
        };
        let r = run(t, &cfg);
        assert!(r.execs >= execs, "{}: ran {} inputs", t.name, r.execs);
        let failures: Vec<_> = r
            .failures
            .iter()
            .map(|f| format!("{} on {:?}", f.what, &f.input[..f.input.len().min(64)]))
            .collect();
        assert!(failures.is_empty(), "{}: {failures:#?}", t.name);
        report.push(format!("{} {}", t.name, r.execs));
    }
    println!("fuzz smoke: {}", report.join(", "));
}
