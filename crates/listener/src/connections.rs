//! The ledger of open connections: how many in all and per client address, the refusals
//! past those bounds, and the connections closed for a slow request head.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use switchboard_sync::Mutex;

/// Spare file descriptors kept beside the connections: the store, upstreams, stdio servers.
const SPARE_FILES: usize = 512;

/// The listener's bounds (`[limits]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    pub max_connections: usize,
    pub max_connections_per_client: usize,
    /// How long a client may take to send a request's head, and how long an idle
    /// keep-alive connection stays open.
    pub header_read_timeout: Duration,
}

/// How many connections the process's open-file limit holds beside `SPARE_FILES` of the
/// gateway's own: at most `max_connections`. The soft limit is raised to the hard one first;
/// when even that is too low, this says so with a warning that names the fix. Call it once,
/// at start, from the binary (it changes the process's limit).
pub fn within_open_files(max_connections: usize) -> usize {
    let limit = match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => usize::try_from(limit).unwrap_or(usize::MAX),
        Err(e) => {
            tracing::debug!("cannot read or raise the open-file limit: {e}");
            return max_connections;
        }
    };
    let room = limit.saturating_sub(SPARE_FILES).max(1);
    if max_connections > room {
        tracing::warn!(
            "the open-file limit ({limit}) holds only {room} connections beside the gateway's own files: serving at most {room} instead of [limits] max_connections = {max_connections}; raise `ulimit -n` (LimitNOFILE= under systemd) to allow more"
        );
        return room;
    }
    max_connections
}

/// The bound a new connection ran into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The replica holds `max_connections`.
    Total,
    /// The client's address holds `max_connections_per_client`.
    Client,
}

impl Refused {
    pub const ALL: [Refused; 2] = [Refused::Total, Refused::Client];

    /// The `[limits]` setting that sets it.
    pub fn setting(self) -> &'static str {
        match self {
            Refused::Total => "max_connections",
            Refused::Client => "max_connections_per_client",
        }
    }
}

#[derive(Default)]
struct Counts {
    open: usize,
    per_client: HashMap<IpAddr, usize>,
}

/// Open connections within [`Bounds`], and what was refused or cut.
pub struct Connections {
    bounds: Bounds,
    counts: Mutex<Counts>,
    refused: [AtomicU64; 2],
    slow_heads: AtomicU64,
}

impl Connections {
    pub fn new(bounds: Bounds) -> Arc<Self> {
        Arc::new(Self {
            bounds,
            counts: Mutex::default(),
            refused: Default::default(),
            slow_heads: AtomicU64::new(0),
        })
    }

    pub fn bounds(&self) -> Bounds {
        self.bounds
    }

    /// Counts a connection from `client` in, or says which bound it would pass.
    pub fn open(self: &Arc<Self>, client: IpAddr) -> Result<Held, Refused> {
        let client = client_key(client);
        let mut counts = self.counts.lock();
        let refused = if counts.open >= self.bounds.max_connections {
            Some(Refused::Total)
        } else if counts.per_client.get(&client).copied().unwrap_or(0)
            >= self.bounds.max_connections_per_client
        {
            Some(Refused::Client)
        } else {
            None
        };
        if let Some(refused) = refused {
            self.refused[refused as usize].fetch_add(1, Ordering::Relaxed);
            return Err(refused);
        }
        counts.open += 1;
        *counts.per_client.entry(client).or_default() += 1;
        Ok(Held {
            connections: self.clone(),
            client,
        })
    }

    /// Connections open now.
    pub fn open_count(&self) -> usize {
        self.counts.lock().open
    }

    /// Connections refused so far, by bound.
    pub fn refusals(&self) -> [(Refused, u64); 2] {
        Refused::ALL.map(|r| (r, self.refused[r as usize].load(Ordering::Relaxed)))
    }

    /// Connections closed because a request's head took longer than the bound.
    pub fn slow_heads(&self) -> u64 {
        self.slow_heads.load(Ordering::Relaxed)
    }
}

/// One open connection; dropping it counts the connection closed.
pub struct Held {
    connections: Arc<Connections>,
    client: IpAddr,
}

impl Held {
    /// The connection ended with `error`: a request head too slow to arrive is counted.
    pub(crate) fn failed(&self, error: &(dyn std::error::Error + 'static)) {
        let slow = error
            .downcast_ref::<hyper::Error>()
            .is_some_and(hyper::Error::is_timeout);
        if slow {
            self.connections.slow_heads.fetch_add(1, Ordering::Relaxed);
            tracing::debug!(client = %self.client, "closed a connection whose request head was too slow");
        } else {
            tracing::trace!("connection ended: {error}");
        }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut counts = self.connections.counts.lock();
        counts.open -= 1;
        if let Some(n) = counts.per_client.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                counts.per_client.remove(&self.client);
            }
        }
    }
}

/// One client's key: IPv4 as is (also when mapped into IPv6), IPv6 by its /64, which one
/// host usually holds whole.
pub fn client_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let net = u128::from(v6) & !((1u128 << 64) - 1);
                IpAddr::V6(Ipv6Addr::from(net))
            }
        },
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds(total: usize, per_client: usize) -> Bounds {
        Bounds {
            max_connections: total,
            max_connections_per_client: per_client,
            header_read_timeout: Duration::from_secs(1),
        }
    }

    #[test]
    fn a_client_at_its_share_is_refused_while_another_gets_in_until_the_total() {
        let connections = Connections::new(bounds(3, 2));
        let one: IpAddr = "127.0.0.1".parse().unwrap();
        let two: IpAddr = "127.0.0.2".parse().unwrap();
        let a = connections.open(one).unwrap();
        let _b = connections.open(one).unwrap();
        assert_eq!(connections.open(one).err(), Some(Refused::Client));
        let _c = connections.open(two).unwrap();
        assert_eq!(connections.open(two).err(), Some(Refused::Total));
        drop(a);
        assert!(
            connections.open(one).is_ok(),
            "a closed connection gives its room back"
        );
        let refusals = connections.refusals();
        assert_eq!(refusals, [(Refused::Total, 1), (Refused::Client, 1)]);
    }

    #[test]
    fn ipv6_clients_are_counted_by_their_64() {
        let a: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(client_key(a), client_key(b));
        assert_ne!(client_key(a), client_key(c));
        let mapped: IpAddr = "::ffff:127.0.0.2".parse().unwrap();
        assert_eq!(client_key(mapped), "127.0.0.2".parse::<IpAddr>().unwrap());
    }
}
