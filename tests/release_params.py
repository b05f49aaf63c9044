"""The params of a release built in a temporary project: the split parquet and its
validation report under ``data/``, the public, private and CSV folders under ``out/``."""

RELEASE_PARAMS = (
    "release:\n"
    "  input: data/split.parquet\n"
    "  validation: data/validation.json\n"
    "  out: out/rucola\n"
    "  private: out/private\n"
    "  compat: out/rucola_csv\n"
    "  report: out/release.json\n"
    "extract:\n  rejected: data/rejected.parquet\n"
)
