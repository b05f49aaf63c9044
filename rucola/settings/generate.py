"""The sections of candidate generation: ``generate`` with its sources, generators,
decoding, Ray pool and ``merge``.
"""

from typing import Annotated, Literal

from pydantic import WrapValidator

from rucola.registry import GENERATION_METHODS, SettingsByName
from rucola.settings.types import (
    Backend,
    Device,
    Dtype,
    Encoding,
    Fraction,
    GenerationMethod,
    Input,
    Output,
    Positive,
    Section,
    Seed,
    SourceFormat,
    Strategy,
    Text,
    _count,
    _key,
    _number,
)

# --- generate ------------------------------------------------------------------------


class Ray(Section):
    address: str | None = _key(None, "null: start a local Ray; `auto` or `ray://host:10001`")
    actors: _count(1024) = _key(1, "generation actors")
    gpus_per_actor: _number(ge=0, le=64) = _key(0, "GPUs per actor (0: CPU)")
    batch_size: _count(100_000) = _key(256, "inputs per actor call")


class Merge(Section):
    out: Output = _key(
        "data/interim/candidates.parquet",
        "all generators' candidates (annotate and measure read them)",
    )
    report: Output = _key("reports/candidates.json", "counts per generator")
    rejected: Output = _key(
        "data/interim/rejected/merge_candidates.parquet", "candidates set aside, why"
    )


class GenerationSource(Section):
    path: Input = _key(..., "the source corpus (a pair: either side)")
    format: SourceFormat | None = _key(None, "null: by extension")
    n: _count(100_000_000) | None = _key(None, "seeded sample size; null: every sentence")
    lang: Text = _key("ru", "the language of a `text` source")
    columns: dict[str, Text] = _key(
        lambda: {"en": "en", "ru": "ru"}, "language → column of a parallel TSV"
    )
    split_sentences: bool = _key(False, "`text`: a line is a document, split with razdel")
    encoding: Encoding = _key("utf-8", "of the source files")


class Decoding(Section):
    strategy: Strategy = _key("beam", "how outputs are chosen")
    num_beams: _count(64) = _key(4, "beams (beam search)")
    top_p: Fraction = _key(0.9, "nucleus (sampling)")
    top_k: _count(1_000_000, least=0) = _key(0, "top-k (sampling); 0: off")
    temperature: Positive = _key(1.0, "sampling temperature")
    num_return_sequences: _count(64) = _key(1, "outputs per input")
    max_new_tokens: _count(4096) = _key(64, "longest output")
    min_new_tokens: _count(4096, least=0) = _key(0, "shortest output")


class GeneratorBase(Section):
    """What every generator has, whatever its method. Each method (a registered class of
    ``rucola.generation.methods``) owns the model of its own keys, a subclass of this one
    (or of :class:`ModelGenerator`); ``generate.generators`` holds whichever model its
    ``method`` names (:data:`Generator`)."""

    method: GenerationMethod = _key(..., "what the generator does")
    enabled: bool = _key(True, "false: defined, not run")
    sources: list[str] = _key(list, "ids from `generate.sources`")
    seed: Seed | None = _key(None, "null: `generate.seed`")


class ModelGenerator(GeneratorBase):
    """The keys of a generator that runs a model (translation, back-translation,
    paraphrase): which model, which languages, which backend, how it decodes."""

    model: str | None = _key(None, "a local folder, a cached Hugging Face id or an alias")
    src_lang: Text = _key("en", "language read")
    tgt_lang: Text = _key("ru", "language written")
    backend: Backend = _key("transformers", "inference library")
    decoding: Decoding = _key(Decoding, "decoding settings")
    device: Device = _key("auto", "where the model runs")
    dtype: Dtype = _key("auto", "weights' precision (`int8*`: CTranslate2 only)")
    max_batch_tokens: _count(1_048_576) = _key(8192, "tokens per batch (inputs x width)")


# A generator's settings: the model of the method it names, chosen by the registry of
# methods (rucola.registry.GENERATION_METHODS), so a new method brings its own keys.
Generator = Annotated[GeneratorBase, WrapValidator(SettingsByName(GENERATION_METHODS, "method"))]


class Generate(Section):
    seed: Seed = _key(42, "sampling of sources and outputs")
    engine: Literal["local", "ray"] = _key("local", "one process, or a Ray actor pool")
    ray: Ray = _key(Ray, "the Ray actor pool")
    shard_size: _count(1_000_000) = _key(2000, "inputs per resumable shard")
    out_dir: Output = _key("data/interim/candidates", "`<generator>.parquet` per generator")
    report_dir: Output = _key("reports/generate", "`<generator>.json` per generator")
    rejected_dir: Output = _key(
        "data/interim/rejected/generate", "`<generator>.parquet`: source sentences set aside"
    )
    work_dir: Output = _key(".cache/rucola/generation", "unfinished shards (resume)")
    cache_dir: Output = _key(".cache/rucola", "converted CTranslate2 models")
    merge: Merge = _key(Merge, "`rucola merge-candidates`")
    sources: dict[str, GenerationSource] = _key(dict, "id → source corpus")
    generators: dict[str, Generator] = _key(dict, "name → generator (one DVC stage each)")
