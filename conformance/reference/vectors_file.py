"""The committed vectors files, as the reference and its planted-mistake tests read them."""

import json
import os

CONFORMANCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def load(name: str) -> dict:
    """The file `name`, a path below conformance/ ("vectors.json", "policies/domains.json")."""
    with open(os.path.join(CONFORMANCE, name), encoding="utf-8") as f:
        return json.load(f)
