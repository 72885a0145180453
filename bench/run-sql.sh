#!/usr/bin/env bash
# The SQL benchmark suite in one command: installs what it needs (Debian packages: MariaDB with MyRocks,
# sysbench, a font for the plots) if missing, builds Betula's server and betula-bench with plots, and runs
# `betula-bench sql` (Betula, MariaDB InnoDB, MyRocks; each server started by the suite on 127.0.0.1 with a
# fresh datadir) writing bench/results/<date>-sql.md, its CSV and PNG plots. Usage, from anywhere:
#
#   bench/run-sql.sh --quick                         # ~15 minutes
#   bench/run-sql.sh --name 2026-11-23-sql-full      # full mode: 64 MiB caches, data >= 10x the cache
#
# Env: SKIP_APT=1 skips the package install; NOTE="..." adds a note to the report.
# docs/benchmarks.md describes every workload, mode and setting.
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(mariadb-server mariadb-plugin-rocksdb sysbench fonts-dejavu-core)
if [ "${SKIP_APT:-0}" != 1 ] && ! dpkg -s "${pkgs[@]}" >/dev/null 2>&1; then
    apt-get update
    apt-get install -y "${pkgs[@]}"
fi
# The suite starts its own private mariadbd processes; a packaged service is not needed.

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
cargo build --release -p betula-server -p betula-bench --features betula-bench/plots

notes=()
if [ -n "${NOTE:-}" ]; then notes=(--note "$NOTE"); fi
"$CARGO_TARGET_DIR/release/betula-bench" sql "${notes[@]}" "$@"
