#!/usr/bin/env python3
"""The public surface of every hrwhash package, read from what users compile against.

Each reader returns a sorted list of names: a type or free item as `Name`, a member as
`Type.member`. The sources are the ones a user's tools see: rustdoc's JSON for the crate, the
package's `__init__.py` and `.pyi` stub for Python (the stub is held to the module by stubtest),
the generated `index.d.ts` for Node, the generated `hrwhash.h` for C, the installed C++ headers,
and `go doc` for the Go package under a given build.

    python3 conformance/api/surfaces.py [--count] [LANGUAGE ...]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LANGUAGES = ("rust", "python", "node", "c", "cpp", "go")


RUST_CRATES = ("hrwhash", "hrwhash-compat")


def rust_surface() -> list[str]:
    """The public names of every library crate users depend on: the core and the profiles."""
    names: set[str] = set()
    for crate in RUST_CRATES:
        names.update(rust_crate_surface(crate))
    return sorted(names)


def rust_crate_surface(crate: str) -> list[str]:
    """Public types, their inherent methods and the crate's free items, from rustdoc's JSON.

    The JSON output is unstable rustdoc; RUSTC_BOOTSTRAP lets the stable toolchain write it, the
    same way the fuzz targets take nightly flags. Only fields that have kept their meaning across
    format versions are read."""
    env = dict(os.environ, RUSTC_BOOTSTRAP="1")
    subprocess.run(
        ["cargo", "rustdoc", "--quiet", "-p", crate, "--lib", "--",
         "-Z", "unstable-options", "--output-format", "json"],
        cwd=ROOT, env=env, check=True)
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    doc = json.loads((target / "doc" / f"{crate.replace('-', '_')}.json").read_text())
    index = doc["index"]
    names: set[str] = set()
    seen: set[str] = set()

    def item(ident):
        return index.get(str(ident))

    def visit(ident, name: str | None, module: str = "") -> None:
        it = item(ident)
        if it is None:
            return
        (kind, inner), = it["inner"].items()
        if kind == "module":
            inside = "" if ident == doc["root"] else f"{module}{name}."
            for child in inner["items"]:
                c = item(child)
                if c is not None and c.get("visibility") == "public":
                    visit(child, c.get("name"), inside)
        elif kind == "use":
            if inner.get("id") is not None and not inner.get("is_glob"):
                visit(inner["id"], inner.get("name"), module)
        elif kind in ("struct", "enum", "trait", "union"):
            if str(ident) in seen:
                return
            seen.add(str(ident))
            names.add(name)
            if kind == "trait":
                members = inner["items"]
            else:
                members = []
                for impl in inner.get("impls", []):
                    i = item(impl)
                    if i is None:
                        continue
                    im = i["inner"]["impl"]
                    if im.get("trait") is None and not im.get("is_synthetic") \
                            and im.get("blanket_impl") is None:
                        members.extend(im["items"])
            for m in members:
                mi = item(m)
                if mi is None or "function" not in mi["inner"]:
                    continue
                if kind == "trait" or mi.get("visibility") == "public":
                    names.add(f"{name}.{mi['name']}")
        elif kind in ("function", "constant", "static", "type_alias", "macro"):
            # Free items keep their module (`v1.key_digest`); types are named alone, as every
            # binding exports them at its top level.
            names.add(module + name)

    visit(doc["root"], None)
    names.discard(None)
    return sorted(names)


# Special methods that are a class's API: construction, size, iteration, membership.
_PY_PROTOCOL = {"__new__": "__init__", "__init__": "__init__", "__len__": "__len__",
                "__iter__": "__iter__", "__contains__": "__contains__", "__getitem__": "__getitem__"}


def _python_exports(tree: ast.Module) -> set[str]:
    top: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.asname is not None and alias.asname == alias.name:
                    top.add(alias.name)
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name) and t.id == "__all__":
                    top.update(ast.literal_eval(node.value))
    return top


def python_surface() -> list[str]:
    """The names `hrwhash` and its public submodules export, and the members of its classes in
    the stub. A submodule's names are `module.name`."""
    pkg = ROOT / "bindings-python" / "python" / "hrwhash"
    init = ast.parse((pkg / "__init__.py").read_text())
    top = _python_exports(init)
    top.discard("__version__")
    names = set(top)
    for node in init.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module is None:
            for alias in node.names:
                sub = pkg / f"{alias.name}.py"
                if sub.exists() and not alias.name.startswith("_"):
                    names.discard(alias.name)
                    names.update(f"{alias.name}.{n}" for n in _python_exports(ast.parse(sub.read_text())))
    # The stub of the native module, and the result types written in Python beside it.
    for stub in [*pkg.glob("*.pyi"), pkg / "_results.py"]:
        for node in ast.parse(stub.read_text()).body:
            if isinstance(node, ast.ClassDef) and node.name in top:
                for m in node.body:
                    if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        if not m.name.startswith("_"):
                            names.add(f"{node.name}.{m.name}")
                        elif m.name in _PY_PROTOCOL:
                            names.add(f"{node.name}.{_PY_PROTOCOL[m.name]}")
                    elif isinstance(m, ast.AnnAssign) and isinstance(m.target, ast.Name):
                        names.add(f"{node.name}.{m.target.id}")
    return sorted(names)


