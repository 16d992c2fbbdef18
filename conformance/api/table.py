#!/usr/bin/env python3
"""The cross-language API table: every concept's operations, named alike in every language.

`conformance/api/names.toml` lists each concept (a type: `Placement`, `View`, ...) with its
operations in the Rust spelling, and the few places where a language spells one otherwise or
leaves it out, each with its reason. Every other name follows from the Rust one by each
language's convention:

    Rust        Placement::owner_index      Placement.owner_index
    Python      Placement.owner_index
    Node        Placement.ownerIndex
    C           hrw_placement_owner_index
    C++         hrwhash::Placement::owner_index
    Go          Placement.OwnerIndex

`check` reads every real surface (surfaces.py) and fails when a language lacks a listed
operation, spells it otherwise than the table says, or exports a name the table does not list.
`generate` writes `conformance/API-TABLE.md` from the same data; `--check` diffs it.

    python3 conformance/api/table.py check [LANGUAGE ...]
    python3 conformance/api/table.py generate [--check]
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import surfaces  # noqa: E402

ROOT = surfaces.ROOT
DATA = Path(__file__).resolve().parent / "names.toml"
DOC = ROOT / "conformance" / "API-TABLE.md"
LANGUAGES = surfaces.LANGUAGES
TITLES = {"rust": "Rust", "python": "Python", "node": "Node", "c": "C", "cpp": "C++", "go": "Go"}
ABSENT = "-"


def camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def pascal(snake: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in snake.split("_"))


def snake(name: str) -> str:
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i and (not name[i - 1].isupper() or
                                   (i + 1 < len(name) and name[i + 1].islower())):
            out.append("_")
        out.append(ch.lower())
    return "".join(out)


# Go keeps initialisms in capitals (Effective Go, "MixedCaps"; go vet's naming checks).
GO_INITIALISMS = {"id": "ID", "json": "JSON", "ids": "IDs", "io": "IO"}


def go_pascal(snake_name: str) -> str:
    return "".join(GO_INITIALISMS.get(w, w[:1].upper() + w[1:]) for w in snake_name.split("_"))


# A count of items is `len` in Rust, C and Go, `len()` (`__len__`) in Python, `length` in
# JavaScript (Array, TypedArray, Buffer) and `size` in C++ (the standard containers); a name
# that ends in the word (`selectable_len`) takes the same word.
LEN_WORD = {"node": "length", "cpp": "size"}


def idiom(lang: str, op: str) -> str:
    words = op.split("_")
    if words[-1] == "len" and lang in LEN_WORD:
        words[-1] = LEN_WORD[lang]
    return "_".join(words)


def derive(lang: str, concept: str | None, op: str, c_prefix: str | None = None) -> str:
    """The name `op` of `concept` (None: a free item of the crate root) takes in `lang`.

    `c_prefix` is the concept's C handle name where it is not `hrw_<concept in snake case>`."""
    c_type = c_prefix or (f"hrw_{snake(concept)}" if concept else "hrw")
    if concept is None:
        if op.isupper():
            # C++ spells constants in lower case, as the standard library does (std::numbers::pi).
            return {"c": f"HRW_{op}", "cpp": op.lower(), "go": go_pascal(op.lower())}.get(lang, op)
        return {"rust": op, "python": op, "node": camel(op), "c": f"hrw_{op}",
                "cpp": op, "go": go_pascal(op)}[lang]
    if op == "new":
        return {"rust": f"{concept}.new", "python": f"{concept}.__init__", "node": concept,
                "c": f"{c_type}_new", "cpp": concept, "go": f"New{concept}"}[lang]
    if op == "len" and lang == "python":
        return f"{concept}.__len__"
    op = idiom(lang, op)
    return {"rust": f"{concept}.{op}", "python": f"{concept}.{op}",
            "node": f"{concept}.{camel(op)}", "c": f"{c_type}_{op}",
            "cpp": f"{concept}.{op}", "go": f"{concept}.{go_pascal(op)}"}[lang]


@dataclass
class Row:
    concept: str | None
    op: str
    doc: str
    names: dict[str, list[str]] = field(default_factory=dict)  # lang -> spelled names
    absent: dict[str, str] = field(default_factory=dict)  # lang -> reason


@dataclass
class Concept:
    name: str | None
    doc: str
    types: dict[str, str]  # lang -> the type's own name where it is not the concept's
    rows: list[Row]


def load(path: Path = DATA) -> list[Concept]:
    data = tomllib.loads(path.read_text())
    reasons = data.get("reasons", {})

    def reason(text: str) -> str:
        # `@name` refers to a reason of the [reasons] table, which several rows share.
        return reasons[text[1:]] if text.startswith("@") else text

    concepts = []
    for entry in data["concept"]:
        name = entry.get("name")
        c_prefix = entry.get("c_prefix")
        types = {}
        for lang in LANGUAGES:
            if name is not None and lang not in entry.get("absent", {}):
                types[lang] = entry.get("type", {}).get(lang, derive_type(lang, name))
        rows = []
        for op in entry.get("ops", []):
            if isinstance(op, str):
                op = {"name": op}
            row = Row(name, op["name"], op.get("doc", ""))
            for lang in LANGUAGES:
                if lang in entry.get("absent", {}):
                    row.absent[lang] = reason(entry["absent"][lang])
                elif lang in op.get("absent", {}):
                    row.absent[lang] = reason(op["absent"][lang])
                else:
                    spelled = op.get(lang, derive(lang, name, op["name"], c_prefix))
                    row.names[lang] = [spelled] if isinstance(spelled, str) else list(spelled)
            rows.append(row)
        concepts.append(Concept(name, entry.get("doc", ""), types, rows))
    return concepts


