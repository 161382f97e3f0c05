"""The conformance suite's fixtures (one folder per rule code and per inference), its tests
(test_conformance.py) and its helpers: fixtures.py (where the fixtures are and how one is judged,
with the suite's one `//~` grammar, tests/support/markers.py), spec_map.py (the spec sentences and
the SPEC_MAP.md generator), mutants.py (broken variants of the analysis for the mutation check)."""
