"""What the check types share and none of them owns: what a check sees of a run and says back
(``context``), a kept file's safe path (``kept``), plugin eval's ``mock_calls`` text
(``plugin_mocks``). Imported by the check modules of grade/checks/ and the rest of grade; it
imports none of the check modules (they are independent of each other, pyproject.toml)."""
