use std::fs;
use std::io::Read;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};

use super::*;

const SECRET: &str = "OUTSIDE-SECRET";

/// `<tmp>/outside/secret.txt` and `<tmp>/cwd/` with links in and out.
struct Fixture {
    _tmp: tempfile::TempDir,
    base: PathBuf,
    cwd: PathBuf,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let cwd = base.join("cwd");
    fs::create_dir_all(base.join("outside")).unwrap();
    fs::write(base.join("outside/secret.txt"), SECRET).unwrap();
    fs::create_dir_all(cwd.join("a/b")).unwrap();
    fs::write(cwd.join("file.txt"), "inside\n").unwrap();
    fs::write(cwd.join("a/b/deep.txt"), "deep\n").unwrap();
    symlink(base.join("outside/secret.txt"), cwd.join("abs_out")).unwrap();
    symlink("../outside/secret.txt", cwd.join("rel_out")).unwrap();
    symlink("../outside", cwd.join("dir_out")).unwrap();
    symlink("a/b/../../file.txt", cwd.join("link_in")).unwrap();
    symlink("../../file.txt", cwd.join("a/b/up_in")).unwrap();
    symlink("b", cwd.join("a/dir_in")).unwrap();
    symlink(cwd.join("a/b/deep.txt"), cwd.join("abs_in")).unwrap();
    symlink("/proc/self/root/etc/passwd", cwd.join("magic")).unwrap();
    Fixture {
        _tmp: tmp,
        base,
        cwd,
    }
}

fn roots(dir: &Path) -> Vec<Root> {
    vec![
        Root::open(dir).unwrap(),
        Root::open_with_component_walk(dir).unwrap(),
    ]
}

fn rel(s: &str) -> RelPath {
    RelPath::parse(s).unwrap()
}

fn read(root: &Root, path: &str) -> Result<String, FsRefusal> {
    let mut opened = root.open_file(&root.relative(path)?)?;
    let mut text = String::new();
    opened.file.read_to_string(&mut text).unwrap();
    Ok(text)
}

#[test]
fn files_inside_open_and_symlinks_staying_inside_are_followed() {
    let fx = fixture();
    for root in roots(&fx.cwd) {
        assert_eq!(read(&root, "file.txt").unwrap(), "inside\n", "{root:?}");
        assert_eq!(read(&root, "link_in").unwrap(), "inside\n", "{root:?}");
        assert_eq!(read(&root, "a/b/up_in").unwrap(), "inside\n", "{root:?}");
        assert_eq!(read(&root, "a/dir_in/deep.txt").unwrap(), "deep\n");
        // An absolute link spelled under the root's path is taken beneath it.
        assert_eq!(read(&root, "abs_in").unwrap(), "deep\n", "{root:?}");
        let absolute = fx.cwd.join("a/b/deep.txt").display().to_string();
        assert_eq!(read(&root, &absolute).unwrap(), "deep\n");
    }
}

#[test]
fn every_way_out_is_an_escape_and_reads_nothing() {
    let fx = fixture();
    let outside = fx.base.join("outside/secret.txt").display().to_string();
    for root in roots(&fx.cwd) {
        for path in [
            "abs_out",
            "rel_out",
            "dir_out/secret.txt",
            "dir_out",
            "dir_out/missing",
            "../outside/secret.txt",
            "a/../../outside/secret.txt",
            "/etc/passwd",
            outside.as_str(),
        ] {
            let refusal = read(&root, path).unwrap_err();
            assert_eq!(
                refusal.kind,
                FsRefusalKind::Escape,
                "{root:?} {path}: {}",
                refusal.message
            );
            assert!(refusal.message.contains("[code]: path_escape"));
            assert!(!refusal.message.contains(SECRET));
        }
        // A magic link is never followed (absolute, so an escape either way).
        assert!(read(&root, "magic").is_err());
    }
}

#[test]
fn missing_invalid_and_wrong_kinds_are_told_apart() {
    let fx = fixture();
    for root in roots(&fx.cwd) {
        let kind = |path: &str| read(&root, path).unwrap_err().kind;
        assert_eq!(kind("nope.txt"), FsRefusalKind::NotFound);
        assert_eq!(kind("file.txt/x"), FsRefusalKind::NotFound);
        assert_eq!(kind("~/x"), FsRefusalKind::NotFound);
        assert_eq!(kind(""), FsRefusalKind::Invalid);
        assert_eq!(kind("a\0b"), FsRefusalKind::Invalid);
        let dir = read(&root, "a").unwrap_err();
        assert_eq!(dir.kind, FsRefusalKind::NotRegular);
        assert!(dir.message.contains("a directory"), "{}", dir.message);
        let not_dir = root.open_dir(&rel("file.txt")).unwrap_err();
        assert_eq!(not_dir.kind, FsRefusalKind::NotDirectory);
        assert_eq!(
            root.open_dir(&rel("nope")).unwrap_err().kind,
            FsRefusalKind::NotFound
        );
        assert_eq!(root.stat(&rel("nope")).unwrap(), None);
        let stat = root.stat(&rel("link_in")).unwrap().unwrap();
        assert_eq!(stat.kind(), FileKind::Regular);
        assert_eq!(stat.size, 7);
        assert_eq!(
            root.stat(&rel("dir_out")).unwrap_err().kind,
            FsRefusalKind::Escape
        );
    }
}

