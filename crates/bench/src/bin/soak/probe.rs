//! What the soak samples of each replica: memory (anonymous and file-backed, and the allocator's own figures), descriptors, threads, children.

use std::path::Path;

/// One replica's figures at one moment.
pub(crate) struct Sample {
    pub rss_kib: u64,
    /// Anonymous memory (heap, stacks) and file-backed pages (the binary's code) of the RSS.
    pub anon_kib: u64,
    pub file_kib: u64,
    pub fds: usize,
    pub threads: u64,
    pub children: usize,
    /// The allocator's live bytes and the RAM it holds (from `/metrics`), in KiB.
    pub heap_allocated_kib: u64,
    pub heap_resident_kib: u64,
    /// Audit rows waiting to be committed, and downstream sessions held (from `/metrics`).
    pub audit_queued: u64,
    pub sessions_held: u64,
}

/// `pid`'s figures from /proc, and its allocator's from `metrics` (its `/metrics` URL).
pub(crate) async fn sample(pid: u32, metrics: &str) -> Option<Sample> {
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = status.lines().find_map(|l| l.strip_prefix(name))?;
        line.split_whitespace().next()?.parse().ok()
    };
    let text = reqwest::get(metrics).await.ok()?.text().await.ok()?;
    let gauge = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.trim().parse::<f64>().ok())
            .map_or(0, |value| value as u64)
    };
    Some(Sample {
        rss_kib: field("VmRSS:")?,
        anon_kib: field("RssAnon:")?,
        file_kib: field("RssFile:")?,
        fds,
        threads: field("Threads:")?,
        children: children(pid),
        heap_allocated_kib: gauge("switchboard_heap_allocated_bytes ") / 1024,
        heap_resident_kib: gauge("switchboard_heap_resident_bytes ") / 1024,
        audit_queued: gauge("switchboard_audit_queue_depth "),
        sessions_held: gauge("switchboard_downstream_sessions_held "),
    })
}

/// Processes whose parent is `pid`.
pub(crate) fn children(pid: u32) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .filter_map(|e| e.ok())
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter(|stat| {
            let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
            rest.split_whitespace().nth(1) == Some(pid.to_string().as_str())
        })
        .count()
}

/// Processes running the fixture script (to find any left behind).
pub(crate) fn fixture_processes(script: &Path) -> usize {
    let needle = script.to_string_lossy().to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .filter_map(|e| e.ok())
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .filter(|cmd| String::from_utf8_lossy(cmd).contains(&needle))
        .count()
}
