"""Deletion-only unified diffs: what a harness `patch` ablation may remove, and what it refuses."""

from __future__ import annotations

from skill_eval.model.ablation.patch import apply, parse

TEXT = "# Skill\n\n## Rules\n\nLabel every finding.\nCite the line.\n\n## Tone\n\nBe kind.\n"

PATCH = """\
--- a/SKILL.md
+++ b/SKILL.md
@@ -4,4 +4,3 @@

 Label every finding.
-Cite the line.

"""


def test_a_deletion_only_patch_removes_its_lines():
    files, problems = parse(PATCH)
    assert problems == [] and list(files) == ["SKILL.md"]
    out, error = apply(TEXT, files["SKILL.md"])
    assert error is None
    assert out == TEXT.replace("Cite the line.\n", "")


def test_a_patch_that_moved_is_found_once_and_crlf_is_kept():
    files, _ = parse(PATCH.replace("@@ -4,4 +4,3 @@", "@@ -1,4 +1,3 @@"))
    out, error = apply(TEXT.replace("\n", "\r\n"), files["SKILL.md"])
    assert error is None and out == TEXT.replace("Cite the line.\n", "").replace("\n", "\r\n")


def test_a_patch_that_adds_text_is_a_substitution_and_refused():
    _, problems = parse(PATCH.replace("-Cite the line.\n", "-Cite the line.\n+Cite the file.\n"))
    assert any("adds text" in p and "substitution" in p for p in problems)


def test_a_patch_that_no_longer_fits_is_refused():
    files, _ = parse(PATCH.replace("Cite the line.", "Cite the page."))
    out, error = apply(TEXT, files["SKILL.md"])
    assert out is None and "matches nowhere" in error
    ambiguous = "a\nx\na\nx\n"
    files, _ = parse("--- a/f\n+++ b/f\n@@ -9,2 +9,1 @@\n a\n-x\n")
    out, error = apply(ambiguous, files["f"])
    assert out is None and "in 2 places" in error


def test_a_patch_without_a_diff_or_deleting_nothing_is_refused():
    assert parse("just text\n")[1] == ["no '--- a/<file>' / '+++ b/<file>' diff in it"]
    assert any("deletes nothing" in p for p in parse("--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n a\n")[1])
