import hashlib
import os

from skill_eval.plan.adapter import ResolvedAdapter
from skill_eval.run.workspace import prepare_workspace


def _tree(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_fixtures_identical_and_skill_only_with_skill(run_setup):
    _, spec = run_setup(["true"])
    with_ws = prepare_workspace(spec("with_skill"))
    without_ws = prepare_workspace(spec("without_skill"))
    try:
        a = (with_ws.path / "inputs" / "data.txt").read_bytes()
        b = (without_ws.path / "inputs" / "data.txt").read_bytes()
        assert a == b == b"fixture \x00 bytes\r\n"
        assert with_ws.files == without_ws.files == (
            {"path": "inputs/data.txt", "sha256": hashlib.sha256(a).hexdigest()},)
        assert with_ws.skill_rel == "skills/demo-skill" and without_ws.skill_rel is None
        skill = with_ws.path / "skills" / "demo-skill"
        assert (skill / "SKILL.md").is_file() and (skill / "references" / "guide.md").is_file()
        assert not (skill / "evals").exists()
        assert not any("evals" in p for p in _tree(with_ws.path))
        assert not (without_ws.path / "skills").exists()
        for ws in (with_ws, without_ws):
            assert (ws.outputs).is_dir() and not any(ws.outputs.iterdir())
    finally:
        with_ws.remove()
        without_ws.remove()
    assert not with_ws.path.exists() and not without_ws.path.exists()


def test_env_is_minimal(run_setup, monkeypatch):
    _, spec = run_setup(["true"])
    monkeypatch.setenv("ALLOWED_VAR", "yes")
    monkeypatch.setenv("SECRET_NOT_ALLOWED", "no")
    ws = prepare_workspace(spec())
    try:
        adapter = ResolvedAdapter("x", ("true",), env_names=("ALLOWED_VAR", "UNSET_VAR_XYZ"),
                                  extra_env={"FIXED": "1"})
        env = ws.env(adapter)
        assert set(env) == {"PATH", "HOME", "LANG", "TMPDIR", "ALLOWED_VAR", "FIXED"}
        assert env["HOME"] == str(ws.path / "home") and os.path.isdir(env["HOME"])
        assert env["TMPDIR"].startswith(str(ws.path)) and env["LANG"] == "C.UTF-8"
    finally:
        ws.remove()
