"""Which BFCL samples are not independent answers, for the clustered accuracy intervals
(evalui.stats.clustered): the spec's ``cluster_of`` hook.

Entries that play the same base entry, build on the same memory scenario, ask the same web-search
question or repeat one entry under many prompt formats share a cluster; every other entry is its
own. The id patterns are bfcl-eval's own (checked against its data files in the unit tests).
"""

from __future__ import annotations

import re

# Multi-turn: multi_turn_base_12, multi_turn_miss_func_12, multi_turn_miss_param_12 and
# multi_turn_long_context_12 play the same base entry (same initial state, same gold path).
_MULTI_TURN = re.compile(r"multi_turn_(?:base|miss_func|miss_param|long_context)_(\d+)")
# Memory, as bfcl-eval names it per backend: memory_kv_7-customer-7 is scenario "customer", whose
# prerequisite conversation every entry of that scenario (on every backend) builds on.
_MEMORY = re.compile(r"memory(?:_kv|_vector|_rec_sum)?_\d+-([A-Za-z]+)-\d+")
# Web search: web_search_base_3 and web_search_no_snippet_3 ask the same question.
_WEB_SEARCH = re.compile(r"web_search(?:_base|_no_snippet)?_(\d+)")
# Format sensitivity: format_sensitivity_<i>:<config>:<original id>, one entry under many prompt formats.
_FORMAT = re.compile(r"format_sensitivity_\d+:[^:]*:(.+)")

RULES = (
    (_MULTI_TURN, "bfcl:multi_turn:{}"),
    (_MEMORY, "bfcl:memory:{}"),
    (_WEB_SEARCH, "bfcl:web_search:{}"),
    (_FORMAT, "bfcl:format_sensitivity:{}"),
)


def cluster_of(sample_id: str) -> str:
    """The cluster of a BFCL entry (its id without an epoch suffix); the id itself when it shares none."""
    for pattern, key in RULES:
        found = pattern.fullmatch(sample_id)
        if found:
            return key.format(found.group(1))
    return sample_id
