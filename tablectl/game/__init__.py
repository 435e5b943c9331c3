"""The rules engine, sans-IO: variants, betting, pots, showdown, hand evaluation."""
