"""Producing out-of-domain candidates: source corpora in, candidate sentences out.

Models run on GPU (or CPU) through transformers or CTranslate2; rule-based perturbations
run on the CPU with no weights. Every generator writes one candidates file.
"""
