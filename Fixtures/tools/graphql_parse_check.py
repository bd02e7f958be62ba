#!/usr/bin/env python3
"""Reference oracle for the GraphQLCache parser's differential test.

Reads a JSON array of GraphQL documents (strings) on stdin and prints a JSON array with one result per
document, in the same order:

    {"ok": true,  "line": null, "column": null, "message": null, "kind": "ok", "canonical": "..."}
    {"ok": false, "line": 3,    "column": 5,    "message": "...", "kind": "syntax" | "unsupported" | "crash",
     "jsMessage": "...", "coreLine": 3, "coreColumn": 5}

"Accepted" means: graphql-core's ``parse`` succeeds AND every definition is executable (an operation or a
fragment), which is what the Swift parser accepts.

Notes on the fields:
- ``line``/``column`` are computed from graphql-core's error *position* with the specification's line
  terminators (``\\n``, ``\\r\\n``, ``\\r``) and columns counted in code points. graphql-core 3.2's own
  ``locations`` (reported as ``coreLine``/``coreColumn``) use ``str.splitlines()``, which also splits on
  U+000B, U+000C, U+001C-U+001E, U+0085, U+2028 and U+2029 and drops a trailing empty line (an error at the
  start of a line is reported at the end of the previous one); the position-based numbers avoid both quirks.
- ``jsMessage`` is graphql-core's message rewritten to graphql-js quoting (double quotes), with string token
  values removed, as the Swift parser words it.
- ``kind == "crash"``: graphql-core 3.2 raised something other than a GraphQLError (it raises IndexError for a
  ``\\u`` escape or a lone ``\\`` cut off by the end of the document). That is still a rejection.
- ``canonical`` is the accepted document printed in the Swift parser's canonical form, so the test can compare
  not only acceptance but the parsed values (string escapes, block strings, numbers, structure).

One invocation handles the whole corpus; graphql-core 3.2.8 is expected (``pip install graphql-core==3.2.8``).
"""

import json
import re
import sys

from graphql import GraphQLError, parse
from graphql.language import ExecutableDefinitionNode


def spec_location(body, position):
    """1-based line and column of ``position`` with the spec's LineTerminator rules."""
    line = 1
    line_start = 0
    index = 0
    while index < position:
        char = body[index]
        if char == "\n":
            line += 1
            line_start = index + 1
        elif char == "\r":
            if index + 1 < len(body) and body[index + 1] == "\n":
                index += 1
            line += 1
            line_start = index + 1
        index += 1
    return line, position - line_start + 1


_STRING_TOKEN = re.compile(r"^(Syntax Error: (?:Expected .*?, found |Unexpected ))(String|BlockString) '.*'\.$", re.S)
_ESCAPE = re.compile(r"^(Syntax Error: Invalid (?:Unicode|character) escape sequence: )'(.*)'\.$", re.S)
_QUOTED = re.compile(r"'([^']*)'")


def js_style(message):
    """graphql-core's message with graphql-js quoting and without string token values."""
    if message.startswith("Syntax Error: Unexpected single quote character"):
        return message
    match = _STRING_TOKEN.match(message)
    if match:
        return _QUOTED.sub(lambda m: '"' + m.group(1) + '"', match.group(1)) + match.group(2) + "."
    match = _ESCAPE.match(message)
    if match:
        return match.group(1) + '"' + match.group(2) + '".'
    if message.endswith("'\"'."):
        return message
    return _QUOTED.sub(lambda m: '"' + m.group(1) + '"', message)


# Canonical printing: the same rules as GraphQLCanonicalPrinter.swift.