#[test]
fn a_fifo_is_refused_at_once_without_waiting_for_a_writer() {
    let fx = fixture();
    let fifo = fx.cwd.join("pipe");
    rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, Mode::from_raw_mode(0o600)).unwrap();
    for root in roots(&fx.cwd) {
        let refusal = read(&root, "pipe").unwrap_err();
        assert_eq!(refusal.kind, FsRefusalKind::NotRegular);
        assert!(refusal.message.contains("FIFO"), "{}", refusal.message);
        let dir = root.open_dir(&RelPath::root()).unwrap();
        assert!(dir.open_file(OsStr::new("pipe")).unwrap().is_none());
    }
}

#[test]
fn the_root_is_the_directory_not_its_path() {
    let fx = fixture();
    let root = Root::open(&fx.cwd).unwrap();
    let walk = Root::open_with_component_walk(&fx.cwd).unwrap();
    fs::rename(&fx.cwd, fx.base.join("cwd.moved")).unwrap();
    symlink("/", &fx.cwd).unwrap();
    for root in [root, walk] {
        assert_eq!(read(&root, "file.txt").unwrap(), "inside\n");
        // The absolute link's spelling now names `/`; it is still read
        // beneath the handle, so nothing outside is reached.
        assert_eq!(read(&root, "abs_in").unwrap(), "deep\n");
        assert_eq!(
            read(&root, "etc/passwd").unwrap_err().kind,
            FsRefusalKind::NotFound
        );
        let absolute = fx.cwd.join("etc/passwd").display().to_string();
        assert_eq!(
            read(&root, &absolute).unwrap_err().kind,
            FsRefusalKind::NotFound
        );
    }
}

#[test]
fn directory_entries_open_relative_to_their_handle_without_following_links() {
    let fx = fixture();
    for root in roots(&fx.cwd) {
        let dir = root.open_dir(&RelPath::root()).unwrap();
        let mut names: Vec<String> = dir
            .entries()
            .unwrap()
            .into_iter()
            .map(|e| e.name.to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                "a", "abs_in", "abs_out", "dir_out", "file.txt", "link_in", "magic", "rel_out"
            ]
        );
        assert!(dir.open_file(OsStr::new("file.txt")).unwrap().is_some());
        assert!(dir.open_file(OsStr::new("link_in")).unwrap().is_none());
        assert!(dir.open_file(OsStr::new("rel_out")).unwrap().is_none());
        assert!(dir.open_dir(OsStr::new("dir_out")).unwrap().is_none());
        let a = dir.open_dir(OsStr::new("a")).unwrap().unwrap();
        assert!(a.open_dir(OsStr::new("dir_in")).unwrap().is_none());
        assert_eq!(
            dir.stat_entry(OsStr::new("dir_out")).unwrap().kind(),
            FileKind::Symlink
        );
    }
}

#[test]
fn read_prefix_stops_at_the_cap() {
    let fx = fixture();
    fs::write(fx.cwd.join("big.txt"), "x".repeat(10_000)).unwrap();
    let root = Root::open(&fx.cwd).unwrap();
    let mut opened = root.open_file(&rel("big.txt")).unwrap();
    let (bytes, more) = opened.read_prefix(100).unwrap();
    assert_eq!((bytes.len(), more), (100, true));
    let mut small = root.open_file(&rel("file.txt")).unwrap();
    assert_eq!(
        small.read_prefix(100).unwrap(),
        (b"inside\n".to_vec(), false)
    );
}

