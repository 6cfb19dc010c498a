"""Writes tools.json: MCP tool definitions in the style of real servers, for the search eval.

Each server has a naming convention, a container (what its entities live in), entities with
the verbs it offers on them, phrasing of its own, and hand-written extras. Deterministic.
"""
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))


def split_words(name):
    return re.findall(r"[a-z]+|[A-Z][a-z]*", name)


def style_name(words, style):
    words = [w.lower() for w in words]
    if style == "snake":
        return "_".join(words)
    if style == "kebab":
        return "-".join(words)
    if style == "camel":
        return words[0] + "".join(w.capitalize() for w in words[1:])
    raise ValueError(style)


def plural(noun):
    if noun.endswith("y") and not noun.endswith(("ay", "ey", "oy")):
        return noun[:-1] + "ies"
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    return noun + "s"


# Per-style phrasing for each verb: {e} entity, {es} entities, {c} container, {s} product.
PHRASES = {
    "plain": {
        "list": "Lists {es} in a {c}.",
        "get": "Gets one {e} by its ID, with all of its fields.",
        "create": "Creates a new {e} in a {c}.",
        "update": "Updates fields of an existing {e}.",
        "delete": "Deletes a {e}. This cannot be undone.",
        "search": "Searches {es} in {s} by keyword and filters.",
        "archive": "Archives a {e} so it no longer shows in default views.",
        "restore": "Restores a previously archived or deleted {e}.",
        "export": "Exports {es} as CSV or JSON.",
        "count": "Counts {es} matching the given filters.",
    },
    "formal": {
        "list": "Retrieve a paginated list of {es} for the specified {c}.",
        "get": "Retrieve the details of a single {e}.",
        "create": "Create a {e} within the specified {c} and return it.",
        "update": "Modify the properties of a {e}. Only supplied fields are changed.",
        "delete": "Permanently remove a {e} from {s}.",
        "search": "Query {es} using {s}'s search syntax.",
        "archive": "Move a {e} to the archive.",
        "restore": "Bring back a {e} from the archive or trash.",
        "export": "Produce a downloadable export of {es}.",
        "count": "Return the number of {es} that match a filter.",
    },
    "terse": {
        "list": "List {es}.",
        "get": "Fetch a {e}.",
        "create": "Add a {e}.",
        "update": "Edit a {e}.",
        "delete": "Remove a {e}.",
        "search": "Find {es} matching a query.",
        "archive": "Archive a {e}.",
        "restore": "Unarchive a {e}.",
        "export": "Export {es}.",
        "count": "Number of {es}.",
    },
}

VERB_WORDS = {
    "list": ["list"], "get": ["get"], "create": ["create"], "update": ["update"],
    "delete": ["delete"], "search": ["search"], "archive": ["archive"],
    "restore": ["restore"], "export": ["export"], "count": ["count"],
}


def prop(kind, description):
    return {"type": kind, "description": description}


def schema(props, required=()):
    return {"type": "object", "properties": props, "required": list(required)}


def entity_tools(server, spec):
    out = []
    style, phrasing, product, container = spec["style"], spec["phrasing"], spec["product"], spec["container"]
    cid = spec.get("container_id", container.replace(" ", "_") + "_id")
    for entity, verbs, fields in spec["entities"]:
        ent_words = entity.split()
        for verb in verbs:
            words = VERB_WORDS[verb] + ent_words if verb not in ("list", "search", "export", "count") else VERB_WORDS[verb] + ent_words[:-1] + [plural(ent_words[-1])]
            name = style_name(words, style)
            text = PHRASES[phrasing][verb].format(e=entity, es=plural(entity), c=container, s=product)
            props = {}
            required = []
            eid = style_name(ent_words + ["id"], "snake" if style == "snake" else "camel")
            if verb in ("list", "create", "search", "export", "count"):
                props[cid] = prop("string", f"The {container} to use")
                required.append(cid)
            if verb in ("get", "update", "delete", "archive", "restore"):
                props[eid] = prop("string", f"ID of the {entity}")
                required.append(eid)
            if verb in ("create", "update"):
                for fname, fdesc in fields:
                    props[fname] = prop("string", fdesc)
                if verb == "create" and fields:
                    required.append(fields[0][0])
            if verb == "search":
                props["query"] = prop("string", "Search text")
            if verb in ("list", "search"):
                props["limit"] = prop("integer", "Maximum number of results")
            out.append({"server": server, "name": name, "description": text, "inputSchema": schema(props, required)})
    for extra in spec.get("extras", []):
        name, description, props = extra[0], extra[1], extra[2]
        props = {k: prop(t, d) for k, (t, d) in props.items()}
        out.append({"server": server, "name": name, "description": description,
                    "inputSchema": schema(props, list(props)[:1])})
    return out


def load_specs():
    specs = {}
    folder = os.path.join(HERE, "servers")
    for file in sorted(os.listdir(folder)):
        if file.endswith(".py"):
            scope = {}
            with open(os.path.join(folder, file), encoding="utf-8") as f:
                exec(f.read(), scope)
            specs.update(scope["SERVERS"])
    return specs


def main():
    tools = []
    for server, spec in sorted(load_specs().items()):
        made = entity_tools(server, spec)
        seen = set()
        for t in made:
            if t["name"] in seen:
                raise SystemExit(f"{server}: duplicate {t['name']}")
            seen.add(t["name"])
        tools.extend(made)
    with open(os.path.join(HERE, "tools.json"), "w", encoding="utf-8") as f:
        json.dump(tools, f, indent=1)
    servers = sorted({t["server"] for t in tools})
    print(f"{len(tools)} tools from {len(servers)} servers")


if __name__ == "__main__":
    main()
