"""What changed between two builds of one analysis: history, change report, diff."""
