"""What a plugin-eval judge sees of a run (grade/focus.py): each focus's text, the 12 + 12 window."""

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from skill_eval.grade.checks.shared.context import CheckContext
from skill_eval.grade.focus import focus_text, window

_LINE = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), min_size=1).filter(
    lambda s: s.strip() != "")


@given(st.lists(_LINE, max_size=60))
def test_the_window_keeps_the_first_and_last_twelve_lines_and_counts_the_rest(lines: list[str]):
    shown = window("\n".join(lines) + "\n").split("\n") if lines else []
    if len(lines) <= 24:
        assert shown == lines
    else:
        assert shown[:12] == lines[:12] and shown[-12:] == lines[-12:]
        assert shown[12] == f"[…{len(lines) - 24} messages elided…]" and len(shown) == 25


def test_blank_lines_are_not_counted():
    assert window("\n{\"a\":1}\n\n  \n{\"b\":2}\n") == '{"a":1}\n{"b":2}'


def test_last_message_and_a_kept_file_are_judged_as_text(tmp_path: Path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "made.txt").write_text("hello file\n")
    (tmp_path / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    ctx = CheckContext(output="Total: 42", files_dir=tmp_path)
    assert focus_text("last_message", ctx).text == "Total: 42"
    made = focus_text("file:sub/made.txt", ctx)
    assert (made.label, made.text) == ("file sub/made.txt", "hello file\n")
    gone = focus_text("file:nothere.txt", ctx)
    assert gone.text is None and "does not exist" in gone.why
    binary = focus_text("file:pic.png", ctx)
    assert binary.text is None and "not UTF-8 text" in binary.why


def test_run_data_a_run_does_not_keep_is_not_judged():
    ctx = CheckContext(output="x")
    for name in ("trace", "mock_calls"):
        found = focus_text(name, ctx)
        assert found.label == name and found.text is None and found.why
    # No created-file list and no kept files: nothing was created, as plugin eval shows it.
    assert focus_text("files", ctx).text == "(no file changes)"


def test_created_files_and_last_message_come_from_the_run_record(tmp_path: Path):
    session = tmp_path / "session.jsonl"
    session.write_text('{"type":"assistant","message":{"content":[{"type":"text","text":"first"}]}}\n'
                       '{"type":"assistant","message":{"content":[{"type":"text","text":"Total: 42"}]}}\n')
    ctx = CheckContext(output="ignored", session_path=session, created=("a.txt", "b/c.md"))
    assert focus_text("files", ctx).text == "a.txt\nb/c.md"
    assert focus_text("last_message", ctx).text == "Total: 42"
    assert focus_text("trace", ctx).text == session.read_text().strip()


def test_mock_calls_are_shown_one_json_line_each_as_the_first_party_judge_sees_them():
    calls = ({"tool": "mcp__plugin_p_notes__lookup", "input": {"id": "7"}, "output": "NOTE-ANSWER 7",
              "verdict": "ok"},
             {"tool": "mcp__plugin_p_notes__lookup", "input": {"id": "7"}, "output": "NOTE 7 IS GONE",
              "isError": True, "verdict": "tool_error"})
    # The lines claude plugin eval 2.1.332 showed its judge for these two calls (no session kept:
    # read from the mock servers' own record).
    assert focus_text("mock_calls", CheckContext(output="", mock_calls=calls)).text == (
        '{"tool":"mcp__plugin_p_notes__lookup","input":{"id":"7"},"output":"NOTE-ANSWER 7","verdict":"ok"}\n'
        '{"tool":"mcp__plugin_p_notes__lookup","input":{"id":"7"},"output":"NOTE 7 IS GONE","isError":true,'
        '"verdict":"tool_error"}')


def test_a_focus_file_that_resolves_outside_the_workspace_is_not_judged(tmp_path: Path):
    files = tmp_path / "files"
    files.mkdir()
    secret = tmp_path / "outside.txt"
    secret.write_text("not the run's\n")
    (files / "link.txt").symlink_to(secret)
    found = focus_text("file:link.txt", CheckContext(output="", files_dir=files))
    assert found.text is None and "outside the run's workspace" in found.why