def print_string(value):
    out = ['"']
    for char in value:
        code = ord(char)
        if char == '"':
            out.append('\\"')
        elif char == "\\":
            out.append("\\\\")
        elif code == 0x08:
            out.append("\\b")
        elif code == 0x0C:
            out.append("\\f")
        elif code == 0x0A:
            out.append("\\n")
        elif code == 0x0D:
            out.append("\\r")
        elif code == 0x09:
            out.append("\\t")
        elif code < 0x20 or 0x7F <= code < 0xA0:
            out.append("\\u%04X" % code)
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def print_value(node):
    kind = node.kind
    if kind == "variable":
        return "$" + node.name.value
    if kind in ("int_value", "float_value", "enum_value"):
        return node.value
    if kind == "string_value":
        return print_string(node.value)
    if kind == "boolean_value":
        return "true" if node.value else "false"
    if kind == "null_value":
        return "null"
    if kind == "list_value":
        return "[" + ", ".join(print_value(v) for v in node.values) + "]"
    if kind == "object_value":
        return "{" + ", ".join(f.name.value + ": " + print_value(f.value) for f in node.fields) + "}"
    raise ValueError(kind)


def print_type(node):
    if node.kind == "named_type":
        return node.name.value
    if node.kind == "list_type":
        return "[" + print_type(node.type) + "]"
    return print_type(node.type) + "!"


def print_arguments(arguments):
    if not arguments:
        return ""
    return "(" + ", ".join(a.name.value + ": " + print_value(a.value) for a in arguments) + ")"


def print_directives(directives):
    return "".join(" @" + d.name.value + print_arguments(d.arguments) for d in directives or [])


def print_selection_set(node):
    parts = []
    for selection in node.selections:
        if selection.kind == "field":
            text = (selection.alias.value + ": " if selection.alias else "") + selection.name.value
            text += print_arguments(selection.arguments) + print_directives(selection.directives)
            if selection.selection_set:
                text += " " + print_selection_set(selection.selection_set)
        elif selection.kind == "fragment_spread":
            text = "..." + selection.name.value + print_directives(selection.directives)
        else:
            text = "..."
            if selection.type_condition:
                text += " on " + selection.type_condition.name.value
            text += print_directives(selection.directives) + " " + print_selection_set(selection.selection_set)
        parts.append(" " + text)
    return "{" + "".join(parts) + " }"


def print_definition(node):
    if node.kind == "fragment_definition":
        return ("fragment " + node.name.value + " on " + node.type_condition.name.value
                + print_directives(node.directives) + " " + print_selection_set(node.selection_set))
    operation = node.operation.value
    variables = node.variable_definitions or []
    if operation == "query" and not node.name and not variables and not node.directives:
        return print_selection_set(node.selection_set)
    text = operation + (" " + node.name.value if node.name else "")
    if variables:
        printed = []
        for variable in variables:
            item = "$" + variable.variable.name.value + ": " + print_type(variable.type)
            if variable.default_value:
                item += " = " + print_value(variable.default_value)
            printed.append(item + print_directives(variable.directives))
        text += "(" + ", ".join(printed) + ")"
    return text + print_directives(node.directives) + " " + print_selection_set(node.selection_set)


def check(source):
    try:
        document = parse(source)
    except GraphQLError as error:
        position = error.positions[0] if error.positions else 0
        line, column = spec_location(source, position)
        core = error.locations[0] if error.locations else None
        return {
            "ok": False, "kind": "syntax", "line": line, "column": column,
            "message": error.message, "jsMessage": js_style(error.message),
            "coreLine": core.line if core else None, "coreColumn": core.column if core else None,
        }
    except Exception as error:  # graphql-core 3.2 bugs (IndexError) and RecursionError
        return {
            "ok": False, "kind": "crash", "line": None, "column": None,
            "message": type(error).__name__ + ": " + str(error), "jsMessage": None,
        }
    for definition in document.definitions:
        if not isinstance(definition, ExecutableDefinitionNode):
            line, column = spec_location(source, definition.loc.start)
            return {
                "ok": False, "kind": "unsupported", "line": line, "column": column,
                "message": "not executable: " + definition.kind, "jsMessage": None,
            }
    canonical = "\n".join(print_definition(d) for d in document.definitions)
    return {"ok": True, "kind": "ok", "line": None, "column": None, "message": None, "canonical": canonical}


def main():
    sys.setrecursionlimit(10_000)
    documents = json.load(sys.stdin)
    json.dump([check(document) for document in documents], sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
