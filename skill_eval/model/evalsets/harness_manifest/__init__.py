"""The skill-eval-harness dialect: its manifest reader, its assertions and its ablations block.
Imported by the evalsets registry."""