_TS_MEMBER = re.compile(r"^\s+(?:static\s+)?(?:readonly\s+)?(?:get\s+)?([A-Za-z_$][\w$]*)\s*[(<:?]")


def node_surface() -> list[str]:
    """Exported classes with their members, functions and constants of the generated index.d.ts.

    A class's methods may be declared in an `export interface` of the same name (declaration
    merging, for methods defined in JavaScript over the native class); those count as members.
    Other interfaces are argument and result shapes, not names a caller imports."""
    text = (ROOT / "bindings-node" / "index.d.ts").read_text()
    top: set[str] = set()
    classes: set[str] = set()
    members: dict[str, set[str]] = {}
    current = None
    for line in text.splitlines():
        m = re.match(r"^export (?:declare )?(class|function|const|interface) ([A-Za-z_$][\w$]*)", line)
        if m:
            kind, name = m.groups()
            if kind != "interface":
                top.add(name)
            if kind == "class":
                classes.add(name)
            opens = kind in ("class", "interface") and not line.rstrip().endswith("}")
            current = name if opens else None
            continue
        if current is not None:
            if line.startswith("}"):
                current = None
                continue
            mm = _TS_MEMBER.match(line)
            if mm and not mm.group(1).startswith("_") and mm.group(1) != "constructor":
                members.setdefault(current, set()).add(mm.group(1))
    names = set(top)
    for cls in classes:
        names.update(f"{cls}.{m}" for m in members.get(cls, ()))
    names.discard("__napiBindingTarget")
    return sorted(names)


def c_surface() -> list[str]:
    """Functions declared in the generated hrwhash.h."""
    text = (ROOT / "bindings-c" / "include" / "hrwhash.h").read_text()
    return sorted(set(re.findall(r"\b(hrw_[a-z0-9_]+)\s*\(", text)))


