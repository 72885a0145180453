//! Restoring a backup chain into a new environment directory (design.md, "Online backup and restore",
//! BKP6 and BKP8): every file's CRC-32C and every block's hash and checksums are checked before anything
//! they cover is written; each tree file is written compactly (blocks in block-number order, a new
//! translation table, the checkpoint's header slot); the environment header is written last.

use super::manifest::{
    block_file_name, block_hash, BlockEntry, BlockSource, Manifest, MANIFEST_FILE,
};
use crate::block::allocator::aligned;
use crate::block::{slots, BlockLoc, TranslationTable};
use crate::corruption;
use crate::env::catalog::tree_file_name;
use crate::env::recovery::{ENV_FILE, WAL_DIR};
use crate::error::{Error, Result};
use crate::format::DATA_START;
use crate::tree::format::node_codec;
use crate::tree::format::tree_header::TreeHeader;
use crate::vfs::{Vfs, VfsFile};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a restore did.
#[derive(Debug, Clone)]
pub struct RestoreSummary {
    /// Backups read: 1 for a full backup, more for an incremental one and its bases.
    pub chain: usize,
    pub trees: usize,
    pub blocks: u64,
    pub bytes_written: u64,
    /// The log ends here: the restored environment recovers to this LSN.
    pub end_lsn: u64,
}

/// Reads and checks the manifest of the backup in `dir` (a directory without one is not a backup, BKP6).
pub fn read_manifest(vfs: &dyn Vfs, dir: &Path) -> Result<Manifest> {
    let path = dir.join(MANIFEST_FILE);
    let pstr = path.display().to_string();
    if !vfs.exists(&path) {
        return Err(Error::InvalidArgument(format!(
            "{} is not a complete backup: it has no {MANIFEST_FILE}",
            dir.display()
        )));
    }
    let raw = super::read_file(vfs, &path)?;
    Manifest::decode(&raw).map_err(|e| corruption!(pstr, Some(0), "backup manifest: {e}"))
}

/// One backup of the chain: its directory, manifest and blocks by (tree id, block number).
struct Level {
    dir: PathBuf,
    manifest: Manifest,
    blocks: HashMap<(u64, u64), BlockEntry>,
}

/// The backup in `dir` and its bases, newest first; each base must be the one its increment names.
fn load_chain(vfs: &dyn Vfs, dir: &Path) -> Result<Vec<Level>> {
    let mut levels: Vec<Level> = Vec::new();
    let mut dir = dir.to_path_buf();
    loop {
        let manifest = read_manifest(vfs, &dir)?;
        if let Some(prev) = levels.last() {
            if manifest.id != prev.manifest.base_id {
                return Err(Error::InvalidArgument(format!(
                    "{} is not the base backup {} was made from",
                    dir.display(),
                    prev.dir.display()
                )));
            }
        }
        let mut blocks = HashMap::new();
        for t in &manifest.trees {
            for b in &t.blocks {
                blocks.insert((t.id, b.bn), *b);
            }
        }
        let base = (manifest.base_id != 0).then(|| manifest.base_dir.clone());
        levels.push(Level {
            dir: dir.clone(),
            manifest,
            blocks,
        });
        match base {
            Some(b) if levels.len() < 1000 => dir = b,
            Some(_) => return Err(Error::InvalidArgument("backup chain too long".into())),
            None => return Ok(levels),
        }
    }
}

/// The bytes of block `b` of tree `tree` as level `at` of the chain names it, checked (BKP8).
fn fetch(
    vfs: &dyn Vfs,
    chain: &[Level],
    at: usize,
    tree: u64,
    b: &BlockEntry,
    files: &mut HashMap<(usize, u64), Arc<dyn VfsFile>>,
) -> Result<Vec<u8>> {
    let level = &chain[at];
    let offset = match b.source {
        BlockSource::Here(offset) => offset,
        BlockSource::Base => {
            let found = chain
                .get(at + 1)
                .and_then(|next| next.blocks.get(&(tree, b.bn)))
                .filter(|e| e.len == b.len && e.hash == b.hash);
            let Some(e) = found else {
                return Err(Error::InvalidArgument(format!(
                    "the base of {} lacks block {} of tree {tree}",
                    level.dir.display(),
                    b.bn
                )));
            };
            return fetch(vfs, chain, at + 1, tree, &e.clone(), files);
        }
    };
    let path = level.dir.join(block_file_name(tree));
    let pstr = path.display().to_string();
    let file = match files.get(&(at, tree)) {
        Some(f) => f.clone(),
        None => {
            let f = vfs
                .open(&path, false)
                .map_err(|e| Error::io("open", &pstr, e))?;
            files.insert((at, tree), f.clone());
            f
        }
    };
    let mut bytes = vec![0u8; b.len as usize];
    file.read_exact_at(&mut bytes, offset)
        .map_err(|e| Error::io_at("read", &pstr, offset, e))?;
    if block_hash(&bytes) != b.hash {
        return Err(corruption!(
            pstr,
            Some(offset),
            "block {} of tree {tree}: hash mismatch",
            b.bn
        ));
    }
    node_codec::check_block(&bytes, b.bn)
        .map_err(|e| corruption!(pstr, Some(offset), "block {} of tree {tree}: {e}", b.bn))?;
    Ok(bytes)
}

