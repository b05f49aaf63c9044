"""Generation benchmark (issue 5): a random-weight model of OPUS-MT's size, three ways.

Marian with d_model 512, 6+6 layers, 8 heads, FFN 2048 and a 62,518-token vocabulary
(76.7M parameters, OPUS-MT en-ru's shape) translates N sentences of 10-40 tokens with the
output length fixed (min = max new tokens) and beam 4:

- naive: the way EasyNMT does it: fp32, batches of 64 in input order, padded to the
  longest of each batch;
- transformers: our backend (length-sorted token-budget batches, bf16 on the GPU);
- ctranslate2: our backend (int8 on the CPU, fp16 on the GPU; the conversion is cached
  and not timed).

Each way runs in its own process, so peak memory (RSS, and GPU memory where there is a
GPU) is its own. Figures only, never asserted.

    python benchmarks/generation.py [--sentences N] [--new-tokens T] [--ways ...] [--tiny]

``--tiny``: the test models' Marian (d_model 32, one layer) instead, so the test suite's
check runs the three ways' code in seconds; its figures measure nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # fixtures: tiny models built by tests and benchmarks

WORDS = [
    "the",
    "old",
    "bridge",
    "was",
    "built",
    "long",
    "ago",
    "children",
    "played",
    "in",
    "yard",
    "until",
    "evening",
    "she",
    "reads",
    "a",
    "book",
    "every",
    "day",
    "we",
    "went",
    "home",
    "river",
    "freezes",
    "at",
    "beginning",
    "of",
    "december",
    "cat",
    "sleeps",
    "on",
    "warm",
    "windowsill",
    "doctor",
    "advised",
    "patient",
    "to",
    "walk",
    "more",
    "father",
    "gave",
    "his",
    "son",
    "new",
    "bicycle",
]


def make_inputs(tokenizer, n: int, seed: int = 0) -> list[str]:
    """Sentences whose tokenised length is spread over 10-40 tokens."""
    rng = random.Random(seed)
    texts: list[str] = []
    while len(texts) < n:
        target = rng.randint(10, 40)
        words: list[str] = []
        while True:
            words.append(rng.choice(WORDS))
            text = " ".join(words).capitalize() + "."
            length = len(tokenizer(text)["input_ids"])
            if length >= target:
                break
        if 10 <= length <= 40:
            texts.append(text)
    return texts


def build_model(folder: Path, tiny: bool = False) -> Path:
    if (folder / "config.json").is_file():
        return folder
    from fixtures.tiny_models import build_marian

    if tiny:
        return build_marian(folder)
    return build_marian(folder, d_model=512, layers=6, heads=8, ffn=2048, vocab_size=62_518)


class GpuPeak:
    """Samples GPU memory in use (all processes' view through NVML) every 20 ms."""

    def __init__(self) -> None:
        self.peak = 0
        self._stop = threading.Event()
        try:
            import pynvml

            pynvml.nvmlInit()
            self._handle = pynvml.nvmlDeviceGetHandleByIndex(0)
            self._nvml = pynvml
            self.base = pynvml.nvmlDeviceGetMemoryInfo(self._handle).used
        except Exception:  # no GPU, or no NVML: nothing to sample
            self._nvml = None
            self.base = 0

    def __enter__(self) -> GpuPeak:
        if self._nvml is not None:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            used = self._nvml.nvmlDeviceGetMemoryInfo(self._handle).used
            self.peak = max(self.peak, used - self.base)
            time.sleep(0.02)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()


def run_one(way: str, model_dir: Path, n: int, new_tokens: int, cache: Path) -> dict:
    import torch
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    from rucola.generation.models import resolve_model
    from rucola.settings import Decoding, ModelGenerator

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    texts = make_inputs(tokenizer, n)
    cuda = torch.cuda.is_available()
    device = "cuda" if cuda else "cpu"
    decoding = Decoding(
        strategy="beam", num_beams=4, max_new_tokens=new_tokens, min_new_tokens=new_tokens
    )
    # the transformers or ctranslate2 way: a generator as params would hold it
    settings = ModelGenerator(
        method="translation",
        backend="ctranslate2" if way == "ctranslate2" else "transformers",
        decoding=decoding,
        device=device,
        dtype="auto",
        max_batch_tokens=96_000 if cuda else 6_000,
    )
    model = resolve_model(str(model_dir), "bench", "en", "ru")
    with GpuPeak() as gpu:
        if way == "naive":
            net = AutoModelForSeq2SeqLM.from_pretrained(model_dir).to(device).eval()

            def translate(batch_texts: list[str]) -> list[str]:
                out = []
                for i in range(0, len(batch_texts), 64):
                    batch = tokenizer(batch_texts[i : i + 64], return_tensors="pt", padding=True)
                    with torch.no_grad():
                        ids = net.generate(
                            **batch.to(device),
                            num_beams=4,
                            min_new_tokens=new_tokens,
                            max_new_tokens=new_tokens,
                            forced_eos_token_id=None,
                        )
                    out += tokenizer.batch_decode(ids, skip_special_tokens=True)
                return out
        else:
            from rucola.generation.backends import load_backend

            backend = load_backend(settings, model, "en", "ru", str(cache), "bench")

            def translate(batch_texts: list[str]) -> list[str]:
                return [o[0] for o in backend.generate(batch_texts, 0)]

        translate(texts[:64])  # warm-up: CUDA kernels, allocator, thread pools
        if cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        started = time.perf_counter()
        outputs = translate(texts)
        if cuda:
            torch.cuda.synchronize()
        seconds = time.perf_counter() - started
    assert len(outputs) == n
    return {
        "way": way,
        "device": torch.cuda.get_device_name(0) if cuda else f"CPU x{os.cpu_count()}",
        "sentences": n,
        "seconds": seconds,
        "sentences_per_s": n / seconds,
        "tokens_per_s": n * new_tokens / seconds,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "peak_gpu_mib": gpu.peak / 2**20,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=None, help="2,000 on a GPU, 400 on a CPU")
    parser.add_argument("--new-tokens", type=int, default=24)
    parser.add_argument("--ways", nargs="+", default=["naive", "transformers", "ctranslate2"])
    parser.add_argument("--model-dir", type=Path, default=None)
    parser.add_argument("--tiny", action="store_true", help="a tiny Marian: the code only")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args()
    work = Path(os.environ.get("RUCOLA_BENCH_DIR", Path(tempfile.gettempdir()) / "rucola-bench"))
    model_dir = args.model_dir or work / ("tiny-marian" if args.tiny else "opus-mt-size-marian")
    if args.one:
        print(json.dumps(run_one(args.one, model_dir, args.sentences, args.new_tokens, work)))
        return
    import torch

    n = args.sentences or (2000 if torch.cuda.is_available() else 400)
    build_model(model_dir, args.tiny)
    env = dict(os.environ)
    if not torch.cuda.is_available():
        # glibc otherwise returns the big logits buffers to the OS after every decoding
        # step and maps them again on the next, which the CPU timings would measure.
        env.update(
            MALLOC_MMAP_MAX_="0",
            MALLOC_TRIM_THRESHOLD_="4294967296",
            MALLOC_TOP_PAD_="536870912",
        )
    results = []
    for way in args.ways:
        command = [sys.executable, __file__, "--one", way, "--sentences", str(n)]
        command += ["--new-tokens", str(args.new_tokens), "--model-dir", str(model_dir)]
        run_env = env if way != "naive" else dict(os.environ)
        done = subprocess.run(command, env=run_env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            print(f"{way}: failed\n{done.stderr[-2000:]}", file=sys.stderr)
            continue
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    base = next((r for r in results if r["way"] == "naive"), None)
    size = "the tests' tiny" if args.tiny else "OPUS-MT"
    print(
        f"generation: Marian of {size} size, {n} sentences of 10-40 tokens, beam 4, "
        f"{args.new_tokens} output tokens, {results[0]['device'] if results else '?'}"
    )
    print(f"{'way':<14}{'sent/s':>10}{'tok/s':>11}{'x naive':>9}{'RSS MiB':>10}{'GPU MiB':>10}")
    for r in results:
        ratio = r["sentences_per_s"] / base["sentences_per_s"] if base else float("nan")
        print(
            f"{r['way']:<14}{r['sentences_per_s']:>10.1f}{r['tokens_per_s']:>11.0f}"
            f"{ratio:>9.2f}{r['peak_rss_mib']:>10.0f}{r['peak_gpu_mib']:>10.0f}"
        )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
