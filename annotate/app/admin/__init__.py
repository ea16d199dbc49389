"""The admin pages and their pieces (Studies: plan, rules, files)."""
