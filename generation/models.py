"""Which model a generator names, where its files are, and how it handles languages.

A generator's ``model`` is a local folder, a Hugging Face id already in the local cache, or
one of EasyNMT's aliases (``opus-mt``, ``m2m_100_418M``, ``m2m_100_1.2B``, ``mbart50_m2m``,
...), so configurations written for EasyNMT keep working. Nothing is downloaded at run
time: a model that is neither a folder nor cached is an error naming the local path it
looked for (an alias: the Hugging Face id to fetch).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from rucola.errors import RucolaError

ALIASES: dict[str, str] = {
    "opus-mt": "Helsinki-NLP/opus-mt-{src}-{tgt}",
    "m2m_100_418M": "facebook/m2m100_418M",
    "m2m_100_1.2B": "facebook/m2m100_1.2B",
    "mbart50_m2m": "facebook/mbart-large-50-many-to-many-mmt",
    "mbart50_m2en": "facebook/mbart-large-50-many-to-one-mmt",
    "mbart50_en2m": "facebook/mbart-large-50-one-to-many-mmt",
}

# mBART-50 names languages by locale.
MBART_CODES = {
    "en": "en_XX",
    "ru": "ru_RU",
    "de": "de_DE",
    "fr": "fr_XX",
    "es": "es_XX",
    "uk": "uk_UA",
    "zh": "zh_CN",
}

SEQ2SEQ_FAMILIES = {"marian", "m2m_100", "mbart", "t5", "mt5"}


@dataclass(frozen=True)
class ResolvedModel:
    """A model on local disk: its folder, the name candidates record (the params value as
    written: see :func:`resolve_model`), and its family."""

    path: Path
    model_id: str
    family: str  # marian | m2m_100 | mbart | t5 | mt5 | causal

    @property
    def is_causal(self) -> bool:
        return self.family == "causal"


def _looks_like_path(spec: str) -> bool:
    """A Hugging Face id is ``org/name``; anything else, or an existing parent, is a path."""
    if spec.startswith((".", "/", "~")) or spec.count("/") != 1:
        return True
    return Path(spec).parent.is_dir()


def _family(path: Path, generator: str) -> str:
    config_path = path / "config.json"
    if not config_path.is_file():
        raise RucolaError(f"generator '{generator}': model folder has no config.json", path)
    config = json.loads(config_path.read_text(encoding="utf-8"))
    model_type = config.get("model_type", "")
    if model_type in SEQ2SEQ_FAMILIES:
        return model_type
    if config.get("is_encoder_decoder"):
        raise RucolaError(
            f"generator '{generator}': unsupported encoder-decoder model type '{model_type}'",
            config_path,
            hint=f"supported: {', '.join(sorted(SEQ2SEQ_FAMILIES))} or a causal LM",
        )
    return "causal"


def resolve_model(spec: str, generator: str, src_lang: str, tgt_lang: str) -> ResolvedModel:
    """Find ``spec`` on local disk; errors name the generator and what was looked for.

    The candidates record ``spec`` as the params give it (a relative path, an alias, an
    id), never the folder it resolved to: an absolute path would put this machine's layout
    into the data, and the same params would record different names on another machine.
    A spec that reads as a path (``models/opus-mt``, which is also an ``org/name`` id) and
    is found nowhere is a missing local folder, named as such: models come from local
    paths, so only an alias (a Hugging Face name for sure) is told how to download."""
    local = Path(spec).expanduser()
    if local.is_dir():
        return ResolvedModel(local, spec, _family(local, generator))
    if spec in ALIASES:
        model_id = ALIASES[spec].format(src=src_lang, tgt=tgt_lang)
    elif _looks_like_path(spec):
        if "/" not in spec and "\\" not in spec:
            raise RucolaError(
                f"generator '{generator}': unknown model alias '{spec}'",
                hint=f"aliases: {', '.join(ALIASES)}; or give a local folder or org/name id",
            )
        raise RucolaError(f"generator '{generator}': model folder not found", local)
    else:
        model_id = spec
    try:
        from huggingface_hub import snapshot_download
        from huggingface_hub.errors import LocalEntryNotFoundError

        folder = Path(snapshot_download(model_id, local_files_only=True))
    except (LocalEntryNotFoundError, ValueError, OSError) as exc:
        if spec in ALIASES:
            raise RucolaError(
                f"generator '{generator}': alias '{spec}' is model '{model_id}', which is not "
                "in the local Hugging Face cache",
                hint=f"download it once with `hf download {model_id}`, or set model to the "
                "local folder that holds it",
            ) from exc
        raise RucolaError(
            f"generator '{generator}': model folder not found (nor is '{spec}' a Hugging "
            "Face id in the local cache)",
            local,
            hint="models are read from local paths: put the model's folder there, or set "
            "model to the folder that holds it",
        ) from exc
    return ResolvedModel(folder, spec, _family(folder, generator))


def target_language_token(model: ResolvedModel, tgt_lang: str) -> str | None:
    """The token that makes a multilingual decoder write ``tgt_lang`` (None: not needed)."""
    if model.family == "m2m_100":
        return f"__{tgt_lang}__"
    if model.family == "mbart":
        return MBART_CODES.get(tgt_lang, tgt_lang)
    return None


def source_language_code(model: ResolvedModel, src_lang: str) -> str | None:
    """The tokenizer's ``src_lang`` for multilingual encoders."""
    if model.family == "m2m_100":
        return src_lang
    if model.family == "mbart":
        return MBART_CODES.get(src_lang, src_lang)
    return None
