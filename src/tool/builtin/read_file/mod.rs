//! `read_file`: the text of a file inside the cwd, whole or by line window.
//!
//! Files up to [`WINDOW_BYTES`] come back whole with line numbers. Larger
//! files come back as a window of whole lines totalling at most
//! [`WINDOW_BYTES`], with a copyable `[next]` call; a single line longer than
//! the window is paged by `byte_offset`. Memory stays bounded whatever the
//! file size: the line count is one SIMD pass keeping 8 bytes per MiB
//! (`index.rs`), remembered per file identity, so a window is found without
//! reading what lies before it and a repeat call reads only its lines; at
//! most one window (plus one line capped at the window) is held.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;

mod index;

use index::LineIndex;

use super::blocking::{self, StopFlag};
use crate::tool::editor::Editor;
use crate::tool::fs::{FileKind, FsRefusal, FsRefusalKind, OpenedFile, RelPath, Root};
use crate::tool::labelled::Labelled;
use crate::tool::seen::SeenFiles;
use crate::tool::{Tool, ToolContext, ToolOutput};

const NAME: &str = "read_file";
/// Whole-file threshold and window budget.
const WINDOW_BYTES: u64 = 100 * 1024;
/// Buffer of the line-window reader.
const READER_BYTES: usize = 64 * 1024;
/// How much of the file start is checked for a NUL byte.
const BINARY_SNIFF_BYTES: u64 = 8 * 1024;

const DESCRIPTION: &str = "Read a text file with line numbers: whole up to 100 KiB, else a window \
with [complete] and a [next] call to copy. From a grep hit pass start_line (end_line for a range).";

/// Arguments of `read_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadFileArgs {
    /// File to read.
    #[schemars(transform = crate::tool::unexplained)]
    #[schemars(length(min = 1))]
    pub path: String,
    /// First line, 1-based.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub start_line: Option<u64>,
    /// Last line, inclusive.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub end_line: Option<u64>,
    /// Only as copied from [next].
    #[serde(default)]
    pub byte_offset: Option<u64>,
}

/// The `read_file` tool.
#[derive(Debug, Clone, Default)]
pub struct ReadFileTool;

impl Tool for ReadFileTool {
    type Args = ReadFileArgs;

    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    async fn execute(&self, args: ReadFileArgs, ctx: ToolContext) -> ToolOutput {
        if ctx.cancel.is_cancelled() {
            return blocking::cancelled(NAME);
        }
        let (root, rel, shown) = match locate(&ctx, &args.path) {
            Ok(found) => found,
            Err(refusal) => return refusal.into(),
        };
        if let Some(refusal) = check_request(&shown, &args) {
            return refusal;
        }
        let request = Request {
            relative: shown,
            start_line: args.start_line,
            end_line: args.end_line,
            byte_offset: args.byte_offset,
        };
        if let Some(editor) = ctx.editor.as_ref().filter(|e| e.reads())
            && root == ctx.root
            && request.byte_offset.is_none()
            && let Some(output) = read_edited(&ctx, editor, &rel, &request).await
        {
            return output;
        }
        // Opening is blocking work too (a slow or hung file system).
        let seen = ctx.seen.clone();
        let read = blocking::run_blocking(&ctx.cancel, move |stop| {
            let opened = match root.open_file(&rel) {
                Ok(opened) => opened,
                Err(refusal) => return Ok(Some(refused_open(&root, &rel, &request, refusal))),
            };
            read(opened, &request, stop, &seen)
        })
        .await;
        match read {
            Ok(Ok(Some(output))) => output,
            Ok(Ok(None)) => blocking::cancelled(NAME),
            Ok(Err(e)) => ToolOutput::error(
                Labelled::what("the file could not be read")
                    .line("error", e)
                    .line("how", "check the path with tree; the file may have changed")
                    .finish(),
            ),
            Err(interrupted) => interrupted.into_output(NAME),
        }
    }
}

