//! The log level upstreams are asked for: the most verbose any downstream session wants,
//! applied to each server as it connects and to the running ones when it changes.
#![allow(deprecated)] // logging: deprecated by the 2026-07-28 revision, live in older ones

use rmcp::model::LoggingLevel;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

/// Shared by every connection of a registry. Cheap to clone.
#[derive(Clone, Debug)]
pub struct LogFloor(Arc<AtomicU8>);

/// The levels in rank order: debug (0) to emergency (7).
const LEVELS: [LoggingLevel; 8] = [
    LoggingLevel::Debug,
    LoggingLevel::Info,
    LoggingLevel::Notice,
    LoggingLevel::Warning,
    LoggingLevel::Error,
    LoggingLevel::Critical,
    LoggingLevel::Alert,
    LoggingLevel::Emergency,
];

impl Default for LogFloor {
    /// No session asked: servers keep their own level.
    fn default() -> Self {
        Self(Arc::new(AtomicU8::new(u8::MAX)))
    }
}

/// A log level as a number (debug 0 … emergency 7), for comparing.
pub fn level_rank(level: LoggingLevel) -> u8 {
    // The variants are declared from debug to emergency.
    level as u8
}

impl LogFloor {
    /// Lowers the floor to `level`; true when that made it more verbose.
    pub fn lower_to(&self, level: LoggingLevel) -> bool {
        let rank = level_rank(level);
        self.0.fetch_min(rank, Ordering::Relaxed) > rank
    }

    /// The level asked of upstreams, once a session asked for one.
    pub fn get(&self) -> Option<LoggingLevel> {
        LEVELS.get(self.0.load(Ordering::Relaxed) as usize).copied()
    }
}
