"""The claim checker behind ``spg lint``: claim-set findings for patent drafters (structure, antecedent basis,
statutory form), suppressions and reports. Depends on forest, parse and data only; metrics may read it."""
