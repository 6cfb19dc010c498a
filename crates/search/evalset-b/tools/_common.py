"""Shared helper for the tool generator modules (standard library only).

`make()` builds one MCP tool definition. Properties are given as
keyword arguments whose values are either a plain string (a string
property with that description) or a tuple (type, description) or
(type, description, enum_values).  A description starting with "*"
marks the property as required.  A trailing underscore in a keyword
(from_, in_) is dropped so Python keywords can be used as names.
"""


def _prop(spec):
    if isinstance(spec, str):
        spec = ("string", spec)
    typ, desc = spec[0], spec[1]
    required = desc.startswith("*")
    if required:
        desc = desc[1:]
    prop = {"type": typ, "description": desc}
    if typ == "array":
        prop["items"] = {"type": "string"}
    if len(spec) > 2:
        prop["enum"] = list(spec[2])
    return prop, required


def title_from(name):
    """'create_issue' / 'createIssue' / 'create-issue' -> 'Create issue'."""
    words, cur = [], ""
    for ch in name:
        if ch in "_-":
            if cur:
                words.append(cur)
            cur = ""
        elif ch.isupper() and cur and not cur[-1].isupper():
            words.append(cur)
            cur = ch
        else:
            cur += ch
    if cur:
        words.append(cur)
    text = " ".join(w.lower() for w in words)
    return text[:1].upper() + text[1:]


def make(server, name, description, props, title=None):
    properties, required = {}, []
    for key, spec in props.items():
        key = key[:-1] if key.endswith("_") else key
        prop, req = _prop(spec)
        properties[key] = prop
        if req:
            required.append(key)
    tool = {"server": server, "name": name}
    if title:
        tool["title"] = title
    tool["description"] = description
    schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    tool["inputSchema"] = schema
    return tool


class Server:
    """Collects the tools of one server: srv.t(name, description, **props)."""

    def __init__(self, name, titles=False):
        self.name = name
        self.titles = titles
        self.tools = []

    def t(self, tool_name, description, /, **props):
        # positional-only, so properties may be called "name" or "description"
        title = title_from(tool_name) if self.titles else None
        self.tools.append(make(self.name, tool_name, description, props, title))
