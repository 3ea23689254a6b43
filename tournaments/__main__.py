from tournaments.cli import main

main()
