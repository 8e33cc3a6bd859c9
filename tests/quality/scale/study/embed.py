"""Embeds the catalog's summaries (as the compiler's embed.rs writes them) and the set's messages
with all-MiniLM-L6-v2 in numpy, into the study cache; prints the time per text."""
import time

import common

if __name__ == "__main__":
    cat = common.catalog()
    msgs, _ = common.labelled()
    t = time.time()
    s = common.vectors("summaries", [common.summary(n, d, w) for n, d, w in cat])
    t1 = time.time()
    m = common.vectors("messages", [m for _, m in msgs])
    t2 = time.time()
    print(f"{len(s)} summaries in {t1 - t:.1f} s, {len(m)} messages in {t2 - t1:.1f} s "
          f"({(t2 - t1) / len(m) * 1000:.1f} ms a message, batched, numpy, 2 busy cores)")