def cpp_surface() -> list[str]:
    """Public classes of namespace hrwhash in the C++ headers, with their public member functions,
    and the namespace's free functions and constants.

    A small reader for the headers' own regular layout (one declaration per line, `public:` and
    `private:` sections), not a C++ parser; names in a `detail` namespace are not public."""
    names: set[str] = set()
    for header in sorted((ROOT / "bindings-c" / "cpp" / "include").glob("*.hpp")):
        stack: list[tuple[str | None, bool]] = []  # (class name, in a public section)
        depth = 0
        pending = None
        detail_depth = None
        for raw in header.read_text().splitlines():
            line = raw.split("//")[0]
            if detail_depth is None and re.match(r"\s*namespace detail\b", line):
                detail_depth = depth
            m = re.match(r"\s*(class|struct) ([A-Z]\w*)(?![^{;]*;)", line)
            if m and detail_depth is None and not line.rstrip().endswith(";"):
                pending = (m.group(2), m.group(1) == "struct")
            if not stack and detail_depth is None and pending is None:
                # A free function or constant of namespace hrwhash (`hrwhash::key_digest`).
                free = re.match(r"\s*inline\s+(?:constexpr\s+)?[\w:<>,\s*&]+?\s+[*&]?([a-z_]\w*)\s*[(=]", line)
                if free:
                    names.add(free.group(1))
            if stack and stack[-1][0] and depth == stack[-1][2]:
                cls, public, _ = stack[-1]
                if re.match(r"\s*public:", line):
                    stack[-1] = (cls, True, depth)
                elif re.match(r"\s*(private|protected):", line):
                    stack[-1] = (cls, False, depth)
                elif public:
                    f = re.match(r"\s*(?:static\s+|explicit\s+|inline\s+|constexpr\s+|virtual\s+|friend\s+)*"
                                 r"(?:[\w:<>,\s*&]+?\s+)?[*&]?(~?[A-Za-z_]\w*)\s*\(", line)
                    # A name ending in `_` is a data member in a constructor's initializer list.
                    if f and f.group(1) not in ("if", "for", "while", "return", "switch", "sizeof") \
                            and not f.group(1).endswith("_"):
                        names.add(f"{cls}.{f.group(1)}" if f.group(1) != cls else cls)
                    fld = re.match(r"\s*[\w:<>,\s*&]+\s+(\w+)\s*(?:=[^;]*)?;\s*$", line)
                    if fld and "(" not in line and "using" not in line:
                        names.add(f"{cls}.{fld.group(1)}")
            for ch in line:
                if ch == "{":
                    depth += 1
                    if pending is not None:
                        names.add(pending[0])
                        stack.append((pending[0], pending[1], depth))
                        pending = None
                elif ch == "}":
                    if stack and stack[-1][2] == depth:
                        stack.pop()
                    depth -= 1
                    if detail_depth is not None and depth <= detail_depth:
                        detail_depth = None
            if ";" in line and pending is not None and "{" not in line:
                pending = None
    return sorted(n for n in names if not n.split(".")[-1].startswith("~"))


def go_surface(directory: str | None = None, tags: str = "", cgo: str = "0") -> list[str]:
    """Exported identifiers of the Go package under one build, from `go doc -all`."""
    if directory is None:
        directory = str(next(p for p in (ROOT / "go", ROOT / "bindings-c" / "go") if p.is_dir()))
    env = dict(os.environ, CGO_ENABLED=cgo, GOFLAGS=f"-tags={tags}" if tags else "")
    out = subprocess.run(["go", "doc", "-all", "."], cwd=directory, env=env, check=True,
                         capture_output=True, text=True).stdout
    names: set[str] = set()
    section = None
    for line in out.splitlines():
        if re.match(r"^(CONSTANTS|VARIABLES|FUNCTIONS|TYPES)$", line):
            section = line
            continue
        m = re.match(r"^func \((?:\w+ )?\*?(\w+)(?:\[[^\]]*\])?\) ([A-Z]\w*)\(", line)
        if m:
            names.add(f"{m.group(1)}.{m.group(2)}")
            continue
        m = re.match(r"^func ([A-Z]\w*)[\[(]", line)
        if m:
            names.add(m.group(1))
            continue
        m = re.match(r"^type ([A-Z]\w*)", line)
        if m:
            names.add(m.group(1))
            continue
        m = re.match(r"^(?:const|var) ([A-Z]\w*)\b", line)
        if m:
            names.add(m.group(1))
            continue
        if section in ("CONSTANTS", "VARIABLES"):
            m = re.match(r"^\t([A-Z]\w*)\b", line)
            if m:
                names.add(m.group(1))
    return sorted(names)


READERS = {
    "rust": rust_surface,
    "python": python_surface,
    "node": node_surface,
    "c": c_surface,
    "cpp": cpp_surface,
    "go": go_surface,
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("languages", nargs="*", metavar="LANGUAGE", help=", ".join(LANGUAGES))
    ap.add_argument("--count", action="store_true", help="print counts instead of names")
    args = ap.parse_args()
    unknown = sorted(set(args.languages) - set(LANGUAGES))
    if unknown:
        ap.error(f"unknown language {unknown[0]!r}: one of {', '.join(LANGUAGES)}")
    for lang in args.languages or LANGUAGES:
        names = READERS[lang]()
        if args.count:
            # A member is `Type.name`; `module.name` (a lower-case first part) is a free item.
            members = [n for n in names if "." in n and n[0].isupper()]
            top = [n for n in names if n not in set(members)]
            types = [n for n in top if "." not in n and n[0].isupper() and not n.isupper()
                     and not n.startswith("hrw_")]
            print(f"{lang}: {len(top)} top-level names ({len(types)} types), "
                  f"{len(members)} members")
        else:
            for n in names:
                print(f"{lang}\t{n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