/// Restores the backup in `from` (with its base chain) into `to`, which must not exist or be empty. The
/// result is an environment directory that opens by recovering to the backup's end LSN.
pub fn restore_backup(vfs: &dyn Vfs, from: &Path, to: &Path) -> Result<RestoreSummary> {
    let chain = load_chain(vfs, from)?;
    let top = &chain[0].manifest;
    super::create_empty_dir(vfs, to, "restore target")?;
    let mut written = Vec::new();
    let mut bytes_written = 0u64;
    let env_entry = top
        .files
        .iter()
        .find(|f| f.name == ENV_FILE)
        .ok_or_else(|| corruption!(from.display(), None, "the manifest names no {ENV_FILE}"))?;
    for f in top.files.iter().filter(|f| f.name != ENV_FILE) {
        let (file, n) = copy_checked(vfs, from, to, f)?;
        written.push(file);
        bytes_written += n;
    }
    let mut files = HashMap::new();
    let mut blocks = 0u64;
    for t in &top.trees {
        let path = to.join(tree_file_name(t.id));
        let pstr = path.display().to_string();
        let file = vfs
            .open(&path, true)
            .map_err(|e| Error::io("create", &pstr, e))?;
        let mut pos = DATA_START;
        let mut table = TranslationTable::default();
        for b in &t.blocks {
            let bytes = fetch(vfs, &chain, 0, t.id, b, &mut files)?;
            file.write_all_at(&bytes, pos)
                .map_err(|e| Error::io_at("write", &pstr, pos, e))?;
            table.map.insert(
                b.bn,
                BlockLoc {
                    offset: pos,
                    len: b.len,
                    prefix_len: b.prefix_len,
                },
            );
            pos += aligned(u64::from(b.len));
            blocks += 1;
        }
        let table = table.encode();
        let header = TreeHeader {
            tree_id: t.id,
            seq: t.seq,
            msn: t.msn,
            root: t.root,
            next_bn: t.next_bn,
            table_offset: pos,
            table_len: table.len() as u32,
            table_crc: crc32c::crc32c(&table),
        };
        file.write_all_at(&table, pos)
            .and_then(|_| slots::write_slot(&*file, t.seq, &header.encode()))
            .map_err(|e| Error::io("write", &pstr, e))?;
        bytes_written += pos + table.len() as u64;
        written.push((path, file));
    }
    for (path, file) in &written {
        file.sync()
            .map_err(|e| Error::io("fsync", path.display().to_string(), e))?;
    }
    // The environment header last: until it is durable the directory is not an environment.
    let (env_file, n) = copy_checked(vfs, from, to, env_entry)?;
    env_file
        .1
        .sync()
        .map_err(|e| Error::io("fsync", env_file.0.display().to_string(), e))?;
    for dir in [to.join(WAL_DIR), to.to_path_buf()] {
        vfs.sync_dir(&dir)
            .map_err(|e| Error::io("fsync directory", dir.display().to_string(), e))?;
    }
    Ok(RestoreSummary {
        chain: chain.len(),
        trees: top.trees.len(),
        blocks,
        bytes_written: bytes_written + n,
        end_lsn: top.end_lsn,
    })
}

/// A file written by the restore, not yet synced.
type Written = (PathBuf, Arc<dyn VfsFile>);

/// Copies one file the manifest lists from `from` to `to`, checking its length and CRC-32C first.
fn copy_checked(
    vfs: &dyn Vfs,
    from: &Path,
    to: &Path,
    f: &super::manifest::FileEntry,
) -> Result<(Written, u64)> {
    let src = from.join(&f.name);
    let bytes = super::read_file(vfs, &src)?;
    if bytes.len() as u64 != f.len || crc32c::crc32c(&bytes) != f.crc {
        return Err(corruption!(
            src.display(),
            None,
            "file does not match the backup manifest (length or checksum)"
        ));
    }
    let path = to.join(&f.name);
    let file = vfs
        .open(&path, true)
        .map_err(|e| Error::io("create", path.display().to_string(), e))?;
    file.write_all_at(&bytes, 0)
        .map_err(|e| Error::io("write", path.display().to_string(), e))?;
    Ok(((path, file), f.len))
}
