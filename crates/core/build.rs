//! Stamps the core's version with a hash of its sources, so that anything
//! keyed on `bloatlab_core::VERSION` (the run store) changes whenever the
//! simulator's code — and so possibly its results — changes.

use std::fs;
use std::path::{Path, PathBuf};

/// FNV-1a, 64 bit: a small, stable hash (the std hasher may change between Rust releases).
fn fnv1a(hash: &mut u64, bytes: &[u8]) {
    for &b in bytes {
        *hash ^= b as u64;
        *hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    files.sort();
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for f in &files {
        fnv1a(
            &mut hash,
            f.strip_prefix(root)
                .unwrap_or(f)
                .to_string_lossy()
                .as_bytes(),
        );
        fnv1a(&mut hash, &fs::read(f).unwrap_or_default());
    }
    println!(
        "cargo:rustc-env=BLOATLAB_CORE_SOURCE_HASH={:012x}",
        hash & 0xffff_ffff_ffff
    );
    println!("cargo:rerun-if-changed=src");
}
