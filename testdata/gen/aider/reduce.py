#!/usr/bin/env python3
"""Reduce real aider chat and input histories to the corpus in testdata/aider/corpus.

Usage: reduce.py ORIG_DIR OUT_DIR
ORIG_DIR holds one folder per repository (owner+name) with the original
.aider.chat.history.md and .aider.input.history (see testdata/aider/MANIFEST.md
for where each came from). Kept byte for byte: every line's kind and end,
blank lines, run headers, "####" and "> " prefixes and the two spaces aider
ends them with, aider's own version/model/token/cost/edit/commit lines,
thinking tags, code fences and SEARCH/REPLACE markers, input history times,
and words of one or two characters (answers such as y, n). Every other word
is replaced by a placeholder of the same number of characters chosen by a
hash of the word, so that a prompt and its input history record stay equal.
"""
import hashlib
import os
import re
import sys

LOREM = "loremipsumdolorsitametconsecteturadipiscingelitseddoeiusmodtemporincididunt"
KEEP_OUTPUT = re.compile(
    r"^(Tokens: |Aider v|Model: |Main model: |Weak model: |Editor model: |Applied edit to |Commit [0-9a-f]{7} |"
    r"Git repo: |Repo-map: |Cur working dir: |Git working dir: |\^C)"
)
KEEP_TEXT = re.compile(r"^\s*(```\S*|<<<<<<< SEARCH|=======|>>>>>>> REPLACE|</?thinking-content-[0-9a-f]+>|</?think>)\s*$")


def word(w):
    if len(w) <= 2:
        return w
    h = int(hashlib.sha256(w.encode()).hexdigest(), 16) % len(LOREM)
    s = (LOREM[h:] + LOREM) * (len(w) // len(LOREM) + 2)
    return s[: len(w)]


def prose(s):
    return re.sub(r"\S+", lambda m: word(m.group(0)), s)


def split_end(line):
    """Split a line (no newline) into content and its end: CR, two spaces."""
    end = ""
    if line.endswith("\r"):
        line, end = line[:-1], "\r"
    m = re.search(r" +$", line)
    if m:
        line, end = line[: m.start()], m.group(0) + end
    return line, end


def prompt(content):
    # "/cmd rest": the command kept, its text replaced.
    if content.startswith("/"):
        cmd, sep, rest = content.partition(" ")
        return cmd + sep + prose(rest)
    return prose(content)


def reduce_chat(text):
    out = []
    for line in text.split("\n"):
        content, end = split_end(line)
        if content.startswith("# aider chat started at ") or content.strip() == "":
            out.append(line)
        elif content.startswith("#### "):
            out.append("#### " + prompt(content[5:]) + end)
        elif content.startswith("> "):
            msg = content[2:]
            out.append("> " + (msg if KEEP_OUTPUT.match(msg) else prose(msg)) + end)
        elif KEEP_TEXT.match(content):
            out.append(line)
        else:
            lead = re.match(r"^\s*", content).group(0)
            out.append(lead + prose(content[len(lead):]) + end)
    return "\n".join(out)


def reduce_input(text):
    out = []
    for line in text.split("\n"):
        if line.startswith("+"):
            out.append("+" + prompt(line[1:]))
        else:
            out.append(line)
    return "\n".join(out)


def main():
    orig, dest = sys.argv[1], sys.argv[2]
    for repo in sorted(os.listdir(orig)):
        for name, fn in ((".aider.chat.history.md", reduce_chat), (".aider.input.history", reduce_input)):
            src = os.path.join(orig, repo, name)
            if not os.path.exists(src):
                continue
            with open(src, encoding="utf-8", errors="surrogateescape", newline="") as f:
                data = f.read()
            os.makedirs(os.path.join(dest, repo), exist_ok=True)
            with open(os.path.join(dest, repo, name), "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
                f.write(fn(data))


if __name__ == "__main__":
    main()
