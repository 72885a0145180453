//! `betula-fuzz`: `betula-fuzz <target>|all [execs] [seed]` fuzzes, `betula-fuzz seed-corpus` writes the
//! encoders' corpus under `crates/fuzz/corpus/` (docs/testing.md, "Fuzzing"). Failing inputs land in
//! `crates/fuzz/regressions/<target>/`; the exit status is 1 if any target failed.

use std::path::PathBuf;

use betula_fuzz::runner::{input_name, run, RunConfig};
use betula_fuzz::seeds::seeds;
use betula_fuzz::targets::{by_name, ALL};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn number(arg: Option<&String>, default: u64, what: &str) -> u64 {
    arg.map(|a| {
        a.replace('_', "")
            .parse()
            .unwrap_or_else(|_| panic!("{what}: {a} is not a number"))
    })
    .unwrap_or(default)
}

fn seed_corpus() {
    for t in ALL {
        let dir = root().join("corpus").join(t.name);
        std::fs::create_dir_all(&dir).expect("corpus directory");
        let inputs = seeds(t.name);
        for input in &inputs {
            std::fs::write(dir.join(input_name("seed", input)), input).expect("write corpus");
        }
        println!("{}: {} inputs in {}", t.name, inputs.len(), dir.display());
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(what) = args.first() else {
        eprintln!("usage: betula-fuzz <target>|all [execs] [seed] | seed-corpus");
        eprintln!(
            "targets: {}",
            ALL.iter().map(|t| t.name).collect::<Vec<_>>().join(" ")
        );
        std::process::exit(2);
    };
    if what == "seed-corpus" {
        seed_corpus();
        return;
    }
    let targets: Vec<_> = if what == "all" {
        ALL.iter().collect()
    } else {
        vec![by_name(what).unwrap_or_else(|| panic!("no target {what}"))]
    };
    let cfg = RunConfig {
        execs: number(args.get(1), 100_000, "execs"),
        seed: number(args.get(2), 1, "seed"),
        root: root(),
        save: true,
    };
    let mut failed = false;
    for t in targets {
        let r = run(t, &cfg);
        println!(
            "{}: {} execs from {} corpus inputs, seed {}, {:.1} s ({:.0} execs/s), {} failures",
            r.target,
            r.execs,
            r.corpus,
            cfg.seed,
            r.elapsed.as_secs_f64(),
            r.execs as f64 / r.elapsed.as_secs_f64().max(1e-9),
            r.failures.len()
        );
        for f in &r.failures {
            println!("  {}: {:?}", f.what, f.saved);
        }
        failed |= !r.failures.is_empty();
    }
    if failed {
        std::process::exit(1);
    }
}
