//! Reading an image off the system clipboard for Ctrl+V, through the
//! clipboard tools the desktop ships: `wl-paste` (Wayland), `xclip` (X11)
//! and `pngpaste` (macOS). Native clipboard crates read nothing on many
//! Wayland desktops; the tools work wherever they are installed.
//!
//! Each tool runs with a time limit and is killed when it passes it (a
//! clipboard owner that never answers would otherwise hang the paste), and
//! at most [`MAX_IMAGE_BYTES`] of what it prints is kept. `xsel` is not
//! asked: it cannot pick a MIME type, so it only ever gives text.

use std::io;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::Command;

/// How long a clipboard tool may take.
pub const TIMEOUT: Duration = Duration::from_secs(3);

/// Most bytes of an image taken from the clipboard (the agent's image cap).
pub const MAX_IMAGE_BYTES: usize = 20 * 1024 * 1024;

/// The tools asked, in order: program and arguments.
const TOOLS: [(&str, &[&str]); 3] = [
    ("wl-paste", &["--no-newline", "--type", "image/png"]),
    (
        "xclip",
        &["-selection", "clipboard", "-t", "image/png", "-o"],
    ),
    ("pngpaste", &["-"]),
];

/// What to install where no tool is found.
pub const INSTALL_HINT: &str = "no clipboard tool found: install wl-clipboard (Wayland), xclip (X11) \
     or pngpaste (macOS) to paste images, or paste the image file's path";

/// The clipboard's image as PNG bytes, or why there is none (in words,
/// naming the tool).
pub async fn read_image() -> Result<Vec<u8>, String> {
    let mut failure = None;
    for (program, args) in TOOLS {
        match run(program, args).await {
            Ok(bytes) => return Ok(bytes),
            // Not installed: the next tool may be.
            Err(Failure::Missing) => continue,
            // Hanging or too large: asking another tool would only hide it.
            Err(Failure::Fatal(message)) => return Err(message),
            Err(Failure::NoImage(message)) => {
                failure.get_or_insert(message);
            }
        }
    }
    Err(failure.unwrap_or_else(|| INSTALL_HINT.to_string()))
}

enum Failure {
    Missing,
    NoImage(String),
    Fatal(String),
}

async fn run(program: &str, args: &[&str]) -> Result<Vec<u8>, Failure> {
    let mut child = match Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
    {
        Ok(child) => child,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(Failure::Missing),
        Err(e) => return Err(Failure::NoImage(format!("{program} could not start: {e}"))),
    };
    let (Some(mut stdout), Some(mut stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(Failure::NoImage(format!("{program} gave no output")));
    };
    let read = async {
        let mut bytes = Vec::new();
        let mut errors = Vec::new();
        let mut stdout = (&mut stdout).take(MAX_IMAGE_BYTES as u64 + 1);
        let mut stderr = (&mut stderr).take(4096);
        let (out, _) = tokio::join!(
            stdout.read_to_end(&mut bytes),
            stderr.read_to_end(&mut errors),
        );
        out.map(|_| (bytes, errors))
    };
    let (bytes, errors) = match tokio::time::timeout(TIMEOUT, read).await {
        Ok(Ok(read)) => read,
        Ok(Err(e)) => return Err(Failure::NoImage(format!("{program} failed: {e}"))),
        Err(_) => {
            let _ = child.start_kill();
            return Err(Failure::Fatal(format!(
                "{program} did not answer within {}s and was stopped; no image attached",
                TIMEOUT.as_secs()
            )));
        }
    };
    if bytes.len() > MAX_IMAGE_BYTES {
        let _ = child.start_kill();
        return Err(Failure::Fatal(format!(
            "the clipboard's image is larger than {} MiB; not attached",
            MAX_IMAGE_BYTES / (1024 * 1024)
        )));
    }
    let status = match tokio::time::timeout(TIMEOUT, child.wait()).await {
        Ok(Ok(status)) => status,
        _ => {
            let _ = child.start_kill();
            return Err(Failure::Fatal(format!("{program} did not exit; stopped")));
        }
    };
    if !status.success() || bytes.is_empty() {
        let said = String::from_utf8_lossy(&errors);
        let said = said.lines().next().unwrap_or("").trim();
        let why = if said.is_empty() {
            String::new()
        } else {
            format!(" ({said})")
        };
        return Err(Failure::NoImage(format!(
            "the clipboard holds no image{why}"
        )));
    }
    Ok(bytes)
}
