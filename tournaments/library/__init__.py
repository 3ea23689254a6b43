"""The library under the command line: a tournament, a match and a verification as one call each, with plain Python
arguments, returning result objects and printing nothing (docs/library.md). `tourney run`, `tourney match` and
`tourney replay verify` parse their options, call one of these, and print what it returns."""
