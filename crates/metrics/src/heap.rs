//! The allocator's own figures (live bytes vs bytes it holds in RAM), read at scrape time when the binary tells how.

use std::sync::OnceLock;

/// What the process's allocator reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HeapFigures {
    /// Bytes the program's live allocations hold.
    pub allocated: u64,
    /// Bytes of physical memory the allocator holds: live allocations plus its caches, its
    /// own bookkeeping and freed pages not yet given back.
    pub resident: u64,
}

static READER: OnceLock<fn() -> Option<HeapFigures>> = OnceLock::new();

/// Tells `/metrics` how to read the allocator (the binary chooses the allocator, so it says;
/// without it the heap gauges are not shown). The first reader set stays.
pub fn set_heap_reader(reader: fn() -> Option<HeapFigures>) {
    let _ = READER.set(reader);
}

/// Whether the binary said how to read its allocator (the heap gauges are shown then).
pub(crate) fn known() -> bool {
    READER.get().is_some()
}

pub(crate) fn read() -> Option<HeapFigures> {
    READER.get().and_then(|read| read())
}
