//! How long the catalogue's merged lists may be cached: until the first of their servers'
//! lists goes stale, and shared only when every server lets its list be shared.

use std::time::Instant;
use switchboard_upstream::{ListCache, ListHint, Snapshot};

/// The longest a list is said to stay fresh, whatever its server says.
const MAX_TTL: std::time::Duration = std::time::Duration::from_secs(24 * 60 * 60);

/// The four lists a catalogue merges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    Tools,
    Resources,
    ResourceTemplates,
    Prompts,
}

const KINDS: [ListKind; 4] = [
    ListKind::Tools,
    ListKind::Resources,
    ListKind::ResourceTemplates,
    ListKind::Prompts,
];

/// One merged list's freshness.
#[derive(Debug, Clone, Copy)]
enum Merged {
    /// No server offers the list (yet).
    Nobody,
    /// A server gave no hint.
    Stale,
    Until {
        at: Instant,
        public: bool,
    },
}

/// The freshness of a catalogue's four lists.
#[derive(Debug, Clone)]
pub struct ListFreshness([Merged; 4]);

impl Default for ListFreshness {
    fn default() -> Self {
        Self([Merged::Nobody; 4])
    }
}

impl ListFreshness {
    /// The merged freshness of the servers' snapshots.
    pub(crate) fn of<'a>(snapshots: impl IntoIterator<Item = &'a Snapshot>) -> Self {
        let mut merged = Self::default();
        for snapshot in snapshots {
            for kind in KINDS {
                let slot = &mut merged.0[kind as usize];
                *slot = merge(*slot, hint(snapshot, kind));
            }
        }
        merged
    }

    /// The time left for a list at `now`, and whether it may be shared; a list without a
    /// hint from every server that offers it is stale and private; `None` when no server
    /// offers it (it does not count in a merge).
    pub fn at(&self, kind: ListKind, now: Instant) -> Option<ListCache> {
        match self.0[kind as usize] {
            Merged::Until { at, public } => Some(ListCache {
                ttl_ms: u64::try_from(at.saturating_duration_since(now).as_millis())
                    .unwrap_or(u64::MAX),
                public,
            }),
            Merged::Stale => Some(ListCache {
                ttl_ms: 0,
                public: false,
            }),
            Merged::Nobody => None,
        }
    }
}

/// What one snapshot says about a list, as a deadline.
fn hint(snapshot: &Snapshot, kind: ListKind) -> Merged {
    let f = &snapshot.freshness;
    let hint = match kind {
        ListKind::Tools => f.tools,
        ListKind::Resources => f.resources,
        ListKind::ResourceTemplates => f.resource_templates,
        ListKind::Prompts => f.prompts,
    };
    match (hint, f.fetched) {
        (ListHint::NotOffered, _) => Merged::Nobody,
        (ListHint::Fresh(c), Some(fetched)) => {
            // As long as a day at most (rmcp's clients cap theirs there too).
            let ttl = std::time::Duration::from_millis(c.ttl_ms).min(MAX_TTL);
            match fetched.checked_add(ttl) {
                Some(at) => Merged::Until {
                    at,
                    public: c.public,
                },
                None => Merged::Stale,
            }
        }
        (ListHint::Fresh(_), None) | (ListHint::Stale, _) => Merged::Stale,
    }
}

fn merge(a: Merged, b: Merged) -> Merged {
    match (a, b) {
        (Merged::Nobody, x) | (x, Merged::Nobody) => x,
        (Merged::Stale, _) | (_, Merged::Stale) => Merged::Stale,
        (Merged::Until { at: a, public: p }, Merged::Until { at: b, public: q }) => Merged::Until {
            at: a.min(b),
            public: p && q,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use switchboard_upstream::Freshness;

    fn snapshot(fetched: Instant, tools: ListHint, prompts: ListHint) -> Snapshot {
        Snapshot {
            freshness: Freshness {
                fetched: Some(fetched),
                tools,
                prompts,
                resources: ListHint::NotOffered,
                resource_templates: ListHint::NotOffered,
            },
            ..Snapshot::default()
        }
    }

    fn fresh(ttl_ms: u64, public: bool) -> ListHint {
        ListHint::Fresh(ListCache { ttl_ms, public })
    }

    #[test]
    fn the_merged_list_is_fresh_until_its_first_server_list_goes_stale() {
        let now = Instant::now();
        let a = snapshot(now, fresh(60_000, true), fresh(5_000, true));
        let b = snapshot(
            now + Duration::from_secs(1),
            fresh(30_000, true),
            fresh(10_000, false),
        );
        let merged = ListFreshness::of([&a, &b]);
        let later = now + Duration::from_secs(2);
        let tools = merged.at(ListKind::Tools, later).unwrap();
        assert_eq!((tools.ttl_ms, tools.public), (29_000, true));
        let prompts = merged.at(ListKind::Prompts, later).unwrap();
        assert_eq!((prompts.ttl_ms, prompts.public), (3_000, false));
        // Past the deadline: stale, never negative.
        let past = now + Duration::from_secs(9);
        assert_eq!(merged.at(ListKind::Prompts, past).unwrap().ttl_ms, 0);
        // A server's years are a day.
        let long = snapshot(now, fresh(u64::MAX, true), ListHint::NotOffered);
        let day = ListFreshness::of([&long]).at(ListKind::Tools, now).unwrap();
        assert_eq!(day.ttl_ms, 24 * 60 * 60 * 1000);
    }

    #[test]
    fn a_server_without_hints_makes_the_list_stale_and_one_without_the_list_does_not() {
        let now = Instant::now();
        let modern = snapshot(now, fresh(60_000, true), ListHint::NotOffered);
        let older = snapshot(now, ListHint::Stale, ListHint::NotOffered);
        let both = ListFreshness::of([&modern, &older]);
        let tools = both.at(ListKind::Tools, now).unwrap();
        assert_eq!((tools.ttl_ms, tools.public), (0, false));
        // Nobody offers prompts: nothing to count in a merge.
        assert_eq!(both.at(ListKind::Prompts, now), None);
        let alone = ListFreshness::of([&modern]);
        assert_eq!(alone.at(ListKind::Tools, now).unwrap().ttl_ms, 60_000);
        // A saved snapshot (a lazy server not started) has no hints.
        let saved = Snapshot::default();
        let with_saved = ListFreshness::of([&modern, &saved]);
        assert_eq!(with_saved.at(ListKind::Tools, now).unwrap().ttl_ms, 0);
    }
}
