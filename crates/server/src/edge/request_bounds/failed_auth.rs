//! Wrong bearer tokens per client address: each address may try `per_minute` of them, a
//! bucket that refills evenly; an empty bucket turns away every request bearing a token.

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};
use switchboard_sync::Mutex;

/// Addresses tracked at most; past it, addresses whose bucket is full again are forgotten
/// first, and a new one is not tracked while none is.
const TRACKED_AT_MOST: usize = 100_000;

pub(crate) struct FailedAuth {
    per_minute: f64,
    clients: Mutex<HashMap<IpAddr, Bucket>>,
}

struct Bucket {
    left: f64,
    at: Instant,
}

impl FailedAuth {
    pub(crate) fn new(per_minute: usize) -> Self {
        Self {
            per_minute: per_minute.max(1) as f64,
            clients: Mutex::default(),
        }
    }

    fn per_second(&self) -> f64 {
        self.per_minute / 60.0
    }

    fn refill(&self, bucket: &mut Bucket, now: Instant) {
        let gained = now.saturating_duration_since(bucket.at).as_secs_f64() * self.per_second();
        bucket.left = (bucket.left + gained).min(self.per_minute);
        bucket.at = now;
    }

    /// How long `client` must wait before a request bearing a token is read again; `None`
    /// while it has attempts left.
    pub(crate) fn blocked(&self, client: IpAddr, now: Instant) -> Option<Duration> {
        let mut clients = self.clients.lock();
        let bucket = clients.get_mut(&client)?;
        self.refill(bucket, now);
        (bucket.left < 1.0)
            .then(|| Duration::from_secs_f64((1.0 - bucket.left) / self.per_second()))
    }

    /// Counts one wrong token from `client`.
    pub(crate) fn failed(&self, client: IpAddr, now: Instant) {
        let mut clients = self.clients.lock();
        if !clients.contains_key(&client) && clients.len() >= TRACKED_AT_MOST {
            let full = self.per_minute;
            let rate = self.per_second();
            clients.retain(|_, b| {
                b.left + now.saturating_duration_since(b.at).as_secs_f64() * rate < full
            });
            if clients.len() >= TRACKED_AT_MOST {
                tracing::warn!(
                    "wrong bearer tokens from {TRACKED_AT_MOST} addresses are being tracked; {client} is not"
                );
                return;
            }
        }
        let bucket = clients.entry(client).or_insert(Bucket {
            left: self.per_minute,
            at: now,
        });
        self.refill(bucket, now);
        bucket.left = (bucket.left - 1.0).max(0.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_out_of_attempts_waits_for_the_bucket_while_others_do_not() {
        let failed = FailedAuth::new(6);
        let (one, two): (IpAddr, IpAddr) =
            ("127.0.0.1".parse().unwrap(), "127.0.0.2".parse().unwrap());
        let start = Instant::now();
        for _ in 0..6 {
            assert_eq!(failed.blocked(one, start), None);
            failed.failed(one, start);
        }
        // Six a minute: one attempt comes back every ten seconds.
        assert_eq!(failed.blocked(one, start), Some(Duration::from_secs(10)));
        let later = start + Duration::from_secs(4);
        assert_eq!(failed.blocked(one, later), Some(Duration::from_secs(6)));
        assert_eq!(failed.blocked(two, later), None);
        let refilled = start + Duration::from_secs(10);
        assert_eq!(failed.blocked(one, refilled), None);
        failed.failed(one, refilled);
        assert!(failed.blocked(one, refilled).is_some());
    }
}
