"""``env_preset: plugin-eval``: the variables ``claude plugin eval`` passes to its agent (FORMAT.md
§7.3; its child's environment read with the real CLI, docs/dialects.md), taken by name from the
environment skill-eval runs in: the provider selection and authentication variables, most
``ANTHROPIC_*`` and ``CLAUDE_CODE_*``, ``EVAL_*``, proxy and certificate settings.

Values are never part of a key. Only the names that mark a secret (``*_API_KEY``, ``*_TOKEN``,
...) are redacted as the suite's secrets; an ``ANTHROPIC_BASE_URL`` or ``ANTHROPIC_MODEL`` is not.
"""

from __future__ import annotations

from collections.abc import Mapping

_PREFIXES = ("ANTHROPIC_", "CLAUDE_CODE_", "EVAL_",
             # Amazon Bedrock, Google Vertex AI, Microsoft Foundry: provider selection and credentials.
             "AWS_", "VERTEX_REGION_", "ANTHROPIC_VERTEX_", "ANTHROPIC_FOUNDRY_")
_NAMES = ("CLOUD_ML_REGION", "GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT",
          "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
          "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR", "LC_ALL", "LC_CTYPE")


def preset_names(preset: str | None, environ: Mapping[str, str]) -> tuple[str, ...]:
    """The names of ``environ`` that ``preset`` passes through, sorted."""
    if preset != "plugin-eval":
        return ()
    return tuple(sorted(n for n in environ if n.startswith(_PREFIXES) or n in _NAMES))
