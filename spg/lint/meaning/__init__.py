"""A learned reader of meaning for ``spg lint`` (issue 43): where the word rules stop.

The restatement reader (``spg lint --restatement read``) reads each dependent claim against the claims up its chain
and its earlier siblings and says whether it adds nothing new in other words, as language models write such claims:

* :mod:`spg.lint.meaning.vectors`: a static word embedding distilled from all-MiniLM-L6-v2 (one vector per
  WordPiece, the model2vec method), loaded with numpy alone;
* :mod:`spg.lint.meaning.features`: the few numbers a decision reads (shared content words, best cosine against a
  chain clause or a sibling, shared word runs, how alike the new words are to the chain's);
* :mod:`spg.lint.meaning.reader`: the trained boosted trees, their threshold, and the ``restatement`` findings.

What it was trained on and its figures: ``spg/pretrained/restatement-reader/README.md``;
``benchmarks/train_restatement_reader.py`` rebuilds it.
"""
