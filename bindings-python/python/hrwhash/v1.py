"""The hrw-v1 primitives of SPEC.md, to check another implementation against this one."""

from ._hrwhash import (
    draw as draw,
    key_digest as key_digest,
    node_digest as node_digest,
    score as score,
    weight_to_fixed as weight_to_fixed,
)

__all__ = ["draw", "key_digest", "node_digest", "score", "weight_to_fixed"]
