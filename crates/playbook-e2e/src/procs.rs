//! The processes of the machine as `/proc` lists them: what the harness
//! needs to find the app it started, its web process, and to stop them.

/// One line of `/proc/<pid>/stat`, the fields the harness reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stat {
    pub pid: u32,
    /// The command name, cut by the kernel to 15 bytes.
    pub comm: String,
    /// One letter: `R` running, `S` sleeping, `Z` zombie...
    pub state: String,
    pub ppid: u32,
}

impl Stat {
    /// Reads `/proc/<pid>/stat`; `None` once the process is gone.
    pub fn of(pid: u32) -> Option<Stat> {
        parse(
            pid,
            &std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?,
        )
    }
}

/// `pid (comm) state ppid ...`: the name may hold spaces and parentheses, so
/// it ends at the last `)`.
fn parse(pid: u32, stat: &str) -> Option<Stat> {
    let open = stat.find('(')?;
    let (head, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.to_string();
    let ppid = fields.next()?.parse().ok()?;
    Some(Stat {
        pid,
        comm: head.get(open + 1..)?.to_string(),
        state,
        ppid,
    })
}

/// Every process now running (those that end while listed are left out).
pub fn all() -> impl Iterator<Item = Stat> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().to_string_lossy().parse::<u32>().ok())
        .filter_map(Stat::of)
}

/// The children of `parent`.
pub fn children(parent: u32) -> impl Iterator<Item = Stat> {
    all().filter(move |p| p.ppid == parent)
}

/// Whether `pid` is a live process (a zombie is not).
pub fn alive(pid: u32) -> bool {
    Stat::of(pid).is_some_and(|p| p.state != "Z" && p.state != "X")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_with_spaces_and_parentheses_is_read_whole() {
        let stat = parse(7, "7 (a (b) c) S 3 7 7 0 -1").unwrap();
        assert_eq!(stat.comm, "a (b) c");
        assert_eq!((stat.state.as_str(), stat.ppid), ("S", 3));
        assert_eq!(parse(7, "7 (x"), None);
        assert_eq!(parse(7, "7 (x) S"), None);
    }

    #[test]
    fn this_process_is_alive_and_a_child_of_its_parent() {
        let me = std::process::id();
        assert!(alive(me));
        let parent = Stat::of(me).unwrap().ppid;
        assert!(children(parent).any(|p| p.pid == me));
    }
}
