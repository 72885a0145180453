//! Starting Betula's own server: `betula serve --port P --datadir D --config F` with the same cache as the
//! peers and synchronous commits (Betula's default, stated explicitly in the config file).

use super::{version_of, wait_ready, EngineKind, Server, StartOptions};
use crate::engine::BenchResult;
use std::fs::File;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The settings file: cache as large as the peers' buffer pool / block cache, durable commits.
pub fn config_text(cache_bytes: u64, settings: &[String]) -> String {
    let mut t = format!(
        "# written by betula-bench sql\ncache_size = {}M\ndurability = sync\n",
        cache_bytes >> 20
    );
    for s in settings {
        t.push_str(s);
        t.push('\n');
    }
    t
}

pub fn start(root: &Path, port: u16, o: &StartOptions) -> BenchResult<Server> {
    if !o.betula_bin.exists() {
        return Err(format!(
            "{} not found: build it with `cargo build --release -p betula-server` or pass --betula-bin",
            o.betula_bin.display()
        )
        .into());
    }
    let datadir = root.join("data");
    let cfg_path = root.join("betula.cnf");
    let cfg = config_text(o.cache_bytes, &o.betula_settings);
    std::fs::write(&cfg_path, &cfg)?;
    let log = root.join("server.log");
    let args = [
        "serve".to_string(),
        "--port".into(),
        port.to_string(),
        "--datadir".into(),
        datadir.display().to_string(),
        "--config".into(),
        cfg_path.display().to_string(),
    ];
    let mut child = Command::new(&o.betula_bin)
        .args(&args)
        .stdin(Stdio::null())
        .stdout(File::create(&log)?)
        .stderr(File::create(root.join("server.err"))?)
        .spawn()?;
    if let Err(e) = wait_ready(
        &mut child,
        port,
        Duration::from_secs(60),
        &root.join("server.err"),
    ) {
        let _ = child.kill();
        let _ = child.wait();
        return Err(e);
    }
    Ok(Server {
        kind: EngineKind::Betula,
        port,
        datadir,
        version: version_of(&o.betula_bin, &["--version"]),
        config: format!("{} {}\n{cfg}", o.betula_bin.display(), args.join(" ")),
        child,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn config_states_cache_and_durability() {
        let t = super::config_text(1 << 30, &["read_block_size = 16K".into()]);
        assert!(t.contains("cache_size = 1024M"));
        assert!(t.contains("durability = sync"));
        assert!(t.contains("\nread_block_size = 16K\n"));
    }
}
