"""The composition root: builds the table daemon from a config (sources, controller, journal,
publisher) and runs it. Every other module receives its collaborators as arguments."""
