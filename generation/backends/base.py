"""What every backend shares: the decoding checks and the interface."""

from __future__ import annotations

from typing import Any, ClassVar, Protocol

from rucola.errors import RucolaError
from rucola.params import with_overrides
from rucola.settings import Decoding


def checked_decoding(decoding: Decoding, generator: str) -> Decoding:
    """``decoding`` as a backend runs it, after the checks between its keys that the
    schema's per-key rules cannot make: one beam unless the strategy is beam search, no
    more sequences than beams, one sequence from greedy decoding, a length range that is
    not empty. Errors name the generator."""
    if decoding.strategy != "beam":
        decoding = with_overrides(decoding, num_beams=1)
    where = f"generator '{generator}'"
    if decoding.strategy == "beam" and decoding.num_return_sequences > decoding.num_beams:
        raise RucolaError(
            f"{where}: num_return_sequences ({decoding.num_return_sequences}) "
            f"cannot exceed num_beams ({decoding.num_beams}) with beam search"
        )
    if decoding.strategy == "greedy" and decoding.num_return_sequences != 1:
        raise RucolaError(f"{where}: greedy decoding returns one sequence")
    if decoding.min_new_tokens > decoding.max_new_tokens:
        raise RucolaError(f"{where}: min_new_tokens > max_new_tokens")
    return decoding


def width(decoding: Decoding) -> int:
    """Sequences in flight per input, which is what memory scales with."""
    return max(decoding.num_beams, decoding.num_return_sequences)


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


class BackendEntry:
    """One inference library (``@BACKENDS.register``): its ``name`` (a generator's
    ``backend``) and ``load``, which imports the library and builds the backend."""

    name: ClassVar[str]

    @classmethod
    def load(
        cls,
        settings: Any,
        model: Any,
        src_lang: str,
        tgt_lang: str,
        cache_dir: str,
        generator: str,
    ) -> Backend:
        raise NotImplementedError
