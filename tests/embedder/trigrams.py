#!/usr/bin/env python3
"""A small deterministic embedder for tests and for trying dense routing without a model.

It speaks skillc's embedder protocol (docs/routing.md): JSON lines {"text": ...} on stdin, one
{"model": ..., "vector": [...]} line per text on stdout. A text's vector counts the character
trigrams of its words (each word padded with '#'), hashed into DIMS buckets with CRC-32, then
scaled to length 1: texts sharing word pieces ("invoice", "invoicing") come out close.

Usage: trigrams.py [--model NAME] [--dims N] [--log FILE]
  --model NAME  the model name it answers with (default: skillc-test-trigrams)
  --dims N      the buckets, the vector's length (default 64; 384 is a sentence model's)
  --log FILE    appends one line per call: how many texts it embedded
"""

import json
import math
import re
import sys
import zlib

DIMS = 64


def vector(text, dims=DIMS):
    v = [0.0] * dims
    for word in re.findall(r"\w+", text.lower()):
        padded = f"#{word}#"
        for i in range(len(padded) - 2):
            v[zlib.crc32(padded[i : i + 3].encode()) % dims] += 1.0
    norm = math.sqrt(sum(x * x for x in v))
    return [round(x / norm, 6) for x in v] if norm else v


def main(argv):
    model, log, dims = "skillc-test-trigrams", None, DIMS
    args = iter(argv)
    for a in args:
        if a == "--model":
            model = next(args)
        elif a == "--dims":
            dims = int(next(args))
        elif a == "--log":
            log = next(args)
    count = 0
    for line in sys.stdin:
        if not line.strip():
            continue
        text = json.loads(line)["text"]
        print(json.dumps({"model": model, "vector": vector(text, dims)}))
        count += 1
    if log:
        with open(log, "a") as f:
            f.write(f"{count}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
