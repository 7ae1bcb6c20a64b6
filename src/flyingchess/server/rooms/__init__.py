"""A game's room: its session (the state and its storage), the seats and who holds them, the pages watching it, the die."""
