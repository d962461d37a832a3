#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `read_file`: every branch of the seed (small, window, `[next]`, long line
//! with `byte_offset`, bad ranges, binary, directory) and bounded reads.

use std::fs;
use std::io::Write;
use std::path::Path;

use light_agent::tool::{ToolContext, ToolOutput, ToolRegistry, builtin};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const WINDOW: usize = 100 * 1024;

async fn read(root: &Path, args: Value) -> ToolOutput {
    let registry = ToolRegistry::new();
    builtin::register_all(&registry).unwrap();
    let ctx = ToolContext::new(root, CancellationToken::new()).unwrap();
    registry.execute("read_file", args, ctx).await
}

/// The value of a `[label]: value` line.
fn label<'a>(content: &'a str, name: &str) -> Option<&'a str> {
    let prefix = format!("[{name}]: ");
    content
        .lines()
        .find_map(|l| l.strip_prefix(prefix.as_str()))
}

/// The `N | text` lines of the content block.
fn numbered(content: &str) -> Vec<(u64, String)> {
    content
        .split_once("[content]:\n")
        .map(|(_, body)| body)
        .unwrap_or("")
        .lines()
        .take_while(|l| !l.starts_with("[next]: ") && !l.starts_with("[hint]: "))
        .map(|l| {
            let (n, text) = l.split_once(" | ").unwrap();
            (n.parse().unwrap(), text.to_owned())
        })
        .collect()
}

/// The JSON arguments inside a `[next]: read_file({...})` line.
fn next_args(content: &str) -> Option<Value> {
    let call = label(content, "next")?;
    let json = call.strip_prefix("read_file(")?.strip_suffix(')')?;
    Some(serde_json::from_str(json).unwrap())
}

/// 3 000 lines of 70 bytes: 210 000 bytes, about two windows.
fn write_large(root: &Path) {
    let body: String = (1..=3000)
        .map(|n| format!("line {n:05} {}\n", "x".repeat(58)))
        .collect();
    assert_eq!(body.len(), 210_000);
    fs::write(root.join("large.txt"), body).unwrap();
}

#[tokio::test]
async fn small_files_come_back_whole_whatever_the_line_arguments() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("small.rs"),
        "fn a() {}\r\nfn b() {}\nfn c() {}\n",
    )
    .unwrap();
    let expected = "\
[what]: file_content
[path]: small.rs
[size_bytes]: 31
[total_lines]: 3
[complete]: true
[range]: 1-3
[reason]: file under the full-read threshold; full content returned
[content]:
1 | fn a() {}
2 | fn b() {}
3 | fn c() {}";
    let out = read(dir.path(), json!({"path": "small.rs"})).await;
    assert_eq!(out, ToolOutput::ok(expected));
    let out = read(
        dir.path(),
        json!({"path": "small.rs", "start_line": 2, "end_line": 2}),
    )
    .await;
    assert_eq!(out, ToolOutput::ok(expected));
}

#[tokio::test]
async fn an_empty_file_has_no_range() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("empty.txt"), "").unwrap();
    let out = read(dir.path(), json!({"path": "empty.txt"})).await;
    assert!(!out.is_error);
    assert_eq!(label(&out.content, "total_lines"), Some("0"));
    assert_eq!(label(&out.content, "range"), None);
    assert!(out.content.ends_with("[content]:"), "{}", out.content);
}

