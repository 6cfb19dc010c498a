#!/usr/bin/env python3
"""Validate evalset-b/tools.json and evalset-b/queries.json (standard library only).

Exits 1 listing every problem found; on success prints the counts.
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NAME_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
RESERVED = {"search_tools", "describe_tool", "call_tool", "search_resources"}
MIN_TOOLS, MIN_SERVERS, MIN_QUERIES = 1000, 20, 200
CAMEL_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z0-9]+|[A-Z0-9]+")


def name_tokens(name):
    """Split a tool name on _ and - and camelCase boundaries, lowercased."""
    tokens = []
    for part in re.split(r"[_-]+", name):
        tokens.extend(tok.lower() for tok in CAMEL_RE.findall(part))
    return tokens


def query_words(text):
    return [w for w in re.split(r"[^a-z0-9]+", text.lower()) if w]


def clash(word, token):
    """True when a query word reuses a name token (equal, or same first
    five letters when both are at least five letters long)."""
    if word == token:
        return True
    return len(word) >= 5 and len(token) >= 5 and word[:5] == token[:5]


def load(fname):
    with open(os.path.join(HERE, fname), encoding="utf-8") as fh:
        return json.load(fh)


def check_tools(tools, problems):
    seen = set()
    for i, tool in enumerate(tools):
        server, name = tool.get("server"), tool.get("name")
        where = f"tool #{i} {server}/{name}"
        if not server or not isinstance(server, str):
            problems.append(f"{where}: missing server")
        if not isinstance(name, str) or not NAME_RE.match(name):
            problems.append(f"{where}: invalid name")
        if name in RESERVED:
            problems.append(f"{where}: reserved name")
        if (server, name) in seen:
            problems.append(f"{where}: duplicate name in server")
        seen.add((server, name))
        if not str(tool.get("description", "")).strip():
            problems.append(f"{where}: empty description")
        schema = tool.get("inputSchema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            problems.append(f"{where}: inputSchema is not an object schema")
        else:
            props = schema.get("properties", {})
            for req in schema.get("required", []):
                if req not in props:
                    problems.append(f"{where}: required '{req}' is not a property")
    servers = {t.get("server") for t in tools}
    if len(tools) < MIN_TOOLS:
        problems.append(f"only {len(tools)} tools (need {MIN_TOOLS})")
    if len(servers) < MIN_SERVERS:
        problems.append(f"only {len(servers)} servers (need {MIN_SERVERS})")
    return {f"{s}/{n}" for s, n in seen}, servers


def check_queries(queries, known, problems):
    texts = set()
    for i, q in enumerate(queries):
        qid, text, targets = q.get("id"), q.get("query", ""), q.get("targets", [])
        where = f"{qid} '{text}'"
        if qid != f"q{i + 1:03d}":
            problems.append(f"{where}: id should be q{i + 1:03d}")
        want = "held_out" if i % 3 == 2 else "tune"
        if q.get("split") != want:
            problems.append(f"{where}: split is {q.get('split')!r}, every-third rule says {want!r}")
        words = query_words(text)
        if not 5 <= len(text.split()) <= 25:
            problems.append(f"{where}: {len(text.split())} words (want 5-25)")
        if text.lower() in texts:
            problems.append(f"{where}: duplicate query")
        texts.add(text.lower())
        if not targets:
            problems.append(f"{where}: no targets")
        if len(set(targets)) != len(targets):
            problems.append(f"{where}: repeated target")
        for target in targets:
            if target not in known:
                problems.append(f"{where}: unknown target {target}")
                continue
            for tok in name_tokens(target.split("/", 1)[1]):
                for word in words:
                    if clash(word, tok):
                        problems.append(f"{where}: word '{word}' reuses token '{tok}' of {target}")
    if len(queries) < MIN_QUERIES:
        problems.append(f"only {len(queries)} queries (need {MIN_QUERIES})")


def main():
    problems = []
    tools = load("tools.json")
    queries = load("queries.json")
    known, servers = check_tools(tools, problems)
    check_queries(queries, known, problems)
    if problems:
        for p in problems:
            print("PROBLEM:", p)
        print(f"{len(problems)} problem(s)")
        sys.exit(1)
    held = sum(1 for q in queries if q["split"] == "held_out")
    print(f"ok: {len(tools)} tools, {len(servers)} servers, "
          f"{len(queries)} queries ({held} held out, {len(queries) - held} tune)")


if __name__ == "__main__":
    main()
