#!/usr/bin/env bash
# Runs the storage benchmark (Betula vs RocksDB) and the commit-throughput benchmark, writing reports to
# bench/results/. Usage, from anywhere:
#
#   bench/run-storage.sh [storage options...]      e.g. bench/run-storage.sh --rows 1000000 --batch 100
#
# Env: SKIP_COMMIT=1 skips commit-throughput; SKIP_APT=1 skips the package install; NOTE="..." adds a note.
#
# RocksDB is linked from Debian's librocksdb-dev (7.8.3 on bookworm) instead of building its C++ sources:
#   ROCKSDB_LIB_DIR=/usr/lib/x86_64-linux-gnu  -> librocksdb-sys links that directory's librocksdb.so
#   ROCKSDB_STATIC unset                        -> dynamic linking (the .so brings zstd/snappy/lz4/bz2 itself)
#   SNAPPY_LIB_DIR not needed                   -> the bench enables no compression feature of the crate, so
#                                                  librocksdb-sys builds no snappy either
#   libclang (libclang-dev, clang)              -> needed: librocksdb-sys always runs bindgen on its c.h
# The pinned crate (rocksdb 0.20.1 / librocksdb-sys 0.10.0+7.9.2) generates bindings from its bundled 7.9.2
# headers; every C function the crate calls exists in 7.8.3, so it links and runs.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${SKIP_APT:-0}" != 1 ] && ! dpkg -s librocksdb-dev libclang-dev clang >/dev/null 2>&1; then
    apt-get update
    apt-get install -y librocksdb-dev libclang-dev clang
fi

export ROCKSDB_LIB_DIR=/usr/lib/x86_64-linux-gnu
unset ROCKSDB_STATIC
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"

cargo build --release -p betula-bench --features rocksdb
BIN="$CARGO_TARGET_DIR/release/betula-bench"

notes=()
if [ -n "${NOTE:-}" ]; then notes=(--note "$NOTE"); fi

"$BIN" storage "${notes[@]}" "$@"
if [ "${SKIP_COMMIT:-0}" != 1 ]; then
    "$BIN" commit-throughput "${notes[@]}"
fi
