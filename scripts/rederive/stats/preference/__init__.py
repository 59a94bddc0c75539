"""Statistics of pairwise judged games (the ``preference`` kind).

One module per concept:

- :mod:`.games` — the canonical games frame, its checks, and the per-unit pair
  counts every other module works from;
- :mod:`.bradley_terry` — Bradley–Terry by maximum likelihood on pair counts, ties
  as half a win, Rao–Kupper or Davidson;
- :mod:`.elo` — the Elo scale (scale, base, anchor) and win probabilities;
- :mod:`.bootstrap` — intervals by a bootstrap over items (prompts), never games;
- :mod:`.ranking` — paired comparisons of scores, BH q-values, rank ranges;
- :mod:`.winrate` — AlpacaEval's win rate against a baseline and its SE;
- :mod:`.length_control` — AlpacaEval 2's length-controlled win rate (its GLM);
- :mod:`.position_bias`, :mod:`.agreement`, :mod:`.self_preference` — judge checks;
- :mod:`.tables` — the Bradley–Terry tables of an analysis in one call;
- :mod:`.simulate` — synthetic arenas for tests and benchmarks.
"""
