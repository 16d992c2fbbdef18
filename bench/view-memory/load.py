"""Loads a view with View.from_file (or View.from_json of the file's text with "json", of its
bytes with "bytes") and prints its fingerprint (bench/view-memory.sh)."""

import sys

from hrwhash import View

path, how = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "file"
if how == "json":
    with open(path, encoding="utf-8") as f:
        view = View.from_json(f.read())
elif how == "bytes":
    with open(path, "rb") as f:
        view = View.from_json(f.read())
else:
    view = View.from_file(path)
print(view.fingerprint)
