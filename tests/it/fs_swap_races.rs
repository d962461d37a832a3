#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Check-then-open races: while a swapper thread keeps exchanging a file or
//! a directory of the working directory with symlinks to outside (a canary
//! folder, `/etc`) and with a FIFO, 200 calls of each tool return no byte
//! and no name from outside, and every call ends.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use light_agent::tool::{ToolContext, ToolOutput, ToolRegistry, builtin};
use rustix::fs::{CWD, Mode, RenameFlags, mkfifoat, renameat_with};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// What the outside files hold; never seen in any result.
const CANARY: &str = "CANARY-7d3f-OUTSIDE-BYTES";
/// A line of `/etc/passwd`; never seen in any result.
const PASSWD: &str = "root:x:0:0";
/// What `target.txt` is exchanged with: links to outside, a FIFO.
const FILE_SWAPS: [&str; 3] = [".file_out", ".file_etc", ".file_fifo"];
/// What `d/` is exchanged with: links to outside, a folder of FIFOs.
const DIR_SWAPS: [&str; 3] = [".dir_out", ".dir_etc", ".dir_fifo"];
/// Calls per case.
const CALLS: usize = 200;
/// Only a hung call takes this long; it fails the test instead of hanging it.
const HANG_GUARD: Duration = Duration::from_secs(60);

/// `<tmp>/outside/` (canary files with the same names as inside) and
/// `<tmp>/cwd/` with `target.txt`, `d/` and, hidden, the things swapped in.
struct Tree {
    _tmp: tempfile::TempDir,
    cwd: PathBuf,
}

fn tree() -> Tree {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let outside = base.join("outside");
    let cwd = base.join("cwd");
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("target.txt"), format!("{CANARY}\n")).unwrap();
    fs::write(outside.join("file.txt"), format!("{CANARY}\n")).unwrap();
    fs::write(outside.join("passwd"), format!("{CANARY}\n")).unwrap();
    fs::write(outside.join("outside_only.txt"), format!("{CANARY}\n")).unwrap();
    fs::create_dir_all(cwd.join("d")).unwrap();
    fs::write(cwd.join("target.txt"), "inside target\n").unwrap();
    fs::write(cwd.join("d/file.txt"), "inside file\n").unwrap();
    fs::write(cwd.join("d/passwd"), "inside passwd\n").unwrap();
    // What gets exchanged with target.txt and d/.
    symlink(outside.join("file.txt"), cwd.join(".file_out")).unwrap();
    symlink("/etc/passwd", cwd.join(".file_etc")).unwrap();
    mkfifoat(CWD, cwd.join(".file_fifo"), Mode::from_raw_mode(0o600)).unwrap();
    symlink(&outside, cwd.join(".dir_out")).unwrap();
    symlink("/etc", cwd.join(".dir_etc")).unwrap();
    fs::create_dir(cwd.join(".dir_fifo")).unwrap();
    mkfifoat(
        CWD,
        cwd.join(".dir_fifo/file.txt"),
        Mode::from_raw_mode(0o600),
    )
    .unwrap();
    mkfifoat(
        CWD,
        cwd.join(".dir_fifo/passwd"),
        Mode::from_raw_mode(0o600),
    )
    .unwrap();
    Tree { _tmp: tmp, cwd }
}

/// A thread exchanging `name` with each of `swaps` in turn (and back),
/// atomically (`renameat2(RENAME_EXCHANGE)`), until dropped.
struct Swapper {
    stop: Arc<AtomicBool>,
    swaps: Arc<AtomicU64>,
    thread: Option<JoinHandle<()>>,
}

