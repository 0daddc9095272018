//! The memory bound of policy loading and evaluation: while a policy is compiled or evaluated the
//! process's address space may grow by at most [`BUDGET`] (a soft `RLIMIT_AS`, restored before
//! anything else runs). regorus counts instructions, not the memory one builtin allocates.
//!
//! Going past the bound makes the allocation fail, and a failed allocation aborts the process
//! (Rust cannot catch it): the gate dies before exec, so nothing runs, with "memory allocation
//! of N bytes failed" on stderr. (regorus's own memory limits need its mimalloc allocator.)

use nix::sys::resource::{getrlimit, setrlimit, Resource};

/// How far the address space may grow while a policy is loaded or evaluated.
pub const BUDGET: u64 = 1024 * 1024 * 1024;

/// The soft `RLIMIT_AS` lowered to the current address space plus [`BUDGET`] until dropped.
pub(crate) struct AddressSpaceBound {
    restore: Option<(u64, u64)>,
}

impl AddressSpaceBound {
    /// Lowers the soft limit (never raises it; an unreadable size or limit leaves it alone).
    pub(crate) fn enter() -> Self {
        let restore = (|| {
            let (soft, hard) = getrlimit(Resource::RLIMIT_AS).ok()?;
            let bound = address_space()?.saturating_add(BUDGET).min(hard);
            if bound >= soft {
                return None;
            }
            setrlimit(Resource::RLIMIT_AS, bound, hard).ok()?;
            Some((soft, hard))
        })();
        Self { restore }
    }
}

impl Drop for AddressSpaceBound {
    fn drop(&mut self) {
        if let Some((soft, hard)) = self.restore {
            let _ = setrlimit(Resource::RLIMIT_AS, soft, hard);
        }
    }
}

/// The process's address space in bytes (`/proc/self/statm`'s first field, in pages).
fn address_space() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().next()?.parse().ok()?;
    let page = nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE).ok()??;
    Some(pages.saturating_mul(u64::try_from(page).ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bound_is_lowered_and_restored() {
        let before = getrlimit(Resource::RLIMIT_AS).ok();
        {
            let _bound = AddressSpaceBound::enter();
            let (soft, _) = getrlimit(Resource::RLIMIT_AS).unwrap_or((u64::MAX, u64::MAX));
            let space = address_space().unwrap_or(0);
            assert!(soft <= space + BUDGET, "soft {soft}, space {space}");
            assert!(soft > space, "soft {soft}, space {space}");
        }
        assert_eq!(getrlimit(Resource::RLIMIT_AS).ok(), before);
    }
}
