"""The conformance suite's fixtures (one folder per rule code and per inference) and its helpers:
markers.py (the `//~` expectations and the runner's verdicts), spec_map.py (the spec sentences and
the SPEC_MAP.md generator), mutants.py (broken variants of the analysis for the mutation check)."""
