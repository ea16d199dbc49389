"""The report rendered: tables as text cells, the list of sections, JSON, Markdown, HTML, LaTeX,
charts, static figures, the methods paragraph."""
