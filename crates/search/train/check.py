#!/usr/bin/env python3
"""Validate a training folder's queries.json against its tools.json (standard library only).

  python3 crates/search/train/check.py crates/search/train/dev     (or any of the four)


Checks:
  * every entry has id, query, targets (non-empty list), paraphrase (bool)
  * ids are unique
  * every target exists exactly as "server/name" in tools.json (same folder)
  * no duplicate targets inside one entry
  * word rule, for entries with "paraphrase": true: no query word may
      - equal a name token of any target (names split at '_', '-' and camelCase),
      - be a simple inflection of such a token (+s, +es, +ed, +ing, +d), or
      - share its first five letters with such a token when both have >= 5 letters.
    Function words are ignored on both sides.
  * at least 70% of the entries are marked paraphrase.
  * every tool is the target of at least two queries.
Prints counts and exits 1 on any problem.
"""
import json
import os
import re
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
FOLDER = sys.argv[1] if len(sys.argv) > 1 and __name__ == "__main__" else HERE
QUERIES = os.path.join(FOLDER, "queries.json")
TOOLS = os.path.join(FOLDER, "tools.json")

FUNCTION_WORDS = {
    "to", "in", "from", "and", "my", "the", "a", "an", "of", "for", "by", "on", "or", "as",
}
MIN_PARAPHRASE_SHARE = 0.70
SUFFIXES = ("s", "es", "ed", "ing", "d")


def name_tokens(name):
    toks = []
    for part in re.split(r"[_\-]+", name):
        toks += re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+[0-9]*|[0-9]+", part)
    return {t.lower() for t in toks if t} - FUNCTION_WORDS


def query_words(text):
    return {w for w in re.findall(r"[a-z0-9]+", text.lower())} - FUNCTION_WORDS


def clash(word, tok):
    if word == tok:
        return True
    for suf in SUFFIXES:
        if word == tok + suf or tok == word + suf:
            return True
    if len(word) >= 5 and len(tok) >= 5 and word[:5] == tok[:5]:
        return True
    return False


def main():
    problems = []
    with open(TOOLS) as f:
        tools = json.load(f)
    known = {t["server"] + "/" + t["name"] for t in tools}
    with open(QUERIES) as f:
        entries = json.load(f)

    ids = Counter(e.get("id") for e in entries)
    for i, n in ids.items():
        if n > 1:
            problems.append(f"duplicate id {i!r} ({n} times)")

    n_para = 0
    per_tool = Counter()
    sizes = Counter()
    servers = Counter()
    for e in entries:
        eid = e.get("id")
        for key in ("id", "query", "targets", "paraphrase"):
            if key not in e:
                problems.append(f"{eid}: missing field {key!r}")
        targets = e.get("targets") or []
        if not isinstance(targets, list) or not targets:
            problems.append(f"{eid}: targets must be a non-empty list")
            continue
        if len(set(targets)) != len(targets):
            problems.append(f"{eid}: duplicate targets")
        for t in targets:
            if t not in known:
                problems.append(f"{eid}: unknown target {t!r}")
            servers[t.split("/", 1)[0]] += 1
            per_tool[t] += 1
        n = len(targets)
        sizes["1" if n == 1 else "2-4" if n <= 4 else "5+"] += 1
        if not isinstance(e.get("paraphrase"), bool):
            problems.append(f"{eid}: paraphrase must be true or false")
        if e.get("paraphrase") is True:
            n_para += 1
            words = query_words(e.get("query", ""))
            for t in targets:
                for tok in name_tokens(t.split("/", 1)[1]):
                    for w in words:
                        if clash(w, tok):
                            problems.append(
                                f"{eid}: paraphrase query word {w!r} clashes with "
                                f"token {tok!r} of {t}")

    min_para = -(-len(entries) * 7 // 10)  # ceil(70%)
    if n_para < min_para:
        problems.append(f"only {n_para} paraphrase queries, need >= {min_para}")
    for t in sorted(known):
        if per_tool[t] < 2:
            problems.append(f"tool {t} is the target of {per_tool[t]} queries, need >= 2")
    missing = sorted({t["server"] for t in tools} - set(servers))
    if missing:
        problems.append(f"servers never targeted: {', '.join(missing)}")

    print(f"queries: {len(entries)}")
    print(f"paraphrase: {n_para}   ordinary: {len(entries) - n_para}")
    print(f"targets per query: 1 -> {sizes['1']}, 2-4 -> {sizes['2-4']}, 5+ -> {sizes['5+']}")
    print(f"total targets: {sum(servers.values())}   servers targeted: {len(servers)}/"
          f"{len({t['server'] for t in tools})}")
    if problems:
        print(f"\n{len(problems)} problem(s):")
        for p in problems:
            print("  " + p)
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
