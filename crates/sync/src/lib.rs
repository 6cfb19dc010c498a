//! Locks that do not poison: std's `Mutex` and `RwLock` (futex-based, no spinning that yields
//! the CPU), whose guards are handed out even after a panic while one was held: the panic
//! already reported the bug, and the data stays usable. The workspace refuses std's own locks
//! (`clippy.toml`), so no lock anywhere needs a poison workaround. Also [`Finish`]: work its
//! waiter polls in place, finished in a task of its own if the waiter goes away.
#![forbid(unsafe_code)]
#![allow(clippy::disallowed_types)] // the one place std's locks are wrapped

mod finish;

pub use finish::Finish;
pub use std::sync::{MutexGuard, RwLockReadGuard, RwLockWriteGuard};

/// A mutual-exclusion lock whose `lock` never fails.
#[derive(Debug)]
pub struct Mutex<T: ?Sized>(std::sync::Mutex<T>);

impl<T> Mutex<T> {
    pub const fn new(value: T) -> Self {
        Self(std::sync::Mutex::new(value))
    }
}

impl<T: ?Sized> Mutex<T> {
    /// Waits for the lock and holds it until the guard is dropped.
    pub fn lock(&self) -> MutexGuard<'_, T> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl<T: Default> Default for Mutex<T> {
    fn default() -> Self {
        Self::new(T::default())
    }
}

/// A reader-writer lock whose `read` and `write` never fail.
#[derive(Debug)]
pub struct RwLock<T: ?Sized>(std::sync::RwLock<T>);

impl<T> RwLock<T> {
    pub const fn new(value: T) -> Self {
        Self(std::sync::RwLock::new(value))
    }
}

impl<T: ?Sized> RwLock<T> {
    /// Shared access until the guard is dropped.
    pub fn read(&self) -> RwLockReadGuard<'_, T> {
        self.0.read().unwrap_or_else(|p| p.into_inner())
    }

    /// Exclusive access until the guard is dropped.
    pub fn write(&self) -> RwLockWriteGuard<'_, T> {
        self.0.write().unwrap_or_else(|p| p.into_inner())
    }
}

impl<T: Default> Default for RwLock<T> {
    fn default() -> Self {
        Self::new(T::default())
    }
}

#[cfg(test)]
mod tests {
    use super::{Mutex, RwLock};
    use std::sync::Arc;

    #[test]
    fn a_panic_while_locked_leaves_the_value_usable() {
        let shared = Arc::new((Mutex::new(1), RwLock::new(2)));
        let inside = shared.clone();
        let panicked = std::thread::spawn(move || {
            let _held = inside.0.lock();
            let _written = inside.1.write();
            panic!("a bug while both are held");
        })
        .join();
        assert!(panicked.is_err());
        *shared.0.lock() += 1;
        *shared.1.write() += 1;
        assert_eq!((*shared.0.lock(), *shared.1.read()), (2, 3));
    }
}
