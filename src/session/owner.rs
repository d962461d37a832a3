//! Whether the process that marked a session `running` still exists.
//!
//! A crash leaves `status = 'running'` behind; readers treat such a row as
//! idle once its owner is gone. A recycled pid makes a dead owner look alive
//! (the session then reads as running until marked idle) — the safe error.

/// True unless the process with this pid is known to be gone.
///
/// Linux reads `/proc/<pid>/stat` (a zombie counts as gone). Elsewhere the
/// owner is assumed alive.
pub(super) fn process_is_alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    platform::process_is_alive(pid)
}

#[cfg(target_os = "linux")]
mod platform {
    pub(super) fn process_is_alive(pid: u32) -> bool {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            // The state letter follows the parenthesised command name, which
            // may itself contain spaces and parentheses.
            Ok(stat) => match stat.rfind(')').map(|end| stat[end + 1..].trim_start()) {
                Some(rest) => !(rest.starts_with('Z') || rest.starts_with('X')),
                None => true,
            },
            Err(error) => error.kind() != std::io::ErrorKind::NotFound,
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod platform {
    pub(super) fn process_is_alive(_pid: u32) -> bool {
        true
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive() {
        assert!(process_is_alive(std::process::id()));
    }

    #[test]
    fn an_exited_and_reaped_child_is_gone() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        assert!(!process_is_alive(pid));
    }

    #[test]
    fn an_exited_but_unreaped_child_is_gone() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        // Give it time to exit without reaping it: it stays a zombie.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while process_is_alive(pid) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(!process_is_alive(pid));
        child.wait().unwrap();
    }

    #[test]
    fn a_running_child_is_alive() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let alive = process_is_alive(child.id());
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(alive);
    }
}