#[test]
fn staged_writes_appear_only_on_commit_and_keep_the_mode() {
    let fx = fixture();
    for root in roots(&fx.cwd) {
        fs::set_permissions(fx.cwd.join("file.txt"), fs::Permissions::from_mode(0o600)).unwrap();
        let staged = root.stage(&rel("file.txt"), b"new\n", None).unwrap();
        assert_eq!(
            fs::read_to_string(fx.cwd.join("file.txt")).unwrap(),
            "inside\n"
        );
        staged.commit().unwrap();
        assert_eq!(
            fs::read_to_string(fx.cwd.join("file.txt")).unwrap(),
            "new\n"
        );
        let mode = fs::metadata(fx.cwd.join("file.txt"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);

        let dropped = root
            .stage(&rel("a/fresh.txt"), b"never", Some(0o755))
            .unwrap();
        drop(dropped);
        assert!(!fx.cwd.join("a/fresh.txt").exists());
        let leftovers: Vec<_> = fs::read_dir(fx.cwd.join("a"))
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        fs::write(fx.cwd.join("file.txt"), "inside\n").unwrap();
    }
}

#[test]
fn writes_never_follow_the_final_link_or_leave_the_root() {
    let fx = fixture();
    for root in roots(&fx.cwd) {
        // Staging over a link replaces the link, not the outside file.
        root.stage(&rel("rel_out"), b"replaced", None)
            .unwrap()
            .commit()
            .unwrap();
        assert_eq!(
            fs::read_to_string(fx.base.join("outside/secret.txt")).unwrap(),
            SECRET
        );
        assert!(
            !fs::symlink_metadata(fx.cwd.join("rel_out"))
                .unwrap()
                .is_symlink()
        );
        fs::remove_file(fx.cwd.join("rel_out")).unwrap();
        symlink("../outside/secret.txt", fx.cwd.join("rel_out")).unwrap();

        let into_outside = root.stage(&rel("dir_out/new.txt"), b"x", None).unwrap_err();
        assert_eq!(into_outside.kind, FsRefusalKind::Escape);
        assert!(!fx.base.join("outside/new.txt").exists());
        assert_eq!(
            root.create_dir_all(&rel("dir_out/sub")).unwrap_err().kind,
            FsRefusalKind::Escape
        );
        assert_eq!(
            root.stage(&rel("a"), b"x", None).unwrap_err().kind,
            FsRefusalKind::NotRegular
        );
        // Removing a link removes the link.
        root.remove_file(&rel("abs_out")).unwrap();
        assert!(fx.base.join("outside/secret.txt").exists());
        symlink(fx.base.join("outside/secret.txt"), fx.cwd.join("abs_out")).unwrap();
        assert_eq!(
            root.remove_file(&rel("a")).unwrap_err().kind,
            FsRefusalKind::NotRegular
        );
        assert_eq!(
            root.remove_file(&rel("nope")).unwrap_err().kind,
            FsRefusalKind::NotFound
        );
    }
}

#[test]
fn create_dir_all_makes_what_is_missing_and_refuses_files_on_the_way() {
    let fx = fixture();
    for (i, root) in roots(&fx.cwd).into_iter().enumerate() {
        let nested = format!("new{i}/x/y");
        root.create_dir_all(&rel(&nested)).unwrap();
        assert!(fx.cwd.join(&nested).is_dir());
        root.create_dir_all(&rel(&nested)).unwrap();
        root.create_dir_all(&rel("a/dir_in/c")).unwrap();
        assert!(fx.cwd.join("a/b/c").is_dir());
        let through_file = root.create_dir_all(&rel("file.txt/x")).unwrap_err();
        assert_eq!(
            through_file.kind,
            FsRefusalKind::NotDirectory,
            "{}",
            through_file.message
        );
        root.stage(&rel(&format!("{nested}/f.txt")), b"f", None)
            .unwrap()
            .commit()
            .unwrap();
        assert_eq!(
            fs::read_to_string(fx.cwd.join(&nested).join("f.txt")).unwrap(),
            "f"
        );
    }
}

#[test]
fn subroots_stay_beneath_their_parent() {
    let fx = fixture();
    let root = Root::open(&fx.cwd).unwrap();
    let sub = root.open_subroot(&rel("a")).unwrap();
    assert_eq!(sub.display_path(), fx.cwd.join("a"));
    assert_eq!(read(&sub, "b/deep.txt").unwrap(), "deep\n");
    assert_eq!(
        read(&sub, "b/up_in").unwrap_err().kind,
        FsRefusalKind::Escape
    );
    assert_eq!(
        root.open_subroot(&rel("dir_out")).unwrap_err().kind,
        FsRefusalKind::Escape
    );
}

#[test]
fn located_paths_are_real_and_inside_and_never_end_in_a_link() {
    let f = fixture();
    for root in roots(&f.cwd) {
        // Existing and absent files, also through a folder link inside: the
        // path read back from the folder's handle, without the link.
        assert_eq!(
            root.located(&rel("file.txt")).unwrap(),
            f.cwd.join("file.txt")
        );
        assert_eq!(
            root.located(&rel("new.txt")).unwrap(),
            f.cwd.join("new.txt")
        );
        assert_eq!(
            root.located(&rel("a/dir_in/deep.txt")).unwrap(),
            f.cwd.join("a/b/deep.txt")
        );
        // A link at the end, in or out, is refused, never followed.
        for link in ["link_in", "abs_out", "rel_out", "magic"] {
            let refusal = root.located(&rel(link)).unwrap_err();
            assert_eq!(refusal.kind, FsRefusalKind::NotRegular, "{link}");
        }
        // A folder on the way that leads out is an escape.
        assert!(root.located(&rel("dir_out/secret.txt")).is_err());
        assert!(root.located(&rel("a/b")).is_err(), "a folder");
    }
}
