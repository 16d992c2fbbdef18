#!/usr/bin/env python3
"""The licences of the crates compiled into one of hrwhash's artifacts, as one text file.

Usage: third_party_licenses.py PACKAGE OUT [--check]

PACKAGE is a workspace crate (hrwhash-cli, hrwhash-node, hrwhash-python, hrwhash-c). The crates are
those its normal dependencies reach, on every platform at once, from `cargo metadata --locked`:
the pipeline builds each artifact for six targets, and one file that lists a crate a target does
not use is still true, while one per target would need each target's sources here. Build and dev
dependencies are left out: they run while building and are not shipped. Each licence text is read
from the crate's own sources (the files cargo unpacked from crates.io), and identical texts are
printed once with every crate that carries them. A few crates publish no licence file (napi's,
for one); for them the licence their manifest names is reproduced from its standard text (MIT, or
Apache-2.0 from this repository's LICENSE-APACHE) with the manifest's authors. Any other crate
without a licence file fails the run, so a new dependency cannot ship without its notice.
"""
import hashlib
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MIT_TEXT = """MIT License

Copyright (c) {holders}

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
"""


def standard_text(p):
    """The text of the licence a crate's manifest names, for a crate that ships no licence file."""
    terms = re.split(r"\s+OR\s+|/", p.get("license") or "")
    holders = ", ".join(re.sub(r"\s*<[^>]*>", "", a) for a in p["authors"]) or f"the {p['name']} authors"
    if "MIT" in terms:
        return "MIT", MIT_TEXT.format(holders=holders)
    if "Apache-2.0" in terms:
        return "Apache-2.0", (ROOT / "LICENSE-APACHE").read_text(encoding="utf-8").strip() + "\n"
    return None


LICENSE_FILE = re.compile(r"^(licen[cs]e|copying|copyright|notice|unlicense)([-._].*)?$", re.I)


def crates(package):
    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--locked", "--manifest-path", str(ROOT / "Cargo.toml")],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    by_id = {p["id"]: p for p in meta["packages"]}
    deps = {n["id"]: n["deps"] for n in meta["resolve"]["nodes"]}
    members = set(meta["workspace_members"])
    roots = [i for i in members if by_id[i]["name"] == package]
    if not roots:
        sys.exit(f"{package} is not a crate of this workspace")
    seen, todo = set(), roots
    while todo:
        i = todo.pop()
        if i in seen:
            continue
        seen.add(i)
        todo += [d["pkg"] for d in deps[i] if any(k["kind"] is None for k in d["dep_kinds"])]
    # hrwhash's own crates are under the project's licence, shipped beside this file.
    found = [by_id[i] for i in seen if i not in members]
    return sorted(found, key=lambda p: (p["name"], p["version"]))


def render(package):
    texts = {}  # digest -> (text, [crate labels])
    listing = []
    missing = []
    for p in crates(package):
        label = f"{p['name']} {p['version']}"
        listing.append(f"- {label}: {p.get('license') or p.get('license_file') or 'no licence field'}"
                       + (f" ({p['repository']})" if p.get("repository") else ""))
        root = pathlib.Path(p["manifest_path"]).parent
        files = sorted(f for f in root.iterdir() if f.is_file() and LICENSE_FILE.match(f.name))
        if not files:
            standard = standard_text(p)
            if standard is None:
                missing.append(label)
                continue
            name, text = standard
            key = hashlib.sha256(text.encode()).hexdigest()
            texts.setdefault(key, (text, []))[1].append(f"{label} (no licence file published; {name} text)")
        for f in files:
            text = f.read_text(encoding="utf-8", errors="replace").strip() + "\n"
            key = hashlib.sha256(text.encode()).hexdigest()
            texts.setdefault(key, (text, []))[1].append(f"{label} ({f.name})")
    if missing:
        sys.exit("no licence file in the sources of: " + ", ".join(missing))
    out = [
        f"Third-party licences of {package}",
        "",
        f"{package} is hrwhash's own code (MIT OR Apache-2.0, LICENSE-MIT and LICENSE-APACHE) compiled",
        "together with the Rust crates below. Generated by packaging/third_party_licenses.py from",
        "Cargo.lock; every platform's dependencies are listed.",
        "",
        "Crates (name version: licence expression):",
        "",
        *listing,
        "",
    ]
    # Texts in order of their first crate, so the file changes only where a dependency does.
    for text, labels in sorted(texts.values(), key=lambda t: t[1][0]):
        out += ["=" * 78, "Used by: " + ", ".join(labels), "=" * 78, "", text]
    return "\n".join(out)


def main():
    args = [a for a in sys.argv[1:] if a != "--check"]
    if len(args) != 2:
        sys.exit(__doc__)
    package, path = args
    text = render(package)
    target = pathlib.Path(path)
    if "--check" in sys.argv:
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            sys.exit(f"{path} is out of date: run 'python3 packaging/third_party_licenses.py {package} {path}' and commit it")
        return
    target.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
