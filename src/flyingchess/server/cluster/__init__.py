"""Several server processes over Redis: who owns which room, messages between processes, and rooms that move between them."""
