"""Unit tests of the agent runtime: function mapping and the prompt builder."""