#[tokio::test]
async fn large_files_come_in_windows_chained_by_next() {
    let dir = tempfile::tempdir().unwrap();
    write_large(dir.path());

    let first = read(dir.path(), json!({"path": "large.txt"})).await;
    assert!(!first.is_error, "{}", first.content);
    assert_eq!(label(&first.content, "size_bytes"), Some("210000"));
    assert_eq!(label(&first.content, "total_lines"), Some("3000"));
    assert_eq!(label(&first.content, "complete"), Some("false"));
    let lines = numbered(&first.content);
    let shown = lines.len();
    assert_eq!(shown, WINDOW / 70, "as many whole lines as fit the window");
    assert_eq!(
        label(&first.content, "range"),
        Some(format!("1-{shown}").as_str())
    );
    assert_eq!(lines[0], (1, format!("line 00001 {}", "x".repeat(58))));
    assert_eq!(
        next_args(&first.content).unwrap(),
        json!({"path": "large.txt", "start_line": shown + 1})
    );
    assert!(
        label(&first.content, "hint")
            .unwrap()
            .contains("grep first")
    );

    // Copying [next] twice reaches the end.
    let second = read(dir.path(), next_args(&first.content).unwrap()).await;
    assert_eq!(numbered(&second.content)[0].0, shown as u64 + 1);
    assert_eq!(
        label(&second.content, "hint"),
        None,
        "no hint once start_line is given"
    );
    let third = read(dir.path(), next_args(&second.content).unwrap()).await;
    assert_eq!(
        label(&third.content, "complete"),
        Some("true"),
        "{}",
        third.content
    );
    assert_eq!(
        label(&third.content, "range"),
        Some(format!("{}-3000", 2 * shown + 1).as_str())
    );
    assert_eq!(label(&third.content, "next"), None);
}

