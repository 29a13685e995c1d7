"""Claim generation: prompts, pointer-augmented and constrained decoding, resumable runs (docs/generation.md)."""
