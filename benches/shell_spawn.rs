//! What the sandbox costs per command: `true` run through the shell tool's
//! runner with the Landlock helper and without it (both start `bash -c`,
//! own session, scrubbed environment, pipes read to the end). Also the
//! output pipeline: 100 MB through cleaning, the budget and the full log.
//! Figures: docs/PERFORMANCE.md.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use light_agent::sandbox::SandboxPolicy;
use light_agent::tool::builtin::shell::{CommandRequest, SecretFilter, Shell, ShellConfig};
use tokio_util::sync::CancellationToken;

fn shell(sandboxed: bool, logs: &std::path::Path) -> Shell {
    let env: Vec<(OsString, OsString)> = std::env::vars_os()
        .filter(|(n, _)| n == "PATH" || n == "HOME")
        .collect();
    Shell::new(ShellConfig {
        sandbox: SandboxPolicy::default(),
        helper: sandboxed.then(|| PathBuf::from(env!("CARGO_BIN_EXE_light-agent-sandbox"))),
        env,
        secrets: SecretFilter::default(),
        log_dir: logs.to_path_buf(),
        snapshot_budget: None,
    })
}

fn spawn(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let work = tempfile::tempdir().unwrap();
    let request = CommandRequest {
        command: "true".into(),
        cwd: work.path().to_path_buf(),
        workspace: work.path().to_path_buf(),
        timeout: Some(Duration::from_secs(10)),
        unsandboxed: false,
    };
    let mut group = c.benchmark_group("shell_true");
    for (name, sandboxed) in [("unsandboxed", false), ("sandboxed", true)] {
        let shell = shell(sandboxed, work.path());
        assert_eq!(shell.sandbox_state().is_enforced(), sandboxed);
        group.bench_function(name, |b| {
            b.iter(|| {
                let report = runtime
                    .block_on(shell.run(&request, CancellationToken::new(), None))
                    .unwrap();
                assert!(report.success);
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("shell_output");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(100_000_000));
    let shell = shell(true, work.path());
    let big = CommandRequest {
        command: "head -c 100000000 /dev/zero | tr '\\0' x | fold -w 99".into(),
        ..request
    };
    group.bench_function("100MB_sandboxed", |b| {
        b.iter(|| {
            let report = runtime
                .block_on(shell.run(&big, CancellationToken::new(), None))
                .unwrap();
            assert!(report.success && report.output.len() <= 16 * 1024);
        })
    });
    group.finish();
}

criterion_group!(benches, spawn);
criterion_main!(benches);
