#!/usr/bin/env python3
"""The C ABI check (bindings-c/README.md, "ABI policy").

The ABI of libhrwhash 1.x is the list in abi/libhrwhash.so.1.txt: every exported function with its
declaration in include/hrwhash.h, whitespace collapsed. This check fails when the built library's
SONAME is not the list's, when a listed function is no longer exported or its declaration changed
(a break: it needs a new major version and a new list), and when the library exports a function
the list lacks (compatible, but the list is what 1.x promises: run with --update and commit it).
It cannot see a change inside a struct's layout; those are named in the header's comments and
reviewed by hand.

    check_abi.py LIBRARY [--update]
"""
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent.parent
HEADER = HERE / "include" / "hrwhash.h"
BUILD_RS = HERE / "build.rs"


def abi_major() -> int:
    m = re.search(r"^const ABI_MAJOR: u32 = (\d+);", BUILD_RS.read_text(), re.M)
    if not m:
        sys.exit("check_abi: no ABI_MAJOR in build.rs")
    return int(m.group(1))


def declarations() -> dict:
    """Each function of the header: name -> declaration with its whitespace collapsed."""
    text = re.sub(r"/\*.*?\*/", " ", HEADER.read_text(), flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"^\s*#[^\n]*", " ", text, flags=re.M)
    out = {}
    for chunk in re.split(r"[;{}]", text):
        m = re.fullmatch(r"\s*([A-Za-z_][\w \*]*?\b(hrw_\w+)\s*\([^()]*\))\s*", chunk, re.S)
        if m:
            decl = " ".join(m.group(1).split())
            out[m.group(2)] = re.sub(r"\s*([(),*])\s*", r"\1", decl)
    return out


def exported(library: str) -> set:
    nm = subprocess.run(["nm", "-D", "--defined-only", library], check=True, capture_output=True,
                        text=True).stdout
    return {line.split()[-1] for line in nm.splitlines()
            if len(line.split()) == 3 and line.split()[1] == "T" and line.split()[2].startswith("hrw_")}


def soname(library: str) -> str:
    out = subprocess.run(["readelf", "-d", library], check=True, capture_output=True, text=True).stdout
    m = re.search(r"\(SONAME\)\s+Library soname: \[(.*)\]", out)
    return m.group(1) if m else ""


def main() -> int:
    args = [a for a in sys.argv[1:] if a != "--update"]
    if len(args) != 1:
        sys.exit(__doc__)
    library = args[0]
    major = abi_major()
    listing = HERE / "abi" / f"libhrwhash.so.{major}.txt"
    decls = declarations()
    symbols = exported(library)
    undeclared = sorted(symbols - decls.keys())
    if undeclared:
        print(f"check_abi: exported but not declared in hrwhash.h: {', '.join(undeclared)}")
        return 1
    current = {name: decls[name] for name in symbols}
    if "--update" in sys.argv:
        listing.write_text("".join(f"{n}\t{current[n]}\n" for n in sorted(current)))
        print(f"check_abi: wrote {listing.relative_to(HERE)} ({len(current)} functions)")
        return 0
    failed = []
    want = f"libhrwhash.so.{major}"
    if soname(library) != want:
        failed.append(f"SONAME is {soname(library)!r}, not {want!r}")
    promised = dict(line.split("\t", 1) for line in listing.read_text().splitlines() if line)
    for name, decl in sorted(promised.items()):
        if name not in current:
            failed.append(f"removed: {name} (a break: a new major version and a new list)")
        elif current[name] != decl:
            failed.append(f"changed: {name}\n    was {decl}\n    now {current[name]}")
    added = sorted(current.keys() - promised.keys())
    if added:
        failed.append(f"not in {listing.name} yet (compatible): {', '.join(added)}; run "
                      "'make -C bindings-c abi-update' and commit the list")
    for f in failed:
        print(f"check_abi: {f}")
    if not failed:
        print(f"check_abi: {len(promised)} functions of {listing.name} unchanged, SONAME {want}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
