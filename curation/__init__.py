"""Curation: find what is wrong in a built corpus (``audit``), hand it to expert reviewers in
Label Studio (``review``), and turn their decisions into errata the next build applies
(``rucola.corpus.errata`` applies them in the split stage)."""
