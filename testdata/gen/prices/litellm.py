#!/usr/bin/env python3
"""litellm.py writes jsonlimport/litellm_prices.json, the snapshot of
LiteLLM's model_prices_and_context_window.json that sessiondb embeds in its
binary (jsonlimport.LiteLLMPrices): the prices of every model the field
prices, used where the built-in table (jsonlimport.Prices) has no entry.

Run by hand whenever the snapshot should move:

    curl -sSLo /tmp/litellm.json \
      https://raw.githubusercontent.com/BerriAI/litellm/main/model_prices_and_context_window.json
    python3 testdata/gen/prices/litellm.py /tmp/litellm.json \
      --source "BerriAI/litellm main, raw file" --as-of 2026-12-06

(any copy of the file works: a pip-installed litellm ships it as
litellm/model_prices_and_context_window_backup.json). --as-of is the day
the file's figures are from; --source says where the copy came from. Both
are written into the snapshot's "_snapshot" entry, which jsonlimport reads
back (LiteLLMSnapshot) and the price notes name.

Kept of the file: the entries that price tokens (an input or an output
cost per token: chat, completion, responses and embedding models; not
image, audio, search or rerank prices), with the fields jsonlimport reads
(pricesfile.go: input, output, cache read and write, the 1-hour cache
write, the 200k-token tier); everything else (context sizes, capability
flags, sources) is dropped, which brings 1.5 MB to about a third. Entries
are sorted by key, one per line, so that a refresh reads as a diff.
"""
import argparse
import datetime
import json
import sys

FIELDS = [
    "input_cost_per_token",
    "output_cost_per_token",
    "cache_read_input_token_cost",
    "cache_creation_input_token_cost",
    "cache_creation_input_token_cost_above_1hr",
    "input_cost_per_token_above_200k_tokens",
    "output_cost_per_token_above_200k_tokens",
    "cache_read_input_token_cost_above_200k_tokens",
    "cache_creation_input_token_cost_above_200k_tokens",
    "cache_creation_input_token_cost_above_1hr_above_200k_tokens",
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file", help="LiteLLM's model_prices_and_context_window.json ('-': stdin)")
    ap.add_argument("--source", required=True, help="where the copy came from")
    ap.add_argument("--as-of", required=True, help="the day of the file's figures, YYYY-MM-DD")
    ap.add_argument("--out", default=None, help="default: jsonlimport/litellm_prices.json of this checkout")
    args = ap.parse_args()
    datetime.date.fromisoformat(args.as_of)
    data = json.load(sys.stdin if args.file == "-" else open(args.file, encoding="utf-8"))
    entries = {}
    for key, entry in data.items():
        if key == "sample_spec" or not isinstance(entry, dict):
            continue
        kept = {f: entry[f] for f in FIELDS if isinstance(entry.get(f), (int, float)) and not isinstance(entry.get(f), bool)}
        if "input_cost_per_token" not in kept and "output_cost_per_token" not in kept:
            continue
        entries[key] = kept
    meta = {"source": args.source, "as_of": args.as_of, "entries": len(entries), "of": sum(1 for k in data if k != "sample_spec")}
    out = args.out
    if out is None:
        import os
        out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "jsonlimport", "litellm_prices.json")
    with open(out, "w", encoding="utf-8") as f:
        f.write("{\n")
        f.write('"_snapshot": ' + json.dumps(meta, sort_keys=True) + ",\n")
        keys = sorted(entries)
        for i, key in enumerate(keys):
            f.write(json.dumps(key) + ": " + json.dumps(entries[key], sort_keys=True, separators=(",", ":")))
            f.write(",\n" if i < len(keys) - 1 else "\n")
        f.write("}\n")
    print(f"wrote {len(entries)} of {meta['of']} entries to {out}")


if __name__ == "__main__":
    main()
