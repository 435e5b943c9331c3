"""Domain values: cards, decks, games, errors. Stdlib only; every other layer builds on it."""
