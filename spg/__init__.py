"""spg: structure-aware patent claim generation (SPG) and a claim-set evaluation suite."""

from spg.forest import Claim, Diagnostic, Forest, single_parent

__all__ = ["Claim", "Diagnostic", "Forest", "single_parent"]
__version__ = "0.1.0"
