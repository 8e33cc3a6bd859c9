"""The requests both runtime parity tests ask (Python in process, TypeScript through its CLI):
bundles, contexts, selections and consumers of the sample workspace."""

BUNDLES = [
    {}, {"client": "example.com"}, {"client": "hyperline.co"}, {"client": "hyperline.co", "tier": "fast"},
    {"client": "augment.org", "locale": "fr"}, {"client": "ibanfirst.com", "locale": "en-gb"},
    {"client": "northwind.io", "tier": "pro"}, {"locale": "fr"},
]
CONTEXTS = [
    {}, {"page_url": "/en-gb/compare", "turn": "2"}, {"page_url": "https://fr.ibanfirst.com/x"},
    {"page_url": "/en-gbexit", "company": "Acme", "content_gating_availability": "allowed"},
]
SELECTIONS = [
    ["competitors"], ["demo_offer", "content_gating", "context_gathering"], ["SK1", "SK3", "nope"],
    ["pricing", "product_knowledge"], ["pdf-press", "url-gen"], ["demo_offer", "b2b_request"],
    ["greeting", "code-review", "triage", "url-gen", "support"],
    # Over the cap, brought back as a dependency, then excluded: reported once.
    ["context_gathering", "demo_offer", "competitors", "pricing", "clean_ending"],
    ["context_gathering", "competitors", "pricing", "greeting", "clean_ending"],
]
# Messages routed (docs/routing.md): plain questions, French, several topics, nothing known,
# punctuation only, another script, a long one.
MESSAGES = [
    "How much does the pro plan cost?", "I can't log in to my account", "Quels sont vos tarifs ?",
    "compare you with Chargebee and book a demo", "turn this into a PDF press release",
    "bananas", "?!", "価格はいくらですか", "pricing " * 300,
]
# Consumers hide and show skills in catalogs and selections.
CONSUMERS = ["answer.generator.strong", "solver.react.decision"]


def query_vectors(folder):
    """Each message's vector from the test embedder (tests/embedder/trigrams.py), in a file of
    `folder` as `--query-vector` reads it: message -> (vector, file)."""
    import json
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "embedder"))
    import trigrams

    out = {}
    for n, message in enumerate(MESSAGES):
        vector = trigrams.vector(message)
        file = Path(folder) / f"query-{n}.json"
        file.write_text(json.dumps({"model": "skillc-test-trigrams", "vector": vector}))
        out[message] = (vector, str(file))
    return out


def flags(bundle, context):
    f = []
    for k in ("client", "locale", "tier"):
        if k in bundle:
            f += [f"--{k}", bundle[k]]
    for k, v in context.items():
        f += ["--context", f"{k}={v}"]
    return f