/// The file as the editor holds it (its unsaved buffer), whole with line
/// numbers; `None` when the disk should answer instead: a file over
/// [`WINDOW_BYTES`] (on disk or in the editor) is read in windows from disk.
/// The file is opened beneath the root first, so a refused path is refused
/// as on disk and never sent to the editor.
async fn read_edited(
    ctx: &ToolContext,
    editor: &Editor,
    rel: &RelPath,
    request: &Request,
) -> Option<ToolOutput> {
    let (root, target, shown) = (ctx.root.clone(), rel.clone(), request.clone());
    let opened = blocking::run_blocking(&ctx.cancel, move |_| match root.open_file(&target) {
        Ok(opened) => Ok(opened.identity.size),
        Err(refusal) => Err(refused_open(&root, &target, &shown, refusal)),
    })
    .await;
    match opened {
        Ok(Ok(size)) if size <= WINDOW_BYTES => {}
        Ok(Ok(_)) => return None,
        Ok(Err(output)) => return Some(output),
        Err(interrupted) => return Some(interrupted.into_output(NAME)),
    }
    let text = match editor.read(&ctx.root, rel, &ctx.cancel).await {
        Ok(text) => text,
        Err(output) => return Some(output),
    };
    if text.len() as u64 > WINDOW_BYTES || text.contains('\0') {
        // Windows of a large file, and the binary refusal, come from disk.
        return None;
    }
    let size = text.len() as u64;
    Some(whole(text.into_bytes(), size, request, &ctx.seen))
}

/// Where a model-given path is: beneath the working directory, or (by
/// absolute path) beneath a loaded skill's folder. The third value is the
/// path as shown to the model.
fn locate(ctx: &ToolContext, input: &str) -> Result<(Root, RelPath, String), FsRefusal> {
    match ctx.root.relative(input) {
        Ok(rel) => {
            let shown = rel.to_string();
            Ok((ctx.root.clone(), rel, shown))
        }
        Err(refusal) if refusal.kind == FsRefusalKind::Escape && Path::new(input).is_absolute() => {
            ctx.read_roots
                .iter()
                .find_map(|root| {
                    let rel = root.relative(input).ok()?;
                    let shown = root
                        .display_path()
                        .join(rel.to_os_path())
                        .display()
                        .to_string();
                    Some((root.clone(), rel, shown))
                })
                .ok_or(refusal)
        }
        Err(refusal) => Err(refusal),
    }
}

/// The result for a path that did not open as a regular file: the seed's
/// wording for directories and special files, else the refusal itself.
fn refused_open(root: &Root, rel: &RelPath, request: &Request, refusal: FsRefusal) -> ToolOutput {
    if refusal.kind != FsRefusalKind::NotRegular {
        return refusal.guided(root, rel).into();
    }
    let is_dir = matches!(root.stat(rel), Ok(Some(id)) if id.kind() == FileKind::Directory);
    let text = if is_dir {
        Labelled::what("this is a directory, not a file")
            .line("path", &request.relative)
            .line(
                "how",
                "pass a file; use tree to list a directory or grep to find text",
            )
    } else {
        Labelled::what("this is not a regular file (device, socket or pipe)")
            .line("path", &request.relative)
            .line("how", "read regular text files only")
    };
    ToolOutput::error(text.finish())
}

/// The checks of the arguments alone, in the seed's order.
fn check_request(relative: &str, args: &ReadFileArgs) -> Option<ToolOutput> {
    let refuse = |text: Labelled| Some(ToolOutput::error(text.finish()));
    if let (Some(start), Some(end)) = (args.start_line, args.end_line)
        && start > end
    {
        return refuse(
            Labelled::what("invalid line range")
                .line("path", relative)
                .line("start_line", start)
                .line("end_line", end)
                .line("how", "start_line must be <= end_line"),
        );
    }
    if let Some(offset) = args.byte_offset {
        let (Some(start), Some(end)) = (args.start_line, args.end_line) else {
            return refuse(
                Labelled::what("byte_offset invalid")
                    .line("path", relative)
                    .line("byte_offset", offset)
                    .line(
                        "how",
                        "byte_offset needs start_line and end_line; copy the whole [next] call",
                    ),
            );
        };
        if start != end {
            return refuse(
                Labelled::what("byte_offset invalid")
                    .line("path", relative)
                    .line("start_line", start)
                    .line("end_line", end)
                    .line(
                        "how",
                        "byte_offset pages a single line: start_line and end_line must be equal",
                    ),
            );
        }
    }
    None
}

