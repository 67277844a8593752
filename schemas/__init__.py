"""JSON Schemas shipped with skill-eval (installed as the package ``skill_eval.schemas``)."""
