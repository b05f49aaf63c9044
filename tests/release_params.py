"""The params of a release built in a temporary project: the split parquet and its
validation report under ``data/``, the public, private and CSV folders under ``out/``."""

RELEASE_PARAMS = (
    "split:\n  out: data/split.parquet\n"  # what release reads (split.out, validate.report)
    "validate:\n  report: data/validation.json\n"
    "release:\n"
    "  out: out/rucola\n"
    "  private: out/private\n"
    "  compat: out/rucola_csv\n"
    "  report: out/release.json\n"
    "extract:\n  rejected: data/rejected.parquet\n"
)
