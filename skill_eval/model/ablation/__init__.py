"""Ablations: a skill with a part removed (parts), declared ablations checked against the skills
(declared), deletion-only patches (patch). Imported by the rest of model and above."""
