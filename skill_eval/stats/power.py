"""Sample size for a paired design over cases (docs/statistics.md, `skill-eval plan`)."""

from __future__ import annotations

import math

from skill_eval.stats.intervals import z_quantile

# With no stored deltas: a per-case delta that is +1, 0 or -1 with chances 1/4, 1/2, 1/4 (one
# run per arm, a coin-flip skill) has standard deviation sqrt(1/2).
PRIOR_SIGMA_D = math.sqrt(0.5)


def cases_needed(sigma_d: float, lift: float, power: float = 0.8, alpha: float = 0.05) -> int:
    """ceil(((z(1 - alpha/2) + z(power)) * sigma_d / lift)^2): cases to detect ``lift`` with a
    two-sided level-alpha test of the mean paired difference (normal approximation)."""
    if lift <= 0 or not 0 < power < 1 or not 0 < alpha < 1:
        raise ValueError("need lift > 0, 0 < power < 1 and 0 < alpha < 1")
    need = ((z_quantile(1 - alpha / 2) + z_quantile(power)) * sigma_d / lift) ** 2
    return max(1, math.ceil(need - 1e-9))
