"""Settings → Connected apps: the other AI tools on this computer that read the journal's memories,
what each may do, what they asked, and how to connect one."""