def derive_type(lang: str, concept: str) -> str:
    return f"hrw_{snake(concept)}" if lang == "c" else concept


def error_names(lang: str) -> set[str]:
    """The names the error table generates (conformance/errors.json, `make errors`): they are
    listed there, once, and kept out of this table. Python's are in the `errors` submodule, with
    their base class; the package root re-exports only the base class, `HrwError`, which this
    table lists as the Error type, so a kind re-exported at the root shows up as an extra name."""
    import json
    table = json.loads((ROOT / "conformance" / "errors.json").read_text())
    names: set[str] = {"errors.HrwError"} if lang == "python" else set()
    for k in table["kinds"]:
        if lang == "python" and k.get("python"):
            names.add(f"errors.{k['name']}Error")
        if lang == "go" and k.get("go"):
            names.update({k["go"], "Code" + k["go"][len("Err"):]})
    return names


def expected(concepts: list[Concept], lang: str) -> dict[str, str]:
    """Every name the table says `lang` exports, with the row it comes from."""
    out: dict[str, str] = {}
    for c in concepts:
        if c.name is not None and lang in c.types and lang != "c":
            out[c.types[lang]] = f"{c.name}"
        for row in c.rows:
            for n in row.names.get(lang, []):
                out[n] = f"{c.name or 'crate root'} / {row.op}"
    return out


def check(languages: list[str]) -> int:
    concepts = load()
    failures = 0
    for lang in languages:
        want = expected(concepts, lang)
        have = set(surfaces.READERS[lang]()) - error_names(lang)
        missing = sorted(set(want) - have)
        extra = sorted(have - set(want))
        for n in missing:
            print(f"{lang}: lacks {n} (API-TABLE.md: {want[n]})")
        for n in extra:
            print(f"{lang}: exports {n}, which API-TABLE.md does not list")
        failures += len(missing) + len(extra)
        print(f"{lang}: {len(have)} names, {len(missing)} missing, {len(extra)} not in the table")
    if failures:
        print(f"API table check failed: {failures} differences; edit conformance/api/names.toml "
              f"only where the table itself is wrong, then run "
              f"`python3 conformance/api/table.py generate`")
        return 1
    return 0


def render(concepts: list[Concept]) -> str:
    out = [
        "# The API table",
        "",
        "Generated by `python3 conformance/api/table.py generate` from `conformance/api/names.toml`;",
        "do not edit. `make test` checks that every package exports exactly these names.",
        "",
        "Each concept is one type with the same name and meaning in every language; its operations",
        "are spelled by each language's convention from the Rust name (`owner_index`: Python",
        "`owner_index`, Node `ownerIndex`, C `hrw_placement_owner_index`, Go `OwnerIndex`). A",
        "count of items, Rust's `len`, is `len()` (`__len__`) in Python, `length` in Node, `len` in",
        "C and Go and `size()` in C++, also at the end of a longer name (`selectable_len`: Node",
        "`selectableLength`, C++ `selectable_size`). A constant of the crate root is `UPPER_CASE`",
        "in Rust, Python and Node, `HRW_UPPER_CASE` in C, `lower_case` in C++ and `MixedCaps` in",
        "Go. A `-` means the language leaves the operation out, for the reason given below its",
        "table.",
        "",
    ]
    for c in concepts:
        out.append(f"## {c.name or 'Crate root'}")
        out.append("")
        if c.doc:
            out.append(c.doc.strip())
            out.append("")
        out.append("| operation | " + " | ".join(TITLES[l] for l in LANGUAGES) + " |")
        out.append("| --- |" + " --- |" * len(LANGUAGES))
        notes: dict[str, list[str]] = {}  # reason -> "`op` (languages)"
        for row in c.rows:
            cells = []
            missing: dict[str, list[str]] = {}
            for lang in LANGUAGES:
                if lang in row.absent:
                    cells.append(ABSENT)
                    missing.setdefault(row.absent[lang], []).append(TITLES[lang])
                else:
                    cells.append("<br>".join(f"`{n}`" for n in row.names[lang]))
            for why, langs in missing.items():
                notes.setdefault(why, []).append(f"`{row.op}` ({', '.join(langs)})")
            label = f"`{row.op}`" + (f": {row.doc}" if row.doc else "")
            out.append(f"| {label} | " + " | ".join(cells) + " |")
        out.append("")
        if notes:
            out.append("Where a language has `-`:")
            out.append("")
            for why, ops in notes.items():
                out.append(f"- {why[:1].upper()}{why[1:]}: {', '.join(ops)}.")
            out.append("")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check", help="compare every package's surface with the table")
    c.add_argument("languages", nargs="*", metavar="LANGUAGE")
    g = sub.add_parser("generate", help="write conformance/API-TABLE.md")
    g.add_argument("--check", action="store_true", help="fail if the file is out of date")
    args = ap.parse_args()
    if args.cmd == "check":
        unknown = sorted(set(args.languages) - set(LANGUAGES))
        if unknown:
            ap.error(f"unknown language {unknown[0]!r}: one of {', '.join(LANGUAGES)}")
        return check(args.languages or list(LANGUAGES))
    text = render(load())
    if args.check:
        if not DOC.exists() or DOC.read_text() != text:
            print(f"{DOC.relative_to(ROOT)} is out of date: run "
                  f"`python3 conformance/api/table.py generate`")
            return 1
        return 0
    DOC.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
