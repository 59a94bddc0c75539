"""The static results site (``results/site/``): an index of every analysis and one
page per analysis, built only from the files the workflow already wrote (tables,
checks, figures, provenance); nothing here computes a statistic."""
