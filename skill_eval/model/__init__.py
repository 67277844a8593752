"""The domain: frozen dataclasses and the rules that belong to them. The suite (``config``),
skills, cases and checks, eval sets and their dialect readers (``evalsets/``), ablations, run
results, builtin names, and the loaded project.

Readers here use ``skill_eval.intake`` to parse and validate what a user wrote and
``skill_eval.fs`` for hashes; every layer above works on the objects defined here.
"""
