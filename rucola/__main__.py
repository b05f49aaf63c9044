from rucola.cli import main

main()