#[derive(Clone)]
struct Request {
    relative: String,
    start_line: Option<u64>,
    end_line: Option<u64>,
    byte_offset: Option<u64>,
}

/// A continuation call for the model to copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Next {
    start_line: u64,
    end_line: Option<u64>,
    byte_offset: Option<u64>,
}

/// A successful read, ready to render.
struct FileView<'a> {
    relative: &'a str,
    size: u64,
    total_lines: u64,
    complete: bool,
    lines: Vec<(u64, String)>,
    reason: &'static str,
    next: Option<Next>,
    hint: Option<&'static str>,
}

/// Reads what `request` asks for from the opened file. `None` when stopped.
fn read(
    mut opened: OpenedFile,
    request: &Request,
    stop: &StopFlag,
    seen: &SeenFiles,
) -> io::Result<Option<ToolOutput>> {
    let size = opened.identity.size;
    let mut head = Vec::new();
    (&mut opened.file)
        .take(BINARY_SNIFF_BYTES.min(size))
        .read_to_end(&mut head)?;
    if head.contains(&0) {
        return Ok(Some(ToolOutput::error(
            Labelled::what("this file looks binary; only text files are supported")
                .line("path", &request.relative)
                .line("size_bytes", size)
                .line(
                    "how",
                    "read text files only; use tree to see what else is there",
                )
                .finish(),
        )));
    }
    if size <= WINDOW_BYTES {
        opened.file.seek(SeekFrom::Start(0))?;
        return Ok(Some(read_small(opened.file, size, request, seen)?));
    }
    read_large(opened, request, stop)
}

fn read_small(
    file: File,
    size: u64,
    request: &Request,
    seen: &SeenFiles,
) -> io::Result<ToolOutput> {
    let mut bytes = Vec::new();
    file.take(WINDOW_BYTES).read_to_end(&mut bytes)?;
    Ok(whole(bytes, size, request, seen))
}

/// A file read whole (`bytes`, of a file of `size` bytes), numbered.
fn whole(bytes: Vec<u8>, size: u64, request: &Request, seen: &SeenFiles) -> ToolOutput {
    if bytes.len() as u64 == size {
        // The agent now knows this file whole: the writing tools' stale guard.
        seen.saw(&request.relative, &bytes);
    }
    let text = String::from_utf8_lossy(&bytes);
    let body = text.strip_suffix('\n').unwrap_or(&text);
    let lines: Vec<(u64, String)> = if text.is_empty() {
        Vec::new()
    } else {
        body.split('\n')
            .zip(1..)
            .map(|(line, number)| (number, line.strip_suffix('\r').unwrap_or(line).to_owned()))
            .collect()
    };
    ToolOutput::ok(render(&FileView {
        relative: &request.relative,
        size,
        total_lines: lines.len() as u64,
        complete: true,
        lines,
        reason: "file under the full-read threshold; full content returned",
        next: None,
        hint: None,
    }))
}

