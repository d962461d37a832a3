//! The Landlock ruleset: read everywhere but the deny list ([`DeniedReads`]:
//! granted per root, since Landlock only allows), write beneath the given
//! roots (again minus the deny list) and `/dev/null`, no TCP without
//! `--network`, no signals or abstract sockets out of the sandbox.

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, LandlockStatus, PathBeneath, PathFd,
    RestrictionStatus, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
};

use super::deny::{DeniedReads, grants_beneath};
use super::policy::HelperRequest;
use super::state::SandboxState;

/// The newest ABI whose rights we ask for (v6 adds signal and abstract
/// socket scoping). Newer kernels enforce all of it; older ones part.
const TARGET: ABI = ABI::V6;

/// Confines the calling thread (the helper has only one) and says what was
/// enforced. Never panics: any failure is reported as unavailable, after
/// no-new-privileges was still set.
pub(super) fn apply(request: &HelperRequest) -> SandboxState {
    // The home a command's `~` means is the one whose secrets it must not read.
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let denied = DeniedReads::resolve(home.as_deref(), &request.deny_read);
    match restrict(request, &denied) {
        Ok(status) => interpret(&status, request),
        Err(reason) => {
            let _ = rustix::thread::set_no_new_privs(true);
            SandboxState::Unavailable { reason }
        }
    }
}

fn restrict(request: &HelperRequest, denied: &DeniedReads) -> Result<RestrictionStatus, String> {
    let text = |e: landlock::RulesetError| e.to_string();
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(TARGET))
        .map_err(text)?;
    let scopes = if request.network {
        Scope::Signal.into()
    } else {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(TARGET))
            .map_err(text)?;
        Scope::from_all(TARGET)
    };
    let mut created = ruleset
        .scope(scopes)
        .map_err(text)?
        .create()
        .map_err(text)?;
    let open = |path: &std::path::Path| PathFd::new(path).map_err(|e| e.to_string());
    for grant in grants_beneath("/".as_ref(), denied) {
        // An entry gone since it was listed cannot be read anyway.
        let Ok(fd) = PathFd::new(&grant) else {
            continue;
        };
        // A file (the split reaches `~/.bashrc`) takes no directory rights;
        // asking for them would make Landlock report a partial sandbox.
        let access = if grant.is_dir() {
            AccessFs::from_read(TARGET)
        } else {
            AccessFs::from_read(TARGET) & AccessFs::from_file(TARGET)
        };
        created = created
            .add_rule(PathBeneath::new(fd, access))
            .map_err(text)?;
    }
    created = created
        .add_rule(PathBeneath::new(
            open("/dev/null".as_ref())?,
            AccessFs::from_file(TARGET),
        ))
        .map_err(text)?;
    // `> /dev/stdout` and `> /dev/stderr` reopen our own output pipes through
    // /proc; they are ours to write whatever they are.
    // Landlock takes no rules on pipes (and does not confine reopening them).
    for own in ["/proc/self/fd/1", "/proc/self/fd/2"] {
        let is_file = std::fs::metadata(own).is_ok_and(|m| m.is_file());
        if !is_file {
            continue;
        }
        if let Ok(fd) = PathFd::new(own) {
            created = created
                .add_rule(PathBeneath::new(fd, AccessFs::from_file(TARGET)))
                .map_err(text)?;
        }
    }
    for root in request.write.iter().flat_map(|r| grants_beneath(r, denied)) {
        // A root that does not exist (yet) cannot be written anyway.
        let Ok(fd) = PathFd::new(&root) else { continue };
        let access = if root.is_dir() {
            AccessFs::from_all(TARGET)
        } else {
            AccessFs::from_file(TARGET)
        };
        created = created
            .add_rule(PathBeneath::new(fd, access))
            .map_err(text)?;
    }
    created.restrict_self().map_err(text)
}

fn interpret(status: &RestrictionStatus, request: &HelperRequest) -> SandboxState {
    let abi = match status.landlock {
        LandlockStatus::Available { effective_abi, .. } => effective_abi as u32,
        LandlockStatus::NotEnabled => {
            return SandboxState::Unavailable {
                reason: "Landlock is not enabled in this kernel".into(),
            };
        }
        LandlockStatus::NotImplemented => {
            return SandboxState::Unavailable {
                reason: "this kernel has no Landlock".into(),
            };
        }
    };
    match status.ruleset {
        RulesetStatus::FullyEnforced => SandboxState::Enforced { abi },
        RulesetStatus::PartiallyEnforced => SandboxState::Partial {
            abi,
            missing: missing_at(abi, request.network),
        },
        RulesetStatus::NotEnforced => SandboxState::Unavailable {
            reason: "Landlock enforced nothing".into(),
        },
    }
}

/// What an ABI older than [`TARGET`] leaves out.
fn missing_at(abi: u32, network: bool) -> String {
    let mut missing = Vec::new();
    if abi < 2 {
        missing.push("rename control");
    }
    if abi < 3 {
        missing.push("truncate control");
    }
    if abi < 4 && !network {
        missing.push("network control");
    }
    if abi < 5 {
        missing.push("device ioctl control");
    }
    if abi < 6 {
        missing.push("signal scoping");
    }
    missing.join(", ")
}

#[cfg(test)]
mod tests {
    use super::missing_at;

    #[test]
    fn older_abis_name_what_they_lack() {
        assert_eq!(missing_at(5, false), "signal scoping");
        assert!(missing_at(3, false).contains("network control"));
        assert!(!missing_at(3, true).contains("network control"));
    }
}