#[tokio::test]
async fn an_explicit_range_is_returned_exactly() {
    let dir = tempfile::tempdir().unwrap();
    write_large(dir.path());
    let out = read(
        dir.path(),
        json!({"path": "large.txt", "start_line": 1500, "end_line": 1502}),
    )
    .await;
    assert_eq!(label(&out.content, "range"), Some("1500-1502"));
    assert_eq!(label(&out.content, "complete"), Some("false"));
    assert_eq!(label(&out.content, "next"), None);
    let lines = numbered(&out.content);
    assert_eq!(
        lines.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
        [1500, 1501, 1502]
    );
    assert!(lines[2].1.starts_with("line 01502 "));

    let out = read(
        dir.path(),
        json!({"path": "large.txt", "start_line": 2999, "end_line": 5000}),
    )
    .await;
    assert_eq!(
        label(&out.content, "range"),
        Some("2999-3000"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn bad_ranges_are_refused_with_the_numbers() {
    let dir = tempfile::tempdir().unwrap();
    write_large(dir.path());

    let out = read(
        dir.path(),
        json!({"path": "large.txt", "start_line": 5, "end_line": 4}),
    )
    .await;
    assert!(out.is_error);
    assert_eq!(label(&out.content, "what"), Some("invalid line range"));
    assert_eq!(label(&out.content, "start_line"), Some("5"));
    assert_eq!(label(&out.content, "end_line"), Some("4"));

    let out = read(dir.path(), json!({"path": "large.txt", "start_line": 3001})).await;
    assert!(out.is_error);
    assert_eq!(
        label(&out.content, "what"),
        Some("start_line is beyond the total number of lines")
    );
    assert_eq!(label(&out.content, "total_lines"), Some("3000"));

    let out = read(dir.path(), json!({"path": "large.txt", "start_line": 0})).await;
    assert!(out.is_error);
    assert!(out.content.contains("- start_line: "), "{}", out.content);

    let out = read(dir.path(), json!({"path": "large.txt", "byte_offset": 10})).await;
    assert!(out.is_error);
    assert_eq!(label(&out.content, "what"), Some("byte_offset invalid"));
    assert!(
        label(&out.content, "how")
            .unwrap()
            .contains("start_line and end_line")
    );

    let out = read(
        dir.path(),
        json!({"path": "large.txt", "start_line": 2, "end_line": 3, "byte_offset": 10}),
    )
    .await;
    assert!(out.is_error);
    assert_eq!(label(&out.content, "what"), Some("byte_offset invalid"));
    assert!(label(&out.content, "how").unwrap().contains("equal"));
}

#[tokio::test]
async fn a_long_line_is_paged_by_byte_offset() {
    let dir = tempfile::tempdir().unwrap();
    let long = "y".repeat(130 * 1024);
    fs::write(
        dir.path().join("long-line.txt"),
        format!("short\n{long}\nafter\n"),
    )
    .unwrap();

    let out = read(
        dir.path(),
        json!({"path": "long-line.txt", "start_line": 2, "end_line": 2}),
    )
    .await;
    assert!(!out.is_error, "{}", out.content);
    assert_eq!(label(&out.content, "range"), Some("2-2"));
    assert_eq!(
        label(&out.content, "next"),
        Some(
            "read_file({\"path\": \"long-line.txt\", \"start_line\": 2, \"end_line\": 2, \"byte_offset\": 102400})"
        )
    );
    assert_eq!(numbered(&out.content)[0].1.len(), WINDOW);

    let rest = read(dir.path(), next_args(&out.content).unwrap()).await;
    assert!(!rest.is_error, "{}", rest.content);
    assert_eq!(numbered(&rest.content)[0].1.len(), long.len() - WINDOW);
    assert_eq!(
        label(&rest.content, "next"),
        None,
        "end_line 2 reached: {}",
        rest.content
    );
    assert!(
        label(&rest.content, "reason")
            .unwrap()
            .contains("long line finished")
    );

    // Without end_line, finishing the line continues with the next one.
    let out = read(
        dir.path(),
        json!({"path": "long-line.txt", "start_line": 2, "end_line": 2, "byte_offset": 102400}),
    )
    .await;
    assert_eq!(label(&out.content, "next"), None);
    let out = read(
        dir.path(),
        json!({"path": "long-line.txt", "start_line": 2}),
    )
    .await;
    assert_eq!(
        label(&out.content, "range"),
        Some("2-2"),
        "an over-long first line enters byte mode: {}",
        out.content
    );

    // A window stops before an over-long line that is not its first.
    let out = read(dir.path(), json!({"path": "long-line.txt"})).await;
    assert_eq!(label(&out.content, "range"), Some("1-1"), "{}", out.content);
    assert_eq!(
        next_args(&out.content).unwrap(),
        json!({"path": "long-line.txt", "start_line": 2})
    );
    assert!(
        label(&out.content, "reason")
            .unwrap()
            .contains("byte_offset mode")
    );

    let out = read(
        dir.path(),
        json!({"path": "long-line.txt", "start_line": 2, "end_line": 2, "byte_offset": long.len()}),
    )
    .await;
    assert!(out.is_error);
    assert_eq!(
        label(&out.content, "what"),
        Some("byte_offset is beyond the length of this line")
    );
    assert_eq!(
        label(&out.content, "line_bytes"),
        Some(long.len().to_string().as_str())
    );
}

#[tokio::test]
async fn byte_windows_end_on_a_character_boundary() {
    let dir = tempfile::tempdir().unwrap();
    // One ASCII byte, then two-byte characters: byte 102 400 splits one.
    let line = format!("a{}", "é".repeat(60_000));
    fs::write(dir.path().join("utf8.txt"), format!("{line}\n")).unwrap();
    let out = read(
        dir.path(),
        json!({"path": "utf8.txt", "start_line": 1, "end_line": 1}),
    )
    .await;
    let text = &numbered(&out.content)[0].1;
    assert!(!text.contains('\u{FFFD}'));
    let next = next_args(&out.content).unwrap();
    assert_eq!(next["byte_offset"], WINDOW - 1);
    let rest = read(dir.path(), next).await;
    let rest_text = &numbered(&rest.content)[0].1;
    assert!(!rest_text.contains('\u{FFFD}'));
    assert_eq!(format!("{text}{rest_text}"), line);
}

#[tokio::test]
async fn directories_binaries_and_special_paths_are_refused_with_hints() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("src")).unwrap();
    fs::write(
        dir.path().join("img.png"),
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    )
    .unwrap();

    let out = read(dir.path(), json!({"path": "src"})).await;
    assert!(out.is_error);
    assert_eq!(
        label(&out.content, "what"),
        Some("this is a directory, not a file")
    );
    assert!(label(&out.content, "how").unwrap().contains("tree"));

    let out = read(dir.path(), json!({"path": "img.png"})).await;
    assert!(out.is_error);
    assert!(label(&out.content, "what").unwrap().contains("binary"));
    assert_eq!(label(&out.content, "size_bytes"), Some("16"));

    let out = read(dir.path(), json!({"path": "nope.txt"})).await;
    assert!(out.is_error);
    assert!(out.content.contains("path_not_found"));

    let out = read(dir.path(), json!({"path": ""})).await;
    assert!(out.is_error);
    assert!(
        out.content
            .contains("- path: expected at least 1 characters"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn a_multi_megabyte_file_is_read_by_window_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.log");
    let mut file = std::io::BufWriter::new(fs::File::create(&path).unwrap());
    let lines = 200_000u64;
    for n in 1..=lines {
        writeln!(file, "entry {n:07} {}", "z".repeat(40)).unwrap();
    }
    drop(file);
    let size = fs::metadata(&path).unwrap().len();
    assert!(size > 10_000_000);

    let started = std::time::Instant::now();
    let out = read(
        dir.path(),
        json!({"path": "huge.log", "start_line": 150_000, "end_line": 150_002}),
    )
    .await;
    println!(
        "read 3 lines of a {size}-byte file in {:?}",
        started.elapsed()
    );
    assert_eq!(
        label(&out.content, "total_lines"),
        Some(lines.to_string().as_str())
    );
    assert_eq!(
        label(&out.content, "size_bytes"),
        Some(size.to_string().as_str())
    );
    let shown = numbered(&out.content);
    assert_eq!(
        shown[0],
        (150_000, format!("entry 0150000 {}", "z".repeat(40)))
    );
    assert_eq!(shown.len(), 3);

    let out = read(
        dir.path(),
        json!({"path": "huge.log", "start_line": 100_000}),
    )
    .await;
    let shown = numbered(&out.content);
    let window_bytes: usize = shown.iter().map(|(_, t)| t.len() + 1).sum();
    assert!(window_bytes <= WINDOW, "{window_bytes}");
    assert!(
        out.content.len() < WINDOW + 30 * shown.len() + 1024,
        "{}",
        out.content.len()
    );
    assert_eq!(shown[0].0, 100_000);
}

#[tokio::test]
async fn a_changed_file_is_counted_again_not_taken_from_memory() {
    let dir = tempfile::tempdir().unwrap();
    write_large(dir.path());
    let args = json!({"path": "large.txt", "start_line": 2999});
    let first = read(dir.path(), args.clone()).await;
    assert_eq!(label(&first.content, "total_lines"), Some("3000"));
    let repeat = read(dir.path(), args.clone()).await;
    assert_eq!(first, repeat, "a remembered count gives the same window");

    let mut file = fs::OpenOptions::new()
        .append(true)
        .open(dir.path().join("large.txt"))
        .unwrap();
    writeln!(file, "line 03001 appended").unwrap();
    drop(file);
    let changed = read(dir.path(), args).await;
    assert_eq!(label(&changed.content, "total_lines"), Some("3001"));
    assert_eq!(
        numbered(&changed.content).last().unwrap(),
        &(3001, "line 03001 appended".to_owned())
    );
}

#[tokio::test]
async fn windows_far_into_a_file_with_crlf_lines_start_exactly_at_the_line() {
    let dir = tempfile::tempdir().unwrap();
    // 40 000 lines over several 1 MiB index chunks, CRLF-terminated.
    let body: String = (1..=40_000)
        .map(|n| format!("row {n:06} {}\r\n", "y".repeat(40)))
        .collect();
    fs::write(dir.path().join("rows.txt"), &body).unwrap();
    for start in [1u64, 21_000, 26_215, 39_999] {
        let out = read(
            dir.path(),
            json!({"path": "rows.txt", "start_line": start, "end_line": start + 1}),
        )
        .await;
        assert_eq!(label(&out.content, "total_lines"), Some("40000"));
        let lines = numbered(&out.content);
        assert_eq!(
            lines[0],
            (start, format!("row {start:06} {}", "y".repeat(40)))
        );
        assert_eq!(lines.len(), 2);
    }
}
