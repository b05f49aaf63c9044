"""Random-weight models built offline, for tests and benchmarks.

A Marian (OPUS-MT), M2M-100, mT5 or GPT-2 with a sentencepiece (or BPE) vocabulary trained
on a few lines, saved with ``save_pretrained`` and loaded back from the folder like a
downloaded model. Their output is noise, but they exercise every code path of the real
families (tokenizers, language codes, conversion to CTranslate2) with no network.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

LINES = [
    "Мама мыла раму.",
    "Старый мост через реку построили давно.",
    "Дети играли во дворе до вечера.",
    "Я люблю читать интересные книги.",
    "The old bridge was built long ago.",
    "The children played in the yard until evening.",
    "She reads a book every day.",
    "We went home in the evening.",
]


def _train_sentencepiece(path: Path, **options: object) -> None:
    import sentencepiece as spm

    model = io.BytesIO()
    settings = {
        "sentence_iterator": iter(LINES * 10),
        "model_writer": model,
        "vocab_size": 200,
        "model_type": "unigram",
        "character_coverage": 1.0,
        "hard_vocab_limit": False,
        "minloglevel": 2,
        **options,
    }
    spm.SentencePieceTrainer.train(**settings)
    path.write_bytes(model.getvalue())


def _pieces(path: Path) -> list[str]:
    import sentencepiece as spm

    processor = spm.SentencePieceProcessor(model_file=str(path))
    return [processor.id_to_piece(i) for i in range(processor.get_piece_size())]


def _encoder_decoder(
    d_model: int, layers: int = 1, heads: int = 2, ffn: int | None = None
) -> dict[str, int]:
    """The size settings Marian, M2M-100 and mBART configs share."""
    return {
        "d_model": d_model,
        "encoder_layers": layers,
        "decoder_layers": layers,
        "encoder_attention_heads": heads,
        "decoder_attention_heads": heads,
        "encoder_ffn_dim": ffn or 2 * d_model,
        "decoder_ffn_dim": ffn or 2 * d_model,
        "max_position_embeddings": 512,
    }


def _save_untied(model: object, tokenizer: object, folder: Path) -> Path:
    """Save with an output layer of its own (random), not tied to the input embeddings.

    Tied, a random decoder keeps repeating the token it was started with (mT5's pad,
    mBART's language code), so every output would decode to nothing.
    """
    import torch

    model.config.tie_word_embeddings = False  # type: ignore[attr-defined]
    head = model.lm_head  # type: ignore[attr-defined]
    head.weight = torch.nn.Parameter(torch.randn_like(head.weight))
    model.save_pretrained(folder)  # type: ignore[attr-defined]
    tokenizer.save_pretrained(folder)  # type: ignore[attr-defined]
    return folder


def build_marian(
    folder: str | Path,
    d_model: int = 32,
    layers: int = 1,
    heads: int = 2,
    ffn: int = 64,
    vocab_size: int | None = None,
    seed: int = 0,
) -> Path:
    """An OPUS-MT-style Marian; ``vocab_size`` pads the vocabulary (62,518 for OPUS-MT)."""
    import torch
    from transformers import MarianConfig, MarianMTModel, MarianTokenizer

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    _train_sentencepiece(folder / "source.spm")
    _train_sentencepiece(folder / "target.spm")
    vocab = {"</s>": 0, "<unk>": 1}
    for piece in _pieces(folder / "source.spm"):
        vocab.setdefault(piece, len(vocab))
    if vocab_size is not None:
        while len(vocab) < vocab_size - 1:
            vocab[f"▁fill{len(vocab)}"] = len(vocab)
    vocab["<pad>"] = len(vocab)  # last, as in OPUS-MT
    (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    tokenizer = MarianTokenizer(
        source_spm=str(folder / "source.spm"),
        target_spm=str(folder / "target.spm"),
        vocab=str(folder / "vocab.json"),
        source_lang="en",
        target_lang="ru",
    )
    pad = vocab["<pad>"]
    config = MarianConfig(
        vocab_size=len(vocab),
        **_encoder_decoder(d_model, layers, heads, ffn),
        pad_token_id=pad,
        eos_token_id=0,
        decoder_start_token_id=pad,
        forced_eos_token_id=0,
        share_encoder_decoder_embeddings=True,
    )
    torch.manual_seed(seed)
    MarianMTModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def build_m2m100(folder: str | Path, d_model: int = 32, seed: int = 0) -> Path:
    """An M2M-100 with the real tokenizer's 100 language codes."""
    import torch
    from transformers import M2M100Config, M2M100ForConditionalGeneration, M2M100Tokenizer

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    _train_sentencepiece(folder / "sentencepiece.bpe.model")
    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
    for piece in _pieces(folder / "sentencepiece.bpe.model"):
        vocab.setdefault(piece, len(vocab))
    (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    tokenizer = M2M100Tokenizer(
        vocab_file=str(folder / "vocab.json"),
        spm_file=str(folder / "sentencepiece.bpe.model"),
        src_lang="en",
        tgt_lang="ru",
    )
    size = len(tokenizer.encoder) + len(tokenizer.lang_token_to_id) + tokenizer.num_madeup_words
    config = M2M100Config(
        vocab_size=size,
        **_encoder_decoder(d_model),
    )
    torch.manual_seed(seed)
    M2M100ForConditionalGeneration(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def build_mbart50(folder: str | Path, d_model: int = 32, seed: int = 0) -> Path:
    """An mBART-50 many-to-many model with its 52 locale codes (en_XX, ru_RU, ...)."""
    import torch
    from transformers import AutoTokenizer, MBartConfig, MBartForConditionalGeneration

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    _train_sentencepiece(folder / "sentencepiece.bpe.model")
    (folder / "tokenizer_config.json").write_text(
        json.dumps(
            {
                "tokenizer_class": "MBart50Tokenizer",
                "src_lang": "en_XX",
                "tgt_lang": "ru_RU",
                "bos_token": "<s>",
                "eos_token": "</s>",
                "unk_token": "<unk>",
                "pad_token": "<pad>",
            }
        ),
        encoding="utf-8",
    )
    (folder / "config.json").write_text(json.dumps({"model_type": "mbart"}), encoding="utf-8")
    tokenizer = AutoTokenizer.from_pretrained(folder)
    config = MBartConfig(
        vocab_size=len(tokenizer),
        **_encoder_decoder(d_model),
        tokenizer_class="MBart50Tokenizer",  # as in the real checkpoints' config
    )
    torch.manual_seed(seed)
    return _save_untied(MBartForConditionalGeneration(config), tokenizer, folder)


def build_mt5(folder: str | Path, d_model: int = 32, seed: int = 0) -> Path:
    """An mT5 text-to-text model (the ruT5 / mT5 paraphrasers' family)."""
    import torch
    from transformers import AutoTokenizer, MT5Config, MT5ForConditionalGeneration

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    _train_sentencepiece(folder / "spiece.model", pad_id=0, eos_id=1, unk_id=2, bos_id=-1)
    (folder / "tokenizer_config.json").write_text(
        json.dumps({"tokenizer_class": "T5Tokenizer", "extra_ids": 0}), encoding="utf-8"
    )
    (folder / "config.json").write_text(json.dumps({"model_type": "mt5"}), encoding="utf-8")
    tokenizer = AutoTokenizer.from_pretrained(folder, extra_ids=0)
    config = MT5Config(
        vocab_size=len(tokenizer),
        d_model=d_model,
        d_kv=8,
        d_ff=2 * d_model,
        num_layers=1,
        num_decoder_layers=1,
        num_heads=2,
        decoder_start_token_id=0,
        pad_token_id=0,
        eos_token_id=1,
    )
    torch.manual_seed(seed)
    return _save_untied(MT5ForConditionalGeneration(config), tokenizer, folder)


def build_gpt2(folder: str | Path, d_model: int = 32, seed: int = 0) -> Path:
    """A GPT-2 causal LM (ruGPT-2's family) with a byte-level BPE trained on a few lines."""
    import torch
    from tokenizers import ByteLevelBPETokenizer
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(LINES * 10, vocab_size=300, special_tokens=["<|endoftext|>"])
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe._tokenizer,
        eos_token="<|endoftext|>",
        bos_token="<|endoftext|>",
        unk_token="<|endoftext|>",
    )
    config = GPT2Config(
        vocab_size=len(tokenizer),
        n_embd=d_model,
        n_layer=1,
        n_head=2,
        n_positions=256,
        bos_token_id=tokenizer.eos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    torch.manual_seed(seed)
    GPT2LMHeadModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
