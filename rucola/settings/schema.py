"""The whole params file: what every stage agrees on (``corpus``), then one section per
stage, in pipeline order."""

import warnings

from rucola.settings.annotate import Annotate
from rucola.settings.audit import Audit
from rucola.settings.corpus import (
    Baseline,
    Corpus,
    Extract,
    Filter,
    Measure,
    Release,
    Screen,
    Split,
    Summarize,
    Validate,
)
from rucola.settings.generate import Generate
from rucola.settings.types import Section, _key

with warnings.catch_warnings():
    # ``validate`` is a params section and also a deprecated BaseModel class method; the
    # field wins on instances, which is all this schema uses.
    warnings.filterwarnings("ignore", 'Field name "validate"', UserWarning)

    class Params(Section):
        """The whole ``params.yaml``: what every stage agrees on (``corpus``), then one
        section per stage, in pipeline order."""

        corpus: Corpus = _key(Corpus, "what every stage agrees on")
        extract: Extract = _key(Extract, "`rucola extract`")
        generate: Generate = _key(Generate, "`rucola generate`, `merge-candidates`")
        annotate: Annotate = _key(Annotate, "`rucola annotate ...`")
        measure: Measure = _key(Measure, "`rucola measure`")
        filter: Filter = _key(Filter, "`rucola filter`")
        screen: Screen = _key(Screen, "`rucola screen`")
        split: Split = _key(Split, "`rucola split`")
        validate: Validate = _key(Validate, "`rucola validate`")
        audit: Audit = _key(Audit, "`rucola audit ...`")
        baseline: Baseline = _key(Baseline, "`rucola baseline`")
        release: Release = _key(Release, "`rucola release ...`")
        summarize: Summarize = _key(Summarize, "`rucola summarize`")
