"""What the check types share and none of them owns: what a check sees of a run and says back
(``context``), a kept file's safe path (``kept``), a check's patterns compiled (``patterns``),
plugin eval's ``mock_calls`` text (``plugin_mocks``), and the check type's descriptor with the
eval-set schema generated from descriptors (``checktype``). Imported by the check modules of
grade/checks/ and the rest of grade; it imports none of the check modules, which are independent
of each other (both are contracts in pyproject.toml)."""
