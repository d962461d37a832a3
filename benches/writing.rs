//! The writing tools' costs: an `edit` of a 10 MiB file and a 100-hunk
//! `apply_patch`, each through the registry end to end (confined read,
//! stale check, match, diff, staged write and rename), and opening the
//! approval overlay on a 5 000-line diff (parse + first frame). Figures:
//! docs/PERFORMANCE.md.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use light_agent::permission::{Mode, Permits, Policy, RuleList};
use light_agent::protocol::{ApprovalDetail, ApprovalRequest, OpId};
use light_agent::tool::builtin::{self, EditFormat};
use light_agent::tool::patch::diff_texts;
use light_agent::tool::{ToolContext, ToolRegistry};
use light_agent::tui::view::approval::ApprovalView;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use serde_json::json;
use tokio_util::sync::CancellationToken;

const TEN_MIB: usize = 10 * 1024 * 1024;

fn setup(dir: &Path) -> (ToolRegistry, ToolContext) {
    let registry = ToolRegistry::new();
    builtin::register_writing(&registry, EditFormat::Patch).unwrap();
    builtin::register_writing(&registry, EditFormat::Replace).unwrap();
    let mut ctx = ToolContext::new(dir, CancellationToken::new()).unwrap();
    ctx.permits = Permits::new(Policy::new(Mode::Auto, RuleList::default()), None);
    (registry, ctx)
}

/// About 10 MiB of source-like lines with one marker in the middle.
fn big_file() -> String {
    let mut text = String::with_capacity(TEN_MIB + 100);
    let mut i = 0;
    while text.len() < TEN_MIB {
        if i == 100_000 {
            text.push_str("    let marker = MARKER_A;\n");
        }
        text.push_str(&format!(
            "    let value_{i} = compute({i}, \"some text\");\n"
        ));
        i += 1;
    }
    text
}

fn edit_10_mib(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("big.rs"), big_file()).unwrap();
    let (registry, ctx) = setup(dir.path());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut forward = true;
    c.bench_function("edit: one replacement in a 10 MiB file", |b| {
        b.iter(|| {
            let (from, to) = if forward { ("MARKER_A", "MARKER_B") } else { ("MARKER_B", "MARKER_A") };
            forward = !forward;
            let args = json!({"_intent": "bench", "path": "big.rs", "edits": [{"old_string": format!("let marker = {from};"), "new_string": format!("let marker = {to};")}]});
            let out = runtime.block_on(registry.execute("edit", args, ctx.clone()));
            assert!(!out.is_error, "{}", out.content);
            black_box(out)
        })
    });
}

/// A 5 000-line file and a patch changing every 50th line (100 hunks), with
/// the patch that changes them back.
fn hundred_hunks() -> (String, String, String) {
    let lines: Vec<String> = (0..5000).map(|i| format!("line {i} of the file")).collect();
    let patch = |from: &str, to: &str| {
        let mut p = String::from("*** Begin Patch\n*** Update File: p.txt\n");
        for h in 0..100 {
            let at = h * 50 + 25;
            p.push_str("@@\n");
            for line in &lines[at - 3..at] {
                p.push_str(&format!(" {line}\n"));
            }
            p.push_str(&format!("-{}{from}\n+{}{to}\n", lines[at], lines[at]));
            for line in &lines[at + 1..at + 4] {
                p.push_str(&format!(" {line}\n"));
            }
        }
        p.push_str("*** End Patch\n");
        p
    };
    let text = lines.iter().map(|l| format!("{l}\n")).collect();
    // The marked lines first gain " (v2)", then lose it again.
    let forward = patch("", " (v2)");
    let back = patch(" (v2)", "");
    (text, forward, back)
}

fn patch_100_hunks(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let (text, forward, back) = hundred_hunks();
    std::fs::write(dir.path().join("p.txt"), text).unwrap();
    let (registry, ctx) = setup(dir.path());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut ahead = true;
    c.bench_function("apply_patch: 100 hunks in a 5 000-line file", |b| {
        b.iter(|| {
            let patch = if ahead { &forward } else { &back };
            ahead = !ahead;
            let args = json!({"_intent": "bench", "patch": patch});
            let out = runtime.block_on(registry.execute("apply_patch", args, ctx.clone()));
            assert!(!out.is_error, "{}", out.content);
            black_box(out)
        })
    });
}

fn overlay_5000_lines(c: &mut Criterion) {
    let old: String = (0..5000).map(|i| format!("old line {i}\n")).collect();
    let new: String = (0..5000).map(|i| format!("new line {i}\n")).collect();
    let diff = diff_texts(Some("f.txt"), Some("f.txt"), &old, &new).unified;
    assert!(diff.lines().count() >= 5000);
    let area = Rect::new(0, 0, 120, 40);
    c.bench_function(
        "approval overlay: open on a 5 000-line diff and draw a frame",
        |b| {
            b.iter(|| {
                let view = ApprovalView::new(
                    OpId::new("approval-1"),
                    ApprovalRequest {
                        call_id: "c".into(),
                        tool: "edit".into(),
                        title: "edit: Edited f.txt (+5000 −5000)".into(),
                        detail: ApprovalDetail::Diff {
                            unified: diff.clone(),
                        },
                    },
                );
                let mut buf = Buffer::empty(area);
                view.render(area, &mut buf, 0);
                black_box(buf)
            })
        },
    );
}

criterion_group!(benches, edit_10_mib, patch_100_hunks, overlay_5000_lines);
criterion_main!(benches);
