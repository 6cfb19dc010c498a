"""Start-up time of switchboard binaries: spawn `serve` on a config with one eager stdio server
(the rmcp echo server, so discovery and the scan run first) and poll /readyz every millisecond
until it answers 200; 11 rounds alternating the binaries, the first dropped; medians.

  python3 scripts/bench_startup.py target/release/switchboard /tmp/sb-older [ECHO=path]
"""
import json, os, socket, subprocess, sys, tempfile, time, urllib.request, statistics
bins = sys.argv[1:]
echo = os.environ.get('ECHO', os.path.join(os.path.dirname(__file__), '..', 'target', 'release', 'echo-server'))
res = {b: [] for b in bins}
def free_port():
    s = socket.socket(); s.bind(('127.0.0.1', 0)); p = s.getsockname()[1]; s.close(); return p
for r in range(11):
    for b in bins:
        d = tempfile.mkdtemp()
        cfg = os.path.join(d, 'mcp.json')
        json.dump({'mcpServers': {'echo': {'command': echo, 'lazy': False}}}, open(cfg, 'w'))
        port = free_port()
        t = time.perf_counter()
        p = subprocess.Popen([b, 'serve', '--dev', '--listen', f'127.0.0.1:{port}', '--log', 'warn', '--data', os.path.join(d, 'data'), '-c', cfg], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while True:
            try:
                if urllib.request.urlopen(f'http://127.0.0.1:{port}/readyz', timeout=1).status == 200: break
            except Exception: pass
            time.sleep(0.001)
        el = (time.perf_counter() - t) * 1000
        p.terminate(); p.wait()
        if r > 0: res[b].append(el)
for b in bins:
    print(f'{b}: median {statistics.median(res[b]):.1f} ms (min {min(res[b]):.1f}, max {max(res[b]):.1f}, n={len(res[b])})')
