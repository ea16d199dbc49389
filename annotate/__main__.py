from annotate.cli import main

main()
