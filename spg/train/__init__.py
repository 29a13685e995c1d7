"""Training: Stage I (structure-aware fine-tuning, :mod:`spg.train.stage1`) and Stage II (LPO, :mod:`spg.train.stage2`)."""
