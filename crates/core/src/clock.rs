//! The clocks timers read, injectable so a test can jump them: wall time for token expiry, monotonic time for backoff.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

/// Where time comes from. Token expiry is wall time (tokens expire by the issuer's clock, and
/// across a suspend); backoff and idle timers are monotonic (a wall clock set back an hour must
/// not make a restart wait an hour).
pub trait Clock: Send + Sync + 'static {
    fn wall(&self) -> SystemTime;
    fn monotonic(&self) -> Instant;
}

/// The operating system's clocks.
pub struct SystemClock;

impl Clock for SystemClock {
    fn wall(&self) -> SystemTime {
        SystemTime::now()
    }
    fn monotonic(&self) -> Instant {
        Instant::now()
    }
}

/// A clock shared by everything one gateway times; the system's unless a test injects one.
#[derive(Clone)]
pub struct SharedClock(Arc<dyn Clock>);

impl SharedClock {
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        Self(clock)
    }
    pub fn wall(&self) -> SystemTime {
        self.0.wall()
    }
    pub fn monotonic(&self) -> Instant {
        self.0.monotonic()
    }
    /// Wall time as whole seconds since the Unix epoch (0 before it).
    pub fn wall_secs(&self) -> u64 {
        self.wall()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
    }
}

impl Default for SharedClock {
    fn default() -> Self {
        Self(Arc::new(SystemClock))
    }
}

impl std::fmt::Debug for SharedClock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SharedClock")
    }
}

/// The system's clocks plus offsets that can be changed while running: the wall clock jumps
/// either way (an NTP step, a suspend), the monotonic one only forward.
#[derive(Default)]
pub struct JumpableClock {
    wall_offset_ms: AtomicI64,
    monotonic_offset_ms: AtomicU64,
}

impl JumpableClock {
    /// Moves the wall clock by `by` (negative: back).
    pub fn jump_wall(&self, by: Duration, forward: bool) {
        let ms = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
        let signed = if forward { ms } else { -ms };
        self.wall_offset_ms.fetch_add(signed, Ordering::SeqCst);
    }
    /// Moves the monotonic clock forward by `by`.
    pub fn advance_monotonic(&self, by: Duration) {
        let ms = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
        self.monotonic_offset_ms.fetch_add(ms, Ordering::SeqCst);
    }
}

impl Clock for JumpableClock {
    fn wall(&self) -> SystemTime {
        let offset = self.wall_offset_ms.load(Ordering::SeqCst);
        let by = Duration::from_millis(offset.unsigned_abs());
        if offset >= 0 {
            SystemTime::now() + by
        } else {
            SystemTime::now() - by
        }
    }
    fn monotonic(&self) -> Instant {
        Instant::now() + Duration::from_millis(self.monotonic_offset_ms.load(Ordering::SeqCst))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jumpable_clock_moves_each_clock_on_its_own() {
        let jumpable = Arc::new(JumpableClock::default());
        let clock = SharedClock::new(jumpable.clone());
        let (wall, mono) = (clock.wall_secs(), clock.monotonic());
        jumpable.jump_wall(Duration::from_secs(7_200), true);
        assert!(clock.wall_secs() >= wall + 7_200);
        assert!(clock.monotonic().duration_since(mono) < Duration::from_secs(60));
        jumpable.jump_wall(Duration::from_secs(4 * 3_600), false);
        assert!(clock.wall_secs() < wall);
        jumpable.advance_monotonic(Duration::from_secs(90));
        assert!(clock.monotonic().duration_since(mono) >= Duration::from_secs(90));
    }
}
