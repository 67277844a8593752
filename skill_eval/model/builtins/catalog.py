"""The builtin adapters: one registry entry each, in the order messages, ``init --adapter`` and the
suite schema's description list them. Adding a builtin is its program in ``run/adapters/`` and
one entry here (docs/architecture.md, "Where to add").

The agent CLIs' descriptions sit here, not beside their programs, because validate's preflight
and the fast path read them without importing a program; each program reads its own from here.
"""

from __future__ import annotations

from skill_eval.model.builtins.clidesc import AgentCli
from skill_eval.model.builtins.descriptor import ADAPTERS, AdapterDescriptor

_PACKAGE = "skill_eval.run.adapters"

# The adapter points HOME and CLAUDE_CONFIG_DIR into the workspace, so the CLI's own login
# (~/.claude/.credentials.json or the macOS keychain, the account in ~/.claude.json) is never read
# in a run: a run authenticates from its environment.
CLAUDE_CLI = AgentCli(
    product="Claude Code", binary="claude", bin_option="claude_bin", oldest="2.1.245",
    install="curl -fsSL https://claude.ai/install.sh | bash, or npm install -g @anthropic-ai/claude-code",
    upgrade="claude update, or npm install -g @anthropic-ai/claude-code@latest",
    keys=("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"),
    providers=("CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "CLAUDE_CODE_USE_FOUNDRY"),
    login_note="a run never reads the CLI's own login in ~/.claude (its HOME is the workspace's); "
               "for a subscription, pass CLAUDE_CODE_OAUTH_TOKEN from `claude setup-token`",
)
# CODEX_HOME is the workspace's: the saved login of `codex login` (~/.codex/auth.json) is never
# read in a run.
CODEX_CLI = AgentCli(
    product="Codex", binary="codex", bin_option="codex_bin", oldest="0.153.3",
    install="npm install -g @openai/codex", upgrade="npm install -g @openai/codex@latest",
    keys=("CODEX_API_KEY",), key_option="env_key",
    login_note="a run never reads the saved login of `codex login` (its CODEX_HOME is the workspace's)",
)
# HOME is the workspace's: a login or key saved in ~/.gemini is never read in a run.
GEMINI_CLI = AgentCli(
    product="Gemini CLI", binary="gemini", bin_option="gemini_bin", oldest="0.61.0",
    install="npm install -g @google/gemini-cli", upgrade="npm install -g @google/gemini-cli@latest",
    keys=("GEMINI_API_KEY",), key_option="env_key", npm="@google/gemini-cli",
    login_note="a run never reads a login saved in ~/.gemini (its HOME is the workspace's)",
)
# With base_url the key is env_key's (default OPENAI_API_KEY); without it OpenCode's own providers
# read their own variables, named in env.
OPENCODE_CLI = AgentCli(
    product="OpenCode", binary="opencode", bin_option="opencode_bin", oldest="1.18.33",
    install="npm install -g opencode-ai", upgrade="npm install -g opencode-ai@latest",
    keys=("OPENAI_API_KEY",), key_option="env_key", npm="opencode-ai",
    login_note="a run never reads OpenCode's saved auth (its HOME and XDG folders are the workspace's)",
)
# VIBE_HOME is the workspace's and the keyring is off: a key saved by `vibe --setup`
# (~/.vibe/.env, the keyring) is never read in a run.
VIBE_CLI = AgentCli(
    product="Mistral Vibe", binary="vibe", bin_option="vibe_bin", oldest="3.0.2",
    install="pip install mistral-vibe (Python >= 3.12, in a venv of its own)",
    upgrade="pip install --upgrade mistral-vibe", keys=("MISTRAL_API_KEY",), key_option="env_key",
    pypi="mistral_vibe", version_prefix="vibe ",
    login_note="a run never reads a key saved by `vibe --setup` (its VIBE_HOME is the workspace's)",
)

ADAPTERS.add(AdapterDescriptor("demo", f"{_PACKAGE}.demo"))
ADAPTERS.add(AdapterDescriptor("replay", f"{_PACKAGE}.replay"))
ADAPTERS.add(AdapterDescriptor(
    "claude-code", f"{_PACKAGE}.claude_code", aliases=("claude_code",), cli=CLAUDE_CLI,
    applies_settings=True, loads_plugin=True, judge=True, completion_judge=True,
    init_block="  builtin: claude-code              # `claude` on PATH\n  env: [ANTHROPIC_API_KEY]"))
ADAPTERS.add(AdapterDescriptor(
    "codex", f"{_PACKAGE}.codex", cli=CODEX_CLI, own_tools=True, no_plugins=True, judge=True,
    init_block="  builtin: codex                    # `codex` on PATH\n  env: [CODEX_API_KEY]"))
ADAPTERS.add(AdapterDescriptor(
    "gemini", f"{_PACKAGE}.gemini", cli=GEMINI_CLI, own_tools=True,
    init_block="  builtin: gemini                   # `gemini` on PATH (Gemini CLI)\n"
               "  env: [GEMINI_API_KEY]"))
ADAPTERS.add(AdapterDescriptor(
    "opencode", f"{_PACKAGE}.opencode", cli=OPENCODE_CLI, own_tools=True,
    init_block="  builtin: opencode                 # `opencode` on PATH\n  env: [OPENAI_API_KEY]\n"
               "  options: {base_url: \"https://api.openai.com/v1\", model: gpt-4o-mini}"))
ADAPTERS.add(AdapterDescriptor(
    "vibe", f"{_PACKAGE}.vibe", cli=VIBE_CLI, own_tools=True,
    init_block="  builtin: vibe                     # `vibe` on PATH (Mistral Vibe)\n"
               "  env: [MISTRAL_API_KEY]"))
ADAPTERS.add(AdapterDescriptor(
    "openai", f"{_PACKAGE}.openai_compat", aliases=("openai_compat",), no_plugins=True, judge=True,
    completion_judge=True,
    init_block="  builtin: openai                   # any OpenAI-compatible endpoint\n"
               "  env: [OPENAI_API_KEY, OPENAI_BASE_URL]\n  options: {model: gpt-4o-mini}"))
