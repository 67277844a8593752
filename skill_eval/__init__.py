"""skill-eval: measure what an Agent Skill changes in an agent's behaviour."""

__version__ = "0.1.0"
