"""RQ jobs and the bots that play AI turns (arrives with the bots issue)."""