impl Swapper {
    fn start(cwd: &Path, name: &str, swaps: &[&str]) -> Swapper {
        let stop = Arc::new(AtomicBool::new(false));
        let count = Arc::new(AtomicU64::new(0));
        let target = cwd.join(name);
        let others: Vec<PathBuf> = swaps.iter().map(|s| cwd.join(s)).collect();
        let thread = {
            let (stop, count) = (stop.clone(), count.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    for other in &others {
                        for _ in 0..2 {
                            renameat_with(CWD, &target, CWD, other, RenameFlags::EXCHANGE).unwrap();
                            count.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            })
        };
        Swapper {
            stop,
            swaps: count,
            thread: Some(thread),
        }
    }
}

impl Drop for Swapper {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Runs `calls` round-robin `CALLS` times while `swapper` runs (and on, up to
/// fifty times as many, until one call has succeeded with `inside` in it, so
/// an unlucky schedule cannot leave the control empty); checks every result
/// for outside bytes and returns the results.
async fn race(
    cwd: &Path,
    swapper: Swapper,
    calls: &[(&str, Value)],
    inside: &str,
) -> Vec<ToolOutput> {
    let registry = ToolRegistry::new();
    builtin::register_all(&registry).unwrap();
    let ctx = ToolContext::new(cwd, CancellationToken::new()).unwrap();
    let mut outputs = Vec::with_capacity(CALLS);
    let mut i = 0;
    while i < CALLS || (successes(&outputs, inside) == 0 && i < CALLS * 50) {
        let (tool, args) = &calls[i % calls.len()];
        let call = registry.execute(tool, args.clone(), ctx.clone());
        let out = tokio::time::timeout(HANG_GUARD, call)
            .await
            .unwrap_or_else(|_| panic!("{tool} call {i} never ended"));
        assert!(
            !out.content.contains(CANARY) && !out.content.contains(PASSWD),
            "{tool} call {i} leaked outside bytes: {}",
            out.content
        );
        outputs.push(out);
        i += 1;
    }
    let swaps = swapper.swaps.load(Ordering::Relaxed);
    drop(swapper);
    assert!(swaps > 0, "the swapper never ran");
    outputs
}

/// The control: opening `path` by name while the same swaps run does reach
/// outside bytes, so the race the tools survive is real. Opens without
/// blocking (the FIFO is among the swaps).
fn by_name_reaches_outside(cwd: &Path, name: &str, swaps: &[&str], path: &str) -> bool {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let swapper = Swapper::start(cwd, name, swaps);
    let mut reached = false;
    for _ in 0..20_000 {
        let opened = fs::OpenOptions::new()
            .read(true)
            .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
            .open(cwd.join(path));
        let mut text = String::new();
        if let Ok(mut file) = opened {
            let _ = file.read_to_string(&mut text);
        }
        if text.contains(CANARY) || text.contains(PASSWD) {
            reached = true;
            break;
        }
    }
    drop(swapper);
    reached
}

fn successes(outputs: &[ToolOutput], inside: &str) -> usize {
    outputs
        .iter()
        .filter(|o| !o.is_error && o.content.contains(inside))
        .count()
}

#[tokio::test(flavor = "multi_thread")]
async fn read_file_swap_race_on_a_file_leaks_nothing() {
    let t = tree();
    let swapper = Swapper::start(&t.cwd, "target.txt", &FILE_SWAPS);
    let outputs = race(
        &t.cwd,
        swapper,
        &[("read_file", json!({"path": "target.txt"}))],
        "inside target",
    )
    .await;
    assert!(successes(&outputs, "inside target") > 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn read_file_swap_race_on_a_directory_leaks_nothing() {
    let t = tree();
    let swapper = Swapper::start(&t.cwd, "d", &DIR_SWAPS);
    let calls = [
        ("read_file", json!({"path": "d/file.txt"})),
        ("read_file", json!({"path": "d/passwd"})),
    ];
    let outputs = race(&t.cwd, swapper, &calls, "inside").await;
    assert!(successes(&outputs, "inside") > 0);
    assert!(by_name_reaches_outside(
        &t.cwd,
        "d",
        &DIR_SWAPS,
        "d/file.txt"
    ));
}

#[tokio::test(flavor = "multi_thread")]
async fn grep_swap_race_on_a_file_leaks_nothing() {
    let t = tree();
    let swapper = Swapper::start(&t.cwd, "target.txt", &FILE_SWAPS);
    let calls = [(
        "grep",
        json!({"search_strs": ["CANARY", "root:", "inside"]}),
    )];
    let outputs = race(&t.cwd, swapper, &calls, "inside").await;
    assert!(successes(&outputs, "inside") > 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn grep_swap_race_on_a_directory_leaks_nothing() {
    let t = tree();
    let swapper = Swapper::start(&t.cwd, "d", &DIR_SWAPS);
    let calls = [
        (
            "grep",
            json!({"search_strs": ["CANARY", "root:", "inside"], "scope": "d"}),
        ),
        (
            "grep",
            json!({"search_strs": ["CANARY", "root:", "inside"]}),
        ),
    ];
    let outputs = race(&t.cwd, swapper, &calls, "inside").await;
    assert!(successes(&outputs, "inside") > 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn tree_swap_race_lists_no_outside_name() {
    let t = tree();
    let swapper = Swapper::start(&t.cwd, "d", &DIR_SWAPS);
    let calls = [
        ("tree", json!({"path": "."})),
        ("tree", json!({"path": "d"})),
    ];
    let outputs = race(&t.cwd, swapper, &calls, "- target.txt").await;
    let inside_names = ["d", "file.txt", "passwd", "target.txt"];
    for out in outputs.iter().filter(|o| !o.is_error) {
        for line in out.content.lines() {
            let Some(item) = line.trim_start().strip_prefix("- ") else {
                continue;
            };
            let name = item.split(" | ").next().unwrap();
            assert!(
                inside_names.contains(&name),
                "tree listed {name:?} from outside:\n{}",
                out.content
            );
        }
    }
    assert!(successes(&outputs, "- target.txt") > 0);
}
