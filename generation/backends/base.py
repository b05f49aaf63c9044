"""What every backend shares: the decoding settings and the interface."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from rucola.errors import RucolaError


@dataclass(frozen=True)
class Decoding:
    """Beam search, greedy or nucleus sampling, with the output length bounds."""

    strategy: str
    num_beams: int
    top_p: float
    top_k: int
    temperature: float
    num_return_sequences: int
    max_new_tokens: int
    min_new_tokens: int

    @classmethod
    def from_settings(cls, decoding: dict[str, Any], generator: str) -> Decoding:
        d = cls(
            strategy=str(decoding["strategy"]),
            num_beams=int(decoding["num_beams"]) if decoding["strategy"] == "beam" else 1,
            top_p=float(decoding["top_p"]),
            top_k=int(decoding["top_k"]),
            temperature=float(decoding["temperature"]),
            num_return_sequences=int(decoding["num_return_sequences"]),
            max_new_tokens=int(decoding["max_new_tokens"]),
            min_new_tokens=int(decoding["min_new_tokens"]),
        )
        if d.strategy == "beam" and d.num_return_sequences > d.num_beams:
            raise RucolaError(
                f"generator '{generator}': num_return_sequences ({d.num_return_sequences}) "
                f"cannot exceed num_beams ({d.num_beams}) with beam search"
            )
        if d.strategy == "greedy" and d.num_return_sequences != 1:
            raise RucolaError(f"generator '{generator}': greedy decoding returns one sequence")
        if d.min_new_tokens > d.max_new_tokens:
            raise RucolaError(f"generator '{generator}': min_new_tokens > max_new_tokens")
        return d

    @property
    def width(self) -> int:
        """Sequences in flight per input, which is what memory scales with."""
        return max(self.num_beams, self.num_return_sequences)


class Backend(Protocol):
    """Texts in, ``num_return_sequences`` texts out per input, in input order."""

    model_id: str
    stats: dict[str, int]

    def generate(self, texts: list[str], seed: int) -> list[list[str]]: ...


def resolve_device(device: str) -> str:
    if device != "auto":
        return device
    try:
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    except ImportError:
        return "cpu"


def load_tokenizer(model: Any, src_lang: str, tgt_lang: str) -> tuple[Any, str | None]:
    """The model's tokenizer set to read ``src_lang``, and the target-language token."""
    from transformers import AutoTokenizer

    from rucola.generation.models import source_language_code, target_language_token

    tokenizer = AutoTokenizer.from_pretrained(model.path)
    src_code = source_language_code(model, src_lang)
    if src_code is not None:
        tokenizer.src_lang = src_code
    return tokenizer, target_language_token(model, tgt_lang)
