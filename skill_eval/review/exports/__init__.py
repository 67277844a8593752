"""Exports to other tools' layouts: skill-creator and agentskills workspaces, claude plugin eval
suites. Imported only by cli."""
