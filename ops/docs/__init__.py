"""The docs' generated pages and the checks that keep them equal to the code."""
