"""Published reference values shared by several test modules."""

# Benjamini & Hochberg (1995), JRSS B 57(1), §4.1: the 15 p-values of the
# multiple-endpoint example of Neuhaus et al. (1992). At q = 0.05 the step-up
# procedure rejects the four smallest (the largest i with p_(i) <= i q / m is i = 4).
BH_1995_P = [
    0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344,
    0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.0000,
]  # fmt: skip
