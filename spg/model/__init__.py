"""The SPG model: structure tokens, Stage I batches, pointer head (Eq. 2/3), scope regulariser (Eq. 4), wrapper."""
