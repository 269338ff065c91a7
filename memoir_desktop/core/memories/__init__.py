"""The user's memories: mem0's calls, the user's own actions, proposals, suggestions, tidying."""
