//! What the snapshot around a command costs (issue 27): `take` before a
//! command (what it waits for), and `take` plus `changes` after it (the
//! whole work; `changes` runs once the result has gone back), for a
//! command that changes nothing, in a git repository of
//! 10 000 files with 5 changed, and in a 64 MiB directory outside git.
//! "warm" is every command after the first (contents stored, identities
//! remembered); "cold" the first command of a session (every content read,
//! hashed and handed to the journal, here an in-memory one).
//! Figures: docs/PERFORMANCE.md.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use futures::FutureExt;
use futures::future::BoxFuture;
use light_agent::tool::fs::Root;
use light_agent::tool::journal::{BlobHash, ChangeJournal, Journal, PriorFile};
use light_agent::tool::snapshot::{DEFAULT_BUDGET, Snapshots};

/// Keeps stored contents in memory (counts bytes only).
#[derive(Default)]
struct Memory(Mutex<u64>);

impl ChangeJournal for Memory {
    fn record(&self, _files: Vec<PriorFile>) -> BoxFuture<'static, Result<(), String>> {
        async { Ok(()) }.boxed()
    }
    fn store(&self, blobs: Vec<(BlobHash, Vec<u8>)>) -> BoxFuture<'static, Result<(), String>> {
        *self.0.lock().unwrap() += blobs.iter().map(|(_, b)| b.len() as u64).sum::<u64>();
        async { Ok(()) }.boxed()
    }
}

fn env() -> Vec<(OsString, OsString)> {
    std::env::vars_os()
        .filter(|(n, _)| n == "PATH" || n == "HOME")
        .collect()
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "user.name=b",
            "-c",
            "user.email=b@b",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

/// 10 000 files of ~1 KiB in 100 folders, committed; 5 then changed.
fn git_repo(dir: &Path) {
    for d in 0..100 {
        let folder = dir.join(format!("src/m{d:03}"));
        std::fs::create_dir_all(&folder).unwrap();
        for f in 0..100 {
            let text = format!("// file {d}/{f}\n{}", "let x = 1;\n".repeat(90));
            std::fs::write(folder.join(format!("f{f:03}.rs")), text).unwrap();
        }
    }
    git(dir, &["init", "-q"]);
    git(dir, &["add", "."]);
    git(dir, &["commit", "-qm", "base"]);
    for n in 0..5 {
        std::fs::write(dir.join(format!("src/m00{n}/f000.rs")), "changed\n").unwrap();
    }
}

/// 1 024 files of 64 KiB: 64 MiB, outside git.
fn plain_tree(dir: &Path) {
    for d in 0..32 {
        let folder = dir.join(format!("data/d{d:02}"));
        std::fs::create_dir_all(&folder).unwrap();
        for f in 0..32 {
            let bytes: Vec<u8> = (0..64 * 1024)
                .map(|i| ((i * 31 + d * 7 + f) % 251) as u8)
                .collect();
            std::fs::write(folder.join(format!("f{f:02}.bin")), bytes).unwrap();
        }
    }
}

fn around_a_command(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let journal = Journal::new(Arc::new(Memory::default()));
    let mut group = c.benchmark_group("snapshot");
    group.measurement_time(Duration::from_secs(10));
    group.sample_size(30);

    let repo = tempfile::tempdir().unwrap();
    git_repo(repo.path());
    let root = Root::open(repo.path()).unwrap();
    let warm = Snapshots::new(env(), DEFAULT_BUDGET);
    // What a command waits for: the change set is compared after its
    // result has gone back (`Journal::record_later`).
    group.bench_function(
        "git 10k files, 5 changed: take, before the command (warm)",
        |b| b.iter(|| runtime.block_on(warm.take(&root, &journal)).unwrap()),
    );
    group.bench_function("git 10k files, 5 changed: take + changes (warm)", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let before = warm.take(&root, &journal).await.unwrap();
                assert!(warm.changes(&root, before).await.is_empty());
            })
        })
    });
    group.bench_function("git 10k files, 5 changed: take + changes (cold)", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let cold = Snapshots::new(env(), DEFAULT_BUDGET);
                let before = cold.take(&root, &journal).await.unwrap();
                assert!(cold.changes(&root, before).await.is_empty());
            })
        })
    });

    let tree = tempfile::tempdir().unwrap();
    plain_tree(tree.path());
    let root = Root::open(tree.path()).unwrap();
    let warm = Snapshots::new(env(), DEFAULT_BUDGET);
    group.sample_size(10);
    group.bench_function("no git, 64 MiB in 1024 files: take + changes (warm)", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let before = warm.take(&root, &journal).await.unwrap();
                assert!(!before.partial());
                assert!(warm.changes(&root, before).await.is_empty());
            })
        })
    });
    group.bench_function("no git, 64 MiB in 1024 files: take + changes (cold)", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let cold = Snapshots::new(env(), DEFAULT_BUDGET);
                let before = cold.take(&root, &journal).await.unwrap();
                assert!(cold.changes(&root, before).await.is_empty());
            })
        })
    });
    group.finish();
}

criterion_group!(benches, around_a_command);
criterion_main!(benches);
