//! Drives prepared statements through libmariadb (the C client library of
//! sysbench), which sends parameter types only on the first execute after a
//! bind: re-executions carry new-params-bound-flag = 0 and must be decoded
//! with the stored types. Needs a C compiler and `libmariadb-dev`.

mod common;

use std::path::PathBuf;
use std::process::Command;

fn build_client() -> PathBuf {
    common::require_program(&["cc"], "apt-get install -y gcc");
    common::require_program(&["mariadb_config"], "apt-get install -y libmariadb-dev");
    let cfg = |arg: &str| {
        let o = Command::new("mariadb_config")
            .arg(arg)
            .output()
            .expect("mariadb_config");
        String::from_utf8(o.stdout)
            .unwrap()
            .split_whitespace()
            .map(String::from)
            .collect::<Vec<_>>()
    };
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/c/stmt_reexecute.c");
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("stmt_reexecute");
    let status = Command::new("cc")
        .args(cfg("--cflags"))
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .args(cfg("--libs"))
        .status()
        .expect("run cc");
    assert!(status.success(), "compiling {} failed", src.display());
    out
}

#[test]
fn reexecute_without_resending_types() {
    let client = build_client();
    let (server, state) = common::start();
    let out = Command::new(&client)
        .arg(server.local_addr().port().to_string())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        stdout,
        "Int(51)|Bytes([97, 98])\n\
         Int(13056)|Bytes([120, 121, 122])\n\
         Int(-1)|Bytes([])\n\
         Int(7)|Bytes([108, 111, 110, 103, 32, 100, 97, 116, 97])\n\
         5|five\n"
    );
    assert_eq!(state.logged("prepare").len(), 2);
    server.shutdown().unwrap();
}
