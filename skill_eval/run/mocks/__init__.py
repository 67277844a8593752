"""A run's mocked MCP servers (``claude plugin eval``'s mocks): ``served`` (their private folder,
the request's ``mcp_servers``, what they recorded), ``server`` (one mocked server, ``python -m``,
on the MCP SDK), ``play`` (an agent-mock call: replay or the judge), ``relay`` (the Unix socket
through which agent mocks ask the suite's judge). Imported by run's runner and remote."""
