"""The report's shape, shared by every layer above it: the report's typed dicts
(one module per section), a table as text cells, short labels and the palette, JSON conversion."""