/// A window of a file over [`WINDOW_BYTES`]: the line index (remembered or
/// built in one SIMD pass) says where the window starts; only the window
/// (and at most one chunk to find a line's end) is read.
fn read_large(
    opened: OpenedFile,
    request: &Request,
    stop: &StopFlag,
) -> io::Result<Option<ToolOutput>> {
    let size = opened.identity.size;
    let start_line = request.start_line.unwrap_or(1);
    let Some(index) = index::index_for(&opened, stop)? else {
        return Ok(None);
    };
    let mut file = opened.file;
    let total_lines = index.total_lines();
    let start_offset = match index.line_start(&file, start_line)? {
        Some(offset) => offset,
        None => {
            return Ok(Some(ToolOutput::error(
                Labelled::what("start_line is beyond the total number of lines")
                    .line("path", &request.relative)
                    .line("start_line", start_line)
                    .line("total_lines", total_lines)
                    .line("how", "pick a line within the file; grep first if unsure")
                    .finish(),
            )));
        }
    };
    let file_view = |lines, complete, reason, next, hint| FileView {
        relative: &request.relative,
        size,
        total_lines,
        complete,
        lines,
        reason,
        next,
        hint,
    };
    let hint = request.start_line.is_none().then_some(
        "to find a symbol, keyword or error text, grep first, then read from its start_line",
    );

    let line_part = |file: &File, byte_offset, line_bytes| -> io::Result<Option<ToolOutput>> {
        Ok(read_line_part(file, start_offset, byte_offset, line_bytes, stop)?.map(|part| {
            let (reason, next) = if part.reached_line_end {
                let more = start_line < total_lines
                    && request.end_line.is_none_or(|end| start_line < end);
                let next = more.then_some(Next {
                    start_line: start_line + 1,
                    end_line: request.end_line,
                    byte_offset: None,
                });
                ("long line finished; the next call returns to line mode", next)
            } else {
                let next = Next {
                    start_line,
                    end_line: Some(start_line),
                    byte_offset: Some(byte_offset + part.returned),
                };
                (
                    "the current line exceeds the budget; this window of the line was returned by byte_offset",
                    Some(next),
                )
            };
            ToolOutput::ok(render(&file_view(
                vec![(start_line, part.text)],
                false,
                reason,
                next,
                hint,
            )))
        }))
    };

    if let Some(byte_offset) = request.byte_offset {
        let line_bytes = line_length(&index, &file, start_line, start_offset)?;
        if byte_offset >= line_bytes {
            return Ok(Some(ToolOutput::error(
                Labelled::what("byte_offset is beyond the length of this line")
                    .line("path", &request.relative)
                    .line("start_line", start_line)
                    .line("byte_offset", byte_offset)
                    .line("line_bytes", line_bytes)
                    .line(
                        "how",
                        "copy byte_offset from the last [next] call, or read by start_line",
                    )
                    .finish(),
            )));
        }
        return line_part(&file, byte_offset, line_bytes);
    }

    file.seek(SeekFrom::Start(start_offset))?;
    let mut reader = BufReader::with_capacity(READER_BYTES, &mut file);
    let last_wanted = request
        .end_line
        .map_or(total_lines, |end| end.min(total_lines));
    let mut lines = Vec::new();
    let mut used = 0u64;
    let mut next = None;
    let mut reason = "file exceeds the full-read threshold; current line window returned";
    let mut line_number = start_line;
    while line_number <= last_wanted {
        if stop.is_set() {
            return Ok(None);
        }
        let line = read_line_capped(&mut reader, WINDOW_BYTES as usize + 1)?;
        let length = line.len() as u64;
        if length == 0 {
            break;
        }
        if length > WINDOW_BYTES {
            if lines.is_empty() {
                drop(reader);
                let line_bytes = line_length(&index, &file, start_line, start_offset)?;
                return line_part(&file, 0, line_bytes);
            }
            reason = "the next line exceeds the budget; stopped before it; continuing enters byte_offset mode";
            next = Some(Next {
                start_line: line_number,
                end_line: request.end_line,
                byte_offset: None,
            });
            break;
        }
        if used + length > WINDOW_BYTES && !lines.is_empty() {
            reason = "the line window reached the 100 KiB budget; continue with [next]";
            next = Some(Next {
                start_line: line_number,
                end_line: request.end_line,
                byte_offset: None,
            });
            break;
        }
        used += length;
        lines.push((line_number, line_text(&line)));
        line_number += 1;
    }
    let reached_end = lines.last().is_some_and(|(n, _)| *n == total_lines);
    let complete = next.is_none() && request.end_line.is_none() && reached_end;
    Ok(Some(ToolOutput::ok(render(&file_view(
        lines, complete, reason, next, hint,
    )))))
}

