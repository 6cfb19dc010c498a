//! Starting the measured processes and reading their CPU time from /proc.

use anyhow::{Context, bail};
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// target/release, where scripts/bench.sh put the binaries.
pub(crate) fn release_dir() -> anyhow::Result<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/release");
    for bin in ["echo-server", "switchboard"] {
        if !dir.join(bin).exists() {
            bail!(
                "{} is missing: run scripts/bench.sh (it builds the release binaries)",
                dir.join(bin).display()
            );
        }
    }
    Ok(dir)
}

pub(crate) struct Spawned {
    pub url: String,
    pub pid: u32,
    _child: Child,
}

impl Spawned {
    /// Starts `bin` and reads its output until the line with `url_prefix` (and `ready`, if given).
    pub(crate) async fn start(
        bin: PathBuf,
        args: &[&str],
        url_prefix: &str,
        ready: Option<&str>,
    ) -> anyhow::Result<Self> {
        let mut child = Command::new(&bin)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .with_context(|| format!("spawn {}", bin.display()))?;
        let pid = child.id().context("pid")?;
        let stdout = BufReader::new(child.stdout.take().context("stdout")?).lines();
        let stderr = BufReader::new(child.stderr.take().context("stderr")?).lines();
        let (tx, mut rx) = tokio::sync::mpsc::channel::<String>(64);
        tokio::spawn(forward(stdout, tx.clone()));
        tokio::spawn(forward(stderr, tx));
        let mut url = None;
        let wait = async {
            while let Some(line) = rx.recv().await {
                if let Some(rest) = line.strip_prefix(url_prefix) {
                    url = Some(rest.trim().to_string());
                    if ready.is_none() {
                        break;
                    }
                }
                if let Some(ready) = ready
                    && line.starts_with(ready)
                {
                    break;
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(60), wait)
            .await
            .with_context(|| format!("{} did not become ready", bin.display()))?;
        // Keep draining output so the child never blocks on a full pipe.
        tokio::spawn(async move { while rx.recv().await.is_some() {} });
        Ok(Self {
            url: url.with_context(|| format!("{} printed no URL", bin.display()))?,
            pid,
            _child: child,
        })
    }
}

impl Spawned {
    /// Starts `bin` with its output discarded and waits until it accepts connections on
    /// `port` of 127.0.0.1 (for servers that print nothing when quiet); `url` is its endpoint.
    pub(crate) async fn start_on_port(
        bin: PathBuf,
        args: &[&str],
        port: u16,
        url: String,
    ) -> anyhow::Result<Self> {
        let child = Command::new(&bin)
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .with_context(|| format!("spawn {}", bin.display()))?;
        let pid = child.id().context("pid")?;
        let started = std::time::Instant::now();
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            if started.elapsed() > Duration::from_secs(60) {
                bail!("{} did not listen on port {port}", bin.display());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Ok(Self {
            url,
            pid,
            _child: child,
        })
    }
}

/// The rmcp echo server of `bin` (the release folder) over Streamable HTTP on loopback.
pub(crate) async fn echo_http(bin: &std::path::Path) -> anyhow::Result<Spawned> {
    Spawned::start(
        bin.join("echo-server"),
        &["--http", "127.0.0.1:0"],
        "listening on ",
        None,
    )
    .await
    .context("start echo-server")
}

/// `switchboard serve --dev` on a free loopback port with `configs` (each `-c`), its store
/// under `data` and `extra` arguments, ready once it printed a line starting with `ready`.
pub(crate) async fn serve(
    bin: &std::path::Path,
    configs: &[&std::path::Path],
    data: &std::path::Path,
    extra: &[&str],
    ready: &str,
) -> anyhow::Result<Spawned> {
    let mut args = vec!["serve", "--dev", "--listen", "127.0.0.1:0", "--log", "warn"];
    args.extend(["--data", data.to_str().context("data path")?]);
    for config in configs {
        args.extend(["-c", config.to_str().context("config path")?]);
    }
    args.extend(extra);
    Spawned::start(
        bin.to_path_buf(),
        &args,
        "switchboard listening on ",
        Some(ready),
    )
    .await
    .with_context(|| format!("start {}", bin.display()))
}

/// Resident memory of `pid` in KiB (VmRSS), if it is still running.
pub(crate) fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// A port that was free on 127.0.0.1 a moment ago.
pub(crate) fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// The middle value (the upper one of an even count).
pub(crate) fn median<T: Copy + PartialOrd>(mut values: Vec<T>) -> T {
    values.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    values[values.len() / 2]
}

async fn forward<R: tokio::io::AsyncBufRead + Unpin>(
    mut lines: tokio::io::Lines<R>,
    tx: tokio::sync::mpsc::Sender<String>,
) {
    while let Ok(Some(line)) = lines.next_line().await {
        let _ = tx.send(line).await;
    }
}

/// User+system CPU time per named process.
pub(crate) fn cpu_times(pids: &[(&'static str, u32)]) -> HashMap<&'static str, Duration> {
    pids.iter()
        // utime and stime: the stat file's 14th and 15th fields.
        .filter_map(|(name, pid)| Some((*name, stat_cpu(&format!("/proc/{pid}/stat"), 11)?)))
        .fold(HashMap::new(), |mut acc, (name, cpu)| {
            *acc.entry(name).or_default() += cpu;
            acc
        })
}

/// User+system CPU time of this process's children that have been waited for (a load
/// generator run to its end): cutime and cstime, the stat file's 16th and 17th fields.
pub(crate) fn waited_children_cpu() -> Duration {
    stat_cpu("/proc/self/stat", 13).unwrap_or_default()
}

/// The sum of two adjacent clock-tick fields of a `/proc/…/stat` file, `first` counted from the
/// field after the parenthesised command name.
fn stat_cpu(path: &str, first: usize) -> Option<Duration> {
    // SAFETY: sysconf has no preconditions.
    #[allow(unsafe_code)]
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let stat = std::fs::read_to_string(path).ok()?;
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let user: f64 = fields.get(first)?.parse().ok()?;
    let system: f64 = fields.get(first + 1)?.parse().ok()?;
    Some(Duration::from_secs_f64((user + system) / ticks))
}

pub(crate) fn cpu_delta(
    before: &HashMap<&'static str, Duration>,
    after: &HashMap<&'static str, Duration>,
) -> HashMap<&'static str, Duration> {
    after
        .iter()
        .map(|(k, v)| {
            (
                *k,
                v.saturating_sub(before.get(k).copied().unwrap_or_default()),
            )
        })
        .collect()
}

/// A gateway under test: `switchboard serve` (or `BENCH_SWITCHBOARD`, an older build) with
/// the HTTP echo server as its one upstream, `echo`; its files live as long as it does.
pub(crate) struct EchoGateway {
    pub gateway: Spawned,
    pub upstream: Spawned,
    _dir: tempfile::TempDir,
}

impl EchoGateway {
    pub(crate) async fn start(bin: &std::path::Path) -> anyhow::Result<Self> {
        let dir = tempfile::tempdir()?;
        let upstream = echo_http(bin).await?;
        let config = dir.path().join("echo.json");
        let servers =
            serde_json::json!({"mcpServers": {"echo": {"type": "http", "url": upstream.url}}});
        std::fs::write(&config, serde_json::to_vec(&servers)?)?;
        let gateway_bin = std::env::var_os("BENCH_SWITCHBOARD")
            .map(Into::into)
            .unwrap_or_else(|| bin.join("switchboard"));
        let data = dir.path().join("data");
        let gateway = serve(&gateway_bin, &[&config], &data, &[], "switchboard ready: ").await?;
        Ok(Self {
            gateway,
            upstream,
            _dir: dir,
        })
    }
}
