"""Other apps on the user's machine: connected apps (MCP) with their grants and log, their access key, what they see, their suggestions."""
