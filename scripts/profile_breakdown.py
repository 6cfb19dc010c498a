"""Splits a folded perf profile of `switchboard serve` (inferno-collapse-perf output) by the
task each sample ran in: the downstream HTTP connection, rmcp's session worker and serve loop,
the upstream client, the handler, the audit writer, SQLite. Usage: profile_breakdown.py FOLDED"""
import re,collections,sys
print('== by task (first matching frame from the root)')
c=collections.Counter(); tot=0; ex=collections.defaultdict(collections.Counter)
rules=[
 ('sqlite worker thread', r'^sqlx-sqlite'),
 ('audit commit loop', r'switchboard_store::writer'),
 ('downstream HTTP conn (hyper server, axum, rmcp tower POST)', r'hyper::server::conn|hyper_util::server|axum::serve'),
 ('upstream HTTP conn (hyper client)', r'hyper::client::conn|hyper_util::client::legacy::client::Client.*send_request|PoolClient'),
 ('rmcp session worker (server)', r'streamable_http_server::session::local'),
 ('rmcp worker transport (upstream client)', r'streamable_http_client::StreamableHttpClientWorker|rmcp::transport::worker'),
 ('reqwest pending request', r'reqwest::async_impl::client::Pending'),
 ('rmcp serve loop', r'rmcp::service::serve_inner'),
 ('handler task (gateway call)', r'switchboard_server|rmcp::handler::server'),
 ('tokio scheduler/park', r'tokio::runtime::scheduler.*park|Parker|park_internal|Driver::turn'),
]
for line in open(sys.argv[1]):
    stack,n=line.rsplit(' ',1); n=int(n); tot+=n
    who='other'
    for name,p in rules:
        if re.search(p,stack): who=name; break
    c[who]+=n
    if who=='other': ex[who][';'.join(stack.split(';')[:1]+stack.split(';')[-3:])[:200]]+=n
for k,v in c.most_common(): print(f'{100*v/tot:5.1f}% {k}')
for k,v in ex['other'].most_common(6): print(f'   {100*v/tot:5.2f}% {k}')

print('== by crate (innermost frame of a known crate)')
tot=0; comp=collections.Counter()
owners=[('sqlite','sqlite3'),('audit/store (sqlx)','switchboard_store|sqlx'),('policy','switchboard_policy'),('registry','switchboard_registry'),('upstream(ours)','switchboard_upstream'),('server(ours)','switchboard_server'),
('rmcp server transport','rmcp::transport::streamable_http_server|rmcp::transport::common::server_side'),('rmcp client transport','rmcp::transport::streamable_http_client|rmcp::transport::common::reqwest|client_side_sse|sse_stream'),('rmcp worker','rmcp::transport::worker'),('rmcp service/model','rmcp'),('reqwest','reqwest'),('hyper_util','hyper_util'),('hyper','hyper'),('serde_json','serde_json|serde'),('axum/tower','axum|tower'),('tokio','tokio'),('tracing','tracing'),('http crate','(^|[^_a-z])http::|httparse'),('hmac/sha2 (audit MAC)','(^|[^a-zA-Z])ring::|aws_lc|hmac::|sha2::')]
for line in open(sys.argv[1]):
    stack,n=line.rsplit(' ',1); n=int(n); tot+=n
    frames=stack.split(';')
    who=None
    for f in reversed(frames):
        for name,p in owners:
            if re.search(p,f): who=name;break
        if who: break
    comp[who or 'other(std/libc/kernel only)']+=n
for k,v in comp.most_common(): print(f'{k:28} {100*v/tot:5.1f}%')
