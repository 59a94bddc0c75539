"""Study `cot_loadbearing`: does a perturbed CoT step carry the answer? (paper 003)."""