/// Reads one line (terminator included) but never more than `cap` bytes.
fn read_line_capped(reader: &mut impl BufRead, cap: usize) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    while bytes.len() < cap {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            break;
        }
        let room = &available[..available.len().min(cap - bytes.len())];
        if let Some(end) = room.iter().position(|&b| b == b'\n') {
            bytes.extend_from_slice(&room[..=end]);
            reader.consume(end + 1);
            break;
        }
        let taken = room.len();
        bytes.extend_from_slice(room);
        reader.consume(taken);
    }
    Ok(bytes)
}

fn line_text(line: &[u8]) -> String {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    String::from_utf8_lossy(line).into_owned()
}

/// Byte length of line `line` (starting at `start`), without its CR/LF,
/// from the index: at most one chunk and one byte are read.
fn line_length(index: &LineIndex, file: &File, line: u64, start: u64) -> io::Result<u64> {
    let (end, terminated) = index.line_end(file, line)?;
    let mut before = [0u8; 1];
    let carriage_return =
        terminated && end > start && file.read_at(&mut before, end - 1)? == 1 && before[0] == b'\r';
    Ok(end - start - u64::from(carriage_return))
}

/// One window of an over-long line.
struct LinePart {
    text: String,
    returned: u64,
    reached_line_end: bool,
}

/// Reads up to [`WINDOW_BYTES`] of the line at `line_start`, from
/// `byte_offset` into it. The window ends on a UTF-8 character boundary
/// unless that would return nothing. `None` when stopped.
fn read_line_part(
    file: &File,
    line_start: u64,
    byte_offset: u64,
    line_bytes: u64,
    stop: &StopFlag,
) -> io::Result<Option<LinePart>> {
    if stop.is_set() {
        return Ok(None);
    }
    let wanted = line_bytes.saturating_sub(byte_offset).min(WINDOW_BYTES);
    let mut bytes = vec![0u8; wanted as usize];
    let got = index::read_full_at(file, &mut bytes, line_start + byte_offset)?;
    bytes.truncate(got);
    let reached_line_end = byte_offset + bytes.len() as u64 >= line_bytes;
    if !reached_line_end && let Err(e) = std::str::from_utf8(&bytes) {
        // Only a character cut at the window's end; never return nothing.
        if e.error_len().is_none() && e.valid_up_to() > 0 {
            bytes.truncate(e.valid_up_to());
        }
    }
    Ok(Some(LinePart {
        text: String::from_utf8_lossy(&bytes).into_owned(),
        returned: bytes.len() as u64,
        reached_line_end,
    }))
}

fn render(view: &FileView<'_>) -> String {
    let mut text = Labelled::what("file_content")
        .line("path", view.relative)
        .line("size_bytes", view.size)
        .line("total_lines", view.total_lines)
        .line("complete", view.complete);
    if let (Some((first, _)), Some((last, _))) = (view.lines.first(), view.lines.last()) {
        text = text.line("range", format!("{first}-{last}"));
    }
    text = text.line("reason", view.reason).raw("[content]:");
    for (number, line) in &view.lines {
        text = text.raw(format!("{number} | {line}"));
    }
    text.maybe("next", view.next.map(|next| next_call(view.relative, next)))
        .maybe("hint", view.hint)
        .finish()
}

fn next_call(relative: &str, next: Next) -> String {
    let path = serde_json::Value::String(relative.to_owned());
    let mut call = format!(
        "read_file({{\"path\": {path}, \"start_line\": {}",
        next.start_line
    );
    if let Some(end) = next.end_line {
        call.push_str(&format!(", \"end_line\": {end}"));
    }
    if let Some(offset) = next.byte_offset {
        call.push_str(&format!(", \"byte_offset\": {offset}"));
    }
    call.push_str("})");
    call
}
