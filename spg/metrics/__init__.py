"""Claim-set metrics: PatentScore_rule, antecedent basis, structure (DEA, valid rate), text overlap."""
