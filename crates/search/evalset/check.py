"""Checks the evaluation set: sizes, names, targets, the token rule and the split rule.
Exits non-zero listing every problem."""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RESERVED = {"search_tools", "describe_tool", "call_tool", "search_resources"}
NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def name_tokens(name):
    return [w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+", name)]


# Function words say nothing about a tool; a query may use them whatever the names hold.
FUNCTION_WORDS = {"to", "in", "from", "and", "or", "my", "of", "for", "on", "by", "with", "v2", "a", "the"}


def clash(word, token):
    if token in FUNCTION_WORDS:
        return False
    if word == token:
        return True
    return len(word) >= 5 and len(token) >= 5 and word[:5] == token[:5]


def main():
    tools = json.load(open(os.path.join(HERE, "tools.json"), encoding="utf-8"))
    queries = json.load(open(os.path.join(HERE, "queries.json"), encoding="utf-8"))
    problems = []
    servers = {}
    for t in tools:
        names = servers.setdefault(t["server"], set())
        if not NAME.match(t["name"]):
            problems.append(f"invalid name {t['server']}/{t['name']}")
        if t["name"] in names:
            problems.append(f"duplicate {t['server']}/{t['name']}")
        if t["name"] in RESERVED:
            problems.append(f"reserved name {t['server']}/{t['name']}")
        names.add(t["name"])
    if len(tools) < 1000:
        problems.append(f"only {len(tools)} tools")
    if len(servers) < 20:
        problems.append(f"only {len(servers)} servers")
    if len(queries) < 200:
        problems.append(f"only {len(queries)} queries")
    known = {f"{t['server']}/{t['name']}" for t in tools}
    for i, q in enumerate(queries):
        want = "held_out" if i % 3 == 2 else "tune"
        if q["split"] != want:
            problems.append(f"{q['id']}: split {q['split']}, want {want}")
        words = [w for w in re.split(r"[^a-z0-9]+", q["query"].lower()) if w]
        for target in q["targets"]:
            if target not in known:
                problems.append(f"{q['id']}: no tool {target}")
                continue
            for token in name_tokens(target.split("/", 1)[1]):
                for word in words:
                    if clash(word, token):
                        problems.append(f"{q['id']}: {word!r} reuses {token!r} of {target}: {q['query']}")
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    held = sum(q["split"] == "held_out" for q in queries)
    print(f"ok: {len(tools)} tools, {len(servers)} servers, {len(queries)} queries, {held} held out")


if __name__ == "__main__":
    main()
