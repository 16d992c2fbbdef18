"""Shared by the recording scripts: the keys every profile is asked about, and the file writer.

The inputs are fixed lists plus keys drawn from a seeded generator, so every re-recording asks the
incumbent the same questions and a diff against the checked-in file shows only a change of answer.
"""

import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# Where the incumbent programs are built (never beside the recorded files).
BUILD = os.path.join(HERE, "..", "..", "..", "target", "profiles-record", "bin")


def build_path(name):
    os.makedirs(BUILD, exist_ok=True)
    return os.path.abspath(os.path.join(BUILD, name))

# Keys every incumbent takes as text.
TEXT_KEYS = [
    "", "a", "ok", "mykey", "wat", "6666", "foo", "bar", "user:42", "order:7", "session:abc",
    "VDEAAAAA", "apple", "the quick brown fox", "key with spaces", "tab\tkey", "nul\x00inside",
    "café", "naïve", "Ünïcödé", "日本語のキー", "ключ", "مفتاح", "ελληνικά", "Ā", "\u0100\u0101",
    "š", "ÿ", "\u00ff\u0100", "🔑", "👩‍👩‍👧", "a😀b", "😀😀😀😀", "🏳️‍🌈",
    # Redis hashtags: the text inside the first non-empty {...} is what go-redis hashes.
    "{user1000}.following", "{user1000}.followers", "user1000", "foo{}{bar}", "foo{{bar}}",
    "{}foo", "foo{}", "foo{bar", "}{a}", "{a}{b}", "{🔑}x", "x{é}y", "{日本}語", "prefix{ключ}",
    "{", "}", "{}", "{{}}",
]

# Keys that are not valid UTF-8, for incumbents that hash bytes.
BYTE_KEYS = [
    b"\xff", b"\xc3\x28", b"\x80abc", b"\xed\xa0\x80", b"\xf0\x9f\x98", b"key\xfe",
    b"{\xff}rest", b"{tag}\xff", b"\xc0\xaf",
]


def random_text_keys(count, seed):
    """Printable ASCII, Latin-1, other BMP letters and emoji, some wrapped in hashtags."""
    rng = random.Random(seed)
    alphabets = [
        "abcdefghijklmnopqrstuvwxyz0123456789:_-",
        "àáâãäåæçèéêëìíîïðñòóôõöøùúûüýþÿ",
        "αβγδεζηθικλμνξοπρστυφχψωжзийклмн日本語中文한국어",
        "😀😁😂🤣😃😄🔑🚀🌍🏠",
    ]
    keys = []
    for i in range(count):
        length = rng.randint(1, 24)
        chars = [rng.choice(rng.choice(alphabets)) for _ in range(length)]
        key = "".join(chars)
        if i % 5 == 0:
            cut = rng.randint(0, len(key))
            key = key[:cut] + "{" + key[cut:] + "}" + "".join(rng.choice(alphabets[0]) for _ in range(3))
        keys.append(key)
    return keys


def random_byte_keys(count, seed):
    rng = random.Random(seed)
    return [bytes(rng.randrange(256) for _ in range(rng.randint(1, 16))) for _ in range(count)]


def text_field(name, value):
    """`name: text` for bytes that are valid UTF-8, otherwise `name_hex: lowercase hex`."""
    if isinstance(value, str):
        value = value.encode("utf-8")
    try:
        return {name: value.decode("utf-8")}
    except UnicodeDecodeError:
        return {name + "_hex": value.hex()}


def dump(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))


def write_profile(out_dir, profile, comment, package, version, cases):
    """Write `<out_dir>/<profile>.json`: one node or lookup a line, so a diff names the lookup."""
    lines = ["{", '  "version": 1,', f'  "profile": {dump(profile)},', f'  "_comment": {dump(comment)},']
    lines.append(f'  "recorded_with": {dump({"package": package, "version": version})},')
    lines.append('  "cases": [')
    for ci, case in enumerate(cases):
        lines.append("    {")
        lines.append('      "nodes": [')
        lines.append(",\n".join("        " + dump(n) for n in case["nodes"]))
        lines.append("      ],")
        lines.append('      "lookups": [')
        lines.append(",\n".join("        " + dump(lk) for lk in case["lookups"]))
        lines.append("      ]")
        lines.append("    }" + ("," if ci + 1 < len(cases) else ""))
    lines.append("  ]")
    lines.append("}")
    path = os.path.join(out_dir, profile + ".json")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def run_incumbent(cmd, request, cwd=None):
    """Send the line protocol to an incumbent program and return its answer lines.

    Request lines: `case <nodes> <keys>`, then one `node <weight> <port> <hex id>` a node, then one
    `key <hex>` a key; the empty string is written `-`. The program answers one line a key.
    """
    proc = subprocess.run(cmd, input="\n".join(request) + "\n", capture_output=True, text=True, cwd=cwd)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"{' '.join(cmd)} failed with exit code {proc.returncode}")
    return proc.stdout.splitlines()


def request_lines(cases):
    """cases: [(nodes, keys)] with nodes [(id bytes, weight, port)] and keys [bytes]."""
    out = []
    for nodes, keys in cases:
        out.append(f"case {len(nodes)} {len(keys)}")
        for node_id, weight, port in nodes:
            out.append(f"node {weight} {port} {node_id.hex() or '-'}")
        for key in keys:
            out.append(f"key {key.hex() or '-'}")
    return out
