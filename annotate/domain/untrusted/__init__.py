"""Reading untrusted values: the checks every text and number from outside passes (a dataset's
records, a study's settings file), and JSON/YAML readers that cap nesting and size before the
parser can recurse or allocate."""
