#!/usr/bin/env python3
"""extract.py writes testdata/prices/litellm-ccusage.json: the LiteLLM
price entries that ccusage embeds in its native binary (what it prices with
under --offline), back in LiteLLM's model_prices_and_context_window.json
shape, so that jsonlimport's tests can check the built-in table against
them and read a real LiteLLM-shaped file.

Run by hand, from anywhere:

    npm install --prefix /tmp/ccusage ccusage@20.0.24
    python3 testdata/gen/prices/extract.py \
        /tmp/ccusage/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage

ccusage's build (rust/crates/ccusage-core/build.rs) keeps, of LiteLLM's
file as pinned in its flake.lock, the entries whose key starts with
claude-, anthropic., anthropic/, a regional anthropic. prefix, gpt-,
openai/, azure/, zai/ or openrouter/openai/, with these fields renamed
(i, o, cc, cr, ia, oa, cca, cra, ctx, fast), minifies them and embeds the
result raw-deflated. This script finds that stream (the one that inflates
to a JSON object whose values have "i" and "o") and renames the fields
back; "fast" (a multiplier) and "ctx" (the context size) are dropped.
"""
import json
import os
import sys
import zlib

NAMES = {
    "i": "input_cost_per_token",
    "o": "output_cost_per_token",
    "cc": "cache_creation_input_token_cost",
    "cr": "cache_read_input_token_cost",
    "ia": "input_cost_per_token_above_200k_tokens",
    "oa": "output_cost_per_token_above_200k_tokens",
    "cca": "cache_creation_input_token_cost_above_200k_tokens",
    "cra": "cache_read_input_token_cost_above_200k_tokens",
}


def find_snapshot(data):
    for i in range(len(data)):
        if (data[i] >> 1) & 3 not in (1, 2):  # a compressed deflate block
            continue
        try:
            head = zlib.decompressobj(-15).decompress(data[i:i + 64], 16)
        except zlib.error:
            continue
        if not head.startswith(b'{"'):
            continue
        try:
            doc = json.loads(zlib.decompressobj(-15).decompress(data[i:]))
        except (zlib.error, ValueError):
            continue
        if isinstance(doc, dict) and doc and all(isinstance(v, dict) and "i" in v and "o" in v for v in doc.values()):
            return doc
    sys.exit("no LiteLLM snapshot found in the binary")


def main():
    binary = sys.argv[1]
    with open(binary, "rb") as f:
        snapshot = find_snapshot(f.read())
    out = {}
    for model in sorted(snapshot):
        out[model] = {NAMES[k]: v for k, v in sorted(snapshot[model].items()) if k in NAMES}
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "prices")
    os.makedirs(root, exist_ok=True)
    path = os.path.join(root, "litellm-ccusage.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {len(out)} entries to {os.path.normpath(path)}")


if __name__ == "__main__":
    main()
