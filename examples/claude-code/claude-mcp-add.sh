#!/bin/sh
# Register QuadGuard with Claude Code. Flags go before the name; "--" separates the stdio command.
# stdio (project scope, written to .mcp.json):
claude mcp add --transport stdio --scope project guard -- node ./dist/cli/quadguard.js serve --config ./examples/quadguard.config.yaml --agent desktop
# one guarded server without a config file:
claude mcp add --transport stdio guarded-fs -- node ./dist/cli/quadguard.js wrap --name fs -- npx -y @modelcontextprotocol/server-filesystem "$PWD"
# Streamable HTTP (start it first: PLANNER_TOKEN=... quadguard serve --config examples/quadguard.config.yaml --http 8787):
claude mcp add --transport http guard-http http://127.0.0.1:8787/mcp --header "Authorization: Bearer $PLANNER_TOKEN"
# legacy SSE:
claude mcp add --transport sse guard-sse http://127.0.0.1:8787/sse --header "Authorization: Bearer $PLANNER_TOKEN"
